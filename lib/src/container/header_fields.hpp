// Internal: every header field of the container declared once (CONTRIBUTING.md), in file order, for
// the binary reader and writer (layouts.hpp), the JSON export and the JSON import
// (interchange/json/json_container_read.cpp).
//
// Each header has one visit function, `<header>_fields(h, visitor)`, that names its fields in
// file order (ozz's archive idea: one list, many directions). A visitor is called as
//   Status visitor(const FieldInfo& info, T& member)
// where T is an unsigned or signed integer, std::array<std::uint8_t, N> (bytes),
// std::array<integer, N> or std::vector<integer> (FieldInfo::count elements in the file), and
//   Status visitor.check(const H& header, Check check)
// between fields: a check the binary reader makes as soon as the field before it is read
// (Check is `Status(const H&, std::uint64_t field_offset, const Limits&)`); other visitors
// return {}. A header that is read is non-const, one that is written is const: the same
// function serves both. Adding a field is one line in its visit function.
#pragma once

#include <mab/container.hpp>

#include "io/bytes.hpp"

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace mab::container {

// How the JSON document spells an integer field (docs/json-format.md): a number, or a
// "0x%016X" string for the 64-bit skeleton ids. Byte arrays are always hex strings.
enum class JsonForm : std::uint8_t { number, hex64 };

struct FieldInfo {
  std::string_view key;   // JSON member name
  std::string_view name;  // the binary reader's field name in errors; array elements name[i]
  bool stored = true;     // false: this layout has no such bytes; the JSON still carries the value
  unsigned width = 0;     // bytes in the file when narrower than the member (WD1's u32 CRC); 0: same
  JsonForm json = JsonForm::number;
  std::size_t count = 0;                       // std::vector members: how many elements the file holds
  bool indexed = true;                         // array elements are named name[i]; false: each is just `name`
  std::span<const std::string_view> groups{};  // elements named groups[i / group_size] instead
  std::size_t group_size = 1;
};

// --- checks the binary reader makes between fields (ani_layout.cpp, fc4_layout.cpp,
// legacy_layout.cpp) ---
Status check_ani_signature(const AniHeader& h, std::uint64_t at, const Limits& limits);
Status check_ani_bone_count(const AniHeader& h, std::uint64_t at, const Limits& limits);
// A missing 'aNi' is bad_signature, which read_fc4 turns into "keep the body opaque".
Status check_fc4_signature(const Fc4Header& h, std::uint64_t at, const Limits& limits);
Status check_fc4_bone_count(const Fc4Header& h, std::uint64_t at, const Limits& limits);
Status check_legacy_tag(const LegacyHeader& h, std::uint64_t at, const Limits& limits);

// Which 'aNi' fields a shape has, and how many counts and offsets (format 4.1-4.3).
struct AniShapeInfo {
  bool wide_ids;  // u64 m_skeletonBoneCRC and m_skeletonPathId (WD1: one u32 CRC)
  bool has_frame_rate;
  std::size_t counts;
  bool has_counts_padding;
  std::size_t offsets;
  bool has_ps3_padding;
  bool has_last_frame;
};

constexpr AniShapeInfo ani_shape_info(AniShape s) noexcept {
  switch (s) {
    case AniShape::wd1: return {false, false, 7, false, 11, false, true};
    case AniShape::wdl: return {true, true, 10, true, 12, true, true};
    case AniShape::fc5: return {true, true, 10, true, 12, false, false};
  }
  return {true, true, 10, true, 12, true, true};
}

// File 0x00..0x10 (format 3).
template <class H, class V>
Status outer_header_fields(H& h, V&& v) {
  MAB_TRY(v(FieldInfo{.key = "magic_word", .name = "magic"}, h.magic_word));
  MAB_TRY(v(FieldInfo{.key = "checksum", .name = "checksum"}, h.checksum));
  return v(FieldInfo{.key = "reserved", .name = "header+8"}, h.reserved);
}

// CAnimData (format 4.1 WDL/WD2, 4.2 WD1, 4.3 FC5). The JSON's "shape" is not a field: it is
// the variant's, and decides which fields the file holds.
template <class H, class V>
Status ani_header_fields(H& h, V&& v) {
  const AniShapeInfo si = ani_shape_info(h.shape);
  MAB_TRY(v(FieldInfo{.key = "skeleton_bone_crc",
                      .name = "m_skeletonBoneCRC",
                      .width = si.wide_ids ? 0u : 4u,
                      .json = JsonForm::hex64},
            h.skeleton_bone_crc));
  MAB_TRY(v(
      FieldInfo{.key = "skeleton_path_id", .name = "m_skeletonPathId", .stored = si.wide_ids, .json = JsonForm::hex64},
      h.skeleton_path_id));
  MAB_TRY(v(FieldInfo{.key = "signature", .name = "signature"}, h.signature));
  MAB_TRY(v.check(h, check_ani_signature));
  MAB_TRY(v(FieldInfo{.key = "flags", .name = "m_flags"}, h.flags));
  MAB_TRY(v(FieldInfo{.key = "animation_data_size", .name = "m_animationDataSize"}, h.animation_data_size));
  MAB_TRY(v(FieldInfo{.key = "duration_bits", .name = "m_duration"}, h.duration_bits));
  MAB_TRY(v(FieldInfo{.key = "frame_rate_bits", .name = "m_animFrameRate", .stored = si.has_frame_rate},
            h.frame_rate_bits));
  MAB_TRY(v(FieldInfo{.key = "bone_count_field", .name = "m_nbBonesInAnim"}, h.bone_count_field));
  MAB_TRY(v.check(h, check_ani_bone_count));
  MAB_TRY(v(FieldInfo{.key = "data_counts", .name = "m_dataCounts", .count = si.counts}, h.data_counts));
  MAB_TRY(v(FieldInfo{.key = "counts_padding", .name = "padding", .stored = si.has_counts_padding}, h.counts_padding));
  MAB_TRY(v(FieldInfo{.key = "offsets", .name = "m_offsets", .count = si.offsets}, h.offsets));
  MAB_TRY(
      v(FieldInfo{.key = "padding_ps3", .name = "m_paddingToMatchPS3", .stored = si.has_ps3_padding}, h.padding_ps3));
  MAB_TRY(v(FieldInfo{.key = "last_frame", .name = "m_lastFrame", .stored = si.has_last_frame}, h.last_frame));
  return v(FieldInfo{.key = "tail_padding", .name = "padding2", .stored = si.has_last_frame}, h.tail_padding);
}

// Far Cry 4 (format 4.4; format 16 (C8): layout unverified), from file 0x10.
template <class H, class V>
Status fc4_header_fields(H& h, V&& v) {
  MAB_TRY(v(FieldInfo{.key = "unknown_10", .name = "unknown_10"}, h.unknown_10));
  MAB_TRY(v(FieldInfo{.key = "signature", .name = "signature"}, h.signature));
  MAB_TRY(v.check(h, check_fc4_signature));
  MAB_TRY(v(FieldInfo{.key = "flags", .name = "flags"}, h.flags));
  MAB_TRY(v(FieldInfo{.key = "bone_count", .name = "nbBones"}, h.bone_count));
  MAB_TRY(v.check(h, check_fc4_bone_count));
  MAB_TRY(v(FieldInfo{.key = "unknown_1e", .name = "unknown_1e"}, h.unknown_1e));
  MAB_TRY(v(FieldInfo{.key = "duration_bits", .name = "duration"}, h.duration_bits));
  MAB_TRY(v(FieldInfo{.key = "unknown_24", .name = "unknown_24"}, h.unknown_24));
  MAB_TRY(v(FieldInfo{.key = "flag_table_offset", .name = "flagTableOffset"}, h.flag_table_offset));
  MAB_TRY(v(FieldInfo{.key = "hash_table_offset", .name = "hashTableOffset"}, h.hash_table_offset));
  MAB_TRY(v(FieldInfo{.key = "unknown_30", .name = "unknown_30"}, h.unknown_30));
  return v(FieldInfo{.key = "section_offsets", .name = "sectionOffsets"}, h.section_offsets);
}

inline constexpr std::string_view legacy_mask_names[4] = {"constRotationMask", "keyedRotationMask",
                                                          "constTranslationMask", "animTranslationMask"};

// Legacy clip header (format 13). mask_words is the variant's (5 for FC2, 9 for FC3): not in the
// file, but in the JSON, and it sizes the masks.
template <class H, class V>
Status legacy_header_fields(H& h, V&& v) {
  MAB_TRY(v(FieldInfo{.key = "mask_words", .name = "mask_words", .stored = false}, h.mask_words));
  MAB_TRY(v(FieldInfo{.key = "masks",
                      .name = "masks",
                      .count = 4 * std::size_t{h.mask_words},
                      .groups = legacy_mask_names,
                      .group_size = h.mask_words},
            h.masks));
  MAB_TRY(v(FieldInfo{.key = "trajectory_reference_bits", .name = "trajectoryReference", .indexed = false},
            h.trajectory_reference_bits));
  MAB_TRY(v(FieldInfo{.key = "per_loop_rotation_bits", .name = "perLoopRotation", .indexed = false},
            h.per_loop_rotation_bits));
  MAB_TRY(v(FieldInfo{.key = "tag", .name = "tag"}, h.tag));
  MAB_TRY(v.check(h, check_legacy_tag));
  MAB_TRY(v(FieldInfo{.key = "duration_bits", .name = "duration"}, h.duration_bits));
  MAB_TRY(v(FieldInfo{.key = "sections", .name = "sections"}, h.sections));
  return v(FieldInfo{.key = "pointer_slot", .name = "pointerSlot"}, h.pointer_slot);
}

// --- visitors ---

template <class T>
inline constexpr bool is_byte_array = false;
template <std::size_t N>
inline constexpr bool is_byte_array<std::array<std::uint8_t, N>> = true;

// The binary name of element i of an array field.
inline std::string element_name(const FieldInfo& f, std::size_t i) {
  if (!f.groups.empty()) return std::string(f.groups[i / f.group_size]);
  if (!f.indexed) return std::string(f.name);
  return std::string(f.name) + "[" + std::to_string(i) + "]";
}

// Reads fields in file order from a ByteReader; runs the checks.
class FieldReader {
 public:
  FieldReader(io::ByteReader& r, const Limits& limits) noexcept : r_(r), limits_(limits) {}

  template <class T>
  Status operator()(const FieldInfo& f, T& value) {
    if (!f.stored) return {};
    field_at_ = r_.file_offset();
    if constexpr (is_byte_array<T>) {
      return r_.copy_to(value, f.name);
    } else if constexpr (std::is_integral_v<T>) {
      return scalar(f.name, f.width, value);
    } else {
      if constexpr (requires { value.resize(f.count); }) value.resize(f.count);
      for (std::size_t i = 0; i < value.size(); ++i) MAB_TRY(scalar(element_name(f, i), f.width, value[i]));
      return {};
    }
  }

  template <class H, class Check>
  Status check(const H& h, Check&& check) {
    return check(h, field_at_, limits_);
  }

 private:
  template <class T>
  Status scalar(std::string_view name, unsigned width, T& value) {
    const unsigned bytes = width ? width : unsigned{sizeof(T)};
    if constexpr (std::is_signed_v<T>) {
      MAB_ASSIGN(value, r_.i32(name));
    } else if (bytes == 1) {
      MAB_ASSIGN(value, r_.u8(name));
    } else if (bytes == 2) {
      MAB_ASSIGN(const auto v, r_.u16(name));
      value = static_cast<T>(v);
    } else if (bytes == 4) {
      MAB_ASSIGN(const auto v, r_.u32(name));
      value = static_cast<T>(v);
    } else {
      MAB_ASSIGN(const auto v, r_.u64(name));
      value = static_cast<T>(v);
    }
    return {};
  }

  io::ByteReader& r_;
  const Limits& limits_;
  std::uint64_t field_at_ = 0;
};

// Writes fields in file order. Arrays and vectors are written as they are: a vector whose
// size is not the layout's count makes a header of the wrong size, which write_container
// refuses ("header size ... disagrees with the layout").
class FieldWriter {
 public:
  explicit FieldWriter(io::ByteWriter& w) noexcept : w_(w) {}

  template <class T>
  Status operator()(const FieldInfo& f, const T& value) {
    if (!f.stored) return {};
    if constexpr (is_byte_array<T>) {
      w_.bytes(value);
    } else if constexpr (std::is_integral_v<T>) {
      scalar(f.width, value);
    } else {
      for (const auto& e : value) scalar(f.width, e);
    }
    return {};
  }

  template <class H, class Check>
  Status check(const H&, Check&&) {
    return {};
  }

 private:
  template <class T>
  void scalar(unsigned width, T value) {
    const unsigned bytes = width ? width : unsigned{sizeof(T)};
    if constexpr (std::is_signed_v<T>) {
      w_.i32(static_cast<std::int32_t>(value));
    } else if (bytes == 1) {
      w_.u8(static_cast<std::uint8_t>(value));
    } else if (bytes == 2) {
      w_.u16(static_cast<std::uint16_t>(value));
    } else if (bytes == 4) {
      w_.u32(static_cast<std::uint32_t>(value));
    } else {
      w_.u64(static_cast<std::uint64_t>(value));
    }
  }

  io::ByteWriter& w_;
};

// Bytes the file gives the fields up to (not including) `until`, or all of them.
class FieldSizer {
 public:
  explicit FieldSizer(std::string_view until = {}) noexcept : until_(until) {}
  std::uint64_t bytes() const noexcept { return bytes_; }

  template <class T>
  Status operator()(const FieldInfo& f, const T& value) {
    if (f.key == until_) done_ = true;
    if (done_ || !f.stored) return {};
    if constexpr (is_byte_array<T>) {
      bytes_ += value.size();
    } else if constexpr (std::is_integral_v<T>) {
      bytes_ += f.width ? f.width : sizeof(T);
    } else {
      const std::size_t n = f.count ? f.count : value.size();
      bytes_ += n * (f.width ? f.width : sizeof(typename T::value_type));
    }
    return {};
  }

  template <class H, class Check>
  Status check(const H&, Check&&) {
    return {};
  }

 private:
  std::string_view until_;
  bool done_ = false;
  std::uint64_t bytes_ = 0;
};

// The JSON member names of a header, in order (for a reader's list of allowed members).
class FieldKeys {
 public:
  std::vector<std::string_view> keys;

  template <class T>
  Status operator()(const FieldInfo& f, const T&) {
    keys.push_back(f.key);
    return {};
  }

  template <class H, class Check>
  Status check(const H&, Check&&) {
    return {};
  }
};

}  // namespace mab::container
