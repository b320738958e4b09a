// Caps checked before any allocation driven by a count read from a file.
#pragma once

#include <cstdint>

namespace mab {

struct Limits {
  std::uint64_t max_file_size = 256ull << 20;  // 256 MiB; real clips are far below 10 MiB
  std::uint32_t max_bones = 4095;              // 12-bit engine count (format 4.1, decision 5)
  std::uint32_t max_keys = 65536;              // u16 key times (format 9.4)
  std::uint32_t max_sections = 16;             // per block; 12 slots in WDL
  std::uint32_t max_blocks = 256;              // 'aNi' blocks (FC5) or chained clips (FC2)
  std::uint32_t max_chunks = 8192;             // 65536 keys / 8 per chunk
};

inline constexpr Limits default_limits{};

}  // namespace mab
