// io/: the HDF5 model file. Every corruption is built in the test and must be named in the error.
#include <gtest/gtest.h>
#include <hdf5.h>

#include <cmath>
#include <cstring>
#include <random>
#include <sys/stat.h>
#include <fstream>
#include <functional>
#include <iterator>

#include "cascadekit/io/model_file.hpp"
#include "model_edit.hpp"
#include "test_support.hpp"

using namespace cascadekit;
using namespace cascadekit::test;
namespace fs = std::filesystem;

namespace {

CascadeModel full_model() {
    CascadeModel m = random_model(21, 3, 4, 5);
    m.hog = {BlockNorm::L2Hys, 0.75f, 0.25f};
    m.stages[1].as<HogSvmStage>().threshold = 1.25f;
    m.stages[1].as<HogSvmStage>().learners[0].weights[3] = -0.0f;  // signed zero must survive
    m.metadata = {"seed: 7\nd_min: 0.99\n", "INRIA Person, 2416 crops", "2026-11-22T10:00:00Z", "0.1.0"};
    return m;
}

std::vector<char> file_bytes(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// Bitwise comparison of every float (operator== would equate -0 and 0).
template <class T>
bool same_bits(const T& a, const T& b) { return std::memcmp(&a, &b, sizeof(T)) == 0; }

void expect_bit_identical(const CascadeModel& a, const CascadeModel& b) {
    ASSERT_EQ(a, b);
    ASSERT_EQ(a.stages.size(), b.stages.size());
    for (std::size_t s = 0; s < a.stages.size(); ++s) {
        if (const auto* ha = a.stages[s].get_if<HogSvmStage>()) {
            const auto& hb = b.stages[s].as<HogSvmStage>();
            EXPECT_TRUE(same_bits(ha->threshold, hb.threshold));
            EXPECT_TRUE(same_bits(ha->carry, hb.carry));
            for (std::size_t i = 0; i < ha->learners.size(); ++i) {
                EXPECT_TRUE(same_bits(ha->learners[i].weights, hb.learners[i].weights));
                EXPECT_TRUE(same_bits(ha->learners[i].bias, hb.learners[i].bias));
                EXPECT_TRUE(same_bits(ha->learners[i].alpha, hb.learners[i].alpha));
            }
        } else {
            const auto& wa = a.stages[s].as<WaldBoostLbpStage>();
            const auto& wb = b.stages[s].as<WaldBoostLbpStage>();
            for (std::size_t i = 0; i < wa.weak.size(); ++i) {
                EXPECT_TRUE(same_bits(wa.weak[i].responses, wb.weak[i].responses));
                EXPECT_TRUE(same_bits(wa.weak[i].reject_threshold, wb.weak[i].reject_threshold));
            }
        }
    }
}

void edit(const fs::path& p, const std::function<void(hid_t)>& damage) { ASSERT_TRUE(edit_model_file(p, damage)); }

void set_int_attr(hid_t obj, const char* name, int v) {
    H5Adelete(obj, name);
    hid_t sp = H5Screate(H5S_SCALAR);
    hid_t a = H5Acreate2(obj, name, H5T_STD_I32LE, sp, H5P_DEFAULT, H5P_DEFAULT);
    H5Awrite(a, H5T_NATIVE_INT, &v);
    H5Aclose(a);
    H5Sclose(sp);
}

void set_float_attr(hid_t obj, const char* name, float v) {
    H5Adelete(obj, name);
    hid_t sp = H5Screate(H5S_SCALAR);
    hid_t a = H5Acreate2(obj, name, H5T_IEEE_F32LE, sp, H5P_DEFAULT, H5P_DEFAULT);
    H5Awrite(a, H5T_NATIVE_FLOAT, &v);
    H5Aclose(a);
    H5Sclose(sp);
}

// Fixed-length as the writer stores them, or variable-length (refused by schema 2).
void set_string_attr(hid_t obj, const char* name, const char* v, bool variable = false) {
    H5Adelete(obj, name);
    hid_t t = H5Tcopy(H5T_C_S1);
    H5Tset_size(t, variable ? H5T_VARIABLE : std::strlen(v));
    hid_t sp = H5Screate(H5S_SCALAR);
    hid_t a = H5Acreate2(obj, name, t, sp, H5P_DEFAULT, H5P_DEFAULT);
    if (variable) H5Awrite(a, t, &v);
    else H5Awrite(a, t, v);
    H5Aclose(a);
    H5Sclose(sp);
    H5Tclose(t);
}

// Replaces a dataset by one of the given shape and values.
template <class T>
void replace_dataset(hid_t f, const char* path, std::vector<hsize_t> dims, const std::vector<T>& values) {
    H5Ldelete(f, path, H5P_DEFAULT);
    hid_t sp = H5Screate_simple(static_cast<int>(dims.size()), dims.data(), nullptr);
    const bool fl = std::is_same_v<T, float>;
    hid_t d = H5Dcreate2(f, path, fl ? H5T_IEEE_F32LE : H5T_STD_I32LE, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    if (!values.empty()) H5Dwrite(d, fl ? H5T_NATIVE_FLOAT : H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data());
    H5Dclose(d);
    H5Sclose(sp);
}

class ModelFile : public ::testing::Test {
protected:
    void SetUp() override {
        dir_ = scratch_dir(::testing::UnitTest::GetInstance()->current_test_info()->name());
        path_ = dir_ / "model.h5";
        // stages: 000 waldboost_lbp, 001..003 hog_svm with 4 learners each
        save_model(full_model(), path_);
    }
    // Loads, expecting failure; returns the message.
    std::string load_error() {
        try {
            load_model(path_);
        } catch (const ModelFileError& e) {
            return e.what();
        }
        ADD_FAILURE() << "load_model accepted a bad file";
        return {};
    }
    void expect_error(const std::string& path_in_file, const std::string& problem) {
        const std::string msg = load_error();
        EXPECT_NE(msg.find(path_.string()), std::string::npos) << msg;
        EXPECT_NE(msg.find(path_in_file + ": "), std::string::npos) << msg;
        EXPECT_NE(msg.find(problem), std::string::npos) << msg;
    }
    // Saves m, then changes its /hog group in place (the checksum is redone).
    void save_and_edit_hog(const CascadeModel& m, const std::function<void(hid_t)>& change) {
        save_model(m, path_);
        edit(path_, [&](hid_t f) {
            hid_t g = H5Gopen2(f, "/hog", H5P_DEFAULT);
            change(g);
            H5Gclose(g);
        });
    }
    fs::path dir_, path_;
};

}  // namespace

TEST_F(ModelFile, RoundTripIsBitIdentical) {
    const CascadeModel m = full_model();
    const CascadeModel loaded = load_model(path_);
    expect_bit_identical(m, loaded);
    EXPECT_EQ(feature_family(loaded), "lbp+hog");
    // Saving what was loaded gives the very same bytes.
    const fs::path again = dir_ / "again.h5";
    save_model(loaded, again);
    EXPECT_EQ(file_bytes(path_), file_bytes(again));
    // No temporary files are left behind.
    int files = 0;
    for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir_)) ++files;
    EXPECT_EQ(files, 2);
}

TEST_F(ModelFile, ObjectBoxAndOperatingPointRoundTrip) {
    CascadeModel m = full_model();
    m.object_box = {0.1f, 0.05f, 0.8f, 0.9f};
    m.operating = {1.25f, 4, 1.05f, 0.5f, 0.25f, 16, "nms", 0.3f, "FPPI 0.1 on odd images of a dev set"};
    save_model(m, path_);
    const CascadeModel loaded = load_model(path_);
    expect_bit_identical(m, loaded);
    EXPECT_EQ(loaded.operating.chosen_on, "FPPI 0.1 on odd images of a dev set");
}

// A schema-2 file (no /detect group, header and attribute saying 2) reads with the convention
// tools assumed before: people windows hold a person 3/4 of their height; detector defaults.
TEST_F(ModelFile, SchemaTwoReadsWithTheDefaultBoxAndOperatingPoint) {
    CascadeModel m = full_model();
    m.operating.threshold = 3;  // dropped with /detect: schema 2 could not store it
    save_model(m, path_);
    {
        std::vector<char> b = file_bytes(path_);
        b[20] = 2;  // the header's schema (little-endian uint32 at byte 20)
        std::ofstream(path_, std::ios::binary).write(b.data(), static_cast<std::streamsize>(b.size()));
    }
    edit(path_, [](hid_t f) {
        H5Ldelete(f, "/detect", H5P_DEFAULT);
        set_int_attr(f, "schema_version", 2);
    });
    const CascadeModel loaded = load_model(path_);
    EXPECT_EQ(loaded.object_box, kPeopleObjectBox);
    EXPECT_EQ(loaded.operating, OperatingPoint{});
    CascadeModel expected = m;
    expected.object_box = kPeopleObjectBox;
    expected.operating = {};
    expect_bit_identical(expected, loaded);
}

TEST_F(ModelFile, SchemaThreeWithoutDetectGroupIsRefused) {
    edit(path_, [](hid_t f) { H5Ldelete(f, "/detect", H5P_DEFAULT); });
    expect_error("/detect", "missing group");
}

TEST_F(ModelFile, BadOperatingPointValuesAreNamed) {
    // A fresh file with one /detect attribute changed.
    auto with_detect = [&](const std::function<void(hid_t)>& change) {
        save_model(full_model(), path_);
        edit(path_, [&](hid_t f) {
            hid_t g = H5Gopen2(f, "/detect", H5P_DEFAULT);
            change(g);
            H5Gclose(g);
        });
    };
    with_detect([](hid_t g) { set_float_attr(g, "threshold", std::numeric_limits<float>::quiet_NaN()); });
    expect_error("/detect@threshold", "not finite");
    with_detect([](hid_t g) { set_string_attr(g, "fuse", "average"); });
    expect_error("/detect@fuse", "unknown fusion 'average'");
    with_detect([](hid_t g) { set_int_attr(g, "stride", 0); });
    expect_error("/detect@stride", "out of range (1 to 256)");
    with_detect([](hid_t g) { set_int_attr(g, "level_pad", 300); });
    expect_error("/detect@level_pad", "out of range (0 to 256)");
    with_detect([](hid_t g) {
        const float box[4] = {0.7f, 0, 1, 1};  // x 0.7 + w 1 > 1
        hid_t d = H5Dopen2(g, "object_box", H5P_DEFAULT);
        H5Dwrite(d, H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, box);
        H5Dclose(d);
    });
    expect_error("/detect/object_box", "must lie inside the window");
}

// Square-root gray levels (HogParams::gamma) make a schema-4 file with /hog@gamma, which older
// builds refuse rather than misread; without it the file stays schema 3. A schema-4 file needs
// the attribute, with a known value.
TEST_F(ModelFile, GrayGammaRoundTripsInSchemaFour) {
    CascadeModel m = full_model();
    m.hog.gamma = GrayGamma::Sqrt;
    save_model(m, path_);
    EXPECT_EQ(file_bytes(path_)[20], 4);
    const CascadeModel loaded = load_model(path_);
    EXPECT_EQ(loaded.hog.gamma, GrayGamma::Sqrt);
    expect_bit_identical(m, loaded);
    save_and_edit_hog(m, [](hid_t g) { set_string_attr(g, "gamma", "cube"); });
    expect_error("/hog@gamma", "unknown gray-level compression 'cube' (expected none or sqrt)");
    save_and_edit_hog(m, [](hid_t g) { H5Adelete(g, "gamma"); });
    expect_error("/hog@gamma", "missing attribute");
    save_model(full_model(), path_);
    EXPECT_EQ(file_bytes(path_)[20], 3);
    EXPECT_EQ(load_model(path_).hog.gamma, GrayGamma::None);
}

// Split orientation votes (HogParams::votes) are schema 5's /hog@votes, with /hog@gamma beside it.
TEST_F(ModelFile, SplitVotesRoundTripInSchemaFive) {
    CascadeModel m = full_model();
    m.hog.votes = OrientationVotes::Split;
    save_model(m, path_);
    EXPECT_EQ(file_bytes(path_)[20], 5);
    const CascadeModel loaded = load_model(path_);
    EXPECT_EQ(loaded.hog.votes, OrientationVotes::Split);
    EXPECT_EQ(loaded.hog.gamma, GrayGamma::None);
    expect_bit_identical(m, loaded);
    m.hog.gamma = GrayGamma::Sqrt;
    save_model(m, path_);
    EXPECT_EQ(load_model(path_).hog.gradient().gamma, GrayGamma::Sqrt);
    save_and_edit_hog(m, [](hid_t g) { set_string_attr(g, "votes", "bilinear"); });
    expect_error("/hog@votes", "unknown orientation votes 'bilinear' (expected nearest or split)");
    save_and_edit_hog(m, [](hid_t g) { H5Adelete(g, "votes"); });
    expect_error("/hog@votes", "missing attribute");
    CascadeModel sqrt_only = full_model();
    sqrt_only.hog.gamma = GrayGamma::Sqrt;
    save_model(sqrt_only, path_);
    EXPECT_EQ(file_bytes(path_)[20], 4);
    EXPECT_EQ(load_model(path_).hog.votes, OrientationVotes::Nearest);
}

TEST_F(ModelFile, ColourGradientsRoundTripInSchemaSix) {
    CascadeModel m = full_model();
    m.hog.channels = GradientChannels::Colour;
    m.hog.gamma = GrayGamma::Sqrt;
    save_model(m, path_);
    EXPECT_EQ(file_bytes(path_)[20], 6);
    const CascadeModel loaded = load_model(path_);
    EXPECT_EQ(loaded.hog.channels, GradientChannels::Colour);
    EXPECT_EQ(loaded.hog.votes, OrientationVotes::Nearest);
    expect_bit_identical(m, loaded);
    save_and_edit_hog(m, [](hid_t g) { set_string_attr(g, "channels", "hsv"); });
    expect_error("/hog@channels", "unknown gradient channels 'hsv' (expected gray or colour)");
    save_and_edit_hog(m, [](hid_t g) { H5Adelete(g, "channels"); });
    expect_error("/hog@channels", "missing attribute");
    save_model(full_model(), path_);  // gray models keep their schema
    EXPECT_EQ(file_bytes(path_)[20], 3);
}

TEST_F(ModelFile, HogOnlyAndMarginStagesRoundTrip) {
    CascadeModel m = random_model(5, 1, 105, 0);
    m.stages[0].as<HogSvmStage>().vote = VoteMode::Margin;
    save_model(m, path_);
    const CascadeModel loaded = load_model(path_);
    expect_bit_identical(m, loaded);
    EXPECT_EQ(feature_family(loaded), "hog");
}

// Clipped votes (schema 7): round trip; the header and the root attribute name schema 7, and
// only such models get it; an unknown vote mode is refused by name.
TEST_F(ModelFile, ClippedVoteStagesRoundTripAsSchema7) {
    CascadeModel m = random_model(6, 4, 3, 0);
    ASSERT_EQ(m.stages[3].as<HogSvmStage>().vote, VoteMode::Clipped);
    save_model(m, path_);
    EXPECT_EQ(file_bytes(path_)[20], 7);
    const CascadeModel loaded = load_model(path_);
    expect_bit_identical(m, loaded);
    EXPECT_EQ(loaded.stages[3].as<HogSvmStage>().vote, VoteMode::Clipped);
    m.stages[3].as<HogSvmStage>().vote = VoteMode::Margin;
    save_model(m, path_);
    EXPECT_EQ(file_bytes(path_)[20], 3);
    edit(path_, [](hid_t f) {
        hid_t g = H5Gopen2(f, "/stages/003", H5P_DEFAULT);
        set_string_attr(g, "vote_mode", "tanh");
        H5Gclose(g);
    });
    expect_error("/stages/003@vote_mode", "unknown vote mode 'tanh' (expected binary, margin or clipped)");
}

// Nested stages (schema 8): @carry round trips, only on the stages that have one; models
// without one keep their schema; a negative or huge carry is refused by name.
TEST_F(ModelFile, NestedStagesRoundTripAsSchema8) {
    const CascadeModel m = nest_stages(full_model());  // /stages/002 nested (the LBP stage is 000)
    ASSERT_NE(m.stages[2].as<HogSvmStage>().carry, 0.0f);
    save_model(m, path_);
    EXPECT_EQ(file_bytes(path_)[20], 8);
    const CascadeModel loaded = load_model(path_);
    expect_bit_identical(m, loaded);
    EXPECT_EQ(loaded.stages[2].as<HogSvmStage>().carry, 0.25f);
    EXPECT_EQ(loaded.stages[1].as<HogSvmStage>().carry, 0.0f);
    edit(path_, [](hid_t f) {
        hid_t g = H5Gopen2(f, "/stages/001", H5P_DEFAULT);
        EXPECT_EQ(H5Aexists(g, "carry"), 0);  // written only where it is not 0
        H5Gclose(g);
    });
    for (const auto& [carry, problem] : {std::pair{-0.5f, "negative carry"}, std::pair{3e38f, "is out of range"}}) {
        save_model(m, path_);
        edit(path_, [carry](hid_t f) {
            hid_t g = H5Gopen2(f, "/stages/002", H5P_DEFAULT);
            set_float_attr(g, "carry", carry);
            H5Gclose(g);
        });
        expect_error("/stages/002@carry", problem);
    }
    save_model(full_model(), path_);
    EXPECT_EQ(file_bytes(path_)[20], 3);
}

TEST_F(ModelFile, FutureSchemaVersion) {
    edit(path_, [](hid_t f) { set_int_attr(f, "schema_version", 9); });
    expect_error("/@schema_version", "schema version 9 is newer than this build of cascadekit supports (8)");
}

TEST_F(ModelFile, SchemaVersionDisagreesWithTheHeader) {
    edit(path_, [](hid_t f) { set_int_attr(f, "schema_version", 1); });
    expect_error("/@schema_version", "says 1 but the file's header says 3");
}

TEST_F(ModelFile, InvalidSchemaVersion) {
    edit(path_, [](hid_t f) { set_int_attr(f, "schema_version", 0); });
    expect_error("/@schema_version", "invalid schema version 0");
}

TEST_F(ModelFile, WrongFormat) {
    edit(path_, [](hid_t f) { set_string_attr(f, "format", "something-else"); });
    expect_error("/@format", "not a cascadekit model");
}

TEST_F(ModelFile, MissingDataset) {
    edit(path_, [](hid_t f) { H5Ldelete(f, "/stages/002/bias", H5P_DEFAULT); });
    expect_error("/stages/002/bias", "missing dataset");
}

TEST_F(ModelFile, MissingGroup) {
    edit(path_, [](hid_t f) { H5Ldelete(f, "/metadata", H5P_DEFAULT); });
    expect_error("/metadata", "missing group");
}

TEST_F(ModelFile, MissingAttribute) {
    edit(path_, [](hid_t f) {
        hid_t g = H5Gopen2(f, "/stages/001", H5P_DEFAULT);
        H5Adelete(g, "threshold");
        H5Gclose(g);
    });
    expect_error("/stages/001@threshold", "missing attribute");
}

TEST_F(ModelFile, WeightsOfTheWrongShape) {
    edit(path_, [](hid_t f) { replace_dataset<float>(f, "/stages/001/weights", {4, 35}, std::vector<float>(140, 0.5f)); });
    expect_error("/stages/001/weights", "expected shape [4, 36], found [4, 35]");
}

TEST_F(ModelFile, TooFewRowsInOneDataset) {
    edit(path_, [](hid_t f) { replace_dataset<float>(f, "/stages/003/alpha", {3}, std::vector<float>(3, 1.0f)); });
    expect_error("/stages/003/alpha", "expected shape [4], found [3]");
}

TEST_F(ModelFile, WrongValueType) {
    edit(path_, [](hid_t f) { replace_dataset<int>(f, "/stages/001/bias", {4}, std::vector<int>(4, 1)); });
    expect_error("/stages/001/bias", "expected floating-point values");
}

TEST_F(ModelFile, NaNWeight) {
    edit(path_, [](hid_t f) { poke(f, "/stages/002/weights", 1, 7, std::nanf("")); });
    expect_error("/stages/002/weights[1][7]", "value is not finite");
}

TEST_F(ModelFile, InfiniteLbpResponse) {
    edit(path_, [](hid_t f) { poke(f, "/stages/000/responses", 2, 200, INFINITY); });
    expect_error("/stages/000/responses[2][200]", "value is not finite");
}

TEST_F(ModelFile, BlockOutsideTheWindow) {
    edit(path_, [](hid_t f) { poke(f, "/stages/003/blocks", 2, 0, 60); });  // x = 60
    expect_error("/stages/003/blocks[2]", "is not inside the 64x128 window");
}

TEST_F(ModelFile, OddBlockSide) {
    edit(path_, [](hid_t f) {
        poke(f, "/stages/001/blocks", 0, 0, 0);
        poke(f, "/stages/001/blocks", 0, 2, 13);
    });
    expect_error("/stages/001/blocks[0]", "has an odd side");
}

TEST_F(ModelFile, LbpGridOutsideTheWindow) {
    edit(path_, [](hid_t f) { poke(f, "/stages/000/cells", 0, 1, 126); });  // y = 126
    expect_error("/stages/000/cells[0]", "is not inside the 64x128 window");
}

TEST_F(ModelFile, EmptyStage) {
    edit(path_, [](hid_t f) {
        replace_dataset<int>(f, "/stages/002/blocks", {0, 4}, {});
        replace_dataset<float>(f, "/stages/002/weights", {0, 36}, {});
        replace_dataset<float>(f, "/stages/002/bias", {0}, {});
        replace_dataset<float>(f, "/stages/002/alpha", {0}, {});
    });
    expect_error("/stages/002", "stage 2 is empty");
}

TEST_F(ModelFile, NoStages) {
    CascadeModel m = full_model();
    m.stages.clear();
    try {
        save_model(m, path_);
        FAIL() << "saved a model without stages";
    } catch (const ModelFileError& e) {
        EXPECT_NE(std::string(e.what()).find("/stages: refusing to save an invalid model: the cascade has no stages"),
                  std::string::npos) << e.what();
    }
    EXPECT_NO_THROW(load_model(path_));  // the earlier file is untouched
    edit(path_, [](hid_t f) {
        for (const char* s : {"/stages/000", "/stages/001", "/stages/002", "/stages/003"}) H5Ldelete(f, s, H5P_DEFAULT);
        hid_t g = H5Gopen2(f, "/stages", H5P_DEFAULT);
        set_int_attr(g, "count", 0);
        H5Gclose(g);
    });
    expect_error("/stages", "the cascade has no stages");
}

TEST_F(ModelFile, ExtraStageGroup) {
    edit(path_, [](hid_t f) { H5Gclose(H5Gcreate2(f, "/stages/004", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT)); });
    expect_error("/stages", "holds 5 entries but @count says 4");
}

TEST_F(ModelFile, UnknownStageKind) {
    edit(path_, [](hid_t f) {
        hid_t g = H5Gopen2(f, "/stages/001", H5P_DEFAULT);
        set_string_attr(g, "kind", "haar");
        H5Gclose(g);
    });
    expect_error("/stages/001@kind", "unknown stage kind 'haar'");
}

TEST_F(ModelFile, FeatureFamilyDisagreesWithStages) {
    edit(path_, [](hid_t f) { set_string_attr(f, "feature_family", "hog"); });
    expect_error("/@feature_family", "says 'hog' but the stages make it 'lbp+hog'");
}

TEST_F(ModelFile, NonPositiveEpsilon) {
    edit(path_, [](hid_t f) {
        hid_t g = H5Gopen2(f, "/hog", H5P_DEFAULT);
        H5Adelete(g, "epsilon");
        const float zero = 0.0f;
        hid_t sp = H5Screate(H5S_SCALAR);
        hid_t a = H5Acreate2(g, "epsilon", H5T_IEEE_F32LE, sp, H5P_DEFAULT, H5P_DEFAULT);
        H5Awrite(a, H5T_NATIVE_FLOAT, &zero);
        H5Aclose(a);
        H5Sclose(sp);
        H5Gclose(g);
    });
    expect_error("/hog@epsilon", "epsilon must be > 0");
}

TEST_F(ModelFile, TruncatedFile) {
    const auto bytes = file_bytes(path_);
    std::ofstream(path_, std::ios::binary | std::ios::trunc).write(bytes.data(), static_cast<std::streamsize>(bytes.size() / 2));
    expect_error("/", "damaged or truncated: the header says");
}

TEST_F(ModelFile, NotAModelFile) {
    std::ofstream(path_, std::ios::trunc) << "stage 0: this is a text file, not a model\n";
    expect_error("/", "not a cascadekit model file");
    std::ofstream(path_, std::ios::trunc);
    expect_error("/", "not a cascadekit model file (0 bytes)");
}

TEST_F(ModelFile, MissingFileFolderAndFifo) {
    path_ = dir_ / "absent.h5";
    expect_error("/", "no such file");
    path_ = dir_;
    expect_error("/", "is a folder, not a model file");
    // A FIFO would block a plain open() forever: refused at once.
    path_ = dir_ / "fifo.h5";
    ASSERT_EQ(::mkfifo(path_.c_str(), 0600), 0);
    expect_error("/", "is a FIFO (named pipe), not a model file");
}

TEST_F(ModelFile, LargerThanTheLimitIsRefusedUnread) {
    fs::resize_file(path_, kMaxModelFileBytes + 1);  // sparse: no disk used
    expect_error("/", "larger than the limit of 67108864 bytes");
}

// Every byte is covered: a change anywhere (contents, header fields, reserved header bytes) is
// found by the integrity check before libhdf5 sees the file.
TEST_F(ModelFile, AnyChangedByteIsFoundBeforeHdf5) {
    const auto good = file_bytes(path_);
    for (std::size_t at : {std::size_t{3}, std::size_t{20}, std::size_t{28}, std::size_t{40}, std::size_t{100},
                           kModelHeaderBytes, kModelHeaderBytes + 700, good.size() - 1}) {
        auto bytes = good;
        bytes[at] = static_cast<char>(bytes[at] ^ 0x10);
        std::ofstream(path_, std::ios::binary | std::ios::trunc).write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
        const std::string msg = load_error();
        EXPECT_TRUE(msg.find("damaged") != std::string::npos || msg.find("not a cascadekit model file") != std::string::npos ||
                    msg.find("newer than this build") != std::string::npos)
            << "byte " << at << ": " << msg;
    }
}

// A model of schema 1 (no header, variable-length strings: what cascadekit wrote before) is
// refused by load_model with the way out, and read by load_model_unverified for `cascade convert`.
TEST_F(ModelFile, SchemaOneIsRefusedAndConvertible) {
    const fs::path old = dir_ / "old.h5";
    {
        H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
        hid_t src = H5Fopen(path_.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
        hid_t dst = H5Fcreate(old.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
        for (const char* g : {"hog", "metadata", "stages"}) H5Ocopy(src, g, dst, g, H5P_DEFAULT, H5P_DEFAULT);
        set_string_attr(dst, "format", "cascadekit-cascade", true);
        set_int_attr(dst, "schema_version", 1);
        set_int_attr(dst, "window_width", 64);
        set_int_attr(dst, "window_height", 128);
        set_string_attr(dst, "feature_family", "lbp+hog", true);
        H5Fclose(dst);
        H5Fclose(src);
    }
    path_ = old;
    expect_error("/", "without cascadekit's integrity header: a schema-1 model");
    EXPECT_NE(load_error().find("cascade convert " + old.string() + " NEW.h5"), std::string::npos);
    CascadeModel expected = full_model();
    expected.object_box = kPeopleObjectBox;  // a 64×128 window of a file without /detect: the people convention
    expect_bit_identical(expected, load_model_unverified(old));
}

TEST_F(ModelFile, VariableLengthStringsAreRefused) {
    edit(path_, [](hid_t f) { set_string_attr(f, "format", "cascadekit-cascade", true); });
    expect_error("/@format", "is a variable-length string");
}

TEST_F(ModelFile, ExternalAndSoftLinksAreRefused) {
    edit(path_, [](hid_t f) {
        H5Ldelete(f, "/metadata", H5P_DEFAULT);
        H5Lcreate_external("other.h5", "/metadata", f, "/metadata", H5P_DEFAULT, H5P_DEFAULT);
    });
    expect_error("/metadata", "is a link to another file");
    save_model(full_model(), path_);
    edit(path_, [](hid_t f) {
        H5Lmove(f, "/stages/001/bias", f, "/stages/001/bias_data", H5P_DEFAULT, H5P_DEFAULT);
        H5Lcreate_soft("/stages/001/bias_data", f, "/stages/001/bias", H5P_DEFAULT, H5P_DEFAULT);
    });
    expect_error("/stages/001/bias", "is a soft link");
}

TEST_F(ModelFile, ExternalStorageVirtualAndCompressedDatasetsAreRefused) {
    // Weights read from /dev/zero: the values would not be the file's.
    edit(path_, [](hid_t f) {
        recreate_float_dataset(f, "/stages/001/bias", {4}, [](hid_t dcpl, hid_t) { H5Pset_external(dcpl, "/dev/zero", 0, 16); });
    });
    expect_error("/stages/001/bias", "keeps its values in an external file");
    save_model(full_model(), path_);
    edit(path_, [](hid_t f) {
        recreate_float_dataset(f, "/stages/001/bias", {4},
                               [](hid_t dcpl, hid_t sp) { H5Pset_virtual(dcpl, sp, "other.h5", "/bias", sp); });
    });
    expect_error("/stages/001/bias", "is a virtual dataset");
    save_model(full_model(), path_);
    edit(path_, [](hid_t f) {
        recreate_float_dataset(f, "/stages/001/bias", {4}, [](hid_t dcpl, hid_t) {
            const hsize_t chunk[1] = {4};
            H5Pset_chunk(dcpl, 1, chunk);
            H5Pset_deflate(dcpl, 6);
        }, {0.1f, 0.2f, 0.3f, 0.4f});
    });
    expect_error("/stages/001/bias", "is chunked or filtered");
}

// A small file declaring many learners: refused from the declared shape, before any allocation.
TEST_F(ModelFile, DeclaredSizesBeyondTheFileAreRefusedBeforeAllocating) {
    edit(path_, [](hid_t f) {
        H5Ldelete(f, "/stages/001/weights", H5P_DEFAULT);
        const hsize_t dims[2] = {20000000, 36};  // 2.9 GB declared, never written: no storage
        hid_t sp = H5Screate_simple(2, dims, nullptr);
        H5Dclose(H5Dcreate2(f, "/stages/001/weights", H5T_IEEE_F32LE, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
        H5Sclose(sp);
    });
    EXPECT_LT(fs::file_size(path_), 100000u);
    expect_error("/stages/001/weights", "expected shape [4, 36], found [20000000, 36]");  // blocks says 4 rows
    save_model(full_model(), path_);
    edit(path_, [](hid_t f) {
        for (const char* name : {"blocks", "weights", "bias", "alpha"}) {
            const std::string path = std::string("/stages/001/") + name;
            H5Ldelete(f, path.c_str(), H5P_DEFAULT);
            const hsize_t rows = 90000;  // under the learner limit, 13 MB declared, none stored
            const hsize_t dims[2] = {rows, std::string(name) == "blocks" ? 4u : 36u};
            hid_t sp = H5Screate_simple(std::string(name) == "blocks" || std::string(name) == "weights" ? 2 : 1, dims, nullptr);
            H5Dclose(H5Dcreate2(f, path.c_str(), std::string(name) == "blocks" ? H5T_STD_I32LE : H5T_IEEE_F32LE, sp,
                                H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
            H5Sclose(sp);
        }
    });
    expect_error("/stages/001/blocks", "declares 1440000 bytes of values but the file holds only");
    save_model(full_model(), path_);
    edit(path_, [](hid_t f) {
        H5Ldelete(f, "/stages/001/blocks", H5P_DEFAULT);
        const hsize_t dims[2] = {200000, 4};
        hid_t sp = H5Screate_simple(2, dims, nullptr);
        H5Dclose(H5Dcreate2(f, "/stages/001/blocks", H5T_STD_I32LE, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
        H5Sclose(sp);
    });
    expect_error("/stages/001/blocks", "200000 rows, more than the limit of 100000");
}

// Finite values no trained model has are refused with the reason.
TEST_F(ModelFile, AbsurdFiniteValuesAreRefused) {
    edit(path_, [](hid_t f) {
        hid_t g = H5Gopen2(f, "/stages/002", H5P_DEFAULT);
        set_float_attr(g, "threshold", 3e38f);
        H5Gclose(g);
    });
    expect_error("/stages/002@threshold", "is out of range");
    save_model(full_model(), path_);
    edit(path_, [](hid_t f) {
        hid_t g = H5Gopen2(f, "/hog", H5P_DEFAULT);
        set_float_attr(g, "epsilon", 3e38f);
        H5Gclose(g);
    });
    expect_error("/hog@epsilon", "is out of range");
    save_model(full_model(), path_);
    edit(path_, [](hid_t f) { replace_dataset<float>(f, "/stages/003/alpha", {4}, std::vector<float>(4, 0.0f)); });
    expect_error("/stages/003/alpha", "every vote weight is 0");
}

// Rectangle checks in 64 bits: x + w and 3·w must not wrap around.
TEST_F(ModelFile, IntegerOverflowInRectanglesIsRefused) {
    edit(path_, [](hid_t f) {
        poke(f, "/stages/003/blocks", 1, 0, 2147483646);  // x near INT_MAX: x + w wraps in int
        poke(f, "/stages/003/blocks", 1, 2, 4);
    });
    expect_error("/stages/003/blocks[1]", "is not inside the 64x128 window");
    save_model(full_model(), path_);
    edit(path_, [](hid_t f) { poke(f, "/stages/000/cells", 0, 2, 1431655766); });  // 3·w wraps to a small int
    expect_error("/stages/000/cells[0]", "is not inside the 64x128 window");
    save_model(full_model(), path_);
    edit(path_, [](hid_t f) {
        set_int_attr(f, "window_width", 65536);
        set_int_attr(f, "window_height", 65536);
    });
    expect_error("/@window_width", "has area 4294967296");
}

TEST_F(ModelFile, SaveFailsCleanlyIntoAMissingFolder) {
    EXPECT_THROW(save_model(full_model(), dir_ / "no" / "such" / "dir" / "m.h5"), ModelFileError);
}

// 300 random byte flips and zeroed runs of the shipped model: every one refused with a message,
// none crashes or hangs (libhdf5 1.10 segfaulted or looped on such files before the checksum).
TEST(ModelFileDamage, ThreeHundredDamagedCopiesOfTheShippedModelAreRefused) {
    const fs::path shipped = source_dir() / "models" / "inria-hog-cascade.h5";
    ASSERT_NO_THROW(load_model(shipped));
    const std::vector<char> good = file_bytes(shipped);
    const fs::path path = scratch_dir("shipped_damage") / "damaged.h5";
    std::mt19937_64 rng(2026);
    int refused = 0;
    for (int trial = 0; trial < 300; ++trial) {
        std::vector<char> b = good;
        if (trial % 3 == 2) {  // a zeroed run of 1 to 256 bytes
            const std::size_t len = 1 + rng() % 256, at = rng() % (b.size() - len);
            std::fill(b.begin() + static_cast<std::ptrdiff_t>(at), b.begin() + static_cast<std::ptrdiff_t>(at + len), '\0');
            if (b == good) continue;  // the run was zero already
        } else {  // one byte changed
            const std::size_t at = rng() % b.size();
            b[at] = static_cast<char>(b[at] ^ static_cast<char>(1 + rng() % 255));
        }
        std::ofstream(path, std::ios::binary | std::ios::trunc).write(b.data(), static_cast<std::streamsize>(b.size()));
        try {
            load_model(path);
            ADD_FAILURE() << "trial " << trial << ": a damaged model was accepted";
        } catch (const ModelFileError& e) {
            EXPECT_EQ(e.file(), path);
            EXPECT_FALSE(e.problem().empty());
            ++refused;
        }
    }
    EXPECT_GE(refused, 280);
}

// A file libFuzzer made (it learned the SHA-256 from a memcmp, since made constant-time): the
// fuzz seed (a schema-2 file) with 159 bytes of HDF5 structures changed and a correct checksum. libhdf5 1.10 asks
// for 197 GB in its metadata cache parsing it. Parsed in the isolated child process, it is an
// error naming the file: the malloc fails (HDF5 error), or under AddressSanitizer the child
// aborts ("libhdf5 crashed"); this process is unharmed either way.
TEST(ModelFileDamage, CraftedFileThatMadeLibhdf5AllocateWithoutBoundIsAnError) {
    // The finding's bytes: schema 2's writer output for tiny_model() with the fuzzer's changes
    // (tests/data/README.md); resealed here, so the header's checksum is right and libhdf5 parses it.
    const fs::path path = scratch_dir("hdf5_oom") / "crafted.h5";
    fs::copy_file(fs::path(CASCADEKIT_SOURCE_DIR) / "tests/data/hdf5-unbounded-alloc.h5", path,
                  fs::copy_options::overwrite_existing);
    fs::permissions(path, fs::perms::owner_write, fs::perm_options::add);
    reseal_model_file(path);
    try {
        load_model(path);
        FAIL() << "accepted the crafted file";
    } catch (const ModelFileError& e) {
        const std::string msg = e.what();
        EXPECT_NE(msg.find(path.string() + ": "), std::string::npos) << msg;
        EXPECT_TRUE(msg.find("cannot open (corrupt file?)") != std::string::npos ||
                    msg.find("libhdf5 crashed parsing it") != std::string::npos ||  // ASan, abort_on_error
                    msg.find("libhdf5 failed parsing it") != std::string::npos ||   // ASan, plain exit
                    msg.find("libhdf5 used more than") != std::string::npos)
            << msg;
        std::printf("%s\n", msg.c_str());
    }
}
