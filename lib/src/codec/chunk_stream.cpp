#include "chunk_stream.hpp"

namespace mab::detail {

std::uint64_t block_bits(unsigned cflags_bits, unsigned sign_bits, std::uint8_t cflags, unsigned keys,
                         unsigned nbits) noexcept {
  std::uint64_t bits = std::uint64_t{cflags_bits} + sign_bits;
  for (unsigned j = 0; j < 3; ++j) {
    bits += 16;
    // Format 9.2 step 5: n = 1 still stores its n*F bits although the slope is 0.
    if (!((unsigned{cflags} >> j) & 1u)) bits += std::uint64_t{keys} * nbits;
  }
  return bits;
}

std::string block_field(unsigned cflags_bits, unsigned sign_bits, std::uint8_t cflags, std::uint64_t off, unsigned keys,
                        unsigned nbits) {
  if (off < cflags_bits) return "cflags";
  off -= cflags_bits;
  if (off < sign_bits) return "signs";
  off -= sign_bits;
  for (unsigned j = 0; j < 3; ++j) {
    const std::string comp = "component[" + std::to_string(j) + "]";
    if (off < 16) return comp + ".header";
    off -= 16;
    if (!((unsigned{cflags} >> j) & 1u)) {
      const std::uint64_t span = std::uint64_t{keys} * nbits;
      if (off < span) return comp + ".raw[" + std::to_string(off / nbits) + "]";
      off -= span;
    }
  }
  return "end";
}

}  // namespace mab::detail
