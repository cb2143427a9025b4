#pragma once
// Internal: each stage kind's CPU evaluation, listed once in stage_kinds.cpp.
#include "cascadekit/runtime/window_evaluator.hpp"

namespace cascadekit {

CpuStageKind hog_svm_cpu_kind();        // stages/hog_svm.cpp
CpuStageKind waldboost_lbp_cpu_kind();  // stages/waldboost_lbp.cpp

}  // namespace cascadekit
