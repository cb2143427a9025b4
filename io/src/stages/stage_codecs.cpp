// The stage kinds model files hold: one line per kind.
#include "cascadekit/model/kind_registry.hpp"
#include "stage_codecs.hpp"

namespace cascadekit {

namespace {
KindRegistry<StageCodec>& registry() {
    static KindRegistry<StageCodec> r{
        hog_svm_codec(),
        waldboost_lbp_codec(),
    };
    return r;
}
}  // namespace

void register_stage_codec(StageCodec codec) { registry().register_kind(std::move(codec)); }
const StageCodec* find_stage_codec(std::string_view kind) { return registry().find(kind); }
std::string known_stage_kinds() { return registry().names(); }

void append_rect(std::vector<std::int32_t>& t, const Rect& r) { t.insert(t.end(), {r.x, r.y, r.w, r.h}); }

Rect rect_at(const std::vector<std::int32_t>& t, std::size_t i) { return {t[4 * i], t[4 * i + 1], t[4 * i + 2], t[4 * i + 3]}; }

}  // namespace cascadekit
