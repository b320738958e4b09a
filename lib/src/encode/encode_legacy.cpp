// Legacy 'AnD' clips (format 13) from edited tracks. Untouched sections keep their bytes; the
// others are rebuilt with the layout decode_legacy_clip reads.
#include <mab/legacy.hpp>

#include "container/legacy_tag_record.hpp"
#include "encode/edit_policy.hpp"
#include "io/bytes.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <cstring>
#include <functional>
#include <string>
#include <utility>

namespace mab {

namespace {

using Bytes = std::vector<std::uint8_t>;

void put_code(Bytes& b, const Quat48& q) {
  io::ByteWriter w(b);
  for (auto v : q) w.u16(v);
}
void put_vec(Bytes& b, const Vec3& v) {
  io::ByteWriter w(b);
  for (float f : v) w.u32(std::bit_cast<std::uint32_t>(f));
}

Bytes header(std::size_t count, std::uint16_t last, std::uint32_t rate_bits) {
  Bytes b;
  io::ByteWriter w(b);
  w.u16(static_cast<std::uint16_t>(count));
  w.u16(last);
  w.u32(rate_bits);
  return b;
}

// JB-DOC: every section starts on a 16-byte boundary and is zero-padded to one; padding every
// rebuilt section to a multiple of 16 keeps that.
void pad16(Bytes& b) {
  while (b.size() % 16 != 0) b.push_back(0);
}

std::size_t align16(std::size_t n) { return (n + 15) / 16 * 16; }

// A rebuilt section: its data, zeros to 16 bytes, then the zeros the original had beyond its
// own alignment (JB-DOC's 16-byte separator before the events or the chained clip).
void finish(Bytes& b, const LegacyArrayHeader& original, std::size_t original_size) {
  pad16(b);
  const std::size_t aligned = align16(original.data_size);
  if (original_size > aligned) b.insert(b.end(), original_size - aligned, 0);
}

bool same_vec(const Vec3& a, const Vec3& b) { return std::memcmp(a.data(), b.data(), sizeof a) == 0; }
bool same_quat(const Quat& a, const Quat& b) { return std::memcmp(&a, &b, sizeof a) == 0; }

// A constant's or trajectory frame's code: the one it comes with when that decodes to its
// rotation (a constant moved to another bone, a frame moved by a trim, keeps its bytes,
// decision 20's codes included), else a new one.
Quat48 given_or_new_code(const Quat48& code, const Quat& rotation) {
  return same_quat(decode_quat48(code), rotation) ? code : encode_quat48(rotation);
}

// The stored frames of one edited track and their codes (docs/legacy.md, "Writing").
struct Sparse {
  std::vector<std::uint16_t> frames;
  std::vector<Quat48> codes;
  double max_error = 0.0;
  // Keys written at an original key's frame with its code; keys at frames the original did not
  // key (none counted after a trim, whose frames moved).
  std::size_t kept = 0, added = 0;
  std::size_t moved = 0;  // after a retime: keys written with one of the original's codes
};

using QuatBits = std::array<std::uint32_t, 4>;

QuatBits bits_of(const Quat& q) {
  return {std::bit_cast<std::uint32_t>(q.x), std::bit_cast<std::uint32_t>(q.y), std::bit_cast<std::uint32_t>(q.z),
          std::bit_cast<std::uint32_t>(q.w)};
}

// What one track's sparse keys start from and must meet.
struct SparseInput {
  std::vector<Quat> target;  // the edited rotation at every frame 0..lastFrame
  const LegacyRotationTrack& edited;
  const LegacyRotationTrack* original;  // the same bone's stored track, if any
  bool same_frames;                     // the original's frames mean this clip's frames (no trim)
  double tol;
  bool reduce = false;  // re-keyed from the group starts alone (LegacyEncodeOptions::reduce_deg)
  std::vector<std::pair<QuatBits, Quat48>> codes_by_value;  // the original's keys, sorted

  SparseInput(const LegacyRotationTrack& e, const LegacyRotationTrack* o, bool same, double t, std::size_t frames,
              bool reduce_keys = false)
      : target(frames), edited(e), original(o), same_frames(same), tol(t), reduce(reduce_keys) {
    for (std::size_t f = 0; f < frames; ++f) target[f] = legacy_rotation_at(e, static_cast<std::uint32_t>(f));
    if (o != nullptr)
      for (std::size_t i = 0; i < o->keys.size(); ++i) codes_by_value.emplace_back(bits_of(o->keys[i]), o->codes[i]);
    std::sort(codes_by_value.begin(), codes_by_value.end());
  }
};

// The first keys: every group's first frame (format 13: always stored), and the edited track's
// own keys when it lists some frames only (a key at a new frame is a key). A track listing every
// frame is samples (what a glTF import or an animation tool bakes): then the original's keys
// the samples did not move. Other frames are keyed only where the error bound needs it
// (refine_keys).
std::vector<bool> initial_keys(const SparseInput& in) {
  const std::size_t frames = in.target.size();
  std::vector<bool> keyed(frames, false);
  for (std::size_t f = 0; f < frames; f += 8) keyed[f] = true;
  if (in.reduce) return keyed;
  if (in.edited.frames.size() != frames) {
    for (const auto f : in.edited.frames)
      if (f < frames) keyed[f] = true;
  } else if (in.original != nullptr) {
    const auto& o = *in.original;
    if (in.same_frames)
      for (std::size_t i = 0; i < o.frames.size(); ++i)
        if (o.frames[i] < frames && same_quat(o.keys[i], in.target[o.frames[i]])) keyed[o.frames[i]] = true;
    // A frame showing one of the original's stored rotations exactly is that key, moved there
    // (a reverse, trim or speed change): it stays a key with its code. Of a run of frames holding
    // one rotation (a hold), the first, and the last when another rotation follows.
    auto stored = [&](std::size_t f) {
      const auto bits = bits_of(in.target[f]);
      const auto at =
          std::lower_bound(in.codes_by_value.begin(), in.codes_by_value.end(), std::make_pair(bits, Quat48{}));
      return at != in.codes_by_value.end() && at->first == bits;
    };
    for (std::size_t f = 0; f < frames; ++f) {
      const bool starts = f == 0 || !same_quat(in.target[f - 1], in.target[f]);
      const bool ends = f + 1 < frames && !same_quat(in.target[f + 1], in.target[f]);
      if ((starts || ends) && stored(f)) keyed[f] = true;
    }
  }
  return keyed;
}

// A key's code: the original's where it stored this very rotation (at this frame, or, after a
// trim moved the frames, at any frame), so a key the edit did not move keeps its exact code.
Quat48 key_code(const SparseInput& in, std::size_t f) {
  const Quat& q = in.target[f];
  if (const LegacyRotationTrack* o = in.original) {
    const auto it = std::lower_bound(o->frames.begin(), o->frames.end(), f);
    if (in.same_frames && it != o->frames.end() && *it == f) {
      const auto i = static_cast<std::size_t>(it - o->frames.begin());
      if (same_quat(o->keys[i], q)) return o->codes[i];
    }
    const auto bits = bits_of(q);
    const auto at =
        std::lower_bound(in.codes_by_value.begin(), in.codes_by_value.end(), std::make_pair(bits, Quat48{}));
    if (at != in.codes_by_value.end() && at->first == bits) return at->second;
  }
  return encode_quat48(q);
}

// The original's code at frame f, if it keyed f (and the frames did not move).
const Quat48* original_code(const SparseInput& in, std::size_t f) {
  if (in.original == nullptr || !in.same_frames) return nullptr;
  const auto& fr = in.original->frames;
  const auto it = std::lower_bound(fr.begin(), fr.end(), f);
  return it != fr.end() && *it == f ? &in.original->codes[static_cast<std::size_t>(it - fr.begin())] : nullptr;
}

// The written track's rotation at frame f: the stored key, the slerp between the keys around
// it (legacy_rotation_at's rule), or the last key held.
Quat written_at(const std::vector<bool>& keyed, const std::vector<Quat>& stored, std::size_t f) {
  if (keyed[f]) return stored[f];
  std::size_t prev = f, next = f;
  while (!keyed[prev]) --prev;  // frame 0 is always keyed
  while (next < keyed.size() && !keyed[next]) ++next;
  if (next == keyed.size()) return stored[prev];
  return quat_slerp(stored[prev], stored[next], static_cast<double>(f - prev) / static_cast<double>(next - prev));
}

// Between each two keys (and after the last), the frame furthest from the edited rotation is
// keyed while it is more than tol away: keys go only where the edit needs them, since a span
// between two keys the edit left alone reproduces the original, which is the target there.
void refine_keys(const SparseInput& in, std::vector<bool>& keyed, std::vector<Quat48>& code,
                 std::vector<Quat>& stored) {
  const std::size_t frames = keyed.size();
  for (std::size_t start = 0; start < frames;) {
    std::size_t end = start + 1;
    while (end < frames && !keyed[end]) ++end;  // the next key, or frames
    double worst = 0.0;
    std::size_t at = 0;
    for (std::size_t f = start + 1; f < end; ++f) {
      const double e = angular_error_deg(written_at(keyed, stored, f), in.target[f]);
      if (e > worst) worst = e, at = f;
    }
    if (worst <= in.tol) {
      start = end;
      continue;
    }
    // Keyed; the span from `start` is then checked again, now ending at `at`.
    keyed[at] = true;
    code[at] = key_code(in, at);
    stored[at] = decode_quat48(code[at]);
  }
}

Sparse sparse_keys(const SparseInput& in) {
  const std::size_t frames = in.target.size();
  std::vector<bool> keyed = initial_keys(in);
  std::vector<Quat48> code(frames);
  std::vector<Quat> stored(frames);
  for (std::size_t f = 0; f < frames; ++f)
    if (keyed[f]) code[f] = key_code(in, f), stored[f] = decode_quat48(code[f]);
  refine_keys(in, keyed, code, stored);
  Sparse out;
  for (std::size_t f = 0; f < frames; ++f) {
    out.max_error = std::max(out.max_error, angular_error_deg(written_at(keyed, stored, f), in.target[f]));
    if (!keyed[f]) continue;
    out.frames.push_back(static_cast<std::uint16_t>(f));
    out.codes.push_back(code[f]);
    const Quat48* before = original_code(in, f);
    const bool original_code_elsewhere =
        in.original != nullptr &&
        std::find(in.original->codes.begin(), in.original->codes.end(), code[f]) != in.original->codes.end();
    if (before != nullptr && *before == code[f]) ++out.kept;
    else if (original_code_elsewhere) ++out.moved;
    else if (before == nullptr && (in.original == nullptr || in.same_frames)) ++out.added;
  }
  return out;
}

// Slot 3's tracks: one the edit left alone keeps its frames and codes; an edited one goes
// through sparse_keys against the same bone's original track. `same` turns false when any
// track is rewritten.
// A track the edit left alone (frames and keys equal), under its own bone or another (a rename).
bool same_track(const LegacyRotationTrack& a, const LegacyRotationTrack& b) {
  return a.frames == b.frames && std::equal(a.keys.begin(), a.keys.end(), b.keys.begin(), b.keys.end(), same_quat);
}

std::vector<Sparse> sparse_tracks(const LegacyClip& before, const LegacyClip& edited, bool retimed,
                                  const LegacyEncodeOptions& options, LegacyEncodeReport& rep, bool& same) {
  const std::size_t frames = std::size_t{edited.last_frame} + 1;
  const bool reduce = options.reduce_deg.has_value();
  const double tol = reduce ? *options.reduce_deg : options.max_error_deg;
  std::vector<Sparse> tracks;
  for (const auto& e : edited.rotations) {
    const LegacyRotationTrack* o = nullptr;
    for (const auto& bt : before.rotations)
      if (bt.bone == e.bone) o = &bt;
    const LegacyRotationTrack* kept = o != nullptr && same_track(*o, e) ? o : nullptr;
    for (const auto& bt : before.rotations)
      if (kept == nullptr && same_track(bt, e)) kept = &bt;
    const LegacyRotationTrack* from = kept != nullptr ? kept : o;
    const bool stored = !retimed && kept != nullptr;
    // What the edit alone writes: the stored track, or the sparse writer at --max-error.
    Sparse plain = stored ? Sparse{kept->frames, kept->codes, 0.0, kept->frames.size(), 0}
                          : sparse_keys(SparseInput(e, from, !retimed, options.max_error_deg, frames));
    bool as_stored = stored && kept == o;
    // A reduction re-keys from the group starts, taken only where it stores fewer keys.
    if (reduce) {
      Sparse fewer = sparse_keys(SparseInput(e, from, !retimed, tol, frames, true));
      if (fewer.frames.size() < plain.frames.size()) plain = std::move(fewer), as_stored = false;
    }
    same = same && as_stored;
    tracks.push_back(std::move(plain));
    rep.max_error_deg = std::max(rep.max_error_deg, tracks.back().max_error);
    rep.keys_after += tracks.back().frames.size();
    rep.keys_kept += tracks.back().kept;
    rep.keys_added += tracks.back().added;
    rep.keys_moved += tracks.back().moved;
  }
  return tracks;
}

Bytes keyed_section(const std::vector<Sparse>& tracks, std::uint16_t last, std::uint32_t rate_bits,
                    LegacyGroupTable layout) {
  Bytes b = header(tracks.size(), last, rate_bits);
  if (tracks.empty() && layout == LegacyGroupTable::none) return b;
  const std::size_t groups = (std::size_t{last} >> 3) + 1, table = b.size();
  b.resize(table + 4 * (groups + (layout == LegacyGroupTable::with_end)));
  std::vector<std::size_t> cursor(tracks.size(), 0);
  for (std::size_t g = 0; g < groups; ++g) {
    const auto off = static_cast<std::uint32_t>(b.size());
    io::store_u32(b, table + 4 * g, off);
    std::vector<std::uint8_t> presence(tracks.size(), 0x80);
    std::vector<std::vector<Quat48>> extra(tracks.size());
    for (std::size_t t = 0; t < tracks.size(); ++t) {
      auto& c = cursor[t];
      put_code(b, tracks[t].codes[c]);  // frame 8g is always keyed
      ++c;
      while (c < tracks[t].frames.size() && tracks[t].frames[c] < 8 * (g + 1)) {
        presence[t] = static_cast<std::uint8_t>(presence[t] | 1u << (tracks[t].frames[c] - 8 * g - 1));
        extra[t].push_back(tracks[t].codes[c]);
        ++c;
      }
    }
    b.insert(b.end(), presence.begin(), presence.end());
    if (tracks.size() % 2 != 0) b.push_back(0);
    for (const auto& e : extra)
      for (const auto& q : e) put_code(b, q);
  }
  if (layout == LegacyGroupTable::with_end) {
    const auto end = static_cast<std::uint32_t>(b.size());
    io::store_u32(b, table + 4 * groups, end);
  }
  return b;
}

template <class T>
Status ascending_bones(const std::vector<T>& items, std::uint32_t mask_words, const char* what) {
  for (std::size_t i = 0; i < items.size(); ++i)
    if (items[i].bone >= 32 * mask_words || (i > 0 && items[i].bone <= items[i - 1].bone))
      return make_error(ErrorCode::invalid_argument, no_offset, what,
                        "bone ids must be ascending, unique and below " + std::to_string(32 * mask_words));
  return {};
}

template <class T>
void set_mask(LegacyHeader& h, std::size_t mask, const std::vector<T>& items) {
  for (std::uint32_t w = 0; w < h.mask_words; ++w) h.masks[mask * h.mask_words + w] = 0;
  for (const auto& it : items) h.masks[mask * h.mask_words + it.bone / 32] |= 1u << (it.bone % 32);
}

bool same_bits(float a, float b) { return std::bit_cast<std::uint32_t>(a) == std::bit_cast<std::uint32_t>(b); }

bool same_record(const LegacyTagRecord& a, const LegacyTagRecord& b) {
  if (a.kind != b.kind || a.byte_1 != b.byte_1 || a.id != b.id || a.bytes_4 != b.bytes_4 ||
      a.clip_offset != b.clip_offset || !same_bits(a.start, b.start) || !same_bits(a.end, b.end) ||
      a.pointer_slot != b.pointer_slot)
    return false;
  for (std::size_t k = 0; k < 4; ++k)
    if (a.names[k].hash != b.names[k].hash || a.names[k].bytes != b.names[k].bytes) return false;
  return true;
}

// Slot 6: the records' fields written in place (a record's size is fixed). The clip offsets
// are not the caller's: they follow the clips they reach (see encode_legacy_clip).
Status patch_tags(Bytes& s, const std::vector<LegacyTagRecord>& before, const std::vector<LegacyTagRecord>& edited,
                  std::size_t& changed) {
  if (edited.size() != before.size())
    return make_error(ErrorCode::invalid_argument, no_offset, "tag_table",
                      "adding or removing tag records is not supported (" + std::to_string(before.size()) +
                          " stored, " + std::to_string(edited.size()) + " given)");
  for (std::size_t i = 0; i < edited.size(); ++i) {
    const auto& e = edited[i];
    if (e.clip_offset != before[i].clip_offset)
      return make_error(
          ErrorCode::invalid_argument, no_offset, "tag_table",
          "record " + std::to_string(i) + ": clip_offset is not editable (it follows the clip it reaches)");
    if (same_record(e, before[i])) continue;
    ++changed;
    const std::size_t at = 4 + legacy_tag_record_size * i;
    container::tag_record_fields(e, [&](std::size_t field, const auto& m) {
      if (field != container::tag_clip_offset_at) container::store_field(s, at + field, m);
    });
  }
  return {};
}

// Slot 7: a node's time, type and payload written in place. The layout (offsets, sizes, next
// offsets) is read, not written, so a payload keeps its size.
Status patch_events(Bytes& s, const std::vector<LegacyEvent>& before, const std::vector<LegacyEvent>& edited,
                    std::size_t& changed) {
  if (edited.size() != before.size())
    return make_error(ErrorCode::invalid_argument, no_offset, "events",
                      "adding or removing event nodes is not supported (" + std::to_string(before.size()) +
                          " stored, " + std::to_string(edited.size()) + " given)");
  for (std::size_t i = 0; i < edited.size(); ++i) {
    const auto& e = edited[i];
    const auto& b = before[i];
    if (e.offset != b.offset || e.size != b.size || e.next != b.next || e.payload.size() != b.payload.size())
      return make_error(ErrorCode::invalid_argument, no_offset, "events",
                        "node " + std::to_string(i) +
                            ": offset, size, next and the payload's length are the chain's layout, not editable");
    if (same_bits(e.time, b.time) && e.type == b.type && e.payload == b.payload) continue;
    ++changed;
    io::store_u32(s, e.offset, std::bit_cast<std::uint32_t>(e.time));
    io::store_u32(s, e.offset + 4, e.type);
    std::copy(e.payload.begin(), e.payload.end(), s.begin() + static_cast<std::ptrdiff_t>(e.offset + 12));
  }
  return {};
}

// Every tag table of the bank (JB-DOC: a record's clip offset counts from the record's own
// start): a record that reached a block's base in `original` is made to reach that block's
// base in `out`; one that reached none keeps its value (reported when clips moved).
Status follow_moved_clips(const Container& original, Container& out, LegacyEncodeReport& rep) {
  MAB_ASSIGN(const Placement after, place(out));
  for (std::size_t k = 0; k < original.blocks.size(); ++k) {
    if (original.blocks[k].section(6).empty()) continue;
    ++rep.tag_tables;
    MAB_ASSIGN(const LegacyTags tags, decode_legacy_tags(original, k));
    if (!tags.tag_table) {
      ++rep.tag_tables_undecoded;
      continue;
    }
    const PlacedBlock& pb = after.blocks[k];
    const std::uint64_t table = pb.base + pb.segments[static_cast<std::size_t>(out.blocks[k].slot_segment[6])].offset;
    for (std::size_t i = 0; i < tags.tag_table->size(); ++i) {
      const LegacyTagRecord& r = (*tags.tag_table)[i];
      if (r.clip_block < 0) {
        if (rep.size_change != 0) rep.tag_offsets_kept.push_back({k, i, r.clip_offset, r.clip_offset, -1});
        continue;
      }
      const auto record = static_cast<std::int64_t>(table + 4 + legacy_tag_record_size * i);
      const std::int64_t now =
          static_cast<std::int64_t>(after.blocks[static_cast<std::size_t>(r.clip_block)].base) - record;
      if (now == r.clip_offset) continue;
      if (now < INT32_MIN || now > INT32_MAX)
        return make_error(
            ErrorCode::limit_exceeded, no_offset, "tag_table",
            "clip " + std::to_string(k) + " record " + std::to_string(i) + ": the clip offset does not fit");
      io::store_u32(*out.blocks[k].section_mut(6), 4 + legacy_tag_record_size * i + container::tag_clip_offset_at,
                    static_cast<std::uint32_t>(static_cast<std::int32_t>(now)));
      rep.tag_offsets_updated.push_back({k, i, r.clip_offset, static_cast<std::int32_t>(now), r.clip_block});
    }
  }
  return {};
}

// What encode_legacy_clip can write: bone lists ascending, the same sections as the block
// (`has` says which), tracks of the clip's length, keyed frames ascending within it.
Status check_edit(const Container& original, std::size_t block, const LegacyClip& before, const LegacyClip& edited,
                  std::array<bool, 6>& has) {
  const std::uint32_t words = original.blocks[block].legacy()->mask_words;
  MAB_TRY(ascending_bones(edited.constant_rotations, words, "constant_rotations"));
  MAB_TRY(ascending_bones(edited.rotations, words, "rotations"));
  MAB_TRY(ascending_bones(edited.constant_translations, words, "constant_translations"));
  MAB_TRY(ascending_bones(edited.translations, words, "translations"));
  // A new lastFrame (a trim) rewrites every timed section at that length.
  if (edited.last_frame != before.last_frame && !before.timed())
    return make_error(ErrorCode::invalid_argument, no_offset, "last_frame",
                      "the clip has no timed section (slots 0, 1, 3, 5): there is no lastFrame to change");
  const std::uint16_t last = edited.last_frame;
  const std::size_t frames = std::size_t{last} + 1;
  // A section the block has with no entries (a count of 0) stays, empty.
  auto kept_empty = [&](std::size_t slot) { return before.present[slot] && before.headers[slot].count == 0; };
  has = {!edited.trajectory_translation.empty(),
         !edited.trajectory_rotation.empty(),
         !edited.constant_rotations.empty() || kept_empty(2),
         !edited.rotations.empty() || kept_empty(3),
         !edited.constant_translations.empty() || kept_empty(4),
         !edited.translations.empty() || kept_empty(5)};
  // Named as `mab info` lists the sections, so the user sees which of the clip's tracks needs it.
  for (std::size_t slot = 0; slot < 6; ++slot)
    if (has[slot] != before.present[slot]) {
      const std::string name(section_name(original.blocks[block], slot));
      return make_error(ErrorCode::invalid_argument, no_offset, original.blocks[block].slot_field_name(slot),
                        has[slot] ? "the block has no " + name + " section (slot " + std::to_string(slot) +
                                        ") to hold the edit: adding one is not supported yet"
                                  : "emptying the " + name + " section (slot " + std::to_string(slot) +
                                        ") is not supported yet: the edit leaves it no track");
    }
  if (has[0] && edited.trajectory_translation.size() != frames)
    return make_error(ErrorCode::invalid_argument, no_offset, "trajectory_translation", "needs lastFrame + 1 values");
  if (has[1] && (edited.trajectory_rotation.size() != frames))
    return make_error(ErrorCode::invalid_argument, no_offset, "trajectory_rotation", "needs lastFrame + 1 values");
  for (const auto& t : edited.translations)
    if (t.frames.size() != frames)
      return make_error(ErrorCode::invalid_argument, no_offset, "translations", "needs lastFrame + 1 values per track");
  for (const auto& t : edited.rotations)
    if (t.keys.empty() || t.keys.size() != t.frames.size() ||
        std::adjacent_find(t.frames.begin(), t.frames.end(), std::greater_equal<>()) != t.frames.end() ||
        t.frames.back() > last)
      return make_error(ErrorCode::invalid_argument, no_offset, "rotations",
                        "bone " + std::to_string(t.bone) +
                            ": a track needs keys at strictly ascending frames up to lastFrame " +
                            std::to_string(last) + ", one key per frame listed");
  return {};
}

// The array sections (slots 0-5) of the edited clip, each with `same` telling whether its
// values are bit for bit the original decode's (then the caller keeps the stored bytes).
struct SectionWriter {
  const LegacyClip& before;
  const LegacyClip& edited;
  bool retimed;  // a new lastFrame: every timed section is rewritten at that length
  std::uint16_t last;
  const LegacyEncodeOptions& options;

  std::size_t frames() const { return std::size_t{last} + 1; }
  std::uint32_t rate(std::size_t slot) const { return before.headers[slot].rate_bits; }
  // A constant section keeps its stored lastFrame (0 in retail files, JB-DOC); the trajectory
  // its stored count (1, JB-DOC, or lastFrame + 1).
  std::uint16_t stored_last(std::size_t slot) const {
    return retimed && !before.headers[slot].untimed() ? last : before.headers[slot].last_frame;
  }
  bool constant_kept(std::size_t slot) const { return !retimed || before.headers[slot].untimed(); }
  std::size_t stored_count(std::size_t slot) const { return before.headers[slot].count == 1 ? 1 : frames(); }

  Bytes build(std::size_t slot, LegacyEncodeReport& rep, bool& same) const {
    switch (slot) {
      case 0: return trajectory_translation(same);
      case 1: return trajectory_rotation(same);
      case 2: return constant_rotations(same);
      case 3:
        same = !retimed && edited.rotations.size() == before.rotations.size();
        return keyed_section(sparse_tracks(before, edited, retimed, options, rep, same), last, rate(3),
                             before.headers[3].group_table);
      case 4: return constant_translations(same);
      default: return translations(same);
    }
  }

  Bytes trajectory_translation(bool& same) const {
    same = !retimed;
    for (std::size_t f = 0; f < frames() && same; ++f)
      same = same_vec(edited.trajectory_translation[f], before.trajectory_translation[f]);
    Bytes s = header(stored_count(0), last, rate(0));
    for (const auto& v : edited.trajectory_translation) put_vec(s, v);
    return s;
  }

  Bytes trajectory_rotation(bool& same) const {
    same = !retimed;
    Bytes s = header(stored_count(1), last, rate(1));
    for (std::size_t f = 0; f < frames(); ++f) {
      const bool kept = f < before.trajectory_rotation.size() &&
                        same_quat(edited.trajectory_rotation[f], before.trajectory_rotation[f]);
      same = same && kept;
      const Quat48 given = f < edited.trajectory_rotation_codes.size() ? edited.trajectory_rotation_codes[f] : Quat48{};
      put_code(s, kept ? before.trajectory_rotation_codes[f] : given_or_new_code(given, edited.trajectory_rotation[f]));
    }
    return s;
  }

  Bytes constant_rotations(bool& same) const {
    same = constant_kept(2) && edited.constant_rotations.size() == before.constant_rotations.size();
    Bytes s = header(edited.constant_rotations.size(), stored_last(2), rate(2));
    for (std::size_t i = 0; i < edited.constant_rotations.size(); ++i) {
      const auto& e = edited.constant_rotations[i];
      const bool kept = i < before.constant_rotations.size() && e.bone == before.constant_rotations[i].bone &&
                        same_quat(e.rotation, before.constant_rotations[i].rotation);
      same = same && kept;
      put_code(s, kept ? before.constant_rotations[i].code : given_or_new_code(e.code, e.rotation));
    }
    return s;
  }

  Bytes constant_translations(bool& same) const {
    same = constant_kept(4) && edited.constant_translations.size() == before.constant_translations.size();
    Bytes s = header(edited.constant_translations.size(), stored_last(4), rate(4));
    for (std::size_t i = 0; i < edited.constant_translations.size(); ++i) {
      const auto& e = edited.constant_translations[i];
      same = same && e.bone == before.constant_translations[i].bone &&
             same_vec(e.translation, before.constant_translations[i].translation);
      put_vec(s, e.translation);
    }
    return s;
  }

  Bytes translations(bool& same) const {
    same = !retimed && edited.translations.size() == before.translations.size();
    Bytes s = header(edited.translations.size(), last, rate(5));
    for (std::size_t t = 0; t < edited.translations.size() && same; ++t) {
      same = edited.translations[t].bone == before.translations[t].bone;
      for (std::size_t f = 0; f < frames() && same; ++f)
        same = same_vec(edited.translations[t].frames[f], before.translations[t].frames[f]);
    }
    for (std::size_t f = 0; f < frames(); ++f)
      for (const auto& t : edited.translations) put_vec(s, t.frames[f]);
    return s;
  }
};

// Slots 6 and 7: an empty optional keeps the section; a given one must match what decodes.
Status patch_tags_and_events(const LegacyClip& before, const LegacyClip& edited, Block& b, LegacyEncodeReport& rep) {
  if (edited.tag_table) {
    if (!before.tag_table)
      return make_error(
          ErrorCode::invalid_argument, no_offset, "tag_table",
          before.tag_table_note.empty()
              ? "the block has no tag table (slot 6)"
              : "the block's tag table does not decode, so it can only be kept: " + before.tag_table_note);
    MAB_TRY(patch_tags(*b.section_mut(6), *before.tag_table, *edited.tag_table, rep.tag_records_edited));
  }
  if (edited.events) {
    if (!before.events)
      return make_error(ErrorCode::invalid_argument, no_offset, "events",
                        before.events_note.empty()
                            ? "the block has no event chain (slot 7)"
                            : "the block's event chain does not decode, so it can only be kept: " + before.events_note);
    MAB_TRY(patch_events(*b.section_mut(7), *before.events, *edited.events, rep.events_edited));
  }
  return {};
}

}  // namespace

Result<Container> encode_legacy_clip(const Container& original, std::size_t block, const LegacyClip& edited,
                                     const LegacyEncodeOptions& options, LegacyEncodeReport* report) {
  MAB_ASSIGN(const LegacyClip before, decode_legacy_clip(original, block));
  std::array<bool, 6> has{};
  MAB_TRY(check_edit(original, block, before, edited, has));
  Container out = original;
  Block& b = out.blocks[block];
  auto& h = std::get<LegacyHeader>(b.header);
  set_mask(h, 0, edited.constant_rotations);
  set_mask(h, 1, edited.rotations);
  set_mask(h, 2, edited.constant_translations);
  set_mask(h, 3, edited.translations);
  if (!same_bits(edited.duration, before.duration)) h.duration_bits = std::bit_cast<std::uint32_t>(edited.duration);

  LegacyEncodeReport rep;
  for (const auto& t : before.rotations) rep.keys_before += t.keys.size();
  const SectionWriter writer{before, edited, edited.last_frame != before.last_frame, edited.last_frame, options};
  for (std::size_t slot = 0; slot < 6; ++slot) {
    if (!has[slot]) continue;
    bool same = true;
    Bytes s = writer.build(slot, rep, same);
    if (same) {
      ++rep.sections_kept;
      continue;
    }
    finish(s, before.headers[slot], original.blocks[block].section(slot).size());
    *b.section_mut(slot) = std::move(s);
    ++rep.sections_rewritten;
  }
  MAB_TRY(patch_tags_and_events(before, edited, b, rep));
  // A chained clip's segment holds no bytes (the clip is its own block), so the segments'
  // sizes are this clip's own.
  for (const auto& seg : b.segments) rep.size_change += static_cast<std::int64_t>(seg.bytes.size());
  for (const auto& seg : original.blocks[block].segments)
    rep.size_change -= static_cast<std::int64_t>(seg.bytes.size());
  if (rep.size_change != 0)
    for (const auto& other : original.blocks)
      rep.moved_clips += other.original_base > original.blocks[block].original_base;
  MAB_TRY(follow_moved_clips(original, out, rep));
  if (options.refuse_above_max_error && !options.reduce_deg && rep.max_error_deg > options.max_error_deg)
    return encode::max_error_refusal(
        "a rewritten rotation track (Far Cry 2/3 keys are 6-byte quaternions: no depth "
        "to raise)",
        rep.max_error_deg, options.max_error_deg);
  if (options.reduce_deg && rep.max_error_deg > *options.reduce_deg)
    return make_error(ErrorCode::invalid_argument, no_offset, "reduce",
                      "a re-keyed rotation track is " + std::to_string(rep.max_error_deg) +
                          " degrees off, above the "
                          "reduction's bound " +
                          std::to_string(*options.reduce_deg) +
                          " (a 6-byte key rounds by up to "
                          "about 0.008 degrees); nothing written");
  if (report != nullptr) *report = rep;
  return out;
}

}  // namespace mab
