// 'aNi' CAnimData blocks: WD1 (spec 4.2), WDL/WD2 (spec 4.1, D4), FC5 (spec 4.3).
#include "layouts.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace mab::container {
namespace {

struct ShapeInfo {
  std::uint64_t prefix;       // bytes before 'aNi'
  bool has_frame_rate;
  std::size_t counts;
  bool has_counts_padding;
  std::size_t offsets;
  bool has_ps3_padding;
  bool has_last_frame;
  std::uint64_t header_size;  // where the bone hashes start
};

constexpr ShapeInfo shape_info(AniShape s) noexcept {
  switch (s) {
    case AniShape::wd1: return {4, false, 7, false, 11, false, true, 0x50};
    case AniShape::wdl: return {16, true, 10, true, 12, true, true, 0x70};
    case AniShape::fc5: return {16, true, 10, true, 12, false, false, 0x68};
  }
  return {16, true, 10, true, 12, true, true, 0x70};
}

std::string indexed(const char* name, std::size_t i) {
  return std::string(name) + "[" + std::to_string(i) + "]";
}

bool finite_non_negative(std::uint32_t bits) {
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return std::isfinite(f) && f >= 0.0f && f < 1.0e7f;
}

}  // namespace

std::uint64_t ani_header_size(AniShape shape) noexcept { return shape_info(shape).header_size; }

std::uint64_t ani_offsets_position(AniShape shape) noexcept {
  const auto si = shape_info(shape);
  // prefix, "aNi"+flags, size, duration, [frame rate], bone count, counts, [padding]
  return si.prefix + 12 + (si.has_frame_rate ? 4 : 0) + 2 + 2 * si.counts +
         (si.has_counts_padding ? 2 : 0);
}

Result<AniHeader> read_ani_header(std::span<const std::uint8_t> block_bytes, std::uint64_t base,
                                  AniShape shape, const Limits& limits) {
  const auto si = shape_info(shape);
  io::ByteReader r(block_bytes, base);
  AniHeader h;
  h.shape = shape;
  if (si.prefix == 4) {
    MAB_ASSIGN(const auto crc, r.u32("m_skeletonBoneCRC"));
    h.skeleton_bone_crc = crc;
  } else {
    MAB_ASSIGN(h.skeleton_bone_crc, r.u64("m_skeletonBoneCRC"));
    MAB_ASSIGN(h.skeleton_path_id, r.u64("m_skeletonPathId"));
  }
  const std::uint64_t sig_at = r.file_offset();
  MAB_TRY(r.copy_to(h.signature, "signature"));
  if (h.signature[0] != 'a' || h.signature[1] != 'N' ||
      (h.signature[2] != 'i' && h.signature[2] != 'p'))
    return make_error(ErrorCode::bad_signature, sig_at, "signature",
                      "expected 'aNi' (or 'aNp'), found bytes " + hex(h.signature[0]) + " " +
                          hex(h.signature[1]) + " " + hex(h.signature[2]));
  MAB_ASSIGN(h.flags, r.u8("m_flags"));
  MAB_ASSIGN(h.animation_data_size, r.u32("m_animationDataSize"));
  MAB_ASSIGN(h.duration_bits, r.u32("m_duration"));
  if (si.has_frame_rate) {
    MAB_ASSIGN(h.frame_rate_bits, r.u32("m_animFrameRate"));
  }
  const std::uint64_t count_at = r.file_offset();
  MAB_ASSIGN(h.bone_count_field, r.u16("m_nbBonesInAnim"));
  const std::uint32_t bones = h.bone_count_field & h.bone_count_mask();
  if (bones > limits.max_bones)
    return make_error(ErrorCode::limit_exceeded, count_at, "m_nbBonesInAnim",
                      std::to_string(bones) + " bones (field " + hex(h.bone_count_field) +
                          ") exceeds the limit of " + std::to_string(limits.max_bones));
  h.data_counts.resize(si.counts);
  for (std::size_t i = 0; i < si.counts; ++i) {
    MAB_ASSIGN(h.data_counts[i], r.u16(indexed("m_dataCounts", i)));
  }
  if (si.has_counts_padding) {
    MAB_ASSIGN(h.counts_padding, r.u16("padding"));
  }
  h.offsets.resize(si.offsets);
  for (std::size_t i = 0; i < si.offsets; ++i) {
    MAB_ASSIGN(h.offsets[i], r.u32(indexed("m_offsets", i)));
  }
  if (si.has_ps3_padding) {
    MAB_ASSIGN(h.padding_ps3, r.u32("m_paddingToMatchPS3"));
  }
  if (si.has_last_frame) {
    MAB_ASSIGN(h.last_frame, r.u16("m_lastFrame"));
    MAB_ASSIGN(h.tail_padding, r.u16("padding2"));
  }
  return h;
}

std::uint64_t ani_min_extent(const AniHeader& h) noexcept {
  const std::uint64_t bones = h.bone_count_field & h.bone_count_mask();
  std::uint64_t end = ani_header_size(h.shape) + 5 * bones;
  for (auto o : h.offsets) end = std::max<std::uint64_t>(end, o);
  return end;
}

Result<Block> read_ani_block(std::span<const std::uint8_t> block_bytes, std::uint64_t base,
                             AniShape shape, const Limits& limits) {
  MAB_ASSIGN(AniHeader h, read_ani_header(block_bytes, base, shape, limits));
  const std::uint64_t header_size = ani_header_size(shape);
  const std::size_t bones = h.bone_count_field & h.bone_count_mask();
  // Both tables must fit before anything is allocated for them (spec 4.1: 4n + n bytes).
  if (!io::fits(header_size, 5 * static_cast<std::uint64_t>(bones), block_bytes.size())) {
    const bool hashes_fit = io::fits(header_size, 4 * static_cast<std::uint64_t>(bones), block_bytes.size());
    return make_error(ErrorCode::truncated,
                      base + header_size + (hashes_fit ? 4 * bones : 0),
                      hashes_fit ? "bone_flags" : "bone_hashes",
                      std::to_string(bones) + " bones need " + std::to_string(5 * bones) +
                          " bytes of tables, " +
                          std::to_string(block_bytes.size() - std::min<std::uint64_t>(header_size, block_bytes.size())) +
                          " left");
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
  for (std::size_t i = 0; i < values.size(); ++i)
    field_offsets[i] = base + ani_offsets_position(shape) + 4 * i;
  const std::size_t slots = h.offsets.size();
  b.header = std::move(h);
  MAB_ASSIGN(auto anchors,
             checked_anchors(b, base, body_start, block_bytes.size(), values, field_offsets));
  MAB_TRY(partition(b, block_bytes, base, body_start, slots, anchors));
  return b;
}

void write_ani_header(io::ByteWriter& w, const AniHeader& h) {
  const auto si = shape_info(h.shape);
  if (si.prefix == 4) {
    w.u32(static_cast<std::uint32_t>(h.skeleton_bone_crc));
  } else {
    w.u64(h.skeleton_bone_crc);
    w.u64(h.skeleton_path_id);
  }
  w.bytes(h.signature);
  w.u8(h.flags);
  w.u32(h.animation_data_size);
  w.u32(h.duration_bits);
  if (si.has_frame_rate) w.u32(h.frame_rate_bits);
  w.u16(h.bone_count_field);
  for (std::size_t i = 0; i < si.counts; ++i) w.u16(i < h.data_counts.size() ? h.data_counts[i] : 0);
  if (si.has_counts_padding) w.u16(h.counts_padding);
  for (std::size_t i = 0; i < si.offsets; ++i) w.u32(i < h.offsets.size() ? h.offsets[i] : 0);
  if (si.has_ps3_padding) w.u32(h.padding_ps3);
  if (si.has_last_frame) {
    w.u16(h.last_frame);
    w.u16(h.tail_padding);
  }
}

Status read_ani_blocks(Container& c, std::span<const std::uint8_t> file, AniShape shape,
                       const Limits& limits) {
  constexpr std::uint64_t first_base = 0x10;  // spec 3
  std::vector<std::uint64_t> bases{first_base};
  if (shape == AniShape::fc5) {
    // Several CAnimData blocks per file (spec 4.3, 12). A later 'aNi' is taken as a
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
      bool plausible = h.ok() && finite_non_negative(h->duration_bits) &&
                       finite_non_negative(h->frame_rate_bits);
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
    if (i == 0 && h.animation_data_size == file.size() - 16)
      b.size_rule = SizeRule::file_minus_16;
    else if (i > 0 && h.animation_data_size == end - bases[i])
      b.size_rule = SizeRule::block_extent;
    else
      b.size_rule = SizeRule::verbatim;
    c.blocks.push_back(std::move(b));
  }
  return {};
}

}  // namespace mab::container
