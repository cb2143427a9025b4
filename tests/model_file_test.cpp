// io/: the HDF5 model file. Every corruption is built in the test and must be named in the error.
#include <gtest/gtest.h>
#include <hdf5.h>

#include <cmath>
#include <cstring>
#include <fstream>
#include <functional>
#include <iterator>

#include "cascadekit/io/model_file.hpp"
#include "test_support.hpp"

using namespace cascadekit;
using namespace cascadekit::test;
namespace fs = std::filesystem;

namespace {

CascadeModel full_model() {
    CascadeModel m = random_model(21, 3, 4, 5);
    m.hog = {BlockNorm::L2Hys, 0.75f, 0.25f};
    std::get<HogSvmStage>(m.stages[1]).threshold = 1.25f;
    std::get<HogSvmStage>(m.stages[1]).learners[0].weights[3] = -0.0f;  // signed zero must survive
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
        if (const auto* ha = std::get_if<HogSvmStage>(&a.stages[s])) {
            const auto& hb = std::get<HogSvmStage>(b.stages[s]);
            EXPECT_TRUE(same_bits(ha->threshold, hb.threshold));
            for (std::size_t i = 0; i < ha->learners.size(); ++i) {
                EXPECT_TRUE(same_bits(ha->learners[i].weights, hb.learners[i].weights));
                EXPECT_TRUE(same_bits(ha->learners[i].bias, hb.learners[i].bias));
                EXPECT_TRUE(same_bits(ha->learners[i].alpha, hb.learners[i].alpha));
            }
        } else {
            const auto& wa = std::get<WaldBoostLbpStage>(a.stages[s]);
            const auto& wb = std::get<WaldBoostLbpStage>(b.stages[s]);
            for (std::size_t i = 0; i < wa.weak.size(); ++i) {
                EXPECT_TRUE(same_bits(wa.weak[i].responses, wb.weak[i].responses));
                EXPECT_TRUE(same_bits(wa.weak[i].reject_threshold, wb.weak[i].reject_threshold));
            }
        }
    }
}

// Opens a saved model read-write, lets the test damage it, closes it.
void edit(const fs::path& p, const std::function<void(hid_t)>& damage) {
    H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
    hid_t f = H5Fopen(p.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
    ASSERT_GE(f, 0);
    damage(f);
    H5Fclose(f);
}

void set_int_attr(hid_t obj, const char* name, int v) {
    H5Adelete(obj, name);
    hid_t sp = H5Screate(H5S_SCALAR);
    hid_t a = H5Acreate2(obj, name, H5T_STD_I32LE, sp, H5P_DEFAULT, H5P_DEFAULT);
    H5Awrite(a, H5T_NATIVE_INT, &v);
    H5Aclose(a);
    H5Sclose(sp);
}

void set_string_attr(hid_t obj, const char* name, const char* v) {
    H5Adelete(obj, name);
    hid_t t = H5Tcopy(H5T_C_S1);
    H5Tset_size(t, H5T_VARIABLE);
    hid_t sp = H5Screate(H5S_SCALAR);
    hid_t a = H5Acreate2(obj, name, t, sp, H5P_DEFAULT, H5P_DEFAULT);
    H5Awrite(a, t, &v);
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

// Writes a value into element (row, col) of an existing 2-D dataset.
template <class T>
void poke(hid_t f, const char* path, hsize_t row, hsize_t col, T value) {
    hid_t d = H5Dopen2(f, path, H5P_DEFAULT);
    hid_t fs_ = H5Dget_space(d);
    const hsize_t start[2] = {row, col}, count[2] = {1, 1};
    H5Sselect_hyperslab(fs_, H5S_SELECT_SET, start, nullptr, count, nullptr);
    hid_t ms = H5Screate_simple(2, count, nullptr);
    H5Dwrite(d, std::is_same_v<T, float> ? H5T_NATIVE_FLOAT : H5T_NATIVE_INT, ms, fs_, H5P_DEFAULT, &value);
    H5Sclose(ms);
    H5Sclose(fs_);
    H5Dclose(d);
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

TEST_F(ModelFile, HogOnlyAndMarginStagesRoundTrip) {
    CascadeModel m = random_model(5, 1, 105, 0);
    std::get<HogSvmStage>(m.stages[0]).vote = VoteMode::Margin;
    save_model(m, path_);
    const CascadeModel loaded = load_model(path_);
    expect_bit_identical(m, loaded);
    EXPECT_EQ(feature_family(loaded), "hog");
}

TEST_F(ModelFile, FutureSchemaVersion) {
    edit(path_, [](hid_t f) { set_int_attr(f, "schema_version", 2); });
    expect_error("/@schema_version", "schema version 2 is newer than this build of cascadekit supports (1)");
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
    const std::string msg = load_error();
    EXPECT_NE(msg.find(path_.string() + ": "), std::string::npos) << msg;
    EXPECT_TRUE(msg.find("truncated or corrupt") != std::string::npos || msg.find("cannot") != std::string::npos) << msg;
}

TEST_F(ModelFile, NotAnHdf5File) {
    std::ofstream(path_, std::ios::trunc) << "stage 0: this is a text file, not a model\n";
    expect_error("/", "not an HDF5 file");
}

TEST_F(ModelFile, MissingFileAndFolder) {
    path_ = dir_ / "absent.h5";
    expect_error("/", "no such file");
    path_ = dir_;
    expect_error("/", "is a directory");
}

TEST_F(ModelFile, SaveFailsCleanlyIntoAMissingFolder) {
    EXPECT_THROW(save_model(full_model(), dir_ / "no" / "such" / "dir" / "m.h5"), ModelFileError);
}
