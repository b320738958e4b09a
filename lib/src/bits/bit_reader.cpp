#include <mab/bits.hpp>

#include <string>

namespace mab {

BitReader::BitReader(std::span<const std::uint8_t> data, std::uint64_t file_offset) noexcept
    : data_(data.data()),
      size_(data.size()),
      fast_end_(data.size() >= 8 ? data.size() - 7 : 0),
      file_offset_(file_offset) {}

void BitReader::fail(std::uint64_t width) noexcept {
  if (failed_) return;
  failed_ = true;
  fail_bit_ = pos_;
  fail_width_ = width;
  // Keeps the inline fast path from ever succeeding again, so the failure stays sticky.
  fast_end_ = 0;
}

std::uint32_t BitReader::read_slow(unsigned nbits) noexcept {
  if (failed_) return 0;
  if (nbits > 32 || nbits > bits_left()) {
    fail(nbits);
    return 0;
  }
  if (nbits == 0) return 0;
  // Tail of the buffer: gather only the bytes that exist (at most 5 for 32 bits + shift 7).
  const std::uint64_t first = pos_ >> 3;
  const std::uint64_t last = (pos_ + nbits - 1) >> 3;
  std::uint64_t word = 0;
  for (std::uint64_t i = first; i <= last; ++i) word |= std::uint64_t{data_[i]} << (8 * (i - first));
  const std::uint64_t mask = (std::uint64_t{1} << nbits) - 1;
  const auto value = static_cast<std::uint32_t>((word >> (pos_ & 7)) & mask);
  pos_ += nbits;
  return value;
}

void BitReader::skip(std::uint64_t nbits) noexcept {
  if (failed_) return;
  if (nbits > bits_left()) {
    fail(nbits);
    return;
  }
  pos_ += nbits;
}

Status BitReader::status(std::string_view field) const {
  if (!failed_) return {};
  Error e = make_error(ErrorCode::bit_overrun, file_offset_of(fail_bit_), std::string(field),
                       "need " + std::to_string(fail_width_) + " bits at bit " + std::to_string(fail_bit_) +
                           ", stream has " + std::to_string(bit_size()));
  e.bit = fail_bit_;
  return e;
}

Status BitReader::finish_exact(std::string_view field) const {
  if (failed_) return status(field);
  const std::uint64_t end_byte = (pos_ + 7) >> 3;
  // Decision 6: pad bits are zero, so any set bit there is data the decoder did not explain.
  for (std::uint64_t bit = pos_; bit < end_byte * 8; ++bit) {
    if ((unsigned{data_[bit >> 3]} >> (bit & 7)) & 1u) {
      Error e = make_error(
          ErrorCode::trailing_data, file_offset_of(bit), std::string(field),
          "padding bit " + std::to_string(bit) + " is set (stream ends at bit " + std::to_string(pos_) + ")");
      e.bit = bit;
      return e;
    }
  }
  if (end_byte < size_) {
    Error e = make_error(
        ErrorCode::trailing_data, file_offset_of(end_byte * 8), std::string(field),
        std::to_string(size_ - end_byte) + " unused bytes after the stream end (bit " + std::to_string(pos_) + ")");
    e.bit = end_byte * 8;
    return e;
  }
  return {};
}

Status BitReader::expect_end(std::uint64_t end_bit, std::string_view field) const {
  if (failed_) return status(field);
  if (pos_ > end_bit) {
    Error e = make_error(ErrorCode::bit_overrun, file_offset_of(end_bit), std::string(field),
                         "read to bit " + std::to_string(pos_) + ", expected end at bit " + std::to_string(end_bit));
    e.bit = end_bit;
    return e;
  }
  if (pos_ < end_bit) {
    Error e = make_error(
        ErrorCode::trailing_data, file_offset_of(pos_), std::string(field),
        std::to_string(end_bit - pos_) + " bits left before the expected end at bit " + std::to_string(end_bit));
    e.bit = pos_;
    return e;
  }
  return {};
}

}  // namespace mab
