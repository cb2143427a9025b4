#pragma once
// Internal: each stage kind's trainer, listed once in stage_trainers.cpp.
#include "cascadekit/trainer/stage_trainer.hpp"

namespace cascadekit {

StageTrainerKind hog_svm_trainer_kind();        // stages/hog_svm_trainer.cpp
StageTrainerKind waldboost_lbp_trainer_kind();  // stages/waldboost_lbp_trainer.cpp

}  // namespace cascadekit
