// Internal: per-family header readers/writers and the shared body partition.
#pragma once

#include <mab/container.hpp>

#include "io/bytes.hpp"

#include <optional>
#include <string>
#include <vector>

namespace mab::container {

// A non-zero offset field that starts a section.
struct Anchor {
  std::size_t slot;
  std::uint64_t value;         // relative to the block base
  std::uint64_t field_offset;  // absolute offset of the field itself, for reports
};

// Cut block bytes [body_start, block.size()) into segments at the anchors (format 8.3).
// `block_bytes` starts at the block base; `base` is its absolute offset.
Status partition(Block& block, std::span<const std::uint8_t> block_bytes, std::uint64_t base, std::uint64_t body_start,
                 std::size_t slot_count, const std::vector<Anchor>& anchors);

// Check anchor values against [body_start, extent] and return the non-zero ones.
Result<std::vector<Anchor>> checked_anchors(const Block& block, std::uint64_t base, std::uint64_t body_start,
                                            std::uint64_t extent, const std::vector<std::int64_t>& values,
                                            const std::vector<std::uint64_t>& field_offsets);

// 'aNi' family (format 4.1-4.3).
std::uint64_t ani_header_size(AniShape shape) noexcept;
std::uint64_t ani_offsets_position(AniShape shape) noexcept;  // relative to base
// Reads only the fixed header (no bone tables): cheap enough to probe FC5 candidates.
Result<AniHeader> read_ani_header(std::span<const std::uint8_t> block_bytes, std::uint64_t base, AniShape shape,
                                  const Limits& limits);
Result<Block> read_ani_block(std::span<const std::uint8_t> block_bytes, std::uint64_t base, AniShape shape,
                             const Limits& limits);
void write_ani_header(io::ByteWriter& w, const AniHeader& h);
// Smallest block size the header needs: tables and every section start.
std::uint64_t ani_min_extent(const AniHeader& h) noexcept;
Status read_ani_blocks(Container& c, std::span<const std::uint8_t> file, AniShape shape, const Limits& limits);

// Far Cry 4 (format 4.4).
inline constexpr std::uint64_t fc4_base = 0x18;
inline constexpr std::uint64_t fc4_header_size = 0x3C;  // file 0x18..0x54
inline constexpr std::size_t fc4_flag_table_slot = 10;
inline constexpr std::size_t fc4_hash_table_slot = 11;
// Returns false (no error) if the signature is absent: the caller keeps the body opaque.
Result<bool> read_fc4(Container& c, std::span<const std::uint8_t> file, const Limits& limits);
void write_fc4_header(io::ByteWriter& w, const Fc4Header& h);

// Legacy clips (format 13).
std::uint64_t legacy_header_size(std::uint32_t mask_words) noexcept;
Result<bool> read_legacy(Container& c, std::span<const std::uint8_t> file, std::uint32_t mask_words,
                         bool opaque_if_no_tag, const Limits& limits);
void write_legacy_header(io::ByteWriter& w, const LegacyHeader& h);

}  // namespace mab::container
