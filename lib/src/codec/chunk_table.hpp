// Internal: the chunked stream frame JointRotations (format 9.2) and JointTranslations (format
// 10.1: "the same chunk table and 8-keys-per-chunk layout as rotations") share.
#pragma once

#include <mab/limits.hpp>
#include <mab/result.hpp>

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

namespace mab::detail {

inline std::uint64_t at(std::uint64_t base, std::uint64_t rel) noexcept {
  return base == no_offset ? no_offset : base + rel;
}

// Counts capped before anything is allocated: keys, tracks (`tracks_what` names them in the
// message, "animated bones"), and the chunks the keys make. Fields are `<section>.<count>`.
Status check_stream_counts(std::string_view section, std::uint32_t key_count, std::size_t tracks,
                           std::string_view tracks_what, std::uint64_t base, const Limits& limits);

// u32 tableSize = 4 * (nchunks + 1), then nchunks chunk ends, each at or past the previous one
// and within the section. The table's nchunks + 1 entries (the first is tableSize), or the
// first entry at fault named `<section>.table_size` / `<section>.chunk_table[i]` at its offset.
Result<std::vector<std::uint32_t>> read_chunk_table(std::span<const std::uint8_t> section, std::size_t nchunks,
                                                    std::uint32_t key_count, std::uint64_t base,
                                                    std::string_view section_name);

}  // namespace mab::detail
