// The stage kinds the CPU backend runs: one line per kind.
#include "cascadekit/model/kind_registry.hpp"
#include "stage_kinds.hpp"

namespace cascadekit {

namespace {
KindRegistry<CpuStageKind>& registry() {
    static KindRegistry<CpuStageKind> r{
        hog_svm_cpu_kind(),
        waldboost_lbp_cpu_kind(),
    };
    return r;
}
}  // namespace

void register_cpu_stage_kind(CpuStageKind kind) { registry().register_kind(std::move(kind)); }
const CpuStageKind* find_cpu_stage_kind(std::string_view kind) { return registry().find(kind); }

}  // namespace cascadekit
