// The "legacy_clip" member of a version 1 or 2 mabkit-clip document (Far Cry 2/3, format 13;
// docs/json-format.md) and the "legacy" records of version 3: read, then checked against the
// original decode (identity, what a document cannot edit) and imported as version 3 is.
#include "interchange/json/json_import_parts.hpp"

#include <algorithm>
#include <bit>
#include <cstdint>
#include <string>

namespace mab::interchange::json_in {

namespace {

// "new": true on a track entry, recorded for check_legacy_identity.
Status read_new_track(const Val& v, const Path& p, std::vector<std::size_t>& out) {
  const auto fresh = maybe(v, "new");
  if (!fresh) return {};
  if (!fresh->is_bool()) return perr(at(p, "new"), "expected true or false, found " + describe(*fresh));
  if (fresh->boolean()) out.push_back(p.index);
  return {};
}

// Array lengths: a section holds at most one entry per bone a mask can name (9 words for
// FC3) and per frame a u16 lastFrame can count.
constexpr std::size_t legacy_max_bones = 32 * 9;
constexpr std::size_t legacy_max_frames = 65536;

template <class T, class F>
Status read_list(const Val& obj, const Path& path, std::string_view key, std::size_t max, std::vector<T>& out,
                 F&& item) {
  MAB_ASSIGN(const Val j, need(obj, path, key));
  const Path p = at(path, key);
  MAB_TRY(check_array(j, p, max));
  out.resize(j.size());
  return each(j, [&](std::size_t i, const Val& v) -> Status { return item(at(p, i), v, out[i]); });
}

Result<float> read_time(const Val& j, const Path& path, ParsedLegacy& out, bool event, std::size_t index,
                        unsigned field) {
  if (j.is_null()) {
    out.time_nulls.push_back({event, index, field, path.str()});
    return 0.0f;
  }
  return read_float(j, path);
}

// A name slot: {"hash", "text"} or {"hash", "bytes"} (32 bytes as hex).
Result<LegacyTagName> read_tag_name(const Val& j, const Path& path) {
  MAB_TRY(check_object(j, path, {"hash", "text", "bytes"}));
  LegacyTagName n;
  MAB_ASSIGN(n.hash, read_u_field<std::uint32_t>(j, path, "hash"));
  const auto text = maybe(j, "text");
  if (text.has_value() == maybe(j, "bytes").has_value())
    return perr(path, "a name slot holds \"text\" or \"bytes\" (32 bytes as hex), exactly one");
  if (text) {
    MAB_ASSIGN(const std::string t, read_string(*text, at(path, "text")));
    if (t.size() > n.bytes.size() || t.find('\0') != std::string::npos)
      return perr(at(path, "text"), "a name holds at most 32 bytes and no NUL");
    std::copy(t.begin(), t.end(), n.bytes.begin());
  } else {
    MAB_ASSIGN(n.bytes, read_hex_fixed<32>(j, path, "bytes"));
  }
  return n;
}

Status read_legacy_tags_and_events(const Val& j, const Path& path, ParsedLegacy& out) {
  LegacyClip& c = out.clip;
  if (maybe(j, "tag_table")) {
    c.tag_table.emplace();
    MAB_TRY(read_list(j, path, "tag_table", legacy_max_frames, *c.tag_table,
                      [&](const Path& p, const Val& v, LegacyTagRecord& r) -> Status {
                        MAB_TRY(check_object(v, p,
                                             {"kind", "byte_1", "id", "bytes_4", "clip_offset", "clip_block", "start",
                                              "end", "names", "pointer_slot"}));
                        MAB_ASSIGN(r.kind, read_u_field<std::uint8_t>(v, p, "kind"));
                        MAB_ASSIGN(r.byte_1, read_u_field<std::uint8_t>(v, p, "byte_1"));
                        MAB_ASSIGN(const Val id, need(v, p, "id"));
                        MAB_ASSIGN(const auto idv, read_int(id, at(p, "id"), -32768, 32767));
                        r.id = static_cast<std::int16_t>(idv);
                        MAB_ASSIGN(r.bytes_4, read_hex_fixed<8>(v, p, "bytes_4"));
                        MAB_ASSIGN(const Val off, need(v, p, "clip_offset"));
                        MAB_ASSIGN(const auto offv, read_int(off, at(p, "clip_offset"), INT32_MIN, INT32_MAX));
                        r.clip_offset = static_cast<std::int32_t>(offv);
                        MAB_ASSIGN(const Val cb, need(v, p, "clip_block"));
                        std::optional<std::uint64_t> block;
                        if (!cb.is_null()) {
                          MAB_ASSIGN(block, read_uint(cb, at(p, "clip_block"), 0xFFFF));
                        }
                        out.clip_blocks.push_back(block);
                        MAB_ASSIGN(const Val st, need(v, p, "start"));
                        MAB_ASSIGN(r.start, read_time(st, at(p, "start"), out, false, p.index, 0));
                        MAB_ASSIGN(const Val en, need(v, p, "end"));
                        MAB_ASSIGN(r.end, read_time(en, at(p, "end"), out, false, p.index, 1));
                        MAB_ASSIGN(const Val names, need(v, p, "names"));
                        const Path np = at(p, "names");
                        MAB_TRY(check_size(names, np, 4));
                        MAB_TRY(each(names, [&](std::size_t k, const Val& n) -> Status {
                          MAB_ASSIGN(r.names[k], read_tag_name(n, at(np, k)));
                          return {};
                        }));
                        MAB_ASSIGN(r.pointer_slot, read_u_field<std::uint32_t>(v, p, "pointer_slot"));
                        return {};
                      }));
  }
  if (maybe(j, "events")) {
    c.events.emplace();
    MAB_TRY(read_list(j, path, "events", legacy_max_frames, *c.events,
                      [&](const Path& p, const Val& v, LegacyEvent& e) -> Status {
                        MAB_TRY(check_object(v, p, {"offset", "time", "type", "size", "next", "payload"}));
                        MAB_ASSIGN(e.offset, read_u_field<std::uint32_t>(v, p, "offset"));
                        MAB_ASSIGN(const Val t, need(v, p, "time"));
                        MAB_ASSIGN(e.time, read_time(t, at(p, "time"), out, true, p.index, 0));
                        MAB_ASSIGN(e.type, read_u_field<std::uint32_t>(v, p, "type"));
                        MAB_ASSIGN(e.size, read_u_field<std::uint16_t>(v, p, "size"));
                        MAB_ASSIGN(e.next, read_u_field<std::uint16_t>(v, p, "next"));
                        MAB_ASSIGN(const Val pl, need(v, p, "payload"));
                        std::uint64_t budget = 0xFFFF;
                        MAB_ASSIGN(e.payload, read_hex(pl, at(p, "payload"), budget));
                        return {};
                      }));
  }
  return {};
}

}  // namespace

Result<ParsedLegacy> read_legacy_clip(const Val& j, const Path& path) {
  MAB_TRY(check_object(
      j, path,
      {"last_frame", "frame_rate", "trajectory_translation", "trajectory_rotation", "constant_rotations", "rotations",
       "constant_translations", "translations", "tag_table", "tag_table_note", "events", "events_note"}));
  ParsedLegacy out;
  out.path = path.str();
  LegacyClip& c = out.clip;
  MAB_ASSIGN(c.last_frame, read_u_field<std::uint16_t>(j, path, "last_frame"));
  MAB_ASSIGN(const Val rate, need(j, path, "frame_rate"));
  if (!rate.is_null()) {
    MAB_ASSIGN(out.frame_rate, read_float(rate, at(path, "frame_rate")));
  }
  if (const auto t = maybe(j, "trajectory_translation")) {
    MAB_TRY(check_array(*t, at(path, "trajectory_translation"), legacy_max_frames));
    MAB_ASSIGN(c.trajectory_translation, read_vec3s(*t, at(path, "trajectory_translation"), out.nulls, 2, 0));
  }
  if (maybe(j, "trajectory_rotation")) {
    MAB_TRY(read_list(j, path, "trajectory_rotation", legacy_max_frames, c.trajectory_rotation,
                      [&](const Path& p, const Val& v, Quat& q) -> Status {
                        MAB_ASSIGN(q, read_quat(v, p));
                        return {};
                      }));
  }
  MAB_TRY(read_list(j, path, "constant_rotations", legacy_max_bones, c.constant_rotations,
                    [&](const Path& p, const Val& v, LegacyConstantRotation& r) -> Status {
                      MAB_TRY(check_object(v, p, {"bone", "rotation", "new"}));
                      MAB_TRY(read_new_track(v, p, out.new_tracks[0]));
                      MAB_ASSIGN(r.bone, read_u_field<std::uint32_t>(v, p, "bone"));
                      MAB_ASSIGN(const Val q, need(v, p, "rotation"));
                      MAB_ASSIGN(r.rotation, read_quat(q, at(p, "rotation")));
                      return {};
                    }));
  MAB_TRY(read_list(j, path, "rotations", legacy_max_bones, c.rotations,
                    [&](const Path& p, const Val& v, LegacyRotationTrack& t) -> Status {
                      MAB_TRY(check_object(v, p, {"bone", "frames", "keys", "new"}));
                      MAB_TRY(read_new_track(v, p, out.new_tracks[1]));
                      MAB_ASSIGN(t.bone, read_u_field<std::uint32_t>(v, p, "bone"));
                      MAB_TRY(read_list(v, p, "frames", legacy_max_frames, t.frames,
                                        [&](const Path& fp, const Val& f, std::uint16_t& frame) -> Status {
                                          MAB_ASSIGN(frame, read_u<std::uint16_t>(f, fp));
                                          return {};
                                        }));
                      MAB_TRY(read_list(v, p, "keys", legacy_max_frames, t.keys,
                                        [&](const Path& kp, const Val& k, Quat& q) -> Status {
                                          MAB_ASSIGN(q, read_quat(k, kp));
                                          return {};
                                        }));
                      if (t.keys.size() != t.frames.size())
                        return perr(at(p, "keys"), std::to_string(t.keys.size()) + " keys, but frames holds " +
                                                       std::to_string(t.frames.size()));
                      return {};
                    }));
  MAB_TRY(read_list(j, path, "constant_translations", legacy_max_bones, c.constant_translations,
                    [&](const Path& p, const Val& v, LegacyConstantTranslation& t) -> Status {
                      MAB_TRY(check_object(v, p, {"bone", "translation", "new"}));
                      MAB_TRY(read_new_track(v, p, out.new_tracks[2]));
                      MAB_ASSIGN(t.bone, read_u_field<std::uint32_t>(v, p, "bone"));
                      MAB_ASSIGN(const Val x, need(v, p, "translation"));
                      MAB_ASSIGN(t.translation, read_vec3(x, at(p, "translation"), out.nulls, {1, p.index, 0, 0, {}}));
                      return {};
                    }));
  MAB_TRY(read_list(j, path, "translations", legacy_max_bones, c.translations,
                    [&](const Path& p, const Val& v, LegacyTranslationTrack& t) -> Status {
                      MAB_TRY(check_object(v, p, {"bone", "frames", "new"}));
                      MAB_TRY(read_new_track(v, p, out.new_tracks[3]));
                      MAB_ASSIGN(t.bone, read_u_field<std::uint32_t>(v, p, "bone"));
                      MAB_ASSIGN(const Val f, need(v, p, "frames"));
                      MAB_TRY(check_array(f, at(p, "frames"), legacy_max_frames));
                      MAB_ASSIGN(t.frames, read_vec3s(f, at(p, "frames"), out.nulls, 0, p.index));
                      return {};
                    }));
  MAB_TRY(read_legacy_tags_and_events(j, path, out));
  return out;
}

namespace {

// Nulls in tag and event times take the stored values; clip_block is informational (where
// clip_offset lands) and must be the decoded one.
Status resolve_legacy_tags_and_events(const ParsedLegacy& parsed, const LegacyClip& original, LegacyClip& c) {
  for (const auto& n : parsed.time_nulls) {
    if (n.event) {
      if (!original.events || n.index >= original.events->size())
        return perr(n.path, "null stands for the stored value, and the original has none here");
      (*c.events)[n.index].time = (*original.events)[n.index].time;
    } else {
      if (!original.tag_table || n.index >= original.tag_table->size())
        return perr(n.path, "null stands for the stored value, and the original has none here");
      const auto& o = (*original.tag_table)[n.index];
      (n.field == 0 ? (*c.tag_table)[n.index].start : (*c.tag_table)[n.index].end) = n.field == 0 ? o.start : o.end;
    }
  }
  if (c.tag_table && original.tag_table) {
    for (std::size_t i = 0; i < parsed.clip_blocks.size() && i < original.tag_table->size(); ++i) {
      const int want = (*original.tag_table)[i].clip_block;
      const auto& got = parsed.clip_blocks[i];
      if (got.has_value() != (want >= 0) || (got && *got != static_cast<std::uint64_t>(want)))
        return perr(parsed.path + "/tag_table/" + std::to_string(i) + "/clip_block",
                    "informational: the block clip_offset reaches (" +
                        (want >= 0 ? std::to_string(want) : std::string("none")) + "), not editable");
      (*c.tag_table)[i].clip_block = want;
    }
  }
  return {};
}

// A track's bone id is its identity, as a hash is in "clip" (decision 24): an id the clip has
// no rotation (or translation) for would move the track to another bone, so it is refused
// unless marked "new"; rotations may move between the constant and keyed lists (and
// translations between theirs), which is an edit of the bone's kind. An id twice in one list
// would be one bone of the Clip (clip_from_legacy), one of its values lost: refused too.
Status check_legacy_identity(const ParsedLegacy& parsed, const LegacyClip& original) {
  std::vector<std::uint32_t> rotated, translated;
  for (const auto& r : original.constant_rotations) rotated.push_back(r.bone);
  for (const auto& r : original.rotations) rotated.push_back(r.bone);
  for (const auto& t : original.constant_translations) translated.push_back(t.bone);
  for (const auto& t : original.translations) translated.push_back(t.bone);
  std::array<std::vector<std::uint32_t>, 4> listed;
  const LegacyClip& c = parsed.clip;
  const auto check = [&](std::size_t list, const char* name, std::size_t i, std::uint32_t bone) -> Status {
    const auto& known = list < 2 ? rotated : translated;
    const bool has = std::find(known.begin(), known.end(), bone) != known.end();
    const auto& fresh = parsed.new_tracks[list];
    const bool is_new = std::find(fresh.begin(), fresh.end(), i) != fresh.end();
    const std::string p = parsed.path + "/" + name + "/" + std::to_string(i);
    if (std::find(listed[list].begin(), listed[list].end(), bone) != listed[list].end())
      return perr(p + "/bone", "bone " + std::to_string(bone) + " is listed twice (one entry per bone)");
    listed[list].push_back(bone);
    if (is_new && has)
      return perr(p + "/new", "bone " + std::to_string(bone) + " has a " + (list < 2 ? "rotation" : "translation") +
                                  " in the file; \"new\" is for a bone without one");
    if (!is_new && !has)
      return perr(p + "/bone", "the file has no " + std::string(list < 2 ? "rotation" : "translation") + " for bone " +
                                   std::to_string(bone) +
                                   ": a changed id would move the track to another bone; mark a track for a bone "
                                   "without one \"new\": true");
    return {};
  };
  for (std::size_t i = 0; i < c.constant_rotations.size(); ++i)
    MAB_TRY(check(0, "constant_rotations", i, c.constant_rotations[i].bone));
  for (std::size_t i = 0; i < c.rotations.size(); ++i) MAB_TRY(check(1, "rotations", i, c.rotations[i].bone));
  for (std::size_t i = 0; i < c.constant_translations.size(); ++i)
    MAB_TRY(check(2, "constant_translations", i, c.constant_translations[i].bone));
  for (std::size_t i = 0; i < c.translations.size(); ++i) MAB_TRY(check(3, "translations", i, c.translations[i].bone));
  return {};
}

// clip_from_legacy reads a keyed track at every frame (legacy_rotation_at) and a translation
// track per frame: a track it would read otherwise than written (keys out of order or past
// lastFrame, another count of values) is refused as encode_legacy_clip refuses it, not sampled.
Status check_legacy_tracks(const LegacyClip& c) {
  const std::size_t frames = std::size_t{c.last_frame} + 1;
  const auto bad = [](const char* field, std::string detail) {
    return make_error(ErrorCode::invalid_argument, no_offset, field, std::move(detail));
  };
  for (const auto& t : c.rotations)
    if (t.keys.empty() ||
        std::adjacent_find(t.frames.begin(), t.frames.end(), std::greater_equal<>()) != t.frames.end() ||
        t.frames.back() > c.last_frame)
      return bad("rotations", "bone " + std::to_string(t.bone) +
                                  ": a track needs keys at strictly ascending frames up to lastFrame " +
                                  std::to_string(c.last_frame) + ", one key per frame listed");
  for (const auto& t : c.translations)
    if (t.frames.size() != frames)
      return bad("translations", "bone " + std::to_string(t.bone) + ": needs lastFrame + 1 values per track");
  if (!c.trajectory_translation.empty() && c.trajectory_translation.size() != frames)
    return bad("trajectory_translation", "needs lastFrame + 1 values");
  if (!c.trajectory_rotation.empty() && c.trajectory_rotation.size() != frames)
    return bad("trajectory_rotation", "needs lastFrame + 1 values");
  return {};
}

}  // namespace

// Versions 1 and 2 import as version 3 does (issue 33 item 3, one importer): the "legacy_clip"
// tracks, nulls and a null rate replaced by the original's values, become the Clip a version 3
// document states (clip_from_legacy), which legacy_from_document writes back. What that dialect
// cannot say is refused first, with its paths: a changed last_frame (a trim also moves the
// duration, events and the keys at the new ends: `mab edit --trim` does it whole), a changed rate
// (stored in every array header), a moved track id, a null with nothing to keep.
Result<Clip> clip_from_legacy_member(const ParsedLegacy& parsed, const LegacyClip& original, const Clip& before) {
  if (parsed.clip.last_frame != original.last_frame)
    return make_error(ErrorCode::invalid_argument, no_offset, "last_frame",
                      "a document cannot change last_frame (a trim); a trim is an edit of its own ({opt:trim})");
  MAB_TRY(check_legacy_identity(parsed, original));
  // A rate given is finite (read_float refuses the rest; a NaN rate is exported as null), so its
  // bits decide.
  if (parsed.frame_rate &&
      std::bit_cast<std::uint32_t>(*parsed.frame_rate) != std::bit_cast<std::uint32_t>(original.frame_rate))
    return perr(parsed.path + "/frame_rate", "the rate is stored in each array header; changing it is not supported");
  LegacyClip c = parsed.clip;
  c.frame_rate = original.frame_rate;
  c.duration = original.duration;
  MAB_TRY(check_legacy_tracks(c));
  Clip clip = clip_from_legacy(c);
  // Its translations as a version 3 "motion" states them, entry for entry, so that a null takes
  // the stored value as there (same bone, same frame, bit for bit; apply_motion).
  ParsedMotion m;
  m.translations.emplace();
  m.constant_translations.emplace();
  m.root_motion = clip.root_motion;
  m.nulls = parsed.nulls;
  const auto index_of = [&](std::uint32_t id) { return static_cast<std::size_t>(clip.find_bone(id)); };
  for (const auto& t : c.translations) m.translations->push_back({index_of(t.bone), t.bone, {}, t.frames});
  for (const auto& t : c.constant_translations)
    m.constant_translations->push_back({index_of(t.bone), t.bone, {}, t.translation});
  MAB_TRY(apply_motion(clip, m, before));
  return clip;
}

Result<ParsedLegacy> read_legacy_records(const Val& j, const Path& path) {
  MAB_TRY(check_object(j, path, {"tag_table", "tag_table_note", "events", "events_note"}));
  ParsedLegacy out;
  out.path = path.str();
  MAB_TRY(read_legacy_tags_and_events(j, path, out));
  return out;
}

Result<LegacyClip> legacy_from_document(const LegacyClip& original, const Clip& edited, bool duration_given,
                                        const ParsedLegacy* records, LegacyBridgeReport* report) {
  if (!edited.parts.empty())
    return perr("/motion/parts", "Far Cry 2/3 clips hold no part entries (format 12 is the 'aNi' games')");
  for (std::size_t i = 0; i < edited.bones.size(); ++i)
    if (!edited.bones[i].name.empty())
      return perr("/clip/bones/" + std::to_string(i) + "/name",
                  "Far Cry 2/3 bones are skeleton ids, not names (format 13): \"hash\" holds the id");
  MAB_ASSIGN(LegacyClip c, legacy_from_clip(original, edited, {}, report));
  // The header duration follows lastFrame by the clip's own rule (legacy_from_clip); the
  // original's duration, unchanged, follows it too, and any other must be that value.
  const auto bits = [](float f) { return std::bit_cast<std::uint32_t>(f); };
  if (duration_given && bits(edited.duration) != bits(original.duration) && bits(edited.duration) != bits(c.duration))
    return perr("/clip/duration", "a Far Cry 2/3 duration follows the last frame (" + std::to_string(c.last_frame) +
                                      "): " + std::to_string(c.duration) + " s here, not " +
                                      std::to_string(edited.duration) + " (give that, or null)");
  if (records == nullptr) return c;
  if (records->clip.tag_table) c.tag_table = records->clip.tag_table;
  if (records->clip.events) c.events = records->clip.events;
  MAB_TRY(resolve_legacy_tags_and_events(*records, original, c));
  return c;
}
}  // namespace mab::interchange::json_in
