// The stage kinds the trainer trains: one line per kind.
#include "cascadekit/model/kind_registry.hpp"
#include "stage_trainers.hpp"

namespace cascadekit {

namespace {
KindRegistry<StageTrainerKind>& registry() {
    static KindRegistry<StageTrainerKind> r{
        hog_svm_trainer_kind(),
        waldboost_lbp_trainer_kind(),
        hog_dense_trainer_kind(),
    };
    return r;
}
}  // namespace

void register_stage_trainer(StageTrainerKind kind) { registry().register_kind(std::move(kind)); }
const StageTrainerKind* find_stage_trainer(std::string_view kind) { return registry().find(kind); }
std::string known_stage_trainers() { return registry().names(); }

}  // namespace cascadekit
