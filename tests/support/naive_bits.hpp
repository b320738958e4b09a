// Independent reference bit packer for tests (format 9.2 "Bit reading"): one bit at a time,
// bit 0 of a value into the lowest free bit, LSB first. Deliberately naive, so it shares no
// code with lib/src/bits.
#pragma once

#include <cstdint>
#include <vector>

namespace mab::test {

struct NaiveBits {
  std::vector<std::uint8_t> bytes;
  std::uint64_t pos = 0;
  void put(std::uint32_t value, unsigned nbits) {
    for (unsigned i = 0; i < nbits; ++i, ++pos) {
      if (pos % 8 == 0) bytes.push_back(0);
      if ((value >> i) & 1u) bytes.back() = static_cast<std::uint8_t>(bytes.back() | (1u << (pos % 8)));
    }
  }
};

}  // namespace mab::test
