// LSB-first bit streams (format 9.2 "Bit reading"): bit 0 of a value sits in the lowest unused
// bit of the current byte, so a value may straddle bytes little-end first.
#pragma once

#include <mab/error.hpp>
#include <mab/result.hpp>

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <string_view>
#include <vector>

namespace mab {

// Reads 0..32-bit values from untrusted bytes. An overrun never touches memory past the span:
// it makes the reader fail once, after which every read returns 0 and the first failing
// position is kept for the error report (a decoder checks ok() once per block, not per read).
class BitReader {
 public:
  BitReader() = default;
  // `file_offset` is the file position of data[0]; it only feeds error offsets.
  explicit BitReader(std::span<const std::uint8_t> data, std::uint64_t file_offset = no_offset) noexcept;

  // Precondition-free: nbits > 32 fails the reader like an overrun.
  std::uint32_t read(unsigned nbits) noexcept {
    const std::uint64_t byte = pos_ >> 3;
    // Decode hot path: this one check, then one load (bits_at).
    if (byte < fast_end_ && nbits <= 32) [[likely]] {
      const auto value = static_cast<std::uint32_t>(bits_at(pos_, nbits));
      pos_ += nbits;
      return value;
    }
    return read_slow(nbits);
  }

  // `count` values of `nbits` (at most 16) each into out[0..count): the same values, position
  // and failure as that many read() calls. When the whole run lies in the fast region, the
  // bounds are checked once for it instead of once per value.
  void read_many(unsigned nbits, unsigned count, std::uint16_t* out) noexcept {
    const std::uint64_t end_byte = (pos_ + std::uint64_t{nbits} * count) >> 3;
    if (nbits <= 16 && end_byte < fast_end_) [[likely]] {
      std::uint64_t p = pos_;
      for (unsigned i = 0; i < count; ++i, p += nbits) out[i] = static_cast<std::uint16_t>(bits_at(p, nbits));
      pos_ = p;
      return;
    }
    for (unsigned i = 0; i < count; ++i) out[i] = static_cast<std::uint16_t>(read(nbits));
  }

  // Advances without reading; past the end it fails like read().
  void skip(std::uint64_t nbits) noexcept;

  bool ok() const noexcept { return !failed_; }
  std::uint64_t bit_position() const noexcept { return pos_; }
  std::uint64_t bit_size() const noexcept { return size_ * 8; }
  std::uint64_t bits_left() const noexcept { return bit_size() - pos_; }
  // Valid when !ok(): where the first failing read started and how many bits it wanted.
  std::uint64_t overrun_bit() const noexcept { return fail_bit_; }
  std::uint64_t overrun_width() const noexcept { return fail_width_; }

  // bit_overrun if a read failed, else success.
  Status status(std::string_view field) const;
  // Decision 6: the stream must end inside its last byte, and the bits after the read
  // position up to that byte's end must be zero. Overrun -> bit_overrun; stray bits or
  // whole unused bytes -> trailing_data.
  Status finish_exact(std::string_view field) const;
  // The stream must have been read to exactly `end_bit` (short -> trailing_data).
  Status expect_end(std::uint64_t end_bit, std::string_view field) const;

  // File offset of the byte holding stream bit `bit` (no_offset if the base is unknown).
  std::uint64_t file_offset_of(std::uint64_t bit) const noexcept {
    return file_offset_ == no_offset ? no_offset : file_offset_ + (bit >> 3);
  }

 private:
  // The nbits (<= 32) bits from stream bit `bit` on, whose byte is below fast_end_: one
  // unaligned 64-bit load covers the shift (<= 7) and 32 bits.
  std::uint64_t bits_at(std::uint64_t bit, unsigned nbits) const noexcept {
    const std::uint64_t mask = (std::uint64_t{1} << nbits) - 1;
    return (load_le64(data_ + (bit >> 3)) >> (bit & 7)) & mask;
  }
  static std::uint64_t load_le64(const std::uint8_t* p) noexcept {
    std::uint64_t v;
    std::memcpy(&v, p, sizeof v);
    if constexpr (std::endian::native == std::endian::big) {
      std::uint64_t r = 0;
      for (int i = 0; i < 8; ++i) r |= std::uint64_t{p[i]} << (8 * i);
      v = r;
    }
    return v;
  }
  std::uint32_t read_slow(unsigned nbits) noexcept;
  void fail(std::uint64_t width) noexcept;

  const std::uint8_t* data_ = nullptr;
  std::uint64_t size_ = 0;      // bytes
  std::uint64_t fast_end_ = 0;  // byte indices below this have 8 readable bytes
  std::uint64_t pos_ = 0;       // bits
  std::uint64_t file_offset_ = no_offset;
  std::uint64_t fail_bit_ = 0;
  std::uint64_t fail_width_ = 0;
  bool failed_ = false;
};

// Packs 0..32-bit values LSB-first into a growing byte vector.
class BitWriter {
 public:
  BitWriter() = default;
  // Appends after the bytes already in `out`.
  explicit BitWriter(std::vector<std::uint8_t> out) noexcept : out_(std::move(out)), len_(out_.size()) {}

  // Only the low `nbits` of value are written; nbits above 32 is treated as 32.
  void write(std::uint32_t value, unsigned nbits) {
    if (nbits > 32) nbits = 32;
    const std::uint64_t mask = (std::uint64_t{1} << nbits) - 1;
    acc_ |= (value & mask) << fill_;
    fill_ += nbits;
    if (fill_ >= 32) flush32();
  }
  // Pads with zero bits to the next byte boundary (decision 6 chunk padding).
  void align_to_byte() {
    fill_ = (fill_ + 7) & ~7u;
    if (fill_ >= 32) flush32();
  }
  // Aligns, then appends raw bytes.
  void append_bytes(std::span<const std::uint8_t> bytes);
  void reserve_bytes(std::size_t n) {
    if (n > out_.size()) out_.resize(n);
  }

  std::uint64_t bit_position() const noexcept { return std::uint64_t{len_} * 8 + fill_; }
  // Aligns to a byte and hands over the bytes; the writer is left empty.
  std::vector<std::uint8_t> finish();

 private:
  // The vector is kept ahead of len_ (the bytes written) so a flush is a plain 4-byte store.
  void flush32() {
    if (out_.size() - len_ < 4) grow(4);
    for (std::size_t i = 0; i < 4; ++i) out_[len_ + i] = static_cast<std::uint8_t>(acc_ >> (8 * i));
    len_ += 4;
    acc_ >>= 32;
    fill_ -= 32;
  }
  void grow(std::size_t at_least);
  void flush_bytes();

  std::vector<std::uint8_t> out_;
  std::size_t len_ = 0;    // bytes written; out_ may be longer
  std::uint64_t acc_ = 0;  // pending bits, LSB = next bit of the stream
  unsigned fill_ = 0;      // pending bit count, < 32 between calls
};

}  // namespace mab
