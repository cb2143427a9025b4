#pragma once
// A cascade stage of any kind, as a value. A stage kind is a struct derived from
// StageKind<Itself> with a `static constexpr std::string_view kKind` (its schema name, e.g.
// "hog_svm"), its data, operator== and the virtual members below; model/ needs no list of kinds.
// The other layers find a kind's code by that name (runtime: CPU evaluator, CUDA launcher; io:
// file codec; trainer: stage trainer), each through one registration line (docs/architecture.md).
//
// Thread safety: a const Stage may be read from any number of threads. Copies share their data
// until one is changed through get_if/as (copy on write), so copying a model is cheap.
#include <cmath>
#include <cstddef>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <typeinfo>

namespace cascadekit {

struct CascadeModel;

// A model that breaks an invariant. what() starts with the schema path of the offending value
// (as in docs/model-file.md, e.g. "/stages/003/weights[2][7]") followed by ": " and the problem.
class ModelError : public std::runtime_error {
public:
    ModelError(std::string path, const std::string& problem)
        : std::runtime_error(path + ": " + problem), path_(std::move(path)) {}
    const std::string& path() const { return path_; }

private:
    std::string path_;
};

// What every stage kind implements.
class StageBase {
public:
    virtual ~StageBase() = default;
    virtual std::string_view kind() const = 0;     // schema name, e.g. "hog_svm"
    virtual std::string_view feature() const = 0;  // the feature family it reads, e.g. "hog", "lbp"
    virtual std::size_t size() const = 0;          // weak learners (learners, weak classifiers)
    // Throws ModelError (paths under `path`, e.g. "/stages/003") when the stage breaks one of its
    // kind's invariants inside `model` (window size, feature parameters). Called by validate_model
    // after the model-wide checks, so the window is known to be sane.
    virtual void validate(const CascadeModel& model, const std::string& path) const = 0;
    virtual bool equals(const StageBase& other) const = 0;
    virtual std::unique_ptr<StageBase> clone() const = 0;
};

// CRTP helper: kind(), equals() and clone() from Derived::kKind, operator== and the copy constructor.
template <class Derived>
class StageKind : public StageBase {
public:
    std::string_view kind() const override { return Derived::kKind; }
    bool equals(const StageBase& other) const override {
        const auto* o = dynamic_cast<const Derived*>(&other);
        return o != nullptr && *o == static_cast<const Derived&>(*this);
    }
    std::unique_ptr<StageBase> clone() const override {
        return std::make_unique<Derived>(static_cast<const Derived&>(*this));
    }
};

class Stage {
public:
    // Any stage kind, by value.
    template <class T>
        requires std::is_base_of_v<StageBase, T>
    Stage(T stage) : p_(std::make_shared<T>(std::move(stage))) {}

    std::string_view kind() const { return p_->kind(); }
    std::string_view feature() const { return p_->feature(); }
    std::size_t size() const { return p_->size(); }
    const StageBase& base() const { return *p_; }

    template <class T>
    bool is() const {
        return dynamic_cast<const T*>(p_.get()) != nullptr;
    }
    template <class T>
    const T* get_if() const {
        return dynamic_cast<const T*>(p_.get());
    }
    // Mutable access: copies the data first when another Stage shares it.
    template <class T>
    T* get_if() {
        if (!is<T>()) return nullptr;
        if (p_.use_count() > 1) p_ = std::shared_ptr<StageBase>(p_->clone());
        return static_cast<T*>(p_.get());
    }
    // Throws std::bad_cast when the stage is of another kind.
    template <class T>
    const T& as() const {
        if (const T* t = get_if<T>()) return *t;
        throw std::bad_cast();
    }
    template <class T>
    T& as() {
        if (T* t = get_if<T>()) return *t;
        throw std::bad_cast();
    }

    friend bool operator==(const Stage& a, const Stage& b) { return a.p_->equals(*b.p_); }

private:
    std::shared_ptr<StageBase> p_;
};

// Bounds no trained model comes near, so a crafted or damaged model cannot pass with values that
// make the detector meaningless or its memory unbounded (docs/model-file.md, "Checks").
inline constexpr std::size_t kMaxStages = 4096;
inline constexpr std::size_t kMaxStageSize = 100000;  // learners or weak classifiers in one stage
inline constexpr float kMaxModelMagnitude = 1e6f;     // |weight|, |bias|, |α|, |response|, |threshold|

// Schema path of stage i, "/stages/003".
std::string stage_path(std::size_t index);

// Helpers for StageBase::validate implementations: each throws ModelError at `path`.
std::string index_path(const std::string& dataset, std::size_t i);  // "dataset[i]"
void require_finite(float value, const std::string& path);
void require_bounded(float value, const std::string& path);  // finite, |value| <= kMaxModelMagnitude
// The same with the path built by path() only when the value fails, for loops over a stage's
// values: building every value's path took 50 ms a validation of a 2048-table WaldBoost sequence,
// and every detector validates its model.
template <class PathFn>
    requires std::is_invocable_r_v<std::string, PathFn>
void require_bounded(float value, PathFn&& path) {
    if (!std::isfinite(value) || std::fabs(value) > kMaxModelMagnitude) require_bounded(value, std::string(path()));
}

}  // namespace cascadekit
