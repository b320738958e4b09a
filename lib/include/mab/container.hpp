// The container model: everything needed to write a .mab back byte for byte,
// with typed header fields and the body cut into sections (format 3, 4, 8, 13).
//
// A block's body (after its header and bone tables) is partitioned by its
// distinct non-zero offsets (format 8.3: a section runs to the next larger offset
// or the block end). Segments are kept in file order, so gaps, padding, trailing
// bytes and non-ascending offset tables survive unchanged (decision 8). The
// writer lays segments out again and recomputes every offset from their sizes.
#pragma once

#include <mab/bone_hash.hpp>  // bone_hash, which container users call with it
#include <mab/limits.hpp>
#include <mab/result.hpp>
#include <mab/variant.hpp>

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <variant>
#include <vector>

namespace mab {

// File 0x00..0x10 (format 3). Kept verbatim (decision 9).
struct OuterHeader {
  std::uint32_t magic_word = 0;  // u32 at 0; FC games use only its first byte
  std::uint32_t checksum = 0;    // +4, algorithm unknown (format 14)
  std::array<std::uint8_t, 8> reserved{};
};

// Which 'aNi' header shape (format 4.1-4.3). Pinned.
enum class AniShape : std::uint8_t {
  wd1 = 0,  // 4-byte prefix, 7 counts, 11 offsets, lastFrame (format 4.2)
  wdl = 1,  // 16-byte prefix, frame rate, 10 counts, 12 offsets, PS3 pad, lastFrame (format 4.1)
  fc5 = 2,  // as wdl but bone hashes at base+0x68: no PS3 pad, no lastFrame (format 4.3, 16 (C3))
};
static_assert(sizeof(AniShape) == 1);

// CAnimData header. Floats are kept as their bit patterns so NaN payloads and
// negative zero survive; use duration()/frame_rate() to read them.
struct AniHeader {
  AniShape shape = AniShape::wdl;
  std::uint64_t skeleton_bone_crc = 0;                     // WD1: u32 "header3"; WDL/FC5: u64 (format 4.1, 4.2)
  std::uint64_t skeleton_path_id = 0;                      // WDL/FC5 only
  std::array<std::uint8_t, 3> signature{{'a', 'N', 'i'}};  // 'aNp' also accepted (format 16 (C14))
  std::uint8_t flags = 0;                                  // format 4.5
  std::uint32_t animation_data_size = 0;
  std::uint32_t duration_bits = 0;
  std::uint32_t frame_rate_bits = 0;       // WDL/FC5 only
  std::uint16_t bone_count_field = 0;      // count in the low bits, flags above (decision 5)
  std::vector<std::uint16_t> data_counts;  // 7 (WD1) or 10
  std::uint16_t counts_padding = 0;        // WDL/FC5, after the counts
  std::vector<std::uint32_t> offsets;      // 11 (WD1) or 12, relative to the block base
  std::uint32_t padding_ps3 = 0;           // WDL only
  std::uint16_t last_frame = 0;            // WD1/WDL
  std::uint16_t tail_padding = 0;          // WD1/WDL

  float duration() const noexcept;
  float frame_rate() const noexcept;
  std::uint16_t bone_count_mask() const noexcept;  // 0x7FFF (WD1) or 0x0FFF (decision 5)
};

// Far Cry 4 (format 4.4, format 16 (C8): layout unverified). Offsets relative to file 0x18.
struct Fc4Header {
  std::array<std::uint8_t, 8> unknown_10{};
  std::array<std::uint8_t, 3> signature{{'a', 'N', 'i'}};
  std::uint8_t flags = 0;
  std::uint16_t bone_count = 0;
  std::uint16_t unknown_1e = 0;
  std::uint32_t duration_bits = 0;
  std::uint32_t unknown_24 = 0;
  std::uint32_t flag_table_offset = 0;
  std::uint32_t hash_table_offset = 0;
  std::array<std::uint8_t, 16> unknown_30{};
  std::array<std::uint16_t, 10> section_offsets{};

  float duration() const noexcept;
};

// Legacy clip body header (format 13). FC2: 5-word masks; FC3: 9-word masks (guess).
struct LegacyHeader {
  std::uint32_t mask_words = 5;
  std::vector<std::uint32_t> masks;  // 4 masks x mask_words: const rot, keyed rot, const tr, anim tr
  std::array<std::uint32_t, 4> trajectory_reference_bits{};
  std::array<std::uint32_t, 4> per_loop_rotation_bits{};
  std::array<std::uint8_t, 4> tag{{'A', 'n', 'D', 0x1A}};
  std::uint32_t duration_bits = 0;
  std::array<std::int32_t, 9> sections{};  // relative to the clip base; slot 8 = chained clip
  std::uint32_t pointer_slot = 0;

  float duration() const noexcept;
};

struct Bone {
  std::uint32_t hash = 0;  // CRC-32 of the name (decision 11)
  std::uint8_t flags = 0;  // format 5.3
};

struct Segment {
  std::uint64_t original_offset = 0;  // relative to the block base, as read
  std::vector<std::uint8_t> bytes;
  int child_block = -1;  // legacy: this segment is the chained clip blocks[child_block]
};

// What m_animationDataSize tracks, decided when reading, applied when writing.
enum class SizeRule : std::uint8_t {
  file_minus_16 = 0,  // the documented rule (format 3)
  block_extent = 1,   // extra FC5 blocks: their own extent
  verbatim = 2,       // neither held in the input: keep the value, validate reports it
};

struct Block {
  std::uint64_t original_base = 0;  // absolute file offset of the block base
  std::variant<AniHeader, Fc4Header, LegacyHeader> header;
  std::vector<Bone> bones;        // 'aNi': tables after the header; FC4: read from its tables
  std::vector<Segment> segments;  // file order; segments[0] is the preamble (may be empty)
  std::vector<int> slot_segment;  // per offset field: segment index, or -1 when 0 (absent)
  SizeRule size_rule = SizeRule::verbatim;
  int parent = -1;  // legacy chained clip: the clip that holds it

  const AniHeader* ani() const noexcept { return std::get_if<AniHeader>(&header); }
  AniHeader* ani() noexcept { return std::get_if<AniHeader>(&header); }
  const Fc4Header* fc4() const noexcept { return std::get_if<Fc4Header>(&header); }
  const LegacyHeader* legacy() const noexcept { return std::get_if<LegacyHeader>(&header); }

  // Size of the fixed header plus bone tables, relative to the base.
  std::uint64_t body_start() const noexcept;
  // Name of offset field `slot` ("m_offsets[6]", "sectionOffsets[2]", "sections[8]").
  std::string slot_field_name(std::size_t slot) const;
  // The bytes of section `slot`, empty if absent.
  std::span<const std::uint8_t> section(std::size_t slot) const noexcept;
  std::vector<std::uint8_t>* section_mut(std::size_t slot) noexcept;
};

struct Container {
  const VariantInfo* variant = nullptr;
  OuterHeader header;
  std::vector<Block> blocks;              // top-level blocks in file order, then chained legacy clips
  std::vector<std::uint8_t> opaque_body;  // LayoutKind::opaque, or a layout guess that did not fit
  std::string opaque_reason;              // why the body is opaque, if it is
  std::uint64_t original_size = 0;

  bool is_opaque() const noexcept { return blocks.empty(); }
};

// Where the writer puts things: used by the writer, validate and reports.
struct PlacedSegment {
  std::uint64_t offset;  // relative to its block base
  std::uint64_t size;
};
struct PlacedBlock {
  std::uint64_t base;    // absolute
  std::uint64_t extent;  // bytes from base to the block's end
  std::vector<PlacedSegment> segments;
};
struct Placement {
  std::uint64_t file_size = 0;
  std::vector<PlacedBlock> blocks;
};

Result<Container> read_container(std::span<const std::uint8_t> file, const Limits& limits = default_limits);
Result<Placement> place(const Container& c);
Result<std::vector<std::uint8_t>> write_container(const Container& c);

// A field a new clip gets without a source to take it from, with the value and the reason.
struct NewFieldDefault {
  std::string field, value, why;
};

// A file of `game` (wd1, wd2, wdl, fc5) with no bones and one key at time 0: the start of a
// clip built from scratch (encode_clip against it adds bones and keys). The fields no source
// gives (checksum, skeleton ids, flags, frame rate) get documented defaults, listed in
// `defaults` when given. Other games: invalid_argument.
Result<Container> new_container(Game game, std::vector<NewFieldDefault>* defaults = nullptr);

// Human name of a section slot for this block's layout (format 8.1, 8.2, 4.4, 13).
std::string_view section_name(const Block& block, std::size_t slot) noexcept;

}  // namespace mab
