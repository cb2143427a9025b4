#include "checkpoint.hpp"

#include <unistd.h>

#include <cstring>
#include <fstream>

#include "cascadekit/trainer/trainer.hpp"

namespace cascadekit::detail {

namespace {
constexpr char kMagic[8] = {'C', 'K', 'T', 'R', 'N', 'S', 'T', '1'};

class Out {
public:
    template <class T>
    void pod(const T& v) {
        const char* p = reinterpret_cast<const char*>(&v);
        buf_.insert(buf_.end(), p, p + sizeof(T));
    }
    void str(const std::string& s) {
        pod<std::uint64_t>(s.size());
        buf_.insert(buf_.end(), s.begin(), s.end());
    }
    template <class T>
    void vec(const std::vector<T>& v) {
        pod<std::uint64_t>(v.size());
        for (const T& x : v) pod(x);
    }
    void stage(const HogSvmStage& s) {
        pod<std::int32_t>(s.vote == VoteMode::Binary ? 0 : 1);
        pod(s.threshold);
        vec(s.learners);
    }
    const std::vector<char>& bytes() const { return buf_; }

private:
    std::vector<char> buf_;
};

class In {
public:
    In(std::vector<char> b, std::filesystem::path file) : buf_(std::move(b)), file_(std::move(file)) {}
    template <class T>
    T pod() {
        if (pos_ + sizeof(T) > buf_.size()) fail();
        T v;
        std::memcpy(&v, buf_.data() + pos_, sizeof(T));
        pos_ += sizeof(T);
        return v;
    }
    std::string str() {
        const auto n = pod<std::uint64_t>();
        if (n > buf_.size() - pos_) fail();
        std::string s(buf_.data() + pos_, n);
        pos_ += n;
        return s;
    }
    template <class T>
    std::vector<T> vec() {
        const auto n = pod<std::uint64_t>();
        if (n > (buf_.size() - pos_) / sizeof(T)) fail();
        std::vector<T> v(n);
        for (auto& x : v) x = pod<T>();
        return v;
    }
    HogSvmStage stage() {
        HogSvmStage s;
        s.vote = pod<std::int32_t>() == 0 ? VoteMode::Binary : VoteMode::Margin;
        s.threshold = pod<float>();
        s.learners = vec<HogLearner>();
        return s;
    }
    bool at_end() const { return pos_ == buf_.size(); }
    [[noreturn]] void fail() const { throw TrainError(file_.string() + ": checkpoint is truncated or corrupt"); }

private:
    std::vector<char> buf_;
    std::filesystem::path file_;
    std::size_t pos_ = 0;
};
}  // namespace

void write_checkpoint(const Checkpoint& c, const std::filesystem::path& file) {
    Out o;
    for (char ch : kMagic) o.pod(ch);
    o.pod(c.fingerprint);
    o.str(c.created_utc);
    o.pod<std::uint64_t>(c.stages.size());
    for (const auto& s : c.stages) o.stage(s);
    o.stage(c.current);
    o.vec(c.weights);
    o.vec(c.negatives);
    o.pod(c.cascade_fp_rate);
    o.pod(c.seconds);
    o.pod(c.mining_seconds);
    o.pod(c.rounds);
    o.pod<std::uint8_t>(c.finished);
    o.pod<std::uint8_t>(c.exhausted);
    o.str(c.stop_reason);
    std::filesystem::path tmp = file;
    tmp += ".tmp-" + std::to_string(::getpid());
    {
        std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
        f.write(o.bytes().data(), static_cast<std::streamsize>(o.bytes().size()));
        f.flush();
        if (!f) throw TrainError(file.string() + ": cannot write checkpoint");
    }
    std::error_code ec;
    std::filesystem::rename(tmp, file, ec);
    if (ec) throw TrainError(file.string() + ": cannot move checkpoint into place: " + ec.message());
}

Checkpoint read_checkpoint(const std::filesystem::path& file) {
    std::ifstream f(file, std::ios::binary);
    if (!f) throw TrainError(file.string() + ": no checkpoint to resume from");
    std::vector<char> bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
    In in(std::move(bytes), file);
    for (char ch : kMagic)
        if (in.pod<char>() != ch) throw TrainError(file.string() + ": not a cascadekit training checkpoint");
    Checkpoint c;
    c.fingerprint = in.pod<std::uint64_t>();
    c.created_utc = in.str();
    const auto n = in.pod<std::uint64_t>();
    if (n > 100000) in.fail();
    for (std::uint64_t i = 0; i < n; ++i) c.stages.push_back(in.stage());
    c.current = in.stage();
    c.weights = in.vec<double>();
    c.negatives = in.vec<WindowRef>();
    c.cascade_fp_rate = in.pod<double>();
    c.seconds = in.pod<double>();
    c.mining_seconds = in.pod<double>();
    c.rounds = in.pod<std::uint64_t>();
    c.finished = in.pod<std::uint8_t>() != 0;
    c.exhausted = in.pod<std::uint8_t>() != 0;
    c.stop_reason = in.str();
    if (!in.at_end()) in.fail();
    return c;
}

}  // namespace cascadekit::detail
