// 'aNi' CAnimData blocks: WD1 (format 4.2), WDL/WD2 (format 4.1, decision 4), FC5 (format 4.3).
#include "header_fields.hpp"
#include "layouts.hpp"

#include <mab/text.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <utility>

namespace mab::container {
namespace {

bool finite_non_negative(std::uint32_t bits) {
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return std::isfinite(f) && f >= 0.0f && f < 1.0e7f;
}

// Per shape (wd1, wdl, fc5), the bytes of the header's fields before `until` (all of them
// when empty).
std::array<std::uint64_t, 3> field_bytes_by_shape(std::string_view until) {
  std::array<std::uint64_t, 3> out{};
  for (const AniShape s : {AniShape::wd1, AniShape::wdl, AniShape::fc5}) {
    AniHeader h;
    h.shape = s;
    FieldSizer sizer(until);
    (void)ani_header_fields(std::as_const(h), sizer);
    out[static_cast<std::size_t>(s)] = sizer.bytes();
  }
  return out;
}

}  // namespace

std::uint64_t ani_header_size(AniShape shape) noexcept {
  // The header's fields (header_fields.hpp) end where the bone hashes start.
  static const auto sizes = field_bytes_by_shape({});
  return sizes[std::min<std::size_t>(static_cast<std::size_t>(shape), 2)];
}

std::uint64_t ani_offsets_position(AniShape shape) noexcept {
  static const auto positions = field_bytes_by_shape("offsets");
  return positions[std::min<std::size_t>(static_cast<std::size_t>(shape), 2)];
}

Status check_ani_signature(const AniHeader& h, std::uint64_t at, const Limits&) {
  if (h.signature[0] != 'a' || h.signature[1] != 'N' || (h.signature[2] != 'i' && h.signature[2] != 'p'))
    return make_error(ErrorCode::bad_signature, at, "signature",
                      "expected 'aNi' (or 'aNp'), found bytes " + hex_lower(h.signature[0]) + " " +
                          hex_lower(h.signature[1]) + " " + hex_lower(h.signature[2]));
  return {};
}

Status check_ani_bone_count(const AniHeader& h, std::uint64_t at, const Limits& limits) {
  const std::uint32_t bones = h.bone_count_field & h.bone_count_mask();
  if (bones > limits.max_bones)
    return make_error(ErrorCode::limit_exceeded, at, "m_nbBonesInAnim",
                      std::to_string(bones) + " bones (field " + hex_lower(h.bone_count_field) +
                          ") exceeds the limit of " + std::to_string(limits.max_bones));
  return {};
}

Result<AniHeader> read_ani_header(std::span<const std::uint8_t> block_bytes, std::uint64_t base, AniShape shape,
                                  const Limits& limits) {
  io::ByteReader r(block_bytes, base);
  AniHeader h;
  h.shape = shape;
  MAB_TRY(ani_header_fields(h, FieldReader(r, limits)));
  return h;
}

std::uint64_t ani_min_extent(const AniHeader& h) noexcept {
  const std::uint64_t bones = h.bone_count_field & h.bone_count_mask();
  std::uint64_t end = ani_header_size(h.shape) + 5 * bones;
  for (auto o : h.offsets) end = std::max<std::uint64_t>(end, o);
  return end;
}

Result<Block> read_ani_block(std::span<const std::uint8_t> block_bytes, std::uint64_t base, AniShape shape,
                             const Limits& limits) {
  MAB_ASSIGN(AniHeader h, read_ani_header(block_bytes, base, shape, limits));
  const std::uint64_t header_size = ani_header_size(shape);
  const std::size_t bones = h.bone_count_field & h.bone_count_mask();
  // Both tables must fit before anything is allocated for them (format 4.1: 4n + n bytes).
  if (!io::fits(header_size, 5 * static_cast<std::uint64_t>(bones), block_bytes.size())) {
    const bool hashes_fit = io::fits(header_size, 4 * static_cast<std::uint64_t>(bones), block_bytes.size());
    return make_error(
        ErrorCode::truncated, base + header_size + (hashes_fit ? 4 * bones : 0),
        hashes_fit ? "bone_flags" : "bone_hashes",
        std::to_string(bones) + " bones need " + std::to_string(5 * bones) + " bytes of tables, " +
            std::to_string(block_bytes.size() - std::min<std::uint64_t>(header_size, block_bytes.size())) + " left");
  }
  Block b;
  b.original_base = base;
  b.bones.resize(bones);
  io::ByteReader r(block_bytes, base);
  MAB_TRY(r.seek(header_size, "bone_hashes"));
  for (std::size_t i = 0; i < bones; ++i) {
    MAB_ASSIGN(b.bones[i].hash, r.u32("bone_hashes"));
  }
  for (std::size_t i = 0; i < bones; ++i) {
    MAB_ASSIGN(b.bones[i].flags, r.u8("bone_flags"));
  }
  const std::uint64_t body_start = header_size + 5 * bones;
  std::vector<std::int64_t> values(h.offsets.begin(), h.offsets.end());
  std::vector<std::uint64_t> field_offsets(values.size());
  for (std::size_t i = 0; i < values.size(); ++i) field_offsets[i] = base + ani_offsets_position(shape) + 4 * i;
  const std::size_t slots = h.offsets.size();
  b.header = std::move(h);
  MAB_ASSIGN(auto anchors, checked_anchors(b, base, body_start, block_bytes.size(), values, field_offsets));
  MAB_TRY(partition(b, block_bytes, base, body_start, slots, anchors));
  return b;
}

void write_ani_header(io::ByteWriter& w, const AniHeader& h) { (void)ani_header_fields(h, FieldWriter(w)); }

Status read_ani_blocks(Container& c, std::span<const std::uint8_t> file, AniShape shape, const Limits& limits) {
  constexpr std::uint64_t first_base = 0x10;  // format 3
  std::vector<std::uint64_t> bases{first_base};
  if (shape == AniShape::fc5) {
    // Several CAnimData blocks per file (format 4.3, 12). A later 'aNi' is taken as a
    // block only if it starts after everything the previous block points at and its
    // own header is plausible; otherwise it is data (e.g. inside a bitstream).
    MAB_ASSIGN(const AniHeader first, read_ani_header(file.subspan(first_base), first_base, shape, limits));
    std::uint64_t scan_from = first_base + ani_min_extent(first);
    static constexpr std::uint8_t sig[3] = {'a', 'N', 'i'};
    while (scan_from + 0x10 < file.size()) {
      const auto* begin = file.data() + scan_from + 0x10;
      const auto* end = file.data() + file.size();
      const auto* hit = std::search(begin, end, sig, sig + 3);
      if (hit == end) break;
      const auto cand = static_cast<std::uint64_t>(hit - file.data()) - 0x10;
      auto h = read_ani_header(file.subspan(cand), cand, shape, limits);
      bool plausible = h.ok() && finite_non_negative(h->duration_bits) && finite_non_negative(h->frame_rate_bits);
      if (plausible) {
        const std::uint64_t min_extent = ani_min_extent(*h);
        const std::uint64_t body_start =
            ani_header_size(shape) + 5 * static_cast<std::uint64_t>(h->bone_count_field & h->bone_count_mask());
        plausible = min_extent <= file.size() - cand;
        for (auto o : h->offsets) plausible = plausible && (o == 0 || o >= body_start);
        if (plausible) {
          if (bases.size() >= limits.max_blocks)
            return make_error(ErrorCode::limit_exceeded, cand + 0x10, "signature",
                              "more than " + std::to_string(limits.max_blocks) + " 'aNi' blocks");
          bases.push_back(cand);
          scan_from = cand + min_extent;
          continue;
        }
      }
      scan_from = cand + 1;
    }
  }
  for (std::size_t i = 0; i < bases.size(); ++i) {
    const std::uint64_t end = i + 1 < bases.size() ? bases[i + 1] : file.size();
    MAB_ASSIGN(Block b, read_ani_block(file.subspan(bases[i], end - bases[i]), bases[i], shape, limits));
    const auto& h = *b.ani();
    if (i == 0 && h.animation_data_size == file.size() - 16) b.size_rule = SizeRule::file_minus_16;
    else if (i > 0 && h.animation_data_size == end - bases[i]) b.size_rule = SizeRule::block_extent;
    else b.size_rule = SizeRule::verbatim;
    c.blocks.push_back(std::move(b));
  }
  return {};
}

}  // namespace mab::container
