// Synthetic .mab-like files with a planted header checksum, for crc-search tests.
#pragma once

#include <mab/checksum.hpp>
#include <mab/crc_search.hpp>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace mab::test {

struct GenOptions {
  std::vector<std::size_t> sizes{1500, 1500, 1100};  // a repeated size makes an equal-length pair
  std::uint64_t seed = 1;
  // Randomise the header words (version, 0x08..0x1F) per file. With a shared header,
  // a range starting anywhere in the shared prefix explains the data equally well
  // once init is free, so exact-range tests use varied headers.
  bool vary_header = true;
};

// WDL layout: u32 version, u32 field, 8 unknown bytes, skeleton CRC and path id,
// 'aNi' + flags at 0x20, animationDataSize (file size - 16) at 0x24, random body.
inline std::vector<checksum::InputFile> generate(const GenOptions& o) {
  std::mt19937_64 rng(o.seed);
  std::vector<std::uint8_t> shared(0x20);
  for (auto& b : shared) b = static_cast<std::uint8_t>(rng());
  shared[0] = 0xB4;
  shared[1] = 0x46;
  shared[2] = shared[3] = 0;
  std::vector<checksum::InputFile> out;
  for (std::size_t i = 0; i < o.sizes.size(); ++i) {
    std::vector<std::uint8_t> f(o.sizes[i]);
    for (auto& b : f) b = static_cast<std::uint8_t>(rng());
    for (std::size_t k = 0; k < 0x20; ++k)
      if (!o.vary_header || (k >= 4 && k < 8)) f[k] = k >= 4 && k < 8 ? f[k] : shared[k];
    const auto size = static_cast<std::uint32_t>(f.size() - 16);
    f[0x20] = 'a';
    f[0x21] = 'N';
    f[0x22] = 'i';
    f[0x23] = 0x03;
    for (int k = 0; k < 4; ++k) f[static_cast<std::size_t>(0x24 + k)] = static_cast<std::uint8_t>(size >> (8 * k));
    out.push_back({"f" + std::to_string(i) + ".mab", std::move(f)});
  }
  return out;
}

inline bool plant(std::vector<checksum::InputFile>& files, const checksum::ChecksumSpec& spec) {
  for (auto& f : files)
    if (!checksum::recompute(spec, f.bytes)) return false;
  return true;
}

inline checksum::SearchOptions quiet_options() {
  checksum::SearchOptions o;
  o.threads = 2;
  o.max_ranges = 1024;
  return o;
}

}  // namespace mab::test
