// A clip into another 'aNi' game's layout (convert.hpp).
#include <mab/convert.hpp>
#include <mab/text.hpp>

#include "container/clip_layout.hpp"

#include <cmath>
#include <cstdio>
#include <limits>

namespace mab {

namespace {

// Sections map by name; "unknownN" slots only between WD1 and WDL/WD2, whose slot tables
// are the same (format 8.1); FC5's shifted table (format 8.2) gives its unknown slots no
// counterpart.
int target_slot(const Block& src, std::size_t slot, const Block& dst) {
  const std::string_view name = section_name(src, slot);
  const bool unknown = name.rfind("unknown", 0) == 0 || name == "PartAnimations" || name == "Markup";
  const auto* sa = src.ani();
  const auto* da = dst.ani();
  const bool same_table = sa && da && (sa->shape == AniShape::fc5) == (da->shape == AniShape::fc5);
  if (unknown && !same_table) return -1;
  for (std::size_t t = 0; t < dst.slot_segment.size(); ++t)
    if (section_name(dst, t) == name) return static_cast<int>(t);
  return -1;
}

Error refuse(const std::string& what) {
  return make_error(ErrorCode::not_decodable, no_offset, "convert",
                    what + "; pass {opt:drop_unmappable} to convert without it");
}

// A source value the target keeps: listed as carried, and no longer listed as defaulted.
void carry(ConvertReport& rep, std::string_view field, std::string what) {
  rep.carried.push_back(std::move(what));
  std::erase_if(rep.defaults, [&](const NewFieldDefault& f) { return f.field == field; });
}

// The frame rate goes first: it sets the target's key rate (decision 7).
void carry_frame_rate(const AniHeader* sh, AniHeader& th, ConvertReport& rep) {
  if (th.shape == AniShape::wd1 || !sh || sh->shape == AniShape::wd1) return;
  th.frame_rate_bits = sh->frame_rate_bits;
  carry(rep, "m_animFrameRate", "m_animFrameRate");
}

// Key times in the target's units, keeping seconds; keys that meet are merged (the first
// stays). Returns the source keys kept.
Result<std::vector<std::size_t>> retime_keys(const Clip& source, Clip& clip, ConvertReport& rep) {
  if (auto times = check_key_times(source.key_times); !times) {
    Error e = std::move(times).error();
    e.detail += "; they cannot be re-timed";
    return e;
  }
  clip.key_times.clear();
  std::vector<std::size_t> kept;
  for (std::size_t k = 0; k < source.key_count(); ++k) {
    const double seconds = source.key_times[k] / rep.source_rate;
    const double t = std::round(seconds * rep.target_rate);
    if (t > 0xFFFF)
      return make_error(ErrorCode::limit_exceeded, no_offset, "key_times",
                        "key " + std::to_string(k) + " would be at " + std::to_string(t) +
                            " key-time units; the format stores at most 65535 (format 9.4)");
    const auto ut = static_cast<std::uint32_t>(t);
    if (!clip.key_times.empty() && ut <= clip.key_times.back()) {
      ++rep.keys_merged;
      continue;
    }
    rep.max_time_shift_s = std::max(rep.max_time_shift_s, std::abs(t / rep.target_rate - seconds));
    clip.key_times.push_back(ut);
    kept.push_back(k);
  }
  return kept;
}

// The source clip on the target's timeline: the bones' rotations at the kept keys.
Result<Clip> retime_clip(const Clip& source, Clip clip, ConvertReport& rep) {
  MAB_ASSIGN(const auto kept, retime_keys(source, clip, rep));
  clip.bones = source.bones;
  // Translations, root motion and part entries (docs/motion.md) travel as their sections, copied
  // verbatim below like every section the clip does not rebuild; their per-key tracks would no
  // longer match a merged timeline.
  bool per_key_motion = !source.root_motion.empty();
  for (auto& b : clip.bones) {
    per_key_motion = per_key_motion || !b.translations.empty();
    b.translations.clear();
    b.constant_translation.reset();
  }
  if (per_key_motion && rep.keys_merged > 0)
    return make_error(ErrorCode::not_decodable, no_offset, "convert",
                      std::to_string(rep.keys_merged) +
                          " key(s) meet at the target's key rate, but the clip's "
                          "translations or root motion hold one value per source key and are copied as they are; "
                          "resample the clip first ({opt:resample})");
  for (auto& b : clip.bones) {
    if (b.kind() != BoneKind::animated) continue;
    std::vector<Quat> keys;
    for (const auto k : kept) keys.push_back(b.keys[k]);
    b.keys = std::move(keys);
  }
  clip.duration = source.duration;
  return clip;
}

// Encoded against the source's own codes: the bitstream is the same in every 'aNi' game
// (format 9), so each chunk whose keys are unchanged keeps its exact codes; only a chunk that
// lost a merged key is re-quantised.
Result<Container> encode_against_source(const DecodedClip& d, Container empty, const Clip& clip, ConvertReport& rep) {
  DecodedClip against;
  against.container = std::move(empty);
  against.block = 0;
  against.clip = d.clip;
  against.constant_codes = d.constant_codes;
  against.rotations = d.rotations;
  return encode_clip_container(against, clip, {}, &rep.encode);
}

// Header fields (format 3): the checksum and reserved bytes are the source's.
void carry_outer_header(const OuterHeader& source, OuterHeader& out, ConvertReport& rep) {
  out.checksum = source.checksum;
  out.reserved = source.reserved;
  rep.carried.push_back(
      "checksum and +0x08..+0x0F (decision 9; the checksum covers the source's bytes, so it is "
      "likely wrong for the new file: recompute with `mab crc-apply` once the algorithm is known)");
  std::erase_if(rep.defaults,
                [](const NewFieldDefault& f) { return f.field == "checksum" || f.field.rfind("reserved", 0) == 0; });
}

// Bits above the bone count (decision 5): flags whose meaning is unknown.
Status carry_bone_count_flags(const AniHeader& sh, AniHeader& oh, const ConvertOptions& options, ConvertReport& rep) {
  const std::uint16_t high = sh.bone_count_field & static_cast<std::uint16_t>(~sh.bone_count_mask());
  if (!high) return {};
  if (high & oh.bone_count_mask()) {
    if (!options.drop_unmappable)
      return refuse("m_nbBonesInAnim flag bits " + hex(high) +
                    " would be read as bone count bits in the target (decision 5)");
    rep.dropped.push_back("m_nbBonesInAnim flag bits " + hex(high));
  } else {
    oh.bone_count_field = static_cast<std::uint16_t>(oh.bone_count_field | high);
    rep.carried.push_back("m_nbBonesInAnim flag bits " + hex(high));
  }
  return {};
}

// Counts other than the two the clip sets (format 6), by index.
Status carry_data_counts(const AniHeader& sh, AniHeader& oh, const ConvertOptions& options, ConvertReport& rep) {
  for (std::size_t i = 0; i < sh.data_counts.size(); ++i) {
    if (sh.data_counts[i] == 0) continue;
    if (i < oh.data_counts.size()) {
      oh.data_counts[i] = sh.data_counts[i];
      rep.carried.push_back("m_dataCounts[" + std::to_string(i) + "] = " + std::to_string(sh.data_counts[i]));
    } else if (!options.drop_unmappable) {
      return refuse("m_dataCounts[" + std::to_string(i) + "] = " + std::to_string(sh.data_counts[i]) +
                    " has no place in the target's " + std::to_string(oh.data_counts.size()) + " counts");
    } else {
      rep.dropped.push_back("m_dataCounts[" + std::to_string(i) + "]");
    }
  }
  return {};
}

// 'aNi' header fields (format 4): carried where the target has them, defaults otherwise.
Status carry_ani_header(const AniHeader& sh, AniHeader& oh, const ConvertOptions& options, ConvertReport& rep) {
  oh.flags = sh.flags;
  carry(rep, "'aNi' flags", "'aNi' flags " + hex(sh.flags));
  if (oh.shape == AniShape::wd1 && sh.skeleton_bone_crc > 0xFFFFFFFFu) {
    rep.defaults.push_back({"m_skeletonBoneCRC", "0",
                            "the source's " + hex(sh.skeleton_bone_crc) + " does not fit Watch Dogs' 32-bit field"});
  } else {
    oh.skeleton_bone_crc = sh.skeleton_bone_crc;
    carry(rep, "m_skeletonBoneCRC", "m_skeletonBoneCRC " + hex(sh.skeleton_bone_crc));
  }
  if (oh.shape != AniShape::wd1 && sh.shape != AniShape::wd1) {
    oh.skeleton_path_id = sh.skeleton_path_id;
    carry(rep, "m_skeletonPathId", "m_skeletonPathId " + hex(sh.skeleton_path_id));
  }
  if (oh.shape != AniShape::wd1 && sh.shape != AniShape::wd1) oh.counts_padding = sh.counts_padding;
  if (oh.shape == AniShape::wdl && sh.shape == AniShape::wdl) oh.padding_ps3 = sh.padding_ps3;
  if (oh.shape != AniShape::fc5 && sh.shape != AniShape::fc5) oh.tail_padding = sh.tail_padding;
  MAB_TRY(carry_bone_count_flags(sh, oh, options, rep));
  return carry_data_counts(sh, oh, options, rep);
}

// Sections the clip does not rebuild, copied verbatim into the slot of the same name.
Status copy_sections(const Block& sb, Container& out, const ConvertOptions& options, ConvertReport& rep) {
  const auto src_layout = container::clip_layout(sb);
  Block& ob = out.blocks.front();
  for (std::size_t slot = 0; slot < sb.slot_segment.size(); ++slot) {
    const int seg = sb.slot_segment[slot];
    if (seg < 0) continue;
    const int s = static_cast<int>(slot);
    if (src_layout &&
        (s == src_layout->key_times_slot || s == src_layout->constant_slot || s == src_layout->rotations_slot))
      continue;
    // Far Cry 4 keeps its bone tables in two of its slots (format 4.4): the clip rebuilds them.
    if (section_name(sb, slot) == "BoneFlags" || section_name(sb, slot) == "BoneHashes") continue;
    const std::string name = std::string(section_name(sb, slot)) + " (" + sb.slot_field_name(slot) + ")";
    const auto& bytes = sb.segments[static_cast<std::size_t>(seg)].bytes;
    const int t = target_slot(sb, slot, ob);
    if (t < 0 || ob.slot_segment[static_cast<std::size_t>(t)] >= 0) {
      if (!options.drop_unmappable)
        return refuse("section " + name + " has no slot in " + std::string(out.variant->short_name));
      rep.dropped.push_back("section " + name + ", " + std::to_string(bytes.size()) + " bytes");
      continue;
    }
    Segment copy;
    copy.original_offset = std::numeric_limits<std::uint64_t>::max();
    copy.bytes = bytes;
    ob.segments.push_back(std::move(copy));
    ob.slot_segment[static_cast<std::size_t>(t)] = static_cast<int>(ob.segments.size() - 1);
    rep.carried.push_back("section " + name + " -> " + ob.slot_field_name(static_cast<std::size_t>(t)) +
                          ", verbatim (its layout in the target is not verified)");
  }
  return {};
}

// The converted file's bytes, refused unless they read back as the one block written.
Result<std::vector<std::uint8_t>> write_checked(const Container& out) {
  MAB_ASSIGN(auto bytes, write_container(out));
  auto back = read_container(bytes);
  if (!back)
    return make_error(ErrorCode::round_trip_mismatch, back.error().offset, back.error().field,
                      "the converted file does not read back: " + back.error().message());
  if (back->blocks.size() != 1)
    return make_error(ErrorCode::ambiguous_layout, no_offset, "aNi",
                      "the converted file would read back as " + std::to_string(back->blocks.size()) +
                          " blocks; nothing was written");
  return bytes;
}

}  // namespace

Result<std::vector<std::uint8_t>> convert_clip(const Container& source, std::size_t block, Game target,
                                               const ConvertOptions& options, ConvertReport* report) {
  ConvertReport rep;
  MAB_ASSIGN(const DecodedClip d, decode_clip(source, block));
  const Block& sb = source.blocks[block];
  MAB_ASSIGN(Container empty, new_container(target, &rep.defaults));
  carry_frame_rate(sb.ani(), *empty.blocks.front().ani(), rep);
  MAB_ASSIGN(const DecodedClip target_d, decode_clip(empty, 0));
  rep.source_rate = d.clip.key_rate;
  rep.target_rate = target_d.clip.key_rate;
  MAB_ASSIGN(const Clip clip, retime_clip(d.clip, target_d.clip, rep));
  MAB_ASSIGN(Container out, encode_against_source(d, std::move(empty), clip, rep));
  carry_outer_header(source.header, out.header, rep);
  if (const AniHeader* sh = sb.ani()) MAB_TRY(carry_ani_header(*sh, *out.blocks.front().ani(), options, rep));
  MAB_TRY(copy_sections(sb, out, options, rep));
  MAB_ASSIGN(auto bytes, write_checked(out));
  if (report) *report = std::move(rep);
  return bytes;
}

}  // namespace mab
