// Internal: where an 'aNi' block keeps translations, root motion and part entries (format 8.1,
// 8.2, 10, 12): the section slots, the counts tied to them and the part entry fields.
#pragma once

#include <mab/container.hpp>
#include <mab/evidence.hpp>

#include <cstddef>
#include <cstdint>

namespace mab::container {

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

// Part entry fields (format 12, exact offsets uncertain there: the order here is part of the
// hypothesis): i32 nested offset, f32 start, f32 end, u32 parent CRC, u32 attachment CRC,
// u8 type, 11 bytes kept as stored.
inline constexpr std::size_t part_entry_size = 32;
inline constexpr std::size_t part_nested_at = 0, part_start_at = 4, part_end_at = 8, part_parent_at = 12,
                             part_attachment_at = 16, part_type_at = 20;
inline std::size_t part_header_size(PartHeader h) noexcept { return h == PartHeader::count_only ? 4 : 16; }
// Absolute position a nested offset is measured from, for entry `entry` of the part array at
// absolute `section_at` in a block placed at `block_base`.
std::uint64_t nested_origin(NestedBase base, PartHeader header, std::uint64_t block_base, std::uint64_t section_at,
                            std::size_t entry) noexcept;

}  // namespace mab::container
