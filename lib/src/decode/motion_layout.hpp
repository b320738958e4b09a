// Internal: where an 'aNi' block keeps translations, root motion and part entries (format 8.1,
// 8.2, 10, 12), and the rules shared by their decoder and encoder (docs/motion.md).
#pragma once

#include <mab/decode_clip.hpp>
#include <mab/encode_clip.hpp>

#include "io/bytes.hpp"

#include <cstring>
#include <optional>
#include <span>
#include <string>

namespace mab::decode {

// Section slots, -1 where the layout has none.
struct MotionLayout {
  int table = -1;                  // TranslationTable
  int root_rotations = -1;         // DisplacementOrientations
  int root_translations = -1;      // DisplacementTranslations
  int constant_translations = -1;  // JointConstantTranslations
  int translations = -1;           // JointTranslations
  int parts = -1;                  // part animations (format 12)
};

// WD1/WDL/WD2: format 8.1. FC5: the WD order without KeyTimes (format 8.2, a reconciliation; the
// part slot 7 follows the same pattern, a guess). FC4: JointTranslations only (format 4.4).
MotionLayout motion_layout(const Block& b) noexcept;

// m_dataCounts indices the format reference ties to these sections (format 6, labels only).
inline constexpr std::size_t count_root_rotations = 0;
inline constexpr std::size_t count_root_translations = 1;
inline constexpr std::size_t count_constant_translations = 3;
inline constexpr std::size_t count_translations = 5;
inline constexpr std::size_t count_translation_table = 6;

// A hypothesis is proven only when its data fills the section up to padding: fewer than 16
// bytes, all zero (the 16-byte alignment legacy files use, format 8.3). Empty when that holds.
std::optional<std::string> padding_problem(std::span<const std::uint8_t> rest);
inline constexpr std::size_t max_padding = 15;

// A translation or root-motion component as a real clip stores it: finite, zero or between
// 1e-20 and 1e4 units in magnitude (the animated scale reaches about 5000 units, format 10.1).
bool plausible_translation(float v) noexcept;

using io::load_f32;
using io::load_u32;
inline std::uint32_t f32_bits(float f) noexcept {
  std::uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return u;
}

// Part entry fields (format 12, exact offsets uncertain there: the order here is part of the
// hypothesis): i32 nested offset, f32 start, f32 end, u32 parent CRC, u32 attachment CRC,
// u8 type, 11 bytes kept as stored.
inline constexpr std::size_t part_entry_size = 32;
inline constexpr std::size_t part_nested_at = 0, part_start_at = 4, part_end_at = 8, part_parent_at = 12,
                             part_attachment_at = 16, part_type_at = 20;
inline std::size_t part_header_size(PartHeader h) noexcept { return h == PartHeader::count_only ? 4 : 16; }
// Why an entry is not one a clip of `duration` seconds holds (its times inside the clip, its
// type one of the editor's PartEventType 1..8), or nothing. The decoder proves a reading with
// it and the encoder refuses an edit with it, so an entry that is written always reads back.
std::optional<std::string> part_problem(const ClipPart& p, float duration);

// Where decode_motion writes: a DecodedClip's members, or those of a decode that does not own
// the container (the JSON export of a stored block).
struct MotionOut {
  Clip& clip;
  BlockEvidence& evidence;
  MotionCodes& motion;
};

// Fills out.evidence, out.motion and out.clip's translations, constant translations, root
// motion and parts from block `block` of `c`, placed as `pl` (out.clip's key times already
// read). Never fails: a section whose reading is not proven stays opaque and its evidence says why.
void decode_motion(const Container& c, std::size_t block, const Placement& pl, MotionOut out,
                   const DecodeOptions& options, const Limits& limits);

// Part entries of block `block` of `c` (placed as `pl`) under the accepted layout, or why not:
// shared with encode_clip, which keeps every block's nested-block links pointing at the same
// blocks after an edit moves them.
struct PartsRead {
  Evidence evidence;
  PartHeader header = PartHeader::count_then_12;
  NestedBase base = NestedBase::none;
  std::vector<ClipPart> parts;
  std::vector<std::array<std::uint8_t, part_entry_size>> entries;
};
PartsRead read_parts(const Container& c, std::size_t block, const Placement& pl, float duration,
                     const DecodeOptions& options);

// Absolute position a nested offset is measured from, for entry `entry` of the part array at
// absolute `section_at` in a block placed at `block_base`.
std::uint64_t nested_origin(NestedBase base, PartHeader header, std::uint64_t block_base, std::uint64_t section_at,
                            std::size_t entry) noexcept;

}  // namespace mab::decode
