#pragma once
// cascadekit's own small binary encodings (training checkpoints; the model handed back by the
// process that parses HDF5): values in host byte order, and a reader that checks every length
// against the bytes present before it reads or allocates. Not a file format for exchange.
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

namespace cascadekit {

// Data that ends early or declares more than it holds.
class ByteCodecError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

class ByteWriter {
public:
    template <class T>
    void pod(const T& v) {
        static_assert(std::is_trivially_copyable_v<T>);
        const std::size_t at = bytes.size();
        bytes.resize(at + sizeof(T));
        std::memcpy(bytes.data() + at, &v, sizeof(T));
    }
    void str(const std::string& s) {
        pod<std::uint64_t>(s.size());
        bytes.insert(bytes.end(), s.begin(), s.end());
    }
    template <class T>
    void vec(const std::vector<T>& v) {
        pod<std::uint64_t>(v.size());
        for (const T& x : v) pod(x);
    }
    std::vector<std::uint8_t> bytes;
};

class ByteReader {
public:
    ByteReader(const std::uint8_t* data, std::size_t size, std::size_t start = 0) : d_(data), n_(size), i_(start) {}
    template <class T>
    T pod() {
        static_assert(std::is_trivially_copyable_v<T>);
        if (n_ - i_ < sizeof(T) || i_ > n_) throw ByteCodecError("data ends early");
        T v;
        std::memcpy(&v, d_ + i_, sizeof(T));
        i_ += sizeof(T);
        return v;
    }
    std::string str() {
        const std::size_t n = count(1, n_);
        std::string s(reinterpret_cast<const char*>(d_ + i_), n);
        i_ += n;
        return s;
    }
    template <class T>
    std::vector<T> vec(std::size_t limit) {
        std::vector<T> v(count(sizeof(T), limit));
        for (T& x : v) x = pod<T>();
        return v;
    }
    // A count of items of at least item_bytes each, at most `limit`, that fit in what is left.
    std::size_t count(std::size_t item_bytes, std::size_t limit) {
        const auto c = pod<std::uint64_t>();
        if (c > limit || c > (n_ - i_) / item_bytes) throw ByteCodecError("a count exceeds the data");
        return static_cast<std::size_t>(c);
    }
    bool at_end() const { return i_ == n_; }

private:
    const std::uint8_t* d_;
    std::size_t n_, i_;
};

}  // namespace cascadekit
