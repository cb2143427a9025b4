// The stage kinds the CUDA backend runs: one line per kind.
#include "cascadekit/model/kind_registry.hpp"
#include "stage_kinds.cuh"

namespace cascadekit::cuda {

const CudaStageKind* find_cuda_stage_kind(std::string_view kind) {
    static const KindRegistry<CudaStageKind> registry{
        hog_svm_cuda_kind(),
        waldboost_lbp_cuda_kind(),
    };
    return registry.find(kind);
}

}  // namespace cascadekit::cuda
