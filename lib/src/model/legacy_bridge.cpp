// Far Cry 2/3 clips onto the editable Clip and back (legacy_bridge.hpp).
#include <mab/legacy_bridge.hpp>

#include <mab/edit.hpp>
#include <mab/text.hpp>

#include "model/legacy_duration.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <charconv>
#include <cmath>
#include <cstring>
#include <map>
#include <string>

namespace mab {

namespace {

bool same_bits(float a, float b) { return std::bit_cast<std::uint32_t>(a) == std::bit_cast<std::uint32_t>(b); }

Error bad(const char* field, std::string detail) {
  return make_error(ErrorCode::invalid_argument, no_offset, field, std::move(detail));
}

bool same_quat(const Quat& a, const Quat& b) { return std::memcmp(&a, &b, sizeof a) == 0; }

// Every item of `items` with bone id `id`, nullptr when none.
template <class T>
const T* by_bone(const std::vector<T>& items, std::uint32_t id) {
  for (const auto& it : items)
    if (it.bone == id) return &it;
  return nullptr;
}

// The original's keyed track `id`, when `samples` (one per frame) are its rotation at every
// frame: then its stored keys and codes are what the edit leaves.
const LegacyRotationTrack* unchanged_track(const LegacyClip& original, std::uint32_t id,
                                           const std::vector<Quat>& samples) {
  const LegacyRotationTrack* o = by_bone(original.rotations, id);
  if (o == nullptr || samples.size() != std::size_t{original.last_frame} + 1) return nullptr;
  for (std::size_t f = 0; f < samples.size(); ++f)
    if (!same_quat(samples[f], legacy_rotation_at(*o, static_cast<std::uint32_t>(f)))) return nullptr;
  return o;
}

// The keyed track of one animated bone: the original's (possibly under a new id) or samples.
LegacyRotationTrack rotation_track(const LegacyClip& original, const ClipBone& b, LegacyBridgeReport& rep) {
  const std::uint32_t from = b.renamed_from.value_or(b.hash);
  LegacyRotationTrack t;
  if (const LegacyRotationTrack* o = unchanged_track(original, from, b.keys)) {
    t = *o;
    ++rep.tracks_kept;
  } else {
    for (std::size_t f = 0; f < b.keys.size(); ++f) t.frames.push_back(static_cast<std::uint16_t>(f));
    t.keys = b.keys;
    for (const auto& q : b.keys) t.codes.push_back(encode_quat48(q));
    ++rep.tracks_edited;
  }
  t.bone = b.hash;
  return t;
}

using QuatBits = std::array<std::uint32_t, 4>;

QuatBits bits_of(const Quat& q) {
  return {std::bit_cast<std::uint32_t>(q.x), std::bit_cast<std::uint32_t>(q.y), std::bit_cast<std::uint32_t>(q.z),
          std::bit_cast<std::uint32_t>(q.w)};
}

// The trajectory rotation's codes: the original's wherever a frame shows one of its rotations
// (at its own frame, or moved there by a trim, reverse or speed change), so its bytes are kept.
std::vector<Quat48> trajectory_codes(const LegacyClip& original, const std::vector<Quat>& rotations) {
  std::map<QuatBits, Quat48> stored;
  for (std::size_t f = 0; f < original.trajectory_rotation.size() && f < original.trajectory_rotation_codes.size(); ++f)
    stored.try_emplace(bits_of(original.trajectory_rotation[f]), original.trajectory_rotation_codes[f]);
  std::vector<Quat48> codes;
  for (std::size_t f = 0; f < rotations.size(); ++f) {
    const bool at_frame =
        f < original.trajectory_rotation.size() && same_quat(rotations[f], original.trajectory_rotation[f]);
    const auto it = stored.find(bits_of(rotations[f]));
    codes.push_back(at_frame             ? original.trajectory_rotation_codes[f]
                    : it != stored.end() ? it->second
                                         : encode_quat48(rotations[f]));
  }
  return codes;
}

template <class T>
Status sort_unique(std::vector<T>& items, const char* field) {
  std::stable_sort(items.begin(), items.end(), [](const T& a, const T& b) { return a.bone < b.bone; });
  for (std::size_t i = 1; i < items.size(); ++i)
    if (items[i].bone == items[i - 1].bone)
      return bad(field, skeleton_bone_name(items[i].bone) + " holds two of these (one per bone in this section)");
  return {};
}

// A constant rotation of skeleton id `id`, named as every route names it.
ClipBone constant_skeleton_bone(std::uint32_t id, const Quat& rotation) {
  ClipBone b;
  b.hash = id;
  b.name = skeleton_bone_name(id);
  b.set_kind(BoneKind::constant);
  b.constant = rotation;
  return b;
}

// A Far Cry 2/3 bone has no flag byte (format 13): of the Clip's flags only the kind carries over.
// A bit depth or another bit set on one (Python's bone_flags) could not land, so it is refused.
Status check_flag_bits(const Clip& clip) {
  for (std::size_t i = 0; i < clip.bones.size(); ++i) {
    const unsigned extra = clip.bones[i].flags & ~0x30u;
    if (extra != 0)
      return bad("bone_flags", "bone " + std::to_string(i) + " (" + skeleton_bone_name(clip.bones[i].hash) +
                                   ") has flag bits " + hex(extra, 2) +
                                   ": a Far Cry 2/3 clip stores no flag byte and no bit depth (6-byte quaternions, "
                                   "format 13); only the rotation kind (flags & 0x30) carries over");
  }
  return {};
}

// The bones of `clip` (every frame 0..last) into `out`'s four bone lists.
Status bones_into(const LegacyClip& original, const Clip& clip, LegacyClip& out, LegacyBridgeReport& rep) {
  out.constant_rotations.clear();
  out.rotations.clear();
  out.constant_translations.clear();
  out.translations.clear();
  for (const ClipBone& b : clip.bones) {
    if (b.kind() == BoneKind::animated) out.rotations.push_back(rotation_track(original, b, rep));
    if (b.kind() == BoneKind::constant) {
      LegacyConstantRotation c{b.hash, encode_quat48(b.constant), b.constant};
      const std::uint32_t from = b.renamed_from.value_or(b.hash);
      for (const auto& o : original.constant_rotations)
        if (o.bone == from && same_quat(o.rotation, b.constant)) c.code = o.code;
      out.constant_rotations.push_back(c);
    }
    if (!b.translations.empty()) out.translations.push_back({b.hash, b.translations});
    if (b.constant_translation) out.constant_translations.push_back({b.hash, *b.constant_translation});
  }
  MAB_TRY(sort_unique(out.constant_rotations, "constant_rotations"));
  MAB_TRY(sort_unique(out.rotations, "rotations"));
  MAB_TRY(sort_unique(out.constant_translations, "constant_translations"));
  return sort_unique(out.translations, "translations");
}

// Event times (slot 7) moved as the edits moved time.
void move_events(LegacyClip& out, const LegacyTimeMap& time, LegacyBridgeReport& rep) {
  if (!out.events) return;
  for (auto& e : *out.events) {
    if (!time.identity()) {
      e.time = static_cast<float>(e.time * time.scale + time.offset);
      ++rep.events_moved;
    }
    rep.events_outside += e.time < 0.0f || e.time > out.duration;
  }
}

}  // namespace

// The duration keeps the clip's own rule where it held one exactly (JB-DOC: duration x rate
// never exceeds lastFrame + 1).
float legacy_duration_for(const LegacyClip& clip, std::uint16_t new_last, std::string* rule) {
  const double rate = clip.frame_rate;
  auto say = [&](const char* r) {
    if (rule != nullptr) *rule = r;
  };
  if (same_bits(clip.duration, static_cast<float>(clip.last_frame / rate))) {
    say("lastFrame / rate");
    return static_cast<float>(new_last / rate);
  }
  if (same_bits(clip.duration, static_cast<float>((clip.last_frame + 1.0) / rate))) {
    say("(lastFrame + 1) / rate");
    return static_cast<float>((new_last + 1.0) / rate);
  }
  say("duration minus the removed frames");
  return static_cast<float>(std::max(0.0, clip.duration - (clip.last_frame - new_last) / rate));
}

Clip clip_from_legacy(const LegacyClip& legacy) {
  Clip c;
  c.key_rate = legacy.frame_rate > 0 && std::isfinite(legacy.frame_rate) ? legacy.frame_rate : 30.0;
  for (std::uint32_t f = 0; f <= legacy.last_frame; ++f) c.key_times.push_back(f);
  c.duration = legacy.duration;
  std::map<std::uint32_t, std::size_t> first;  // bone id -> its first ClipBone
  auto bone = [&](std::uint32_t id) -> ClipBone& {
    const auto [it, added] = first.try_emplace(id, c.bones.size());
    if (added) {
      c.bones.emplace_back();
      c.bones.back().hash = id;
    }
    return c.bones[it->second];
  };
  std::vector<std::uint32_t> ids;
  for (const auto& t : legacy.rotations) ids.push_back(t.bone);
  for (const auto& t : legacy.constant_rotations) ids.push_back(t.bone);
  for (const auto& t : legacy.translations) ids.push_back(t.bone);
  for (const auto& t : legacy.constant_translations) ids.push_back(t.bone);
  std::sort(ids.begin(), ids.end());
  for (const auto id : ids) bone(id);
  for (const auto& t : legacy.rotations) {
    ClipBone& b = bone(t.bone);
    b.set_kind(BoneKind::animated);
    for (std::uint32_t f = 0; f <= legacy.last_frame; ++f) b.keys.push_back(legacy_rotation_at(t, f));
  }
  for (const auto& t : legacy.constant_rotations) {
    if (by_bone(legacy.rotations, t.bone) != nullptr) {
      // Keyed and constant both: a second bone of this id, after the keyed one.
      ClipBone extra;
      extra.hash = t.bone;
      extra.set_kind(BoneKind::constant);
      extra.constant = t.rotation;
      c.bones.insert(c.bones.begin() + static_cast<std::ptrdiff_t>(first[t.bone] + 1), extra);
      for (auto& [id, at] : first)
        if (id > t.bone) ++at;
      continue;
    }
    ClipBone& b = bone(t.bone);
    b.set_kind(BoneKind::constant);
    b.constant = t.rotation;
  }
  for (const auto& t : legacy.translations) bone(t.bone).translations = t.frames;
  for (const auto& t : legacy.constant_translations) bone(t.bone).constant_translation = t.translation;
  c.root_motion.rotations = legacy.trajectory_rotation;
  c.root_motion.translations = legacy.trajectory_translation;
  return c;
}

Result<LegacyClip> legacy_from_clip(const LegacyClip& original, const Clip& edited, const LegacyTimeMap& time,
                                    LegacyBridgeReport* report) {
  LegacyBridgeReport rep;
  const double rate = original.frame_rate > 0 && std::isfinite(original.frame_rate) ? original.frame_rate : 30.0;
  if (edited.key_rate != rate)
    return bad("key_rate", "a Far Cry 2/3 clip keeps its frame rate (" + std::to_string(rate) + " per second)");
  MAB_TRY(check_key_times(edited.key_times));
  if (edited.key_times.empty() || edited.key_times.front() != 0)
    return bad("key_times", "a Far Cry 2/3 clip starts at frame 0 (format 13)");
  if (edited.key_times.back() > 0xFFFF)
    return bad("last_frame",
               "frame " + std::to_string(edited.key_times.back()) + " is past the u16 lastFrame (format 13)");
  Clip dense = edited;
  // Format 13 stores every frame: key times that are not every frame are sampled at each.
  if (dense.key_times.size() != std::size_t{dense.key_times.back()} + 1) {
    MAB_TRY(edit::resample(dense, rate));
    rep.resampled_to_frames = true;
  }
  MAB_TRY(dense.check());
  MAB_TRY(check_flag_bits(dense));
  LegacyClip out = original;
  out.last_frame = static_cast<std::uint16_t>(dense.key_times.back());
  // Frames at a fixed rate: the duration follows lastFrame (the clip's own rule, legacy_duration.hpp), not the
  // seconds an operation computed (a speed change's duration / factor, rounded to frames).
  std::string rule;
  out.duration = legacy_duration_for(original, out.last_frame, &rule);
  if (out.last_frame != original.last_frame) rep.duration_rule = rule;
  MAB_TRY(bones_into(original, dense, out, rep));
  out.trajectory_rotation = dense.root_motion.rotations;
  out.trajectory_rotation_codes = trajectory_codes(original, out.trajectory_rotation);
  out.trajectory_translation = dense.root_motion.translations;
  move_events(out, time, rep);
  if (report != nullptr) *report = std::move(rep);
  return out;
}

LegacyTimeMap legacy_speed_map(double factor) noexcept { return {1.0 / factor, 0.0}; }

// edit::trim's start: the key-unit time nearest start_s, inside the clip.
LegacyTimeMap legacy_trim_map(const Clip& before, double start_s) noexcept {
  const double first = before.key_times.empty() ? 0.0 : before.key_times.front();
  const double last = before.key_times.empty() ? 0.0 : before.key_times.back();
  return {1.0, -std::clamp(std::round(start_s * before.key_rate), first, last) / before.key_rate};
}

LegacyTimeMap legacy_reverse_map(const Clip& before) noexcept {
  const double first = before.key_times.empty() ? 0.0 : before.key_times.front();
  const double last = before.key_times.empty() ? 0.0 : before.key_times.back();
  return {-1.0, (first + last) / before.key_rate};
}

std::string skeleton_bone_name(std::uint32_t id) { return "bone_" + std::to_string(id); }

Result<std::uint32_t> parse_legacy_bone(std::string_view text) {
  std::string_view digits = text;
  if (digits.substr(0, 5) == "bone_") digits.remove_prefix(5);
  std::uint32_t id = 0;
  const auto r = std::from_chars(digits.data(), digits.data() + digits.size(), id);
  if (digits.empty() || r.ec != std::errc() || r.ptr != digits.data() + digits.size())
    return bad("bone", "\"" + std::string(text) +
                           "\" is not a Far Cry 2/3 bone: these clips name bones by skeleton id (bone_12 or 12), "
                           "they hold no names or hashes (format 13)");
  return id;
}

std::optional<std::string> legacy_edit_refusal(std::string_view operation) {
  if (operation == "bits" || operation == "requantise")
    return "Far Cry 2/3 keys are 6-byte quaternions (format 13): there is no bit depth to set or re-pick; {opt:reduce} "
           "re-keys every track within a bound in degrees";
  if (operation == "resample")
    return "Far Cry 2/3 clips store every frame at the clip's frame rate (format 13), which is kept (no source shows "
           "the engine playing another rate): {opt:speed} changes the timing, {opt:reduce} thins the stored keys";
  return std::nullopt;
}

Status add_skeleton_bone(Clip& clip, std::uint32_t id, const Quat& rotation) {
  if (clip.find_bone(id) >= 0) return bad("add_bone", "the clip already has " + skeleton_bone_name(id));
  clip.bones.push_back(constant_skeleton_bone(id, quat_normalised(rotation)));
  return {};
}

Status rename_skeleton_bone(Clip& clip, std::uint32_t from, std::uint32_t to) {
  if (clip.find_bone(to) >= 0) return bad("rename_bone", "the clip already has " + skeleton_bone_name(to));
  for (auto& b : clip.bones)
    if (b.hash == from) {
      if (!b.renamed_from) b.renamed_from = b.hash;
      b.hash = to;
      b.name = skeleton_bone_name(to);
    }
  return {};
}

namespace {

// The bones of `id`, ascending: one, or a keyed and a constant one (clip_from_legacy).
Result<std::vector<std::size_t>> bones_of_id(const Clip& clip, std::uint32_t id) {
  std::vector<std::size_t> at;
  for (std::size_t i = 0; i < clip.bones.size(); ++i)
    if (clip.bones[i].hash == id) at.push_back(i);
  if (at.empty())
    return make_error(ErrorCode::not_found, no_offset, "bone", "no " + skeleton_bone_name(id) + " in the clip");
  return at;
}

}  // namespace

Status rotate_skeleton_bone(Clip& clip, std::uint32_t id, const Quat& rotation) {
  MAB_ASSIGN(const auto at, bones_of_id(clip, id));
  bool turned = false;
  for (const std::size_t i : at)
    if (clip.bones[i].kind() != BoneKind::none) {
      MAB_TRY(edit::rotate_bone(clip, i, rotation));
      turned = true;
    }
  return turned ? Status{} : edit::rotate_bone(clip, at.front(), rotation);  // its "no rotation to turn"
}

namespace {

// The bones `at` of one id left as the first, which takes the others' translations.
Status keep_first(Clip& clip, const std::vector<std::size_t>& at) {
  for (std::size_t k = at.size(); k-- > 1;) {
    ClipBone& first = clip.bones[at.front()];
    ClipBone& other = clip.bones[at[k]];
    if (first.translations.empty()) first.translations = std::move(other.translations);
    if (!first.constant_translation) first.constant_translation = other.constant_translation;
    MAB_TRY(clip.remove_bone(at[k]));
  }
  return {};
}

}  // namespace

Status set_skeleton_constant(Clip& clip, std::uint32_t id, const Quat& rotation) {
  MAB_ASSIGN(const auto at, bones_of_id(clip, id));
  MAB_TRY(edit::set_constant(clip, at.front(), rotation));
  return keep_first(clip, at);
}

Status copy_skeleton_track(Clip& clip, const Clip& from, std::uint32_t id, edit::Notes* notes) {
  Clip out = clip;  // a refused copy leaves the clip as it was
  if (const auto at = bones_of_id(out, id)) MAB_TRY(keep_first(out, *at));
  MAB_TRY(edit::copy_track(out, from, id, notes));
  // The source's constant rotation of a bone it also keys (the second bone of the id).
  const auto src = bones_of_id(from, id);
  if (src && src->size() > 1 && from.bones[src->back()].kind() == BoneKind::constant) {
    const auto at = static_cast<std::ptrdiff_t>(out.find_bone(id)) + 1;
    out.bones.insert(out.bones.begin() + at, constant_skeleton_bone(id, from.bones[src->back()].constant));
  }
  clip = std::move(out);
  return {};
}

Status remove_skeleton_bone(Clip& clip, std::uint32_t id) {
  MAB_ASSIGN(const auto at, bones_of_id(clip, id));
  for (std::size_t k = at.size(); k-- > 0;) MAB_TRY(clip.remove_bone(at[k]));
  return {};
}

Result<std::size_t> find_legacy_bone(const Clip& clip, std::string_view text) {
  MAB_ASSIGN(const std::uint32_t id, parse_legacy_bone(text));
  for (std::size_t i = 0; i < clip.bones.size(); ++i)
    if (clip.bones[i].hash == id) return i;
  return make_error(ErrorCode::not_found, no_offset, "bone", "no " + skeleton_bone_name(id) + " in the clip");
}

}  // namespace mab
