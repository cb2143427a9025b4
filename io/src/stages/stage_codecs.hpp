#pragma once
// Internal: each stage kind's codec, listed once in stage_codecs.cpp.
#include "cascadekit/io/stage_codec.hpp"

namespace cascadekit {

StageCodec hog_svm_codec();        // stages/hog_svm.cpp
StageCodec waldboost_lbp_codec();  // stages/waldboost_lbp.cpp

}  // namespace cascadekit
