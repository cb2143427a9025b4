#pragma once
// Internal: each stage kind's trainer, listed once in stage_trainers.cpp.
#include <string>

#include "cascadekit/io/byte_codec.hpp"
#include "cascadekit/io/stage_codec.hpp"
#include "cascadekit/trainer/stage_trainer.hpp"

namespace cascadekit {

// A stage trainer's stage from its checkpoint state: decodes a stage record, requires kind S, and
// checks it against the configuration's window and HoG parameters when it holds any learner.
// Throws ByteCodecError (wrong kind, damaged record) or ModelError.
template <class S>
S restore_stage(ByteReader& in, const TrainConfig& cfg) {
    const Stage s = decode_stage(in);
    const S* typed = s.get_if<S>();
    if (typed == nullptr)
        throw ByteCodecError("the stage in training is a " + std::string(s.kind()) + " stage, not " + std::string(S::kKind));
    if (typed->size() > 0) {
        CascadeModel m;
        m.window_width = cfg.window.width;
        m.window_height = cfg.window.height;
        m.hog = cfg.hog;
        typed->validate(m, "the stage in training");
    }
    return *typed;
}

StageTrainerKind hog_svm_trainer_kind();        // stages/hog_svm_trainer.cpp
StageTrainerKind waldboost_lbp_trainer_kind();  // stages/waldboost_lbp_trainer.cpp

}  // namespace cascadekit
