// Reading dispatch, placement and the writer shared by every layout.
#include "header_fields.hpp"
#include "layouts.hpp"

#include <mab/text.hpp>

#include <cstring>
#include <limits>

namespace mab {

namespace {
float bits_to_float(std::uint32_t bits) noexcept {
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}
}  // namespace

float AniHeader::duration() const noexcept { return bits_to_float(duration_bits); }
float AniHeader::frame_rate() const noexcept { return bits_to_float(frame_rate_bits); }
std::uint16_t AniHeader::bone_count_mask() const noexcept {
  return shape == AniShape::wd1 ? 0x7FFF : 0x0FFF;  // decision 5
}
float Fc4Header::duration() const noexcept { return bits_to_float(duration_bits); }
float LegacyHeader::duration() const noexcept { return bits_to_float(duration_bits); }

std::uint64_t Block::body_start() const noexcept {
  if (const auto* a = ani()) return container::ani_header_size(a->shape) + 5 * bones.size();
  if (fc4()) return container::fc4_header_size + (container::fc4_base - 0x10);
  if (const auto* l = legacy()) return container::legacy_header_size(l->mask_words);
  return 0;
}

std::string Block::slot_field_name(std::size_t slot) const {
  const std::string idx = "[" + std::to_string(slot) + "]";
  if (ani()) return "m_offsets" + idx;
  if (fc4()) {
    if (slot == container::fc4_flag_table_slot) return "flagTableOffset";
    if (slot == container::fc4_hash_table_slot) return "hashTableOffset";
    return "sectionOffsets" + idx;
  }
  return "sections" + idx;
}

std::span<const std::uint8_t> Block::section(std::size_t slot) const noexcept {
  if (slot >= slot_segment.size() || slot_segment[slot] < 0) return {};
  return segments[static_cast<std::size_t>(slot_segment[slot])].bytes;
}

std::vector<std::uint8_t>* Block::section_mut(std::size_t slot) noexcept {
  if (slot >= slot_segment.size() || slot_segment[slot] < 0) return nullptr;
  return &segments[static_cast<std::size_t>(slot_segment[slot])].bytes;
}

Result<Container> read_container(std::span<const std::uint8_t> file, const Limits& limits) {
  if (file.size() > limits.max_file_size)
    return make_error(
        ErrorCode::limit_exceeded, 0, "file",
        std::to_string(file.size()) + " bytes exceeds the limit of " + std::to_string(limits.max_file_size));
  MAB_ASSIGN(const VariantInfo* variant, detect_variant(file));
  Container c;
  c.variant = variant;
  c.original_size = file.size();
  io::ByteReader r(file);
  MAB_TRY(container::outer_header_fields(c.header, container::FieldReader(r, limits)));

  auto keep_opaque = [&](std::string reason) {
    c.blocks.clear();
    c.opaque_body.assign(file.begin() + 16, file.end());
    c.opaque_reason = std::move(reason);
  };
  switch (variant->layout) {
    case LayoutKind::opaque: keep_opaque("no public layout for this version (decision 10)"); break;
    case LayoutKind::ani: {
      const AniShape shape = variant->game == Game::watch_dogs  ? AniShape::wd1
                             : variant->game == Game::far_cry_5 ? AniShape::fc5
                                                                : AniShape::wdl;
      MAB_TRY(container::read_ani_blocks(c, file, shape, limits));
      break;
    }
    case LayoutKind::fc4: {
      MAB_ASSIGN(const bool found, container::read_fc4(c, file, limits));
      if (!found) keep_opaque("no 'aNi' at 0x18 where the FC4 layout expects it (format 4.4)");
      break;
    }
    case LayoutKind::legacy: {
      // FC3 and Blood Dragon: 9-word masks (format 13, a guess). Blood Dragon is only listed
      // (format 2): any failure of that reading keeps its body opaque, with the reason (decision 10).
      const bool fc2 = variant->game == Game::far_cry_2;
      auto found = container::read_legacy(c, file, fc2 ? 5 : 9, !fc2, limits);
      if (!found && variant->game == Game::far_cry_3_blood_dragon) {
        keep_opaque("the guessed FC3 layout does not fit (format 13): " + found.error().message());
        break;
      }
      if (!found) return std::move(found).error();
      if (!*found) keep_opaque("no 'AnD\\x1a' at 0xC0 where the guessed FC3 layout expects it");
      break;
    }
  }
  return c;
}

Result<Placement> place(const Container& c) {
  Placement pl;
  if (c.is_opaque()) {
    pl.file_size = 16 + c.opaque_body.size();
    return pl;
  }
  const std::size_t n = c.blocks.size();
  pl.blocks.resize(n);
  // Sizes bottom-up: a chained clip always has a larger index than its parent.
  for (std::size_t k = n; k-- > 0;) {
    const Block& b = c.blocks[k];
    PlacedBlock& pb = pl.blocks[k];
    std::uint64_t pos = b.body_start();
    pb.segments.resize(b.segments.size());
    for (std::size_t s = 0; s < b.segments.size(); ++s) {
      const Segment& seg = b.segments[s];
      std::uint64_t size = seg.bytes.size();
      if (seg.child_block >= 0) {
        const auto child = static_cast<std::size_t>(seg.child_block);
        if (child <= k || child >= n || c.blocks[child].parent != static_cast<int>(k))
          return make_error(ErrorCode::invalid_argument, no_offset, "child_block",
                            "block " + std::to_string(k) + " links to an invalid chained block");
        size = pl.blocks[child].extent;
      }
      pb.segments[s] = {pos, size};
      pos += size;
    }
    pb.extent = pos;
  }
  std::uint64_t top = 0x10;
  for (std::size_t k = 0; k < n; ++k) {
    const Block& b = c.blocks[k];
    if (b.parent < 0) {
      pl.blocks[k].base = top;
      top += pl.blocks[k].extent;
    }
    for (std::size_t s = 0; s < b.segments.size(); ++s) {
      const int child = b.segments[s].child_block;
      if (child >= 0)
        pl.blocks[static_cast<std::size_t>(child)].base = pl.blocks[k].base + pl.blocks[k].segments[s].offset;
    }
  }
  pl.file_size = top;
  return pl;
}

namespace {

template <class T>
Result<T> narrow_offset(std::uint64_t v, const Block& b, std::size_t slot) {
  if (v > static_cast<std::uint64_t>(std::numeric_limits<T>::max()))
    return make_error(ErrorCode::limit_exceeded, no_offset, b.slot_field_name(slot),
                      "offset " + hex_lower(v) + " does not fit the field");
  return static_cast<T>(v);
}

Result<std::vector<std::uint8_t>> block_header_bytes(const Block& b, const PlacedBlock& pb, const Placement& pl,
                                                     std::size_t index) {
  std::vector<std::uint8_t> out;
  io::ByteWriter w(out);
  auto seg_offset = [&](std::size_t slot) -> std::uint64_t {
    const int s = slot < b.slot_segment.size() ? b.slot_segment[slot] : -1;
    return s < 0 ? 0 : pb.segments[static_cast<std::size_t>(s)].offset;
  };
  if (const auto* a = b.ani()) {
    AniHeader h = *a;
    for (std::size_t s = 0; s < h.offsets.size(); ++s) {
      MAB_ASSIGN(h.offsets[s], narrow_offset<std::uint32_t>(seg_offset(s), b, s));
    }
    if (b.bones.size() > h.bone_count_mask())
      return make_error(ErrorCode::limit_exceeded, no_offset, "m_nbBonesInAnim",
                        std::to_string(b.bones.size()) + " bones do not fit the count field");
    h.bone_count_field = static_cast<std::uint16_t>((h.bone_count_field & ~h.bone_count_mask()) | b.bones.size());
    std::uint64_t size = h.animation_data_size;
    if (b.size_rule == SizeRule::file_minus_16) size = pl.file_size - 16;
    if (b.size_rule == SizeRule::block_extent) size = pb.extent;
    MAB_ASSIGN(h.animation_data_size, narrow_offset<std::uint32_t>(size, b, 0));
    container::write_ani_header(w, h);
    for (const auto& bone : b.bones) w.u32(bone.hash);
    for (const auto& bone : b.bones) w.u8(bone.flags);
  } else if (const auto* f = b.fc4()) {
    Fc4Header h = *f;
    constexpr std::uint64_t rel = container::fc4_base - 0x10;
    auto field = [&](std::size_t slot) {
      const auto o = seg_offset(slot);
      return o ? o - rel : 0;
    };
    for (std::size_t s = 0; s < h.section_offsets.size(); ++s) {
      MAB_ASSIGN(h.section_offsets[s], narrow_offset<std::uint16_t>(field(s), b, s));
    }
    MAB_ASSIGN(h.flag_table_offset,
               narrow_offset<std::uint32_t>(field(container::fc4_flag_table_slot), b, container::fc4_flag_table_slot));
    MAB_ASSIGN(h.hash_table_offset,
               narrow_offset<std::uint32_t>(field(container::fc4_hash_table_slot), b, container::fc4_hash_table_slot));
    container::write_fc4_header(w, h);
  } else if (const auto* l = b.legacy()) {
    LegacyHeader h = *l;
    for (std::size_t s = 0; s < h.sections.size(); ++s) {
      MAB_ASSIGN(h.sections[s], narrow_offset<std::int32_t>(seg_offset(s), b, s));
    }
    container::write_legacy_header(w, h);
  }
  (void)index;
  return out;
}

}  // namespace

Result<std::vector<std::uint8_t>> write_container(const Container& c) {
  MAB_ASSIGN(const Placement pl, place(c));
  std::vector<std::uint8_t> out;
  out.reserve(pl.file_size);
  {
    io::ByteWriter w(out);
    (void)container::outer_header_fields(c.header, container::FieldWriter(w));
  }
  if (c.is_opaque()) {
    out.insert(out.end(), c.opaque_body.begin(), c.opaque_body.end());
    return out;
  }
  out.resize(pl.file_size);
  for (std::size_t k = 0; k < c.blocks.size(); ++k) {
    const Block& b = c.blocks[k];
    const PlacedBlock& pb = pl.blocks[k];
    MAB_ASSIGN(const auto head, block_header_bytes(b, pb, pl, k));
    if (head.size() != b.body_start())
      return make_error(ErrorCode::invalid_argument, pb.base, "header",
                        "header size " + std::to_string(head.size()) + " disagrees with the layout");
    std::memcpy(out.data() + pb.base, head.data(), head.size());
    for (std::size_t s = 0; s < b.segments.size(); ++s) {
      const auto& bytes = b.segments[s].bytes;
      if (b.segments[s].child_block < 0 && !bytes.empty())
        std::memcpy(out.data() + pb.base + pb.segments[s].offset, bytes.data(), bytes.size());
    }
  }
  return out;
}

}  // namespace mab

namespace mab {

std::string_view section_name(const Block& block, std::size_t slot) noexcept {
  static constexpr std::string_view wd[] = {"KeyTimes",
                                            "TranslationTable",
                                            "DisplacementOrientations",
                                            "DisplacementTranslations",
                                            "JointConstantRotations",
                                            "JointConstantTranslations",
                                            "JointRotations",
                                            "JointTranslations",
                                            "PartAnimations",
                                            "Markup",
                                            "unknown10",
                                            "unknown11"};
  static constexpr std::string_view fc4[] = {"JointConstantRotations",
                                             "unknown1",
                                             "KeyTimes",
                                             "unknown3",
                                             "JointRotations",
                                             "JointTranslations",
                                             "unknown6",
                                             "unknown7",
                                             "unknown8",
                                             "unknown9",
                                             "BoneFlags",
                                             "BoneHashes"};
  static constexpr std::string_view legacy[] = {
      "TrajectoryTranslation", "TrajectoryRotation", "ConstantRotations", "KeyframedRotations", "ConstantTranslations",
      "AnimatedTranslations",  "TagTable",           "EventChain",        "ChainedClip"};
  auto pick = [&](auto& table) -> std::string_view {
    return slot < std::size(table) ? table[slot] : std::string_view("unknown");
  };
  if (const auto* a = block.ani()) {
    if (a->shape != AniShape::fc5) return pick(wd);
    // FC5: the WD order without the KeyTimes slot (format 8.2, a reconciliation); slots 7 on keep
    // the unknownN names.
    static constexpr std::string_view fc5_unknown[] = {"unknown7", "unknown8", "unknown9", "unknown10", "unknown11"};
    return slot < 7 ? wd[slot + 1] : slot < 12 ? fc5_unknown[slot - 7] : std::string_view("unknown");
  }
  if (block.fc4()) return pick(fc4);
  return pick(legacy);
}

}  // namespace mab
