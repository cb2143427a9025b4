#pragma once
// Editing saved model files with libhdf5 directly, as a user with h5py (or an attacker) would:
// the tests build damaged-but-sealed files with these (re-sealed, so the checks behind the
// integrity header are what must catch them).
#include <hdf5.h>

#include <filesystem>
#include <functional>
#include <type_traits>
#include <vector>

#include "cascadekit/io/model_file.hpp"

namespace cascadekit::test {

// Opens a saved model read-write, lets the test change it, closes and re-seals it.
inline bool edit_model_file(const std::filesystem::path& p, const std::function<void(hid_t)>& change) {
    H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
    const hid_t f = H5Fopen(p.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
    if (f < 0) return false;
    change(f);
    H5Fclose(f);
    reseal_model_file(p);
    return true;
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

// Replaces a float32 dataset by one of the given shape whose creation properties `setup` sets
// (external storage, virtual mapping, chunks and filters); `values` are written when given.
inline void recreate_float_dataset(hid_t f, const char* path, const std::vector<hsize_t>& dims,
                                   const std::function<void(hid_t dcpl, hid_t space)>& setup,
                                   const std::vector<float>& values = {}) {
    H5Ldelete(f, path, H5P_DEFAULT);
    hid_t sp = H5Screate_simple(static_cast<int>(dims.size()), dims.data(), nullptr);
    hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
    setup(dcpl, sp);
    hid_t d = H5Dcreate2(f, path, H5T_IEEE_F32LE, sp, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    if (!values.empty()) H5Dwrite(d, H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data());
    H5Dclose(d);
    H5Pclose(dcpl);
    H5Sclose(sp);
}

}  // namespace cascadekit::test
