// libFuzzer: the model loader on arbitrary bytes. Must never crash, hang or leak, and must never
// hand libhdf5 bytes whose integrity header does not verify (counted: a sealed input reaching
// HDF5 would need a forged SHA-256). Seeds: tests/fuzz/seeds/model/ (made by fuzz.sh).
#include <cstdint>
#include <vector>

#include "cascadekit/io/model_file.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::vector<std::uint8_t> bytes(data, data + size);
    try {
        cascadekit::parse_model_file(bytes, "fuzz.h5");
    } catch (const cascadekit::ModelFileError&) {
    }
    return 0;
}
