// The "container" member of a mabkit-clip document (docs/json-format.md): the variant, the
// file header, each block's header, bones, segments and links.
#include "interchange/json/json_import_parts.hpp"

#include <string>
#include <vector>

namespace mab::interchange::json_in {

namespace {

struct ShapeCounts {
  std::size_t counts, offsets;
};
ShapeCounts shape_counts(AniShape s) { return s == AniShape::wd1 ? ShapeCounts{7, 11} : ShapeCounts{10, 12}; }

AniShape shape_for(Game g) {
  return g == Game::watch_dogs ? AniShape::wd1 : g == Game::far_cry_5 ? AniShape::fc5 : AniShape::wdl;
}

std::string_view shape_name(AniShape s) {
  return s == AniShape::wd1 ? "wd1" : s == AniShape::fc5 ? "fc5" : "wdl";
}

Result<AniHeader> read_ani_header(const Val& j, const Path& path, const VariantInfo& variant) {
  MAB_TRY(check_object(j, path,
                       {"shape", "skeleton_bone_crc", "skeleton_path_id", "signature", "flags",
                        "animation_data_size", "duration_bits", "frame_rate_bits", "bone_count_field",
                        "data_counts", "counts_padding", "offsets", "padding_ps3", "last_frame",
                        "tail_padding"}));
  AniHeader h;
  h.shape = shape_for(variant.game);
  MAB_ASSIGN(const Val shape, need(j, path, "shape"));
  MAB_ASSIGN(const std::string shape_text, read_string(shape, at(path, "shape")));
  if (shape_text != shape_name(h.shape))
    return perr(at(path, "shape"), "variant " + std::string(variant.short_name) + " has the \"" +
                                       std::string(shape_name(h.shape)) + "\" shape, not \"" + shape_text + "\"");
  const auto counts = shape_counts(h.shape);
  MAB_ASSIGN(h.skeleton_bone_crc, read_u_field<std::uint64_t>(j, path, "skeleton_bone_crc"));
  if (h.shape == AniShape::wd1 && h.skeleton_bone_crc > 0xFFFFFFFFu)
    return perr(at(path, "skeleton_bone_crc"), "Watch Dogs stores a 32-bit value here");
  MAB_ASSIGN(h.skeleton_path_id, read_u_field<std::uint64_t>(j, path, "skeleton_path_id"));
  MAB_ASSIGN(h.signature, read_hex_fixed<3>(j, path, "signature"));
  MAB_ASSIGN(h.flags, read_u_field<std::uint8_t>(j, path, "flags"));
  MAB_ASSIGN(h.animation_data_size, read_u_field<std::uint32_t>(j, path, "animation_data_size"));
  MAB_ASSIGN(h.duration_bits, read_u_field<std::uint32_t>(j, path, "duration_bits"));
  MAB_ASSIGN(h.frame_rate_bits, read_u_field<std::uint32_t>(j, path, "frame_rate_bits"));
  MAB_ASSIGN(h.bone_count_field, read_u_field<std::uint16_t>(j, path, "bone_count_field"));
  MAB_TRY(read_u_vector(j, path, "data_counts", counts.counts, h.data_counts));
  MAB_ASSIGN(h.counts_padding, read_u_field<std::uint16_t>(j, path, "counts_padding"));
  MAB_TRY(read_u_vector(j, path, "offsets", counts.offsets, h.offsets));
  MAB_ASSIGN(h.padding_ps3, read_u_field<std::uint32_t>(j, path, "padding_ps3"));
  MAB_ASSIGN(h.last_frame, read_u_field<std::uint16_t>(j, path, "last_frame"));
  MAB_ASSIGN(h.tail_padding, read_u_field<std::uint16_t>(j, path, "tail_padding"));
  return h;
}

Result<Fc4Header> read_fc4_header(const Val& j, const Path& path) {
  MAB_TRY(check_object(j, path,
                       {"unknown_10", "signature", "flags", "bone_count", "unknown_1e", "duration_bits",
                        "unknown_24", "flag_table_offset", "hash_table_offset", "unknown_30",
                        "section_offsets"}));
  Fc4Header h;
  MAB_ASSIGN(h.unknown_10, read_hex_fixed<8>(j, path, "unknown_10"));
  MAB_ASSIGN(h.signature, read_hex_fixed<3>(j, path, "signature"));
  MAB_ASSIGN(h.flags, read_u_field<std::uint8_t>(j, path, "flags"));
  MAB_ASSIGN(h.bone_count, read_u_field<std::uint16_t>(j, path, "bone_count"));
  MAB_ASSIGN(h.unknown_1e, read_u_field<std::uint16_t>(j, path, "unknown_1e"));
  MAB_ASSIGN(h.duration_bits, read_u_field<std::uint32_t>(j, path, "duration_bits"));
  MAB_ASSIGN(h.unknown_24, read_u_field<std::uint32_t>(j, path, "unknown_24"));
  MAB_ASSIGN(h.flag_table_offset, read_u_field<std::uint32_t>(j, path, "flag_table_offset"));
  MAB_ASSIGN(h.hash_table_offset, read_u_field<std::uint32_t>(j, path, "hash_table_offset"));
  MAB_ASSIGN(h.unknown_30, read_hex_fixed<16>(j, path, "unknown_30"));
  MAB_TRY(read_u_array(j, path, "section_offsets", h.section_offsets));
  return h;
}

Result<LegacyHeader> read_legacy_header(const Val& j, const Path& path, const VariantInfo& variant) {
  MAB_TRY(check_object(j, path,
                       {"mask_words", "masks", "trajectory_reference_bits", "per_loop_rotation_bits", "tag",
                        "duration_bits", "sections", "pointer_slot"}));
  LegacyHeader h;
  const std::uint32_t want_words = variant.game == Game::far_cry_2 ? 5 : 9;  // FC3 and Blood Dragon: 9
  MAB_ASSIGN(h.mask_words, read_u_field<std::uint32_t>(j, path, "mask_words"));
  if (h.mask_words != want_words)
    return perr(at(path, "mask_words"), std::string(variant.short_name) + " clips have " +
                                            std::to_string(want_words) + "-word masks");
  MAB_TRY(read_u_vector(j, path, "masks", 4 * std::size_t{h.mask_words}, h.masks));
  MAB_TRY(read_u_array(j, path, "trajectory_reference_bits", h.trajectory_reference_bits));
  MAB_TRY(read_u_array(j, path, "per_loop_rotation_bits", h.per_loop_rotation_bits));
  MAB_ASSIGN(h.tag, read_hex_fixed<4>(j, path, "tag"));
  MAB_ASSIGN(h.duration_bits, read_u_field<std::uint32_t>(j, path, "duration_bits"));
  {
    MAB_ASSIGN(const Val s, need(j, path, "sections"));
    const Path p = at(path, "sections");
    MAB_TRY(check_size(s, p, h.sections.size()));
    MAB_TRY(each(s, [&](std::size_t i, const Val& v) -> Status {
      MAB_ASSIGN(const std::int64_t n, read_int(v, at(p, i), std::numeric_limits<std::int32_t>::min(),
                                                std::numeric_limits<std::int32_t>::max()));
      h.sections[i] = static_cast<std::int32_t>(n);
      return {};
    }));
  }
  MAB_ASSIGN(h.pointer_slot, read_u_field<std::uint32_t>(j, path, "pointer_slot"));
  return h;
}

Result<SizeRule> read_size_rule(const Val& j, const Path& path) {
  MAB_ASSIGN(const std::string s, read_string(j, path));
  if (s == "file_minus_16") return SizeRule::file_minus_16;
  if (s == "block_extent") return SizeRule::block_extent;
  if (s == "verbatim") return SizeRule::verbatim;
  return perr(path, "expected \"file_minus_16\", \"block_extent\" or \"verbatim\", found \"" + s + "\"");
}

Result<Block> read_block(const Val& j, const Path& path, const VariantInfo& variant,
                         const Limits& limits, std::uint64_t& budget) {
  MAB_TRY(check_object(j, path,
                       {"original_base", "layout", "header", "bones", "segments", "slot_segment", "size_rule",
                        "parent"}));
  Block b;
  MAB_ASSIGN(b.original_base, read_u_field<std::uint64_t>(j, path, "original_base"));
  MAB_ASSIGN(const Val layout, need(j, path, "layout"));
  MAB_ASSIGN(const std::string layout_text, read_string(layout, at(path, "layout")));
  const std::string want = variant.layout == LayoutKind::ani   ? "ani"
                           : variant.layout == LayoutKind::fc4 ? "fc4"
                           : variant.layout == LayoutKind::legacy ? "legacy"
                                                                  : "opaque";
  if (layout_text != want)
    return perr(at(path, "layout"), "variant " + std::string(variant.short_name) + " has \"" + want +
                                        "\" blocks, not \"" + layout_text + "\"");
  MAB_ASSIGN(const Val header, need(j, path, "header"));
  const Path hp = at(path, "header");
  std::size_t slots = 0;
  switch (variant.layout) {
    case LayoutKind::ani: {
      MAB_ASSIGN(auto h, read_ani_header(header, hp, variant));
      slots = h.offsets.size();
      b.header = std::move(h);
      break;
    }
    case LayoutKind::fc4: {
      MAB_ASSIGN(auto h, read_fc4_header(header, hp));
      slots = h.section_offsets.size() + 2;  // + flag and hash table offsets
      b.header = h;
      break;
    }
    case LayoutKind::legacy: {
      MAB_ASSIGN(auto h, read_legacy_header(header, hp, variant));
      slots = h.sections.size();
      b.header = std::move(h);
      break;
    }
    case LayoutKind::opaque:
      return perr(at(path, "layout"), "variant " + std::string(variant.short_name) + " has no block layout");
  }

  MAB_ASSIGN(const Val bones, need(j, path, "bones"));
  const Path bp = at(path, "bones");
  MAB_TRY(check_array(bones, bp, limits.max_bones));
  MAB_TRY(each(bones, [&](std::size_t i, const Val& jb) -> Status {
    const Path p = at(bp, i);
    MAB_TRY(check_object(jb, p, {"hash", "flags"}));
    Bone bone;
    MAB_ASSIGN(bone.hash, read_u_field<std::uint32_t>(jb, p, "hash"));
    MAB_ASSIGN(bone.flags, read_u_field<std::uint8_t>(jb, p, "flags"));
    b.bones.push_back(bone);
    return {};
  }));
  if (const auto* a = b.ani(); a && b.bones.size() > a->bone_count_mask())
    return perr(bp, std::to_string(b.bones.size()) + " bones do not fit m_nbBonesInAnim");

  MAB_ASSIGN(const Val segments, need(j, path, "segments"));
  const Path sp = at(path, "segments");
  // The reader makes a preamble plus at most one segment per offset slot.
  MAB_TRY(check_array(segments, sp, slots + 1));
  if (segments.empty()) return perr(sp, "at least the preamble segment is needed");
  MAB_TRY(each(segments, [&](std::size_t i, const Val& js) -> Status {
    const Path p = at(sp, i);
    MAB_TRY(check_object(js, p, {"original_offset", "bytes", "child_block"}));
    Segment s;
    MAB_ASSIGN(s.original_offset, read_u_field<std::uint64_t>(js, p, "original_offset"));
    MAB_ASSIGN(const Val bytes, need(js, p, "bytes"));
    MAB_ASSIGN(s.bytes, read_hex(bytes, at(p, "bytes"), budget));
    if (const auto child = maybe(js, "child_block")) {
      if (variant.layout != LayoutKind::legacy)
        return perr(at(p, "child_block"), "only legacy clips chain other clips");
      MAB_ASSIGN(const std::int64_t c, read_int(*child, at(p, "child_block"), -1, limits.max_blocks));
      s.child_block = static_cast<int>(c);
      if (s.child_block >= 0 && !s.bytes.empty())
        return perr(at(p, "bytes"), "a chained-clip segment holds no bytes of its own (the chained block does)");
    }
    b.segments.push_back(std::move(s));
    return {};
  }));

  MAB_ASSIGN(const Val slot_segment, need(j, path, "slot_segment"));
  const Path ssp = at(path, "slot_segment");
  MAB_TRY(check_size(slot_segment, ssp, slots));
  b.slot_segment.resize(slots);
  MAB_TRY(each(slot_segment, [&](std::size_t i, const Val& e) -> Status {
    MAB_ASSIGN(const std::int64_t v, read_int(e, at(ssp, i), -1, static_cast<std::int64_t>(b.segments.size()) - 1));
    if (v == 0) return perr(at(ssp, i), "segment 0 is the preamble, which no offset points at; use -1 for absent");
    b.slot_segment[i] = static_cast<int>(v);
    return {};
  }));
  MAB_ASSIGN(const Val size_rule, need(j, path, "size_rule"));
  MAB_ASSIGN(b.size_rule, read_size_rule(size_rule, at(path, "size_rule")));
  MAB_ASSIGN(const Val parent, need(j, path, "parent"));
  MAB_ASSIGN(const std::int64_t par, read_int(parent, at(path, "parent"), -1, limits.max_blocks));
  b.parent = static_cast<int>(par);
  return b;
}

// The writer lays chained clips out inside the segment that links to them; a block that
// claims a parent no segment links to would have no place in the file.
Status check_links(const Container& c, const Path& where) {
  const std::string path = where.str();
  const std::size_t n = c.blocks.size();
  std::vector<int> links(n, 0);
  for (std::size_t k = 0; k < n; ++k) {
    const Block& b = c.blocks[k];
    const std::string p = at(at(path, k), "parent");
    if (b.parent >= static_cast<int>(k)) return perr(p, "a chained clip comes after the clip that holds it");
    if (b.parent >= 0 && c.variant->layout != LayoutKind::legacy)
      return perr(p, "only legacy clips are chained");
    if (b.parent < 0 && c.variant->layout == LayoutKind::legacy && k > 0)
      return perr(p, "a legacy file has one top-level clip; later blocks are chained clips");
    if (b.parent < 0 && k > 0 && c.variant->layout == LayoutKind::ani &&
        shape_for(c.variant->game) != AniShape::fc5)
      return perr(p, "only Far Cry 5 files hold several 'aNi' blocks");
  }
  for (std::size_t k = 0; k < n; ++k) {
    const Block& b = c.blocks[k];
    const std::string bp = at(path, k);
    for (std::size_t s = 0; s < b.segments.size(); ++s) {
      const int child = b.segments[s].child_block;
      if (child < 0) continue;
      const std::string p = at(at(at(bp, "segments"), s), "child_block");
      if (static_cast<std::size_t>(child) <= k || static_cast<std::size_t>(child) >= n)
        return perr(p, "block " + std::to_string(child) + " is not a later block");
      if (c.blocks[static_cast<std::size_t>(child)].parent != static_cast<int>(k))
        return perr(p, "block " + std::to_string(child) + " does not name block " + std::to_string(k) +
                           " as its parent");
      ++links[static_cast<std::size_t>(child)];
    }
  }
  for (std::size_t k = 0; k < n; ++k) {
    if (c.blocks[k].parent >= 0 && links[k] != 1)
      return perr(at(at(path, k), "parent"),
                  "block " + std::to_string(c.blocks[k].parent) + " links to this block " +
                      std::to_string(links[k]) + " times; exactly once is needed");
  }
  return {};
}

}  // namespace

Result<Container> read_container_json(const Val& j, const Path& path, const Limits& limits) {
  MAB_TRY(check_object(j, path, {"variant", "header", "original_size", "blocks", "opaque_body", "opaque_reason"}));
  Container c;
  MAB_ASSIGN(const Val variant, need(j, path, "variant"));
  MAB_ASSIGN(const std::string name, read_string(variant, at(path, "variant")));
  c.variant = find_variant(name);
  if (!c.variant) return perr(at(path, "variant"), "unknown variant \"" + name + "\"");

  MAB_ASSIGN(const Val header, need(j, path, "header"));
  const Path hp = at(path, "header");
  MAB_TRY(check_object(header, hp, {"magic_word", "checksum", "reserved"}));
  MAB_ASSIGN(c.header.magic_word, read_u_field<std::uint32_t>(header, hp, "magic_word"));
  MAB_ASSIGN(c.header.checksum, read_u_field<std::uint32_t>(header, hp, "checksum"));
  MAB_ASSIGN(c.header.reserved, read_hex_fixed<8>(header, hp, "reserved"));
  MAB_ASSIGN(c.original_size, read_u_field<std::uint64_t>(j, path, "original_size"));

  std::uint64_t budget = limits.max_file_size;
  const auto blocks = maybe(j, "blocks");
  const auto opaque = maybe(j, "opaque_body");
  if (blocks.has_value() == opaque.has_value())
    return perr(path, "exactly one of \"blocks\" and \"opaque_body\" is needed");
  if (opaque) {
    MAB_ASSIGN(c.opaque_body, read_hex(*opaque, at(path, "opaque_body"), budget));
    if (const auto reason = maybe(j, "opaque_reason")) {
      MAB_ASSIGN(c.opaque_reason, read_string(*reason, at(path, "opaque_reason")));
    }
    return c;
  }
  if (maybe(j, "opaque_reason")) return perr(at(path, "opaque_reason"), "only an opaque container has a reason");
  const Path bp = at(path, "blocks");
  MAB_TRY(check_array(*blocks, bp, limits.max_blocks));
  if (blocks->empty()) return perr(bp, "a container with no block is written as \"opaque_body\"");
  if (c.variant->layout == LayoutKind::opaque)
    return perr(bp, "variant " + name + " has no public layout: its body is \"opaque_body\"");
  if (c.variant->layout == LayoutKind::fc4 && blocks->size() != 1)
    return perr(bp, "a Far Cry 4 file holds one block");
  MAB_TRY(each(*blocks, [&](std::size_t k, const Val& jb) -> Status {
    MAB_ASSIGN(Block b, read_block(jb, at(bp, k), *c.variant, limits, budget));
    c.blocks.push_back(std::move(b));
    return {};
  }));
  MAB_TRY(check_links(c, bp));
  return c;
}
}  // namespace mab::interchange::json_in
