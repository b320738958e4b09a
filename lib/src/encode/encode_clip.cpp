// Editable clip -> container: reuse the exact codes of everything unchanged,
// re-quantise the rest (format 9.1, 9.2 "Encoder notes"; decisions 1, 2, 6, 8).
#include <mab/encode_clip.hpp>
#include <mab/requantise.hpp>
#include <mab/text.hpp>

#include "container/clip_layout.hpp"
#include "container/layouts.hpp"
#include "encode/edit_policy.hpp"
#include "encode/encode_common.hpp"
#include "encode/encode_motion.hpp"
#include "io/bytes.hpp"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <iterator>
#include <limits>
#include <optional>

namespace mab {

namespace {

using encode::encoded_duration;
using encode::original_index;
using encode::splice_section;

bool same_bits(const Quat& a, const Quat& b) noexcept { return std::memcmp(&a, &b, sizeof a) == 0; }

std::uint32_t float_bits(float f) noexcept {
  std::uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return u;
}

// The worst bone over the bound (EncodeOptions::refuse_above_max_error), and why it cannot
// be stored finer.
struct Miss {
  double error = 0;
  std::string what;
  void note(double e, std::string why) {
    if (e > error) error = e, what = std::move(why);
  }
};

// Each original bone's index among the constant and among the animated bones (-1 otherwise).
void index_kinds(const Clip& orig, std::vector<int>& constant, std::vector<int>& animated) {
  constant.assign(orig.bones.size(), -1);
  animated.assign(orig.bones.size(), -1);
  int ci = 0, ai = 0;
  for (std::size_t i = 0; i < orig.bones.size(); ++i) {
    if (orig.bones[i].kind() == BoneKind::constant) constant[i] = ci++;
    if (orig.bones[i].kind() == BoneKind::animated) animated[i] = ai++;
  }
}

// A constant rotation (format 9.1): the original code when the float is unchanged.
std::array<std::uint8_t, 6> constant_code(const DecodedClip& original, std::size_t i, const ClipBone& eb,
                                          const std::vector<int>& orig_const_index, EncodeReport& rep) {
  const Clip& orig = original.clip;
  const int o = original_index(orig, i, eb);
  if (o >= 0 && orig_const_index[static_cast<std::size_t>(o)] >= 0 &&
      same_bits(orig.bones[static_cast<std::size_t>(o)].constant, eb.constant)) {
    ++rep.constants_reused;
    return original.constant_codes[static_cast<std::size_t>(orig_const_index[static_cast<std::size_t>(o)])];
  }
  const auto code = encode_quat48_bytes(eb.constant);
  ++rep.constants_encoded;
  const double err = angular_error_deg(eb.constant, decode_quat48(std::span<const std::uint8_t, 6>(code)));
  rep.bone_error_deg[i] = err;
  rep.max_error_deg = std::max(rep.max_error_deg, err);
  return code;
}

// Animated bone i (format 9.2): per chunk, the original codes when the bone, its depth, the
// chunk's key count and every float of the chunk are unchanged; the rest re-quantised at the
// depth the options pick (EncodeOptions, edit_policy). Appends the bone's chunks to `stream`
// and sets its depth in `bone`.
Status encode_animated_bone(const DecodedClip& original, const Clip& edited, std::size_t i,
                            const EncodeOptions& options, const std::vector<int>& orig_anim_index, Bone& bone,
                            RotationStream& stream, EncodeReport& rep, Miss& miss) {
  const Clip& orig = original.clip;
  const std::size_t keys = edited.key_count(), orig_keys = orig.key_count();
  const std::size_t chunks = chunk_count(static_cast<std::uint32_t>(keys));
  ClipBone eb = edited.bones[i];
  const int o = original_index(orig, i, eb);
  const ClipBone* ob =
      o >= 0 && orig_anim_index[static_cast<std::size_t>(o)] >= 0 ? &orig.bones[static_cast<std::size_t>(o)] : nullptr;
  const std::size_t oa = ob ? static_cast<std::size_t>(orig_anim_index[static_cast<std::size_t>(o)]) : 0;
  // A depth other than the original's is the edit's own request (edit::set_bits, JSON flags).
  const bool requested = ob && ob->bit_depth() != eb.bit_depth();
  auto reusable = [&](std::size_t ch, unsigned nbits) {
    if (options.requantise_all || !ob || ob->bit_depth() != nbits || ch >= original.rotations.chunks.size())
      return false;
    const unsigned f_new = chunk_key_count(static_cast<std::uint32_t>(keys), ch);
    const unsigned f_old = chunk_key_count(static_cast<std::uint32_t>(orig_keys), ch);
    if (f_new != f_old) return false;
    for (std::size_t k = ch * keys_per_chunk; k < ch * keys_per_chunk + f_new; ++k)
      if (!same_bits(eb.keys[k], ob->keys[k])) return false;
    return true;
  };
  bool all_reusable = true;
  for (std::size_t ch = 0; ch < chunks; ++ch) all_reusable = all_reusable && reusable(ch, eb.bit_depth());
  bool chosen = !all_reusable && (options.choose_depth || options.requantise_all || (options.raise_depth && !ob));
  // The chosen depth's own codes are written: choose_bit_depth measured them (on the
  // hemisphere-continuous track), and a chunk re-quantised apart can miss the bound it met.
  std::optional<QuantisedTrack> chosen_track;
  if (chosen) {
    MAB_ASSIGN(chosen_track, choose_bit_depth(eb.keys, options.max_error_deg));
    eb.set_bit_depth(chosen_track->nbits);
  }
  std::vector<BoneChunkCodes> codes(chunks);
  std::size_t reused = 0;
  double bone_error = chosen_track ? chosen_track->max_error_deg : 0;
  for (std::size_t ch = 0; ch < chunks; ++ch) {
    if (reusable(ch, eb.bit_depth())) {
      codes[ch] = original.rotations.chunks[ch][oa];
      ++reused;
      continue;
    }
    if (chosen_track) {
      codes[ch] = chosen_track->chunks[ch];
      continue;
    }
    const std::size_t first = ch * keys_per_chunk;
    const unsigned f = chunk_key_count(static_cast<std::uint32_t>(keys), ch);
    MAB_ASSIGN(const QuantisedChunk q,
               quantise_chunk(std::span<const Quat>(eb.keys).subspan(first, f), eb.bit_depth()));
    codes[ch] = q.codes;
    bone_error = std::max(bone_error, q.max_error_deg);
  }
  if (!chosen && options.raise_depth && !requested && bone_error > options.max_error_deg) {
    // The kept depth is too coarse for the edit: the whole bone at a chosen depth.
    MAB_ASSIGN(const QuantisedTrack t, choose_bit_depth(eb.keys, options.max_error_deg));
    eb.set_bit_depth(t.nbits);
    chosen = true;
    reused = 0;
    for (std::size_t ch = 0; ch < chunks; ++ch) {
      if (reusable(ch, t.nbits)) {
        codes[ch] = original.rotations.chunks[ch][oa];
        ++reused;
      } else {
        codes[ch] = t.chunks[ch];
      }
    }
    bone_error = t.max_error_deg;
  }
  bone.flags = eb.flags;
  for (std::size_t ch = 0; ch < chunks; ++ch) stream.chunks[ch].push_back(codes[ch]);
  rep.chunks_reused += reused;
  rep.chunks_requantised += chunks - reused;
  rep.bone_error_deg[i] = std::max(rep.bone_error_deg[i], bone_error);
  rep.max_error_deg = std::max(rep.max_error_deg, bone_error);
  if (ob && ob->bit_depth() != eb.bit_depth())
    rep.depth_changes.push_back({eb.hash, ob->bit_depth(), eb.bit_depth(), requested});
  if (bone_error > options.max_error_deg) {
    char why[96];
    if (chosen)
      std::snprintf(why, sizeof why, " at %u bits%s,", eb.bit_depth(),
                    eb.bit_depth() == 16 ? ", the finest depth" : "");
    else
      std::snprintf(why, sizeof why, " at the %u bits the edit asks for (more bits lower the error),", eb.bit_depth());
    miss.note(bone_error, bone_label(eb.hash, eb.name) + why);
  }
  return {};
}

// EncodeReport's timeline and bone-table lines: what the edit added, removed and renamed.
void report_timeline_and_bones(const Clip& orig, const Clip& edited, EncodeReport& rep) {
  rep.key_times_before = orig.key_count();
  rep.key_times_after = edited.key_count();
  std::vector<std::uint32_t> before = orig.key_times, after = edited.key_times, diff;
  std::sort(before.begin(), before.end());
  std::sort(after.begin(), after.end());
  std::set_difference(after.begin(), after.end(), before.begin(), before.end(), std::back_inserter(diff));
  rep.key_times_added = diff.size();
  diff.clear();
  std::set_difference(before.begin(), before.end(), after.begin(), after.end(), std::back_inserter(diff));
  rep.key_times_removed = diff.size();
  std::vector<bool> kept(orig.bones.size(), false);
  for (std::size_t i = 0; i < edited.bones.size(); ++i) {
    const ClipBone& eb = edited.bones[i];
    const int o = original_index(orig, i, eb);
    if (o < 0) {
      rep.bones_added.push_back(eb.hash);
      continue;
    }
    kept[static_cast<std::size_t>(o)] = true;
    if (eb.hash != orig.bones[static_cast<std::size_t>(o)].hash)
      rep.bones_renamed.emplace_back(orig.bones[static_cast<std::size_t>(o)].hash, eb.hash);
  }
  for (std::size_t o = 0; o < orig.bones.size(); ++o)
    if (!kept[o]) rep.bones_removed.push_back(orig.bones[o].hash);
}

// Equal offsets are legal and kept (format 8.3, decision 8): two sections can be one run of bytes.
// Rewriting such a run for one of them would silently change the other (or be undone by the
// other's write), so the edit is refused.
Status check_shared_runs(const DecodedClip& original, const Block& b, const std::vector<int>& rewritten) {
  for (const int slot : rewritten) {
    if (slot < 0) continue;
    const int seg = b.slot_segment[static_cast<std::size_t>(slot)];
    if (seg < 0) continue;
    std::string users;
    std::size_t n_users = 0;
    for (std::size_t j = 0; j < b.slot_segment.size(); ++j) {
      if (b.slot_segment[j] != seg) continue;
      ++n_users;
      users += (users.empty() ? "" : ", ") + b.slot_field_name(j) + " (" + std::string(section_name(b, j)) + ")";
    }
    if (n_users > 1) {
      const Block& before = original.container.blocks[original.block];
      const auto s = static_cast<std::size_t>(seg);
      const std::uint64_t at = b.original_base + (s < before.segments.size() ? before.segments[s].original_offset : 0);
      return make_error(ErrorCode::overlap, at, b.slot_field_name(static_cast<std::size_t>(slot)),
                        users +
                            " point at the same bytes; this edit rewrites them, which would change "
                            "the other sections too, so nothing was written");
    }
  }
  return {};
}

// FC4 bone tables sit in sections whose layout is unverified (format 4.4): no bone edits.
Status check_fc4_bones(const Block& b, const Clip& edited) {
  if (!b.fc4()) return {};
  bool same = edited.bones.size() == b.bones.size();
  for (std::size_t i = 0; same && i < b.bones.size(); ++i)
    same = edited.bones[i].hash == b.bones[i].hash && edited.bones[i].flags == b.bones[i].flags;
  if (!same)
    return make_error(ErrorCode::invalid_argument, 0x2C, "hashTableOffset",
                      "Far Cry 4 bone tables cannot be edited (layout unverified, format 4.4)");
  return {};
}

// Key times (format 9.4). A file without a KeyTimes section keeps none while the
// times stay the synthesised 0..K-1.
Status encode_key_times(Block& b, const container::ClipLayout& layout, const Clip& orig, const Clip& edited,
                        std::vector<int>& rewritten) {
  const auto old_kt = container::key_time_bytes(b, layout);
  const bool had = layout.key_times_slot < 0 || !old_kt.empty();
  bool synthetic = !had;
  for (std::size_t i = 0; synthetic && i < edited.key_count(); ++i) synthetic = edited.key_times[i] == i;
  if (!had && synthetic) return {};
  std::vector<std::uint8_t> kt;
  io::ByteWriter w(kt);
  for (auto t : edited.key_times) {
    if (t > 0xFFFF) return make_error(ErrorCode::limit_exceeded, no_offset, "key_times", "key time above 65535");
    w.u16(static_cast<std::uint16_t>(t));
  }
  if (splice_section(b, layout.key_times_slot, 2 * orig.key_count(), kt)) rewritten.push_back(layout.key_times_slot);
  return {};
}

// The rotation stream (format 9.2) into its section; with every animated bone removed, only
// what followed the stream stays.
Status write_rotations(Block& b, const container::ClipLayout& layout, const DecodedClip& original,
                       const RotationStream& stream, std::uint32_t keys, const std::vector<std::uint8_t>& depths,
                       std::vector<int>& rewritten) {
  if (!depths.empty()) {
    MAB_ASSIGN(const auto bytes, encode_rotation_stream(stream, keys, depths));
    const int slot = layout.rotations_slot;
    if (b.slot_segment[static_cast<std::size_t>(slot)] >= 0) {
      auto* sec = b.section_mut(static_cast<std::size_t>(slot));
      if (*sec != bytes) {
        *sec = bytes;  // the tail is part of `bytes`
        rewritten.push_back(slot);
      }
    } else if (splice_section(b, slot, 0, bytes)) {
      rewritten.push_back(slot);
    }
  } else if (!original.rotations.chunks.empty()) {
    auto* sec = b.section_mut(static_cast<std::size_t>(layout.rotations_slot));
    if (*sec != original.rotations.tail) {
      *sec = original.rotations.tail;
      rewritten.push_back(layout.rotations_slot);
    }
  }
  return {};
}

// Header fields that depend on the clip (format 4, 6, 7), and the block's bone table.
void update_header(Block& b, const container::ClipLayout& layout, const Clip& orig, const Clip& edited,
                   std::vector<Bone> bones, std::size_t n_const, std::size_t n_anim) {
  const std::size_t keys = edited.key_count();
  if (auto* a = b.ani()) {
    b.bones = std::move(bones);
    // The counts follow the bones only where they did in the input: a count that
    // already disagreed is kept as read, for validate to report (never a silent fix).
    std::size_t orig_const = 0, orig_anim = 0;
    for (const auto& ob : orig.bones) {
      orig_const += ob.kind() == BoneKind::constant;
      orig_anim += ob.kind() == BoneKind::animated;
    }
    if (a->data_counts.size() > 4) {
      if (a->data_counts[2] == orig_const) a->data_counts[2] = static_cast<std::uint16_t>(n_const);
      if (a->data_counts[4] == orig_anim) a->data_counts[4] = static_cast<std::uint16_t>(n_anim);
    }
    if (layout.has_last_frame && keys > 0) a->last_frame = static_cast<std::uint16_t>(keys - 1);
    a->duration_bits = float_bits(encoded_duration(orig, edited));
  } else if (b.fc4()) {
    std::get<Fc4Header>(b.header).duration_bits = float_bits(encoded_duration(orig, edited));
    // A re-picked bit depth lives in the flag table at the end of the file (format 4.4);
    // the table keeps its size, so only its first n bytes change.
    if (auto* flags = b.section_mut(container::fc4_flag_table_slot); flags && flags->size() >= bones.size())
      for (std::size_t i = 0; i < bones.size(); ++i) (*flags)[i] = bones[i].flags;
    b.bones = std::move(bones);
  }
}

}  // namespace

Result<Container> encode_clip_container(const DecodedClip& original, const Clip& edited, const EncodeOptions& options,
                                        EncodeReport* report) {
  MAB_TRY(edited.check());
  EncodeReport rep;
  Container c = original.container;
  if (original.block >= c.blocks.size())
    return make_error(ErrorCode::invalid_argument, no_offset, "block", "no such block");
  Block& b = c.blocks[original.block];
  std::vector<int> rewritten;  // slots whose bytes this edit changes
  const auto layout = container::clip_layout(b);
  if (!layout) return make_error(ErrorCode::not_decodable, b.original_base, "layout", "block is not decodable");
  const Clip& orig = original.clip;
  const std::size_t keys = edited.key_count();

  MAB_TRY(check_fc4_bones(b, edited));
  MAB_TRY(encode_key_times(b, *layout, orig, edited, rewritten));

  // Bones and constant rotations (format 9.1), then the animated ones (format 9.2).
  std::vector<Bone> bones;
  std::vector<int> orig_const_index, orig_anim_index;
  index_kinds(orig, orig_const_index, orig_anim_index);
  rep.bone_error_deg.assign(edited.bones.size(), 0.0);
  rep.max_error_bound = options.max_error_deg;
  Miss miss;
  std::vector<std::uint8_t> consts;
  std::size_t n_const = 0, n_anim = 0;
  for (std::size_t i = 0; i < edited.bones.size(); ++i) {
    const ClipBone& eb = edited.bones[i];
    bones.push_back({eb.hash, eb.flags});
    n_anim += eb.kind() == BoneKind::animated;
    if (eb.kind() != BoneKind::constant) continue;
    ++n_const;
    const auto code = constant_code(original, i, eb, orig_const_index, rep);
    consts.insert(consts.end(), code.begin(), code.end());
    if (rep.bone_error_deg[i] > options.max_error_deg)
      miss.note(
          rep.bone_error_deg[i],
          bone_label(eb.hash, eb.name) + ": its constant rotation, stored as a 6-byte quaternion (no finer storage),");
  }
  if (splice_section(b, layout->constant_slot, 6 * original.constant_codes.size(), consts))
    rewritten.push_back(layout->constant_slot);

  RotationStream stream;
  stream.tail = original.rotations.tail;
  stream.chunks.assign(n_anim ? chunk_count(static_cast<std::uint32_t>(keys)) : 0, {});
  std::vector<std::uint8_t> depths;
  for (std::size_t i = 0; i < edited.bones.size(); ++i) {
    if (edited.bones[i].kind() != BoneKind::animated) continue;
    MAB_TRY(encode_animated_bone(original, edited, i, options, orig_anim_index, bones[i], stream, rep, miss));
    depths.push_back(static_cast<std::uint8_t>((bones[i].flags & 0x0Fu) + 1u));
  }
  if (options.refuse_above_max_error && miss.error > 0)
    return encode::max_error_refusal(miss.what, miss.error, options.max_error_deg);
  report_timeline_and_bones(orig, edited, rep);
  MAB_TRY(write_rotations(b, *layout, original, stream, static_cast<std::uint32_t>(keys), depths, rewritten));

  // Translations, root motion and part entries, where they were decoded (docs/motion.md).
  MAB_TRY(encode::encode_motion(original, edited, b, options, rep, rewritten));

  update_header(b, *layout, orig, edited, std::move(bones), n_const, n_anim);
  MAB_TRY(check_shared_runs(original, b, rewritten));
  // Nested-block links of part entries follow the blocks this edit moved (format 12).
  MAB_TRY(encode::relink_parts(original.container, c, original.options, rep.warnings));
  if (report) *report = std::move(rep);
  return c;
}

Result<std::vector<std::uint8_t>> encode_clip(const DecodedClip& original, const Clip& edited,
                                              const EncodeOptions& options, EncodeReport* report) {
  MAB_ASSIGN(const Container c, encode_clip_container(original, edited, options, report));
  MAB_ASSIGN(std::vector<std::uint8_t> bytes, write_container(c));
  // FC5 blocks are found by scanning for plausible 'aNi' headers (format 4.3), and whether a
  // stray 'aNi' looks plausible depends on the file size and on the bytes a re-quantised
  // stream now holds. A file that would read back as other blocks is refused, never written.
  MAB_ASSIGN(const Placement placed, place(c));
  auto back = read_container(bytes);
  if (!back)
    return make_error(ErrorCode::round_trip_mismatch, back.error().offset, back.error().field,
                      "the encoded file does not read back: " + back.error().message());
  bool same = back->blocks.size() == c.blocks.size() && placed.blocks.size() == c.blocks.size();
  for (std::size_t i = 0; same && i < c.blocks.size(); ++i)
    same = back->blocks[i].original_base == placed.blocks[i].base;
  if (!same) {
    std::size_t i = 0;
    while (i < back->blocks.size() && i < placed.blocks.size() &&
           back->blocks[i].original_base == placed.blocks[i].base)
      ++i;
    const std::uint64_t at = i < placed.blocks.size() ? placed.blocks[i].base : bytes.size();
    return make_error(ErrorCode::ambiguous_layout, at, "aNi",
                      "the edited file would read back as " + std::to_string(back->blocks.size()) + " blocks, block " +
                          std::to_string(i) + " elsewhere, instead of " + std::to_string(c.blocks.size()) +
                          " (a stray 'aNi' becomes or stops being a plausible block header); "
                          "nothing was written");
  }
  return bytes;
}

}  // namespace mab
