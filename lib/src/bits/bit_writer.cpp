#include <mab/bits.hpp>

#include <algorithm>
#include <cstring>

namespace mab {

void BitWriter::grow(std::size_t at_least) { out_.resize(std::max(len_ + at_least, out_.size() * 2 + 64)); }

void BitWriter::flush_bytes() {
  align_to_byte();
  if (out_.size() - len_ < 4) grow(4);
  while (fill_ > 0) {
    out_[len_++] = static_cast<std::uint8_t>(acc_);
    acc_ >>= 8;
    fill_ -= 8;
  }
  acc_ = 0;
}

void BitWriter::append_bytes(std::span<const std::uint8_t> bytes) {
  flush_bytes();
  if (out_.size() - len_ < bytes.size()) grow(bytes.size());
  if (!bytes.empty()) std::memcpy(out_.data() + len_, bytes.data(), bytes.size());
  len_ += bytes.size();
}

std::vector<std::uint8_t> BitWriter::finish() {
  flush_bytes();
  out_.resize(len_);
  std::vector<std::uint8_t> out = std::move(out_);
  out_.clear();
  len_ = 0;
  return out;
}

}  // namespace mab
