// Little-endian bytes: a bounds-checked reader over an untrusted span (every read names its
// field; a failed read returns an Error with the field's absolute file offset, so a report points
// at the exact byte), the writer that appends to a vector, and patching in place.
#pragma once

#include <mab/result.hpp>

#include <boost/endian/conversion.hpp>

#include <array>
#include <cstdint>
#include <cstring>
#include <span>
#include <string_view>
#include <vector>

namespace mab::io {

class ByteReader {
 public:
  // `origin` is the absolute file offset of data[0], used only for error reports.
  explicit ByteReader(std::span<const std::uint8_t> data, std::uint64_t origin = 0) noexcept
      : data_(data), origin_(origin) {}

  std::size_t pos() const noexcept { return pos_; }
  std::uint64_t file_offset() const noexcept { return origin_ + pos_; }
  std::size_t size() const noexcept { return data_.size(); }
  std::size_t remaining() const noexcept { return data_.size() - pos_; }

  Result<std::uint8_t> u8(std::string_view field) { return load<std::uint8_t>(field); }
  Result<std::uint16_t> u16(std::string_view field) { return load<std::uint16_t>(field); }
  Result<std::uint32_t> u32(std::string_view field) { return load<std::uint32_t>(field); }
  Result<std::uint64_t> u64(std::string_view field) { return load<std::uint64_t>(field); }
  Result<std::int32_t> i32(std::string_view field) {
    auto r = load<std::uint32_t>(field);
    if (!r) return std::move(r).error();
    return static_cast<std::int32_t>(*r);
  }

  Result<std::span<const std::uint8_t>> bytes(std::size_t n, std::string_view field) {
    if (n > remaining()) return short_read(n, field);
    auto out = data_.subspan(pos_, n);
    pos_ += n;
    return out;
  }

  template <std::size_t N>
  Status copy_to(std::array<std::uint8_t, N>& dst, std::string_view field) {
    if (N > remaining()) return short_read(N, field);
    std::memcpy(dst.data(), data_.data() + pos_, N);
    pos_ += N;
    return {};
  }

  Status seek(std::size_t pos, std::string_view field) {
    if (pos > data_.size())
      return make_error(ErrorCode::out_of_bounds, origin_ + pos_, std::string(field),
                        "seek to " + std::to_string(pos) + " past end " + std::to_string(data_.size()));
    pos_ = pos;
    return {};
  }

 private:
  template <class T>
  Result<T> load(std::string_view field) {
    if (sizeof(T) > remaining()) return short_read(sizeof(T), field);
    T v;
    std::memcpy(&v, data_.data() + pos_, sizeof(T));
    pos_ += sizeof(T);
    return boost::endian::little_to_native(v);
  }

  Error short_read(std::size_t need, std::string_view field) const {
    return make_error(ErrorCode::truncated, origin_ + pos_, std::string(field),
                      "need " + std::to_string(need) + " bytes, " + std::to_string(remaining()) + " left");
  }

  std::span<const std::uint8_t> data_;
  std::uint64_t origin_;
  std::size_t pos_ = 0;
};

// Little-endian writer appending to a byte vector.
class ByteWriter {
 public:
  explicit ByteWriter(std::vector<std::uint8_t>& out) noexcept : out_(out) {}

  std::size_t size() const noexcept { return out_.size(); }
  void u8(std::uint8_t v) { out_.push_back(v); }
  void u16(std::uint16_t v) { store(v); }
  void u32(std::uint32_t v) { store(v); }
  void u64(std::uint64_t v) { store(v); }
  void i32(std::int32_t v) { store(static_cast<std::uint32_t>(v)); }
  void bytes(std::span<const std::uint8_t> b) { out_.insert(out_.end(), b.begin(), b.end()); }
  void zeros(std::size_t n) { out_.insert(out_.end(), n, std::uint8_t{0}); }

 private:
  template <class T>
  void store(T v) {
    T le = boost::endian::native_to_little(v);
    const auto* p = reinterpret_cast<const std::uint8_t*>(&le);
    out_.insert(out_.end(), p, p + sizeof(T));
  }
  std::vector<std::uint8_t>& out_;
};

// Reads at `pos` of bytes the caller has bounds-checked (a table already sized, a record inside
// a checked section): ByteReader's little-endian loads without the check or the field name.
template <class T>
inline T load_le(std::span<const std::uint8_t> in, std::size_t pos) noexcept {
  T v;
  std::memcpy(&v, in.data() + pos, sizeof v);
  return boost::endian::little_to_native(v);
}
inline std::uint16_t load_u16(std::span<const std::uint8_t> in, std::size_t pos) noexcept {
  return load_le<std::uint16_t>(in, pos);
}
inline std::int16_t load_i16(std::span<const std::uint8_t> in, std::size_t pos) noexcept {
  return static_cast<std::int16_t>(load_le<std::uint16_t>(in, pos));
}
inline std::uint32_t load_u32(std::span<const std::uint8_t> in, std::size_t pos) noexcept {
  return load_le<std::uint32_t>(in, pos);
}
inline float load_f32(std::span<const std::uint8_t> in, std::size_t pos) noexcept {
  const std::uint32_t u = load_u32(in, pos);
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}

// Overwrites the 4 bytes at `pos` (which the caller has checked are there) with v, little-endian:
// a field patched after what follows it was written (an offset table, a record in place).
inline void store_u32(std::span<std::uint8_t> out, std::size_t pos, std::uint32_t v) noexcept {
  for (unsigned i = 0; i < 4; ++i) out[pos + i] = static_cast<std::uint8_t>(v >> (8 * i));
}

inline void store_u16(std::span<std::uint8_t> out, std::size_t pos, std::uint16_t v) noexcept {
  for (unsigned i = 0; i < 2; ++i) out[pos + i] = static_cast<std::uint8_t>(v >> (8 * i));
}

// Overflow-safe "a + b <= limit".
inline bool fits(std::uint64_t a, std::uint64_t b, std::uint64_t limit) noexcept {
  return a <= limit && b <= limit - a;
}

}  // namespace mab::io
