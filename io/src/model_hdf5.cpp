#include "model_hdf5.hpp"

#include <hdf5.h>

#include <algorithm>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "cascadekit/io/model_file.hpp"
#include "cascadekit/io/stage_codec.hpp"
#include "cascadekit/model/hog_svm_stage.hpp"

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


// ---------------------------------------------------------------------------------------------
// Reading
// ---------------------------------------------------------------------------------------------
class Reader {
public:
    // legacy: a schema-1 file read on the user's word (cascade convert): variable-length strings
    // are allowed there. The file's bytes are image_size long (datasets must fit in them).
    // header_schema: the schema version the integrity header names (the file's attribute must
    // agree); 0 for a file without a header (schema 1, read only with legacy).
    Reader(std::filesystem::path file, std::size_t image_size, bool legacy, int header_schema)
        : file_(std::move(file)), image_size_(image_size), legacy_(legacy), header_schema_(header_schema) {}

    [[noreturn]] void fail(const std::string& path, const std::string& problem) const {
        throw ModelFileError(file_, path, problem);
    }

    static std::string attr_path(const std::string& object, const char* name) {
        return (object == "/" ? std::string("/") : object) + "@" + name;
    }

    // Every object the reader opens is reached through a hard link: a soft or external link
    // (another file, /dev/zero) would make values come from outside the checked bytes.
    void require_hard_link(hid_t parent, const std::string& name, const std::string& path, const char* what) const {
        if (H5Lexists(parent, name.c_str(), H5P_DEFAULT) <= 0) fail(path, std::string("missing ") + what);
        H5L_info_t info;
        if (H5Lget_info(parent, name.c_str(), &info, H5P_DEFAULT) < 0) fail(path, "cannot read the link (corrupt file?)");
        if (info.type != H5L_TYPE_HARD)
            fail(path, std::string("is a ") + (info.type == H5L_TYPE_EXTERNAL ? "link to another file" : "soft link") +
                           "; a model file holds all its values itself");
    }

    Handle open_group(hid_t parent, const std::string& name, const std::string& path) const {
        require_hard_link(parent, name, path, "group");
        // H5Oopen + H5Iget_type works the same across HDF5 1.10 to 1.14 (H5Oget_info changed).
        Handle obj(H5Oopen(parent, name.c_str(), H5P_DEFAULT), H5Oclose);
        if (!obj.valid()) fail(path, "cannot open (corrupt file?)");
        if (H5Iget_type(obj.get()) != H5I_GROUP) fail(path, "expected a group");
        return obj;
    }

    // Values stored in this file, in one piece: no external raw storage (H5Pset_external: weights
    // read from any file), no virtual dataset (other files' datasets), no filters (a compressed
    // dataset could inflate without bound), and no more bytes than the file holds.
    void require_plain_storage(hid_t ds, const std::string& path, hsize_t bytes) const {
        Handle dcpl(H5Dget_create_plist(ds), H5Pclose);
        if (!dcpl.valid()) fail(path, "cannot read the dataset's storage properties");
        const H5D_layout_t layout = H5Pget_layout(dcpl.get());
        if (layout == H5D_VIRTUAL) fail(path, "is a virtual dataset (values from other files); refused");
        if (H5Pget_external_count(dcpl.get()) != 0) fail(path, "keeps its values in an external file; refused");
        // Filters (compression) need chunked storage: refusing chunks refuses them too.
        if (layout != H5D_CONTIGUOUS && layout != H5D_COMPACT)
            fail(path, "is chunked or filtered; a model file stores datasets contiguously");
        if (bytes > image_size_)
            fail(path, "declares " + std::to_string(bytes) + " bytes of values but the file holds only " +
                           std::to_string(image_size_));
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
            // Schema 2 stores fixed-length strings: variable-length ones live in HDF5's global
            // heap, whose parser is where damaged files crashed libhdf5 1.10.
            if (!legacy_) fail(path, "is a variable-length string; schema 2 and later store fixed-length strings");
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
        if (n == 0 || n > image_size_) fail(path, "string of " + std::to_string(n) + " bytes does not fit in the file");
        std::vector<char> buf(n + 1, '\0');
        Handle mem(H5Tcopy(H5T_C_S1), H5Tclose);
        H5Tset_size(mem.get(), n + 1);
        H5Tset_cset(mem.get(), H5Tget_cset(type.get()));  // HDF5 converts no string between charsets
        if (H5Aread(a.get(), mem.get(), buf.data()) < 0) fail(path, "cannot read string");
        return std::string(buf.data());
    }

    // Reads a dataset of the given class, checking rank and the trailing dimension; returns the
    // first dimension in rows. T is int or float.
    template <class T>
    std::vector<T> read_dataset(hid_t group, const std::string& group_path, const char* name, int rank,
                                hsize_t cols, std::optional<hsize_t> rows, hsize_t& rows_out) const {
        const std::string path = group_path + "/" + name;
        require_hard_link(group, name, path, "dataset");
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
        if (dims[0] > kMaxStageSize)
            fail(path, std::to_string(dims[0]) + " rows, more than the limit of " + std::to_string(kMaxStageSize));
        require_plain_storage(ds.get(), path, dims[0] * (rank == 2 ? dims[1] : 1) * sizeof(T));
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

    CascadeModel read(hid_t root) const;
    int read_schema(hid_t root) const;
    void read_hog(hid_t root, int version, CascadeModel& m) const;
    void read_metadata(hid_t root, CascadeModel& m) const;
    void read_stages(hid_t root, CascadeModel& m) const;
    void read_detect(hid_t root, int version, CascadeModel& m) const;

private:
    std::filesystem::path file_;
    std::size_t image_size_;
    bool legacy_;
    int header_schema_;
};

// A stage's fields read through its codec (stage_codec.hpp), every one checked as above.
class Hdf5StageIn final : public StageIn {
public:
    Hdf5StageIn(const Reader& r, hid_t group, std::string path) : r_(r), g_(group), path_(std::move(path)) {}
    std::string attr_string(const char* name) override { return r_.read_string(g_, path_, name); }
    float attr_float(const char* name) override { return r_.read_float(g_, path_, name); }
    float attr_float_optional(const char* name, float absent) override {
        return H5Aexists(g_, name) > 0 ? r_.read_float(g_, path_, name) : absent;
    }
    std::vector<std::int32_t> ints(const char* name, int rank, std::size_t cols, std::optional<std::size_t> rows,
                                   std::size_t& rows_out) override {
        return table<std::int32_t>(name, rank, cols, rows, rows_out);
    }
    std::vector<float> floats(const char* name, int rank, std::size_t cols, std::optional<std::size_t> rows,
                              std::size_t& rows_out) override {
        return table<float>(name, rank, cols, rows, rows_out);
    }
    [[noreturn]] void fail(const std::string& field, const std::string& problem) override { r_.fail(path_ + field, problem); }

private:
    template <class T>
    std::vector<T> table(const char* name, int rank, std::size_t cols, std::optional<std::size_t> rows, std::size_t& rows_out) {
        hsize_t n = 0;
        auto v = r_.read_dataset<T>(g_, path_, name, rank, cols, rows ? std::optional<hsize_t>(*rows) : std::nullopt, n);
        rows_out = static_cast<std::size_t>(n);
        return v;
    }
    const Reader& r_;
    hid_t g_;
    std::string path_;
};

// The root's format and schema version, checked against this build and the file's header.
int Reader::read_schema(hid_t root) const {
    const std::string format = read_string(root, "/", "format");
    if (format != kModelFormatName)
        fail("/@format", "not a cascadekit model (format is '" + format + "', expected '" + kModelFormatName + "')");
    const int version = read_int(root, "/", "schema_version");
    if (version > kModelSchemaVersion)
        fail("/@schema_version", "schema version " + std::to_string(version) +
                                     " is newer than this build of cascadekit supports (" +
                                     std::to_string(kModelSchemaVersion) + "); upgrade cascadekit");
    if (version < 1) fail("/@schema_version", "invalid schema version " + std::to_string(version));
    if (header_schema_ != 0 && version != header_schema_)
        fail("/@schema_version", "says " + std::to_string(version) + " but the file's header says " +
                                     std::to_string(header_schema_));
    return version;
}

void Reader::read_hog(hid_t root, int version, CascadeModel& m) const {
    Handle hog = open_group(root, "hog", "/hog");
    const int bins = read_int(hog.get(), "/hog", "bins");
    if (bins != kOrientationBins)
        fail("/hog@bins", "expected " + std::to_string(kOrientationBins) + " orientation bins, found " + std::to_string(bins));
    const std::string norm = read_string(hog.get(), "/hog", "block_norm");
    if (!parse_block_norm(norm, m.hog.norm))
        fail("/hog@block_norm", "unknown block normalisation '" + norm + "' (expected l2, l2-hys or l1-sqrt)");
    m.hog.epsilon = read_float(hog.get(), "/hog", "epsilon");
    m.hog.hys_clip = read_float(hog.get(), "/hog", "hys_clip");
    if (version >= 4) {
        const std::string gamma = read_string(hog.get(), "/hog", "gamma");
        if (!kGrayGammaNames.parse(gamma, m.hog.gamma))
            fail("/hog@gamma", "unknown gray-level compression '" + gamma + "' (expected " + kGrayGammaNames.choices() + ")");
    }
    if (version >= 5) {
        const std::string votes = read_string(hog.get(), "/hog", "votes");
        if (!kOrientationVotesNames.parse(votes, m.hog.votes))
            fail("/hog@votes", "unknown orientation votes '" + votes + "' (expected " + kOrientationVotesNames.choices() + ")");
    }
    if (version >= 6) {
        const std::string channels = read_string(hog.get(), "/hog", "channels");
        if (!kGradientChannelsNames.parse(channels, m.hog.channels))
            fail("/hog@channels", "unknown gradient channels '" + channels + "' (expected " + kGradientChannelsNames.choices() + ")");
    }
}

void Reader::read_metadata(hid_t root, CascadeModel& m) const {
    Handle meta = open_group(root, "metadata", "/metadata");
    m.metadata.training_config = read_string(meta.get(), "/metadata", "training_config");
    m.metadata.data_description = read_string(meta.get(), "/metadata", "data_description");
    m.metadata.created_utc = read_string(meta.get(), "/metadata", "created_utc");
    m.metadata.toolkit_version = read_string(meta.get(), "/metadata", "toolkit_version");
}

// Every stage through its kind's codec.
void Reader::read_stages(hid_t root, CascadeModel& m) const {
    Handle stages = open_group(root, "stages", "/stages");
    const int count = read_int(stages.get(), "/stages", "count");
    if (count < 0) fail("/stages@count", "negative stage count");
    if (static_cast<std::size_t>(count) > kMaxStages)
        fail("/stages@count", std::to_string(count) + " stages, more than the limit of " + std::to_string(kMaxStages));
    H5G_info_t ginfo;
    if (H5Gget_info(stages.get(), &ginfo) < 0) fail("/stages", "cannot list stages");
    if (ginfo.nlinks != static_cast<hsize_t>(count))
        fail("/stages", "holds " + std::to_string(ginfo.nlinks) + " entries but @count says " + std::to_string(count));
    for (int s = 0; s < count; ++s) {
        const std::string path = stage_path(static_cast<std::size_t>(s));
        Handle g = open_group(stages.get(), path.substr(std::string("/stages/").size()), path);
        const std::string kind = read_string(g.get(), path, "kind");
        const StageCodec* codec = find_stage_codec(kind);
        if (codec == nullptr)
            fail(attr_path(path, "kind"), "unknown stage kind '" + kind + "' (expected one of: " + known_stage_kinds() + ")");
        Hdf5StageIn in(*this, g.get(), path);
        m.stages.push_back(codec->read(in));
    }
}

// The object box and operating point (schema 3 on), or the conventions of schema 2.
void Reader::read_detect(hid_t root, int version, CascadeModel& m) const {
    if (version >= 3) {
        Handle det = open_group(root, "detect", "/detect");
        hsize_t rows = 0;
        const std::vector<float> box = read_dataset<float>(det.get(), "/detect", "object_box", 1, 0, hsize_t{4}, rows);
        m.object_box = {box[0], box[1], box[2], box[3]};
        OperatingPoint& o = m.operating;
        o.threshold = read_float(det.get(), "/detect", "threshold");
        o.stride = read_int(det.get(), "/detect", "stride");
        o.scale_step = read_float(det.get(), "/detect", "scale_step");
        o.min_scale = read_float(det.get(), "/detect", "min_scale");
        o.pad = read_float(det.get(), "/detect", "pad");
        o.level_pad = read_int(det.get(), "/detect", "level_pad");
        o.fuse = read_string(det.get(), "/detect", "fuse");
        o.nms_iou = read_float(det.get(), "/detect", "nms_iou");
        o.chosen_on = read_string(det.get(), "/detect", "chosen_on");
    } else {
        // Schema 2 had no /detect: the box convention every tool assumed (people windows hold a
        // person 3/4 of their height; other windows are the object's box) and the detector's
        // defaults.
        m.object_box = m.window() == kPeopleWindow ? kPeopleObjectBox : ObjectBox{};
    }
}

CascadeModel Reader::read(hid_t root) const {
    const int version = read_schema(root);
    CascadeModel m;
    m.window_width = read_int(root, "/", "window_width");
    m.window_height = read_int(root, "/", "window_height");
    const std::string family = read_string(root, "/", "feature_family");
    read_hog(root, version, m);
    read_metadata(root, m);
    read_stages(root, m);
    read_detect(root, version, m);
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
    // Fixed-length, NUL-padded UTF-8 (schema 2): no variable-length strings, no global heap.
    void attr_string(hid_t obj, const char* name, const std::string& v, const std::string& path) const {
        Handle type(H5Tcopy(H5T_C_S1), H5Tclose);
        const std::string padded = v.empty() ? std::string(1, '\0') : v;
        H5Tset_size(type.get(), padded.size());
        H5Tset_strpad(type.get(), H5T_STR_NULLPAD);
        H5Tset_cset(type.get(), H5T_CSET_UTF8);
        attr(obj, name, type.get(), type.get(), padded.data(), path);
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
        const int schema = model_schema_version(m);
        attr_int(root, "schema_version", schema, "/@schema_version");
        attr_int(root, "window_width", m.window_width, "/@window_width");
        attr_int(root, "window_height", m.window_height, "/@window_height");
        attr_string(root, "feature_family", feature_family(m), "/@feature_family");

        Handle hog = group(root, "hog", "/hog");
        attr_int(hog.get(), "bins", kOrientationBins, "/hog@bins");
        attr_string(hog.get(), "block_norm", std::string(to_string(m.hog.norm)), "/hog@block_norm");
        attr_float(hog.get(), "epsilon", m.hog.epsilon, "/hog@epsilon");
        attr_float(hog.get(), "hys_clip", m.hog.hys_clip, "/hog@hys_clip");
        if (schema >= 4) attr_string(hog.get(), "gamma", std::string(kGrayGammaNames.name(m.hog.gamma)), "/hog@gamma");
        if (schema >= 5) attr_string(hog.get(), "votes", std::string(kOrientationVotesNames.name(m.hog.votes)), "/hog@votes");
        if (schema >= 6) attr_string(hog.get(), "channels", std::string(kGradientChannelsNames.name(m.hog.channels)), "/hog@channels");

        Handle meta = group(root, "metadata", "/metadata");
        attr_string(meta.get(), "training_config", m.metadata.training_config, "/metadata@training_config");
        attr_string(meta.get(), "data_description", m.metadata.data_description, "/metadata@data_description");
        attr_string(meta.get(), "created_utc", m.metadata.created_utc, "/metadata@created_utc");
        attr_string(meta.get(), "toolkit_version", m.metadata.toolkit_version, "/metadata@toolkit_version");

        Handle det = group(root, "detect", "/detect");
        const ObjectBox& b = m.object_box;
        dataset(det.get(), "object_box", std::vector<float>{b.x, b.y, b.w, b.h}, 4, 1, 1, "/detect/object_box");
        const OperatingPoint& o = m.operating;
        attr_float(det.get(), "threshold", o.threshold, "/detect@threshold");
        attr_int(det.get(), "stride", o.stride, "/detect@stride");
        attr_float(det.get(), "scale_step", o.scale_step, "/detect@scale_step");
        attr_float(det.get(), "min_scale", o.min_scale, "/detect@min_scale");
        attr_float(det.get(), "pad", o.pad, "/detect@pad");
        attr_int(det.get(), "level_pad", o.level_pad, "/detect@level_pad");
        attr_string(det.get(), "fuse", o.fuse, "/detect@fuse");
        attr_float(det.get(), "nms_iou", o.nms_iou, "/detect@nms_iou");
        attr_string(det.get(), "chosen_on", o.chosen_on, "/detect@chosen_on");

        Handle stages = group(root, "stages", "/stages");
        attr_int(stages.get(), "count", static_cast<int>(m.stages.size()), "/stages@count");
        for (std::size_t s = 0; s < m.stages.size(); ++s) {
            const std::string path = stage_path(s);
            Handle g = group(stages.get(), path.substr(8), path);
            const std::string kind(m.stages[s].kind());
            const StageCodec* codec = find_stage_codec(kind);
            if (codec == nullptr) throw ModelFileError(target_, path, "stage kind '" + kind + "' has no codec in this build");
            attr_string(g.get(), "kind", kind, path + "@kind");
            StageWriter out(*this, g.get(), path);
            codec->write(m.stages[s], out);
        }
    }

private:
    // A stage's fields written through its codec, in the order it names them (which fixes the
    // file's bytes: deterministic training gives identical files).
    class StageWriter final : public StageOut {
    public:
        StageWriter(const Writer& w, hid_t g, std::string path) : w_(w), g_(g), path_(std::move(path)) {}
        void attr_string(const char* name, const std::string& v) override {
            w_.attr_string(g_, name, v, path_ + "@" + name);
        }
        void attr_float(const char* name, float v) override { w_.attr_float(g_, name, v, path_ + "@" + name); }
        void attr_float_optional(const char* name, float v, float absent) override {
            if (v != absent) attr_float(name, v);
        }
        void ints(const char* name, const std::vector<std::int32_t>& v, std::size_t rows, std::size_t cols, int rank) override {
            w_.dataset(g_, name, v, rows, cols, rank, path_ + "/" + name);
        }
        void floats(const char* name, const std::vector<float>& v, std::size_t rows, std::size_t cols, int rank) override {
            w_.dataset(g_, name, v, rows, cols, rank, path_ + "/" + name);
        }

    private:
        const Writer& w_;
        hid_t g_;
        std::string path_;
    };

    std::filesystem::path target_;
    hid_t file_;
    Handle gcpl_, dcpl_;
};

// The name HDF5's core driver gets for in-memory files. Given the name of an existing file, the
// driver of libhdf5 1.10 opens that file instead of the image; nothing can exist under /proc/self.
constexpr const char* kInMemoryName = "/proc/self/cascadekit-in-memory-model";

// Opens the checked bytes with HDF5's in-memory ("core") driver: libhdf5 reads exactly these
// bytes, never the file on disk again (nothing can change between the check and the parse).
Handle open_image(const std::vector<std::uint8_t>& bytes, const std::filesystem::path& file) {
    Handle fapl(H5Pcreate(H5P_FILE_ACCESS), H5Pclose);
    if (H5Pset_fapl_core(fapl.get(), 1 << 16, false) < 0 ||
        H5Pset_file_image(fapl.get(), const_cast<std::uint8_t*>(bytes.data()), bytes.size()) < 0)
        throw ModelFileError(file, "/", "HDF5 cannot set up an in-memory file");
    Handle f(H5Fopen(kInMemoryName, H5F_ACC_RDONLY, fapl.get()), H5Fclose);
    if (!f.valid()) throw ModelFileError(file, "/", "HDF5 cannot open it (corrupt file)");
    return f;
}

}  // namespace

namespace detail {

// HDF5 prints its error stack to stderr by default; library code must not, we report instead.
void silence_hdf5() { H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr); }

CascadeModel read_model_hdf5(const std::vector<std::uint8_t>& bytes, const std::filesystem::path& file, bool legacy,
                             int header_schema) {
    Handle f = open_image(bytes, file);
    return Reader(file, bytes.size(), legacy, header_schema).read(f.get());
}

std::vector<std::uint8_t> model_hdf5_bytes(const CascadeModel& model, const std::filesystem::path& file) {
    // Built in memory (core driver, no backing store): HDF5 never writes to disk, so a full disk
    // is reported by write_file_atomically with the OS's reason and HDF5 holds no open file.
    Handle fcpl(H5Pcreate(H5P_FILE_CREATE), H5Pclose);
    Handle fapl(H5Pcreate(H5P_FILE_ACCESS), H5Pclose);
    if (H5Pset_userblock(fcpl.get(), kModelHeaderBytes) < 0 || H5Pset_fapl_core(fapl.get(), 1 << 16, false) < 0)
        throw ModelFileError(file, "/", "HDF5 cannot set up an in-memory file");
    Handle f(H5Fcreate(kInMemoryName, H5F_ACC_TRUNC, fcpl.get(), fapl.get()), H5Fclose);
    if (!f.valid()) throw ModelFileError(file, "/", "HDF5 cannot create an in-memory file");
    Writer(file, f.get()).write(model);
    if (H5Fflush(f.get(), H5F_SCOPE_GLOBAL) < 0) throw ModelFileError(file, "/", "HDF5 failed to flush");
    // The image starts at the superblock (HDF5's base address, after the user block); the user
    // block in front of it is ours to fill.
    const ssize_t size = H5Fget_file_image(f.get(), nullptr, 0);
    if (size <= 0) throw ModelFileError(file, "/", "HDF5 gave no file image");
    std::vector<std::uint8_t> bytes(kModelHeaderBytes + static_cast<std::size_t>(size));
    if (H5Fget_file_image(f.get(), bytes.data() + kModelHeaderBytes, static_cast<std::size_t>(size)) != size)
        throw ModelFileError(file, "/", "HDF5 gave a short file image");
    f.reset();
    return bytes;
}

}  // namespace detail
}  // namespace cascadekit
