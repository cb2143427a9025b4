#include "cascadekit/io/model_file.hpp"

#include <hdf5.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <optional>
#include <system_error>
#include <vector>

namespace cascadekit {

namespace {

// Owns one HDF5 identifier and closes it with the matching function.
class Handle {
public:
    using Closer = herr_t (*)(hid_t);
    Handle() = default;
    Handle(hid_t id, Closer closer) : id_(id), closer_(closer) {}
    Handle(const Handle&) = delete;
    Handle& operator=(const Handle&) = delete;
    Handle(Handle&& o) noexcept : id_(o.id_), closer_(o.closer_) { o.id_ = -1; }
    Handle& operator=(Handle&& o) noexcept {
        if (this != &o) { reset(); id_ = o.id_; closer_ = o.closer_; o.id_ = -1; }
        return *this;
    }
    ~Handle() { reset(); }
    hid_t get() const { return id_; }
    bool valid() const { return id_ >= 0; }
    void reset() {
        if (id_ >= 0 && closer_) closer_(id_);
        id_ = -1;
    }

private:
    hid_t id_ = -1;
    Closer closer_ = nullptr;
};

// HDF5 prints its error stack to stderr by default; library code must not, we report instead.
void silence_hdf5() { H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr); }

// ---------------------------------------------------------------------------------------------
// Reading
// ---------------------------------------------------------------------------------------------
class Reader {
public:
    explicit Reader(std::filesystem::path file) : file_(std::move(file)) {}

    [[noreturn]] void fail(const std::string& path, const std::string& problem) const {
        throw ModelFileError(file_, path, problem);
    }

    static std::string attr_path(const std::string& object, const char* name) {
        return (object == "/" ? std::string("/") : object) + "@" + name;
    }

    Handle open_group(hid_t parent, const std::string& name, const std::string& path) const {
        if (H5Lexists(parent, name.c_str(), H5P_DEFAULT) <= 0) fail(path, "missing group");
        // H5Oopen + H5Iget_type works the same across HDF5 1.10 to 1.14 (H5Oget_info changed).
        Handle obj(H5Oopen(parent, name.c_str(), H5P_DEFAULT), H5Oclose);
        if (!obj.valid()) fail(path, "cannot open (corrupt file?)");
        if (H5Iget_type(obj.get()) != H5I_GROUP) fail(path, "expected a group");
        return obj;
    }

    Handle open_attr(hid_t obj, const std::string& object, const char* name, H5T_class_t cls, const char* what) const {
        const std::string path = attr_path(object, name);
        if (H5Aexists(obj, name) <= 0) fail(path, "missing attribute");
        Handle a(H5Aopen(obj, name, H5P_DEFAULT), H5Aclose);
        if (!a.valid()) fail(path, "cannot open attribute");
        Handle type(H5Aget_type(a.get()), H5Tclose);
        if (H5Tget_class(type.get()) != cls) fail(path, std::string("expected ") + what);
        Handle space(H5Aget_space(a.get()), H5Sclose);
        if (H5Sget_simple_extent_npoints(space.get()) != 1) fail(path, std::string("expected a single ") + what);
        return a;
    }

    int read_int(hid_t obj, const std::string& object, const char* name) const {
        Handle a = open_attr(obj, object, name, H5T_INTEGER, "integer");
        long long v = 0;
        if (H5Aread(a.get(), H5T_NATIVE_LLONG, &v) < 0) fail(attr_path(object, name), "cannot read integer");
        if (v < -2147483647LL || v > 2147483647LL) fail(attr_path(object, name), "integer out of range");
        return static_cast<int>(v);
    }

    float read_float(hid_t obj, const std::string& object, const char* name) const {
        Handle a = open_attr(obj, object, name, H5T_FLOAT, "floating-point number");
        float v = 0;
        if (H5Aread(a.get(), H5T_NATIVE_FLOAT, &v) < 0) fail(attr_path(object, name), "cannot read number");
        return v;
    }

    std::string read_string(hid_t obj, const std::string& object, const char* name) const {
        const std::string path = attr_path(object, name);
        Handle a = open_attr(obj, object, name, H5T_STRING, "string");
        Handle type(H5Aget_type(a.get()), H5Tclose);
        if (H5Tis_variable_str(type.get()) > 0) {
            Handle mem(H5Tcopy(H5T_C_S1), H5Tclose);
            H5Tset_size(mem.get(), H5T_VARIABLE);
            H5Tset_cset(mem.get(), H5Tget_cset(type.get()));
            char* s = nullptr;
            if (H5Aread(a.get(), mem.get(), &s) < 0) fail(path, "cannot read string");
            std::string out = s ? s : "";
            H5free_memory(s);
            return out;
        }
        const std::size_t n = H5Tget_size(type.get());
        std::vector<char> buf(n + 1, '\0');
        Handle mem(H5Tcopy(H5T_C_S1), H5Tclose);
        H5Tset_size(mem.get(), n + 1);
        if (H5Aread(a.get(), mem.get(), buf.data()) < 0) fail(path, "cannot read string");
        return std::string(buf.data());
    }

    // Reads a dataset of the given class, checking rank and the trailing dimension; returns the
    // first dimension in rows. T is int or float.
    template <class T>
    std::vector<T> read_dataset(hid_t group, const std::string& group_path, const char* name, int rank,
                                hsize_t cols, std::optional<hsize_t> rows, hsize_t& rows_out) const {
        const std::string path = group_path + "/" + name;
        if (H5Lexists(group, name, H5P_DEFAULT) <= 0) fail(path, "missing dataset");
        Handle ds(H5Dopen2(group, name, H5P_DEFAULT), H5Dclose);
        if (!ds.valid()) fail(path, "cannot open dataset");
        Handle type(H5Dget_type(ds.get()), H5Tclose);
        const bool want_float = std::is_same_v<T, float>;
        if (H5Tget_class(type.get()) != (want_float ? H5T_FLOAT : H5T_INTEGER))
            fail(path, want_float ? "expected floating-point values" : "expected integer values");
        Handle space(H5Dget_space(ds.get()), H5Sclose);
        const int r = H5Sget_simple_extent_ndims(space.get());
        hsize_t dims[2] = {0, 0};
        if (r >= 1 && r <= 2) H5Sget_simple_extent_dims(space.get(), dims, nullptr);
        const std::string expected = shape_text(rows, rank, cols);
        if (r != rank || (rank == 2 && dims[1] != cols) || (rows && dims[0] != *rows))
            fail(path, "expected shape " + expected + ", found " + found_text(r, dims));
        rows_out = dims[0];
        std::vector<T> data(static_cast<std::size_t>(dims[0] * (rank == 2 ? dims[1] : 1)));
        if (!data.empty() &&
            H5Dread(ds.get(), want_float ? H5T_NATIVE_FLOAT : H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, data.data()) < 0)
            fail(path, "cannot read values (corrupt or truncated file?)");
        return data;
    }

    // Built with append: GCC 12 warns falsely (-Wrestrict, PR 105329) on "literal" + std::string&&.
    static std::string shape_text(std::optional<hsize_t> rows, int rank, hsize_t cols) {
        std::string s = "[";
        s.append(rows ? std::to_string(*rows) : "n");
        if (rank == 2) s.append(", ").append(std::to_string(cols));
        return s.append("]");
    }
    static std::string found_text(int rank, const hsize_t* dims) {
        if (rank < 1 || rank > 2) return std::string("rank ").append(std::to_string(rank));
        std::string s = "[";
        s.append(std::to_string(dims[0]));
        if (rank == 2) s.append(", ").append(std::to_string(dims[1]));
        return s.append("]");
    }

    CascadeModel read() const;

private:
    HogSvmStage read_hog_stage(hid_t g, const std::string& path) const;
    WaldBoostLbpStage read_lbp_stage(hid_t g, const std::string& path) const;
    std::filesystem::path file_;
};

Rect rect_at(const std::vector<int>& v, std::size_t i) {
    return {v[4 * i], v[4 * i + 1], v[4 * i + 2], v[4 * i + 3]};
}

HogSvmStage Reader::read_hog_stage(hid_t g, const std::string& path) const {
    HogSvmStage st;
    const std::string mode = read_string(g, path, "vote_mode");
    if (mode == "binary") st.vote = VoteMode::Binary;
    else if (mode == "margin") st.vote = VoteMode::Margin;
    else fail(attr_path(path, "vote_mode"), "unknown vote mode '" + mode + "' (expected binary or margin)");
    st.threshold = read_float(g, path, "threshold");
    hsize_t n = 0, unused = 0;
    const auto blocks = read_dataset<int>(g, path, "blocks", 2, 4, std::nullopt, n);
    const auto weights = read_dataset<float>(g, path, "weights", 2, kBlockDims, n, unused);
    const auto bias = read_dataset<float>(g, path, "bias", 1, 1, n, unused);
    const auto alpha = read_dataset<float>(g, path, "alpha", 1, 1, n, unused);
    st.learners.resize(n);
    for (std::size_t i = 0; i < n; ++i) {
        HogLearner& l = st.learners[i];
        l.block = rect_at(blocks, i);
        std::copy_n(weights.begin() + static_cast<std::ptrdiff_t>(i * kBlockDims), kBlockDims, l.weights.begin());
        l.bias = bias[i];
        l.alpha = alpha[i];
    }
    return st;
}

WaldBoostLbpStage Reader::read_lbp_stage(hid_t g, const std::string& path) const {
    WaldBoostLbpStage st;
    st.final_threshold = read_float(g, path, "final_threshold");
    hsize_t n = 0, unused = 0;
    const auto cells = read_dataset<int>(g, path, "cells", 2, 4, std::nullopt, n);
    const auto responses = read_dataset<float>(g, path, "responses", 2, 256, n, unused);
    const auto reject = read_dataset<float>(g, path, "reject_thresholds", 1, 1, n, unused);
    st.weak.resize(n);
    for (std::size_t i = 0; i < n; ++i) {
        LbpWeakClassifier& c = st.weak[i];
        c.cell = rect_at(cells, i);
        std::copy_n(responses.begin() + static_cast<std::ptrdiff_t>(i * 256), 256, c.responses.begin());
        c.reject_threshold = reject[i];
    }
    return st;
}

CascadeModel Reader::read() const {
    std::error_code ec;
    if (!std::filesystem::exists(file_, ec)) fail("/", "no such file");
    if (std::filesystem::is_directory(file_, ec)) fail("/", "is a directory, not a model file");
    {
        std::ifstream probe(file_, std::ios::binary);
        if (!probe) fail("/", "cannot be opened for reading");
    }
    if (H5Fis_hdf5(file_.c_str()) <= 0) fail("/", "not an HDF5 file");
    Handle f(H5Fopen(file_.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose);
    if (!f.valid()) fail("/", "HDF5 cannot open it (truncated or corrupt file)");
    const hid_t root = f.get();

    const std::string format = read_string(root, "/", "format");
    if (format != kModelFormatName)
        fail("/@format", "not a cascadekit model (format is '" + format + "', expected '" + kModelFormatName + "')");
    const int version = read_int(root, "/", "schema_version");
    if (version > kModelSchemaVersion)
        fail("/@schema_version", "schema version " + std::to_string(version) +
                                     " is newer than this build of cascadekit supports (" +
                                     std::to_string(kModelSchemaVersion) + "); upgrade cascadekit");
    if (version < 1) fail("/@schema_version", "invalid schema version " + std::to_string(version));

    CascadeModel m;
    m.window_width = read_int(root, "/", "window_width");
    m.window_height = read_int(root, "/", "window_height");
    const std::string family = read_string(root, "/", "feature_family");

    Handle hog = open_group(root, "hog", "/hog");
    const int bins = read_int(hog.get(), "/hog", "bins");
    if (bins != kOrientationBins)
        fail("/hog@bins", "expected " + std::to_string(kOrientationBins) + " orientation bins, found " + std::to_string(bins));
    const std::string norm = read_string(hog.get(), "/hog", "block_norm");
    if (!parse_block_norm(norm, m.hog.norm))
        fail("/hog@block_norm", "unknown block normalisation '" + norm + "' (expected l2, l2-hys or l1-sqrt)");
    m.hog.epsilon = read_float(hog.get(), "/hog", "epsilon");
    m.hog.hys_clip = read_float(hog.get(), "/hog", "hys_clip");

    Handle meta = open_group(root, "metadata", "/metadata");
    m.metadata.training_config = read_string(meta.get(), "/metadata", "training_config");
    m.metadata.data_description = read_string(meta.get(), "/metadata", "data_description");
    m.metadata.created_utc = read_string(meta.get(), "/metadata", "created_utc");
    m.metadata.toolkit_version = read_string(meta.get(), "/metadata", "toolkit_version");

    Handle stages = open_group(root, "stages", "/stages");
    const int count = read_int(stages.get(), "/stages", "count");
    if (count < 0) fail("/stages@count", "negative stage count");
    H5G_info_t ginfo;
    if (H5Gget_info(stages.get(), &ginfo) < 0) fail("/stages", "cannot list stages");
    if (ginfo.nlinks != static_cast<hsize_t>(count))
        fail("/stages", "holds " + std::to_string(ginfo.nlinks) + " entries but @count says " + std::to_string(count));
    for (int s = 0; s < count; ++s) {
        const std::string path = stage_path(static_cast<std::size_t>(s));
        Handle g = open_group(stages.get(), path.substr(std::string("/stages/").size()), path);
        const std::string kind = read_string(g.get(), path, "kind");
        if (kind == "hog_svm") m.stages.emplace_back(read_hog_stage(g.get(), path));
        else if (kind == "waldboost_lbp") m.stages.emplace_back(read_lbp_stage(g.get(), path));
        else fail(attr_path(path, "kind"), "unknown stage kind '" + kind + "' (expected hog_svm or waldboost_lbp)");
    }
    try {
        validate_model(m);
    } catch (const ModelError& e) {
        const std::string what = e.what();
        fail(e.path(), what.substr(e.path().size() + 2));
    }
    if (family != feature_family(m))
        fail("/@feature_family", "says '" + family + "' but the stages make it '" + feature_family(m) + "'");
    return m;
}

// ---------------------------------------------------------------------------------------------
// Writing
// ---------------------------------------------------------------------------------------------
class Writer {
public:
    Writer(std::filesystem::path target, hid_t file) : target_(std::move(target)), file_(file) {
        // Timestamps off: the same model always gives the same bytes (deterministic training).
        gcpl_ = Handle(H5Pcreate(H5P_GROUP_CREATE), H5Pclose);
        H5Pset_obj_track_times(gcpl_.get(), false);
        dcpl_ = Handle(H5Pcreate(H5P_DATASET_CREATE), H5Pclose);
        H5Pset_obj_track_times(dcpl_.get(), false);
    }

    void check(long long status, const std::string& path) const {
        if (status < 0) throw ModelFileError(target_, path, "HDF5 failed to write it");
    }

    Handle group(hid_t parent, const std::string& name, const std::string& path) const {
        hid_t g = H5Gcreate2(parent, name.c_str(), H5P_DEFAULT, gcpl_.get(), H5P_DEFAULT);
        check(g, path);
        return {g, H5Gclose};
    }

    void attr(hid_t obj, const char* name, hid_t file_type, hid_t mem_type, const void* value, const std::string& path) const {
        Handle space(H5Screate(H5S_SCALAR), H5Sclose);
        Handle a(H5Acreate2(obj, name, file_type, space.get(), H5P_DEFAULT, H5P_DEFAULT), H5Aclose);
        check(a.get(), path);
        check(H5Awrite(a.get(), mem_type, value), path);
    }
    void attr_int(hid_t obj, const char* name, int v, const std::string& path) const {
        attr(obj, name, H5T_STD_I32LE, H5T_NATIVE_INT, &v, path);
    }
    void attr_float(hid_t obj, const char* name, float v, const std::string& path) const {
        attr(obj, name, H5T_IEEE_F32LE, H5T_NATIVE_FLOAT, &v, path);
    }
    void attr_string(hid_t obj, const char* name, const std::string& v, const std::string& path) const {
        Handle type(H5Tcopy(H5T_C_S1), H5Tclose);
        H5Tset_size(type.get(), H5T_VARIABLE);
        H5Tset_cset(type.get(), H5T_CSET_UTF8);
        const char* p = v.c_str();
        attr(obj, name, type.get(), type.get(), &p, path);
    }

    template <class T>
    void dataset(hid_t g, const char* name, const std::vector<T>& data, hsize_t rows, hsize_t cols, int rank,
                 const std::string& path) const {
        const hsize_t dims[2] = {rows, cols};
        Handle space(H5Screate_simple(rank, dims, nullptr), H5Sclose);
        const bool is_float = std::is_same_v<T, float>;
        Handle ds(H5Dcreate2(g, name, is_float ? H5T_IEEE_F32LE : H5T_STD_I32LE, space.get(), H5P_DEFAULT,
                             dcpl_.get(), H5P_DEFAULT), H5Dclose);
        check(ds.get(), path);
        if (!data.empty())
            check(H5Dwrite(ds.get(), is_float ? H5T_NATIVE_FLOAT : H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT,
                           data.data()), path);
    }

    void write(const CascadeModel& m) const {
        const hid_t root = file_;
        attr_string(root, "format", kModelFormatName, "/@format");
        attr_int(root, "schema_version", kModelSchemaVersion, "/@schema_version");
        attr_int(root, "window_width", m.window_width, "/@window_width");
        attr_int(root, "window_height", m.window_height, "/@window_height");
        attr_string(root, "feature_family", feature_family(m), "/@feature_family");

        Handle hog = group(root, "hog", "/hog");
        attr_int(hog.get(), "bins", kOrientationBins, "/hog@bins");
        attr_string(hog.get(), "block_norm", std::string(to_string(m.hog.norm)), "/hog@block_norm");
        attr_float(hog.get(), "epsilon", m.hog.epsilon, "/hog@epsilon");
        attr_float(hog.get(), "hys_clip", m.hog.hys_clip, "/hog@hys_clip");

        Handle meta = group(root, "metadata", "/metadata");
        attr_string(meta.get(), "training_config", m.metadata.training_config, "/metadata@training_config");
        attr_string(meta.get(), "data_description", m.metadata.data_description, "/metadata@data_description");
        attr_string(meta.get(), "created_utc", m.metadata.created_utc, "/metadata@created_utc");
        attr_string(meta.get(), "toolkit_version", m.metadata.toolkit_version, "/metadata@toolkit_version");

        Handle stages = group(root, "stages", "/stages");
        attr_int(stages.get(), "count", static_cast<int>(m.stages.size()), "/stages@count");
        for (std::size_t s = 0; s < m.stages.size(); ++s) {
            const std::string path = stage_path(s);
            Handle g = group(stages.get(), path.substr(8), path);
            attr_string(g.get(), "kind", std::string(stage_kind(m.stages[s])), path + "@kind");
            if (const auto* hog_stage = std::get_if<HogSvmStage>(&m.stages[s]))
                write_hog(g.get(), *hog_stage, path);
            else
                write_lbp(g.get(), std::get<WaldBoostLbpStage>(m.stages[s]), path);
        }
    }

private:
    static void push_rect(std::vector<int>& v, const Rect& r) { v.insert(v.end(), {r.x, r.y, r.w, r.h}); }

    void write_hog(hid_t g, const HogSvmStage& st, const std::string& path) const {
        attr_string(g, "vote_mode", st.vote == VoteMode::Binary ? "binary" : "margin", path + "@vote_mode");
        attr_float(g, "threshold", st.threshold, path + "@threshold");
        std::vector<int> blocks;
        std::vector<float> weights, bias, alpha;
        for (const HogLearner& l : st.learners) {
            push_rect(blocks, l.block);
            weights.insert(weights.end(), l.weights.begin(), l.weights.end());
            bias.push_back(l.bias);
            alpha.push_back(l.alpha);
        }
        const hsize_t n = st.learners.size();
        dataset(g, "blocks", blocks, n, 4, 2, path + "/blocks");
        dataset(g, "weights", weights, n, kBlockDims, 2, path + "/weights");
        dataset(g, "bias", bias, n, 1, 1, path + "/bias");
        dataset(g, "alpha", alpha, n, 1, 1, path + "/alpha");
    }

    void write_lbp(hid_t g, const WaldBoostLbpStage& st, const std::string& path) const {
        attr_float(g, "final_threshold", st.final_threshold, path + "@final_threshold");
        std::vector<int> cells;
        std::vector<float> responses, reject;
        for (const LbpWeakClassifier& c : st.weak) {
            push_rect(cells, c.cell);
            responses.insert(responses.end(), c.responses.begin(), c.responses.end());
            reject.push_back(c.reject_threshold);
        }
        const hsize_t n = st.weak.size();
        dataset(g, "cells", cells, n, 4, 2, path + "/cells");
        dataset(g, "responses", responses, n, 256, 2, path + "/responses");
        dataset(g, "reject_thresholds", reject, n, 1, 1, path + "/reject_thresholds");
    }

    std::filesystem::path target_;
    hid_t file_;
    Handle gcpl_, dcpl_;
};

}  // namespace

CascadeModel load_model(const std::filesystem::path& file) {
    silence_hdf5();
    return Reader(file).read();
}

void save_model(const CascadeModel& model, const std::filesystem::path& file) {
    silence_hdf5();
    try {
        validate_model(model);
    } catch (const ModelError& e) {
        const std::string what = e.what();
        throw ModelFileError(file, e.path(), "refusing to save an invalid model: " + what.substr(e.path().size() + 2));
    }
    std::filesystem::path tmp = file;
    tmp += ".tmp-" + std::to_string(::getpid());
    {
        Handle f(H5Fcreate(tmp.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT), H5Fclose);
        if (!f.valid()) throw ModelFileError(file, "/", "cannot create temporary file " + tmp.string());
        try {
            Writer(file, f.get()).write(model);
            if (H5Fflush(f.get(), H5F_SCOPE_GLOBAL) < 0) throw ModelFileError(file, "/", "HDF5 failed to flush");
        } catch (...) {
            f.reset();
            std::error_code ec;
            std::filesystem::remove(tmp, ec);
            throw;
        }
        f.reset();
    }
    std::error_code ec;
    std::filesystem::rename(tmp, file, ec);
    if (ec) {
        std::filesystem::remove(tmp, ec);
        throw ModelFileError(file, "/", "cannot move the written model into place: " + ec.message());
    }
}

}  // namespace cascadekit
