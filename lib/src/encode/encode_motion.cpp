// Translations, root motion and part entries back into their sections, the way they were read
// (format 10, 12; docs/motion.md). Nothing is written in a layout the decoder did not prove on this
// block: data for a section that stayed opaque is refused, naming the section's evidence.
#include "encode/encode_motion.hpp"

#include <mab/text.hpp>

#include "codec/translation_chunk.hpp"
#include "decode/decode_motion.hpp"
#include "encode/edit_policy.hpp"
#include "encode/encode_common.hpp"
#include "io/bytes.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>

namespace mab::encode {

namespace {

using decode::f32_bits;

bool same_vec(const Vec3& a, const Vec3& b) noexcept { return std::memcmp(a.data(), b.data(), sizeof a) == 0; }
bool same_quat(const Quat& a, const Quat& b) noexcept { return std::memcmp(&a, &b, sizeof a) == 0; }

template <class T, class Eq>
bool same_track(const std::vector<T>& a, const std::vector<T>& b, Eq eq) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (!eq(a[i], b[i])) return false;
  return true;
}

std::string bone_field(std::size_t i, const char* what) { return "bones[" + std::to_string(i) + "]." + what; }

Error not_stored(std::string field, const std::string& section, const Evidence& ev) {
  return make_error(ErrorCode::invalid_argument, no_offset, std::move(field),
                    "cannot be written: the file's " + section + " is " + ev.text() +
                        "; data is written only in a layout decoded from this block (docs/motion.md)");
}

// Sets m_dataCounts[index] to `now` when it held `before` (a count that disagreed in the input
// is kept as read, for validate to report: never a silent fix).
void follow_count(Block& b, std::size_t index, std::size_t before, std::size_t now) {
  auto* a = b.ani();
  if (!a || index >= a->data_counts.size() || a->data_counts[index] != before) return;
  a->data_counts[index] = static_cast<std::uint16_t>(now);
}

void note(std::vector<int>& rewritten, EncodeReport& rep, const Block& b, int slot) {
  rewritten.push_back(slot);
  rep.motion_sections_rewritten.push_back(b.slot_field_name(static_cast<std::size_t>(slot)) + " (" +
                                          std::string(section_name(b, static_cast<std::size_t>(slot))) + ")");
}

// --- JointTranslations (format 10.1) ---

// The bones a clip translates, in bone order.
std::vector<std::size_t> translated_bones(const Clip& c) {
  std::vector<std::size_t> out;
  for (std::size_t i = 0; i < c.bones.size(); ++i)
    if (!c.bones[i].translations.empty()) out.push_back(i);
  return out;
}

// The reading the file was decoded with selects the bones that carry translations (by their
// flags, docs/motion.md): an edit must keep the two in agreement.
Status check_translated_bones(const DecodedClip& original, const Clip& edited) {
  const Evidence& ev = original.evidence.translations;
  const TranslationBones rule = original.motion.translation_bones;
  for (std::size_t i = 0; i < edited.bones.size(); ++i) {
    const bool selected = translation_selected(rule, edited.bones[i].flags);
    const bool has = !edited.bones[i].translations.empty();
    if (selected != has)
      return make_error(ErrorCode::invalid_argument, no_offset, bone_field(i, "translations"),
                        std::string("the reading the file was decoded with (") + ev.text() + ") gives this bone " +
                            (selected ? "a translation, but it has none" : "no translation, but it has one") +
                            "; change its flags or its translations to agree");
  }
  return {};
}

// Edited bone i's track into the stream's chunks; returns its table entry. The original entry
// while every value to re-quantise fits its scale, otherwise the smallest scale that holds the
// whole track (all chunks then change: the scale is per bone); a chunk whose keys did not move
// keeps its codes. orig_slot: each original bone's table index, or -1.
Result<TranslationEntry> encode_translation_track(const DecodedClip& original, const Clip& edited, std::size_t i,
                                                  const std::vector<int>& orig_slot, const EncodeOptions& options,
                                                  TranslationStream& stream, EncodeReport& rep) {
  const Clip& orig = original.clip;
  const auto& mo = original.motion;
  const auto keys = static_cast<std::uint32_t>(edited.key_count());
  const std::size_t chunks = chunk_count(keys);
  const ClipBone& eb = edited.bones[i];
  const int o = original_index(orig, i, eb);
  const int os = o >= 0 ? orig_slot[static_cast<std::size_t>(o)] : -1;
  const ClipBone* ob = os >= 0 ? &orig.bones[static_cast<std::size_t>(o)] : nullptr;
  const auto oi = static_cast<std::size_t>(std::max(os, 0));
  auto reusable = [&](std::size_t ch, TranslationEntry e) {
    if (!ob || !(e == mo.translation_table[oi]) || ch >= mo.translations.chunks.size()) return false;
    const unsigned f = chunk_key_count(keys, ch);
    if (f != chunk_key_count(static_cast<std::uint32_t>(orig.key_count()), ch)) return false;
    for (std::size_t k = ch * keys_per_chunk; k < ch * keys_per_chunk + f; ++k)
      if (!same_vec(eb.translations[k], ob->translations[k])) return false;
    return true;
  };
  TranslationEntry entry = ob ? mo.translation_table[oi] : TranslationEntry::make(16, 0);
  bool fits = ob != nullptr;
  for (std::size_t ch = 0; fits && ch < chunks; ++ch)
    fits = reusable(ch, entry) ||
           translation_chunk_fits(
               std::span<const Vec3>(eb.translations).subspan(ch * keys_per_chunk, chunk_key_count(keys, ch)), entry);
  if (!fits) {
    auto widened = translation_entry_for(eb.translations, ob ? entry.bit_depth() : 16u);
    if (!widened) {
      Error e = std::move(widened).error();
      e.field = bone_field(i, "translations");
      return e;
    }
    entry = *widened;
    if (ob) ++rep.translation_scales_widened;
  }
  // The bone's chunks at `e`: the original's codes where reusable, else re-quantised.
  struct Track {
    std::vector<TranslationChunkCodes> codes;
    std::size_t reused = 0;
    double max_error = 0;
  };
  auto quantise_track = [&](TranslationEntry e) -> Result<Track> {
    Track t;
    for (std::size_t ch = 0; ch < chunks; ++ch) {
      if (reusable(ch, e)) {
        t.codes.push_back(mo.translations.chunks[ch][oi]);
        ++t.reused;
        continue;
      }
      const std::size_t first = ch * keys_per_chunk;
      // A constant within half the bound: the float decode adds up to a few ulp of the scale.
      auto q = detail::quantise_translation_chunk_within(
          std::span<const Vec3>(eb.translations).subspan(first, chunk_key_count(keys, ch)), e,
          options.max_translation_error / 2);
      if (!q) {
        Error err = std::move(q).error();
        err.field = bone_field(i, "translations") + "[" + std::to_string(first) + "..]";
        return err;
      }
      t.codes.push_back(q->codes);
      t.max_error = std::max(t.max_error, q->max_error);
    }
    return t;
  };
  MAB_ASSIGN(Track track, quantise_track(entry));
  const unsigned depth_before = entry.bit_depth();
  // Decision 21 for translations: a depth that misses the bound is raised (a new key time
  // regroups every later chunk, format 10.1: 8 keys a chunk, so untouched bones are
  // re-quantised too and must stay where they were).
  for (unsigned n = entry.bit_depth() + 1;
       options.raise_depth && track.max_error > options.max_translation_error && n <= 16; ++n) {
    MAB_ASSIGN(const TranslationEntry finer, translation_entry_for(eb.translations, n));
    MAB_ASSIGN(Track again, quantise_track(finer));
    if (!(again.max_error < track.max_error)) continue;
    if (entry.bit_depth() == depth_before) ++rep.translation_depths_raised;
    entry = finer;
    track = std::move(again);
  }
  if (options.raise_depth && options.refuse_above_max_translation_error &&
      track.max_error > options.max_translation_error)
    return encode::max_translation_error_refusal(bone_label(eb.hash, eb.name) + " (translations at " +
                                                     std::to_string(entry.bit_depth()) + " bits" +
                                                     (entry.bit_depth() >= 16 ? ", the finest depth)" : ")"),
                                                 track.max_error, options.max_translation_error);
  for (std::size_t ch = 0; ch < chunks; ++ch) stream.chunks[ch].push_back(track.codes[ch]);
  rep.translation_chunks_reused += track.reused;
  rep.translation_chunks_requantised += chunks - track.reused;
  rep.max_translation_error = std::max(rep.max_translation_error, track.max_error);
  return entry;
}

Status encode_translations(const DecodedClip& original, const Clip& edited, Block& b, const container::MotionLayout& l,
                           const EncodeOptions& options, EncodeReport& rep, std::vector<int>& rewritten) {
  const Evidence& ev = original.evidence.translations;
  const Clip& orig = original.clip;
  const std::vector<std::size_t> translated = translated_bones(edited);
  if (!ev.accepted()) {
    if (!translated.empty()) return not_stored(bone_field(translated[0], "translations"), "JointTranslations", ev);
    return {};
  }
  MAB_TRY(check_translated_bones(original, edited));
  // The original's translated bones, in bone order, and each one's table index.
  const std::vector<std::size_t> orig_translated = translated_bones(orig);
  std::vector<int> orig_slot(orig.bones.size(), -1);
  for (std::size_t t = 0; t < orig_translated.size(); ++t) orig_slot[orig_translated[t]] = static_cast<int>(t);
  const auto keys = static_cast<std::uint32_t>(edited.key_count());
  bool unchanged = keys == orig.key_count() && translated.size() == orig_translated.size();
  for (std::size_t t = 0; unchanged && t < translated.size(); ++t) {
    const ClipBone& eb = edited.bones[translated[t]];
    const ClipBone& ob = orig.bones[orig_translated[t]];
    unchanged = eb.hash == ob.hash && same_track(eb.translations, ob.translations, same_vec);
  }
  if (unchanged) {
    rep.translation_chunks_reused += translated.size() * chunk_count(keys);
    return {};
  }
  const auto& mo = original.motion;
  std::vector<TranslationEntry> entries;
  TranslationStream stream;
  stream.tail = mo.translations.tail;
  stream.chunks.assign(chunk_count(keys), {});
  for (const std::size_t i : translated) {
    MAB_ASSIGN(const TranslationEntry entry,
               encode_translation_track(original, edited, i, orig_slot, options, stream, rep));
    entries.push_back(entry);
  }
  MAB_ASSIGN(const auto bytes, encode_translation_stream(stream, keys, entries));
  std::vector<std::uint8_t> table;
  io::ByteWriter w(table);
  for (const auto& e : entries) w.u32(e.raw);
  if (splice_section(b, l.table, 4 * mo.translation_table.size(), table)) note(rewritten, rep, b, l.table);
  // The stream's tail is part of `bytes`.
  if (auto* sec = b.section_mut(static_cast<std::size_t>(l.translations)); sec && *sec != bytes) {
    *sec = bytes;
    note(rewritten, rep, b, l.translations);
  }
  follow_count(b, container::count_translations, orig_translated.size(), translated.size());
  follow_count(b, container::count_translation_table, orig_translated.size(), translated.size());
  return {};
}

// --- JointConstantTranslations (format 10.2) ---

Status encode_constant_translations(const DecodedClip& original, const Clip& edited, Block& b,
                                    const container::MotionLayout& l, EncodeReport& rep, std::vector<int>& rewritten) {
  const Evidence& ev = original.evidence.constant_translations;
  std::vector<std::size_t> listed, orig_listed;
  for (std::size_t i = 0; i < edited.bones.size(); ++i)
    if (edited.bones[i].constant_translation) listed.push_back(i);
  if (!ev.accepted()) {
    if (!listed.empty())
      return not_stored(bone_field(listed[0], "constant_translation"), "JointConstantTranslations", ev);
    return {};
  }
  const TranslationBones rule = original.motion.constant_bones;
  for (std::size_t i = 0; i < edited.bones.size(); ++i) {
    const bool selected = translation_selected(rule, edited.bones[i].flags);
    if (selected != edited.bones[i].constant_translation.has_value())
      return make_error(ErrorCode::invalid_argument, no_offset, bone_field(i, "constant_translation"),
                        std::string("the reading the file was decoded with (") + ev.text() + ") gives this bone " +
                            (selected ? "a constant translation, but it has none" : "none, but it has one"));
  }
  for (std::size_t i = 0; i < original.clip.bones.size(); ++i)
    if (original.clip.bones[i].constant_translation) orig_listed.push_back(i);
  bool unchanged = listed.size() == orig_listed.size();
  for (std::size_t t = 0; unchanged && t < listed.size(); ++t)
    unchanged = edited.bones[listed[t]].hash == original.clip.bones[orig_listed[t]].hash &&
                same_vec(*edited.bones[listed[t]].constant_translation,
                         *original.clip.bones[orig_listed[t]].constant_translation);
  if (unchanged) return {};
  std::vector<std::uint8_t> bytes;
  io::ByteWriter w(bytes);
  for (const std::size_t i : listed) {
    const Vec3& v = *edited.bones[i].constant_translation;
    for (unsigned j = 0; j < 3; ++j) {
      if (!decode::plausible_translation(v[j]))
        return make_error(
            ErrorCode::bad_value, no_offset, bone_field(i, "constant_translation"),
            "component " + std::to_string(v[j]) + " is not a plausible translation (finite, at most 1e4)");
      w.u32(f32_bits(v[j]));
    }
  }
  if (splice_section(b, l.constant_translations, 12 * orig_listed.size(), bytes))
    note(rewritten, rep, b, l.constant_translations);
  follow_count(b, container::count_constant_translations, orig_listed.size(), listed.size());
  return {};
}

// --- Root motion (format 10.3) ---

Status encode_root_motion(const DecodedClip& original, const Clip& edited, Block& b, const container::MotionLayout& l,
                          EncodeReport& rep, std::vector<int>& rewritten) {
  const RootMotion& er = edited.root_motion;
  const RootMotion& orr = original.clip.root_motion;
  const auto& mo = original.motion;
  const std::size_t keys = edited.key_count();
  {
    const Evidence& ev = original.evidence.root_rotations;
    if (!ev.accepted()) {
      if (!er.rotations.empty()) return not_stored("root_motion.rotations", "DisplacementOrientations", ev);
    } else if (er.rotations.empty() && keys > 0) {
      return make_error(ErrorCode::invalid_argument, no_offset, "root_motion.rotations",
                        "the file has root rotations (" + ev.text() + "); removing them is not supported");
    } else if (!same_track(er.rotations, orr.rotations, same_quat)) {
      std::vector<std::uint8_t> bytes;
      io::ByteWriter w(bytes);
      for (std::size_t k = 0; k < er.rotations.size(); ++k) {
        const Quat& q = er.rotations[k];
        if (!std::isfinite(q.x) || !std::isfinite(q.y) || !std::isfinite(q.z) || !std::isfinite(q.w))
          return make_error(ErrorCode::bad_value, no_offset, "root_motion.rotations[" + std::to_string(k) + "]",
                            "not a finite quaternion");
        if (mo.root_rotation_layout == RootRotationLayout::quat48) {
          const bool same = k < orr.rotations.size() && same_quat(q, orr.rotations[k]);
          const Quat48 code = same ? mo.root_rotation_codes[k] : encode_quat48(q);
          if (!same) {
            const double err = angular_error_deg(q, decode_quat48(code));
            rep.max_error_deg = std::max(rep.max_error_deg, err);
          }
          w.bytes(quat48_to_bytes(code));
        } else {
          // decode_motion takes f32 quaternions within 1e-3 of unit length; others are normalised.
          const double n2 = double{q.x} * q.x + double{q.y} * q.y + double{q.z} * q.z + double{q.w} * q.w;
          const Quat out = std::fabs(std::sqrt(n2) - 1.0) <= 1e-3 ? q : quat_normalised(q);
          for (unsigned i = 0; i < 4; ++i) w.u32(f32_bits(out[i]));
        }
      }
      const std::size_t element = mo.root_rotation_layout == RootRotationLayout::quat48 ? 6 : 16;
      if (splice_section(b, l.root_rotations, element * orr.rotations.size(), bytes))
        note(rewritten, rep, b, l.root_rotations);
      follow_count(b, container::count_root_rotations, orr.rotations.size(), er.rotations.size());
    }
  }
  const Evidence& ev = original.evidence.root_translations;
  if (!ev.accepted()) {
    if (!er.translations.empty()) return not_stored("root_motion.translations", "DisplacementTranslations", ev);
    return {};
  }
  if (er.translations.empty() && keys > 0)
    return make_error(ErrorCode::invalid_argument, no_offset, "root_motion.translations",
                      "the file has root translations (" + ev.text() + "); removing them is not supported");
  if (same_track(er.translations, orr.translations, same_vec)) return {};
  const bool w4 = mo.root_translation_layout == RootTranslationLayout::f32x4;
  std::vector<std::uint8_t> bytes;
  io::ByteWriter w(bytes);
  for (std::size_t k = 0; k < er.translations.size(); ++k) {
    for (unsigned j = 0; j < 3; ++j) {
      const float v = er.translations[k][j];
      if (!decode::plausible_translation(v))
        return make_error(ErrorCode::bad_value, no_offset, "root_motion.translations[" + std::to_string(k) + "]",
                          "component " + std::to_string(v) + " is not a plausible translation (finite, at most 1e4)");
      w.u32(f32_bits(v));
    }
    if (w4) w.u32(mo.root_translation_w_bits);
  }
  if (splice_section(b, l.root_translations, (w4 ? 16 : 12) * orr.translations.size(), bytes))
    note(rewritten, rep, b, l.root_translations);
  follow_count(b, container::count_root_translations, orr.translations.size(), er.translations.size());
  return {};
}

// --- Part entries (format 12) ---

Status encode_parts(const DecodedClip& original, const Clip& edited, Block& b, const container::MotionLayout& l,
                    EncodeReport& rep, std::vector<int>& rewritten) {
  const Evidence& ev = original.evidence.parts;
  if (!ev.accepted()) {
    if (!edited.parts.empty()) return not_stored("parts", "part animation array", ev);
    return {};
  }
  const auto& orig = original.clip.parts;
  if (edited.parts.size() != orig.size())
    return make_error(ErrorCode::invalid_argument, no_offset, "parts",
                      std::to_string(edited.parts.size()) + " part entries, the file has " +
                          std::to_string(orig.size()) + ": adding or removing entries is not supported");
  // Checked against the duration the file will hold, edited or not: an entry the decoder
  // would not read in the written file (a time past a shortened clip, a type outside 1..8)
  // is refused here rather than written and then lost on the next read.
  const float duration = encode::encoded_duration(original.clip, edited);
  bool unchanged = true;
  for (std::size_t i = 0; i < orig.size(); ++i) {
    const ClipPart& e = edited.parts[i];
    if (e.nested_block != orig[i].nested_block)
      return make_error(ErrorCode::invalid_argument, no_offset, "parts[" + std::to_string(i) + "].nested_block",
                        "the nested block of an entry cannot be changed");
    if (auto problem = decode::part_problem(e, duration))
      return make_error(ErrorCode::bad_value, no_offset, "parts[" + std::to_string(i) + "]",
                        *problem + ": keep each part inside the clip (or set its duration)");
    unchanged = unchanged && f32_bits(e.start) == f32_bits(orig[i].start) && f32_bits(e.end) == f32_bits(orig[i].end) &&
                e.parent_hash == orig[i].parent_hash && e.attachment_hash == orig[i].attachment_hash &&
                e.type == orig[i].type;
  }
  if (unchanged) return {};
  auto* sec = b.section_mut(static_cast<std::size_t>(l.parts));
  const std::size_t head = container::part_header_size(original.motion.part_header);
  std::vector<std::uint8_t> bytes = *sec;
  for (std::size_t i = 0; i < orig.size(); ++i) {
    const ClipPart& e = edited.parts[i];
    const std::size_t at = head + container::part_entry_size * i;
    io::store_u32(bytes, at + container::part_start_at, f32_bits(e.start));
    io::store_u32(bytes, at + container::part_end_at, f32_bits(e.end));
    io::store_u32(bytes, at + container::part_parent_at, e.parent_hash);
    io::store_u32(bytes, at + container::part_attachment_at, e.attachment_hash);
    bytes[at + container::part_type_at] = e.type;
  }
  if (bytes != *sec) {
    *sec = std::move(bytes);
    note(rewritten, rep, b, l.parts);
  }
  return {};
}

}  // namespace

Status encode_motion(const DecodedClip& original, const Clip& edited, Block& b, const EncodeOptions& options,
                     EncodeReport& report, std::vector<int>& rewritten) {
  const container::MotionLayout l = container::motion_layout(b);
  MAB_TRY(encode_translations(original, edited, b, l, options, report, rewritten));
  MAB_TRY(encode_constant_translations(original, edited, b, l, report, rewritten));
  MAB_TRY(encode_root_motion(original, edited, b, l, report, rewritten));
  return encode_parts(original, edited, b, l, report, rewritten);
}

namespace {

// Decision 12 keeps a part array that did not decode as its bytes; if its entries were links to
// nested blocks measured from a base no hypothesis tried, moving blocks made them stale, and
// nothing can tell. Said, not hidden: the file is written, the warning names the array.
void warn_opaque_parts(const Container& before, std::size_t k, const Placement& old_pl, const Placement& new_pl,
                       const Evidence& evidence, std::vector<std::string>& warnings) {
  const Block& ob = before.blocks[k];
  const auto l = container::motion_layout(ob);
  if (l.parts < 0 || static_cast<std::size_t>(l.parts) >= ob.slot_segment.size() ||
      ob.slot_segment[static_cast<std::size_t>(l.parts)] < 0)
    return;
  if (ob.section(static_cast<std::size_t>(l.parts)).empty() || before.blocks.size() < 2) return;
  std::size_t moved = 0;
  for (std::size_t j = 0; j < old_pl.blocks.size() && j < new_pl.blocks.size(); ++j)
    moved += old_pl.blocks[j].base != new_pl.blocks[j].base;
  if (moved == 0) return;
  warnings.push_back("block " + std::to_string(k) + "'s " + ob.slot_field_name(static_cast<std::size_t>(l.parts)) +
                     " (part animations) did not decode (" + evidence.text() +
                     ") and is kept as bytes, while this edit moved " + std::to_string(moved) +
                     " block(s): if its entries link nested blocks, those links are stale; check the clip in game");
}

}  // namespace

Status relink_parts(const Container& before, Container& after, const DecodeOptions& options,
                    std::vector<std::string>& warnings) {
  if (before.blocks.size() != after.blocks.size()) return {};
  bool any = false;
  for (const auto& blk : before.blocks) {
    const auto l = container::motion_layout(blk);
    any = any || (l.parts >= 0 && static_cast<std::size_t>(l.parts) < blk.slot_segment.size() &&
                  blk.slot_segment[static_cast<std::size_t>(l.parts)] >= 0);
  }
  if (!any) return {};
  MAB_ASSIGN(const Placement old_pl, place(before));
  MAB_ASSIGN(const Placement new_pl, place(after));
  for (std::size_t k = 0; k < before.blocks.size(); ++k) {
    const Block& ob = before.blocks[k];
    const auto* a = ob.ani();
    if (!a) continue;
    const float duration = a->duration();
    const decode::PartsRead parts = decode::read_parts(before, k, old_pl, duration, options);
    if (!parts.evidence.accepted()) {
      warn_opaque_parts(before, k, old_pl, new_pl, parts.evidence, warnings);
      continue;
    }
    if (parts.base == NestedBase::none) continue;
    Block& nb = after.blocks[k];
    const auto slot = static_cast<std::size_t>(container::motion_layout(nb).parts);
    const int seg = nb.slot_segment[slot];
    auto* sec = nb.section_mut(slot);
    if (seg < 0 || !sec) continue;
    std::vector<std::uint8_t> bytes = *sec;
    const std::uint64_t section_at =
        new_pl.blocks[k].base + new_pl.blocks[k].segments[static_cast<std::size_t>(seg)].offset;
    const std::size_t head = container::part_header_size(parts.header);
    for (std::size_t i = 0; i < parts.parts.size(); ++i) {
      const int target = parts.parts[i].nested_block;
      if (target < 0) continue;
      const std::size_t at = head + container::part_entry_size * i;
      if (at + 4 > bytes.size()) continue;  // the array was cut by an edit of this block: nothing to link
      const auto origin = static_cast<std::int64_t>(
          container::nested_origin(parts.base, parts.header, new_pl.blocks[k].base, section_at, i));
      const std::int64_t offset =
          static_cast<std::int64_t>(new_pl.blocks[static_cast<std::size_t>(target)].base) - origin;
      if (offset < std::numeric_limits<std::int32_t>::min() || offset > std::numeric_limits<std::int32_t>::max())
        return make_error(ErrorCode::limit_exceeded, section_at + at, nb.slot_field_name(slot),
                          "part entry " + std::to_string(i) + "'s nested block is out of 32-bit reach");
      io::store_u32(bytes, at + container::part_nested_at,
                    static_cast<std::uint32_t>(static_cast<std::int32_t>(offset)));
    }
    if (bytes == *sec) continue;
    for (std::size_t j = 0; j < nb.slot_segment.size(); ++j)
      if (j != slot && nb.slot_segment[j] == seg)
        return make_error(ErrorCode::overlap, section_at, nb.slot_field_name(slot),
                          "the part array shares its bytes with " + nb.slot_field_name(j) +
                              "; moving its nested blocks would rewrite both, so nothing was written");
    *sec = std::move(bytes);
  }
  return {};
}

}  // namespace mab::encode
