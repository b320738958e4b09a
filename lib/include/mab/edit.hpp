// Edits of a decoded clip (docs/edit.md): timing (speed, trim, reverse, loop, resample), bone
// tracks (rotate, set constant, copy from another clip, add, remove, bit depth) and key
// reduction. Timing edits carry decoded translations and root motion (docs/motion.md) with the keys:
// kept, reversed, or sampled (translations linearly, root rotations by slerp). Each works on the editable Clip only; encode_clip then re-quantises exactly the
// chunks whose floats changed and keeps every other code. Times are in the clip's key units
// (Clip::key_rate per second, decision 7); arguments given in seconds are converted.
#pragma once

#include <mab/clip.hpp>
#include <mab/result.hpp>

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace mab {

// A bone by name (CRC-32, decision 11) or by hash ("0xB6C65665" or decimal); the first match.
// not_found naming the argument when the clip has no such bone.
Result<std::size_t> find_bone(const Clip& clip, std::string_view name_or_hash);

// Rotation of bone b at time t (key units): its constant, or slerp between the keys around t,
// clamped to the first and last key. Key times must increase.
Quat sample_bone(const Clip& clip, const ClipBone& b, double t) noexcept;

// Translations and root motion of `from` onto `clip`'s key times (by seconds, each clip at its
// own key rate; translations linearly, rotations by slerp, clamped to the first and last key),
// bones matched by hash: for a clip given a new timeline that must keep `from`'s tracks.
// `from`'s key times must increase.
void resample_motion(Clip& clip, const Clip& from);

// A bone given as a name or a hash, for a bone the clip does not have yet: "0x" and hex digits
// is a hash (no name), anything else a name whose CRC-32 is the hash (decision 11). invalid_argument
// for an empty text or a "0x" without eight hex digits at most.
struct BoneId {
  std::uint32_t hash = 0;
  std::string name;  // empty for a hash
};
Result<BoneId> parse_bone_id(std::string_view name_or_hash);

namespace edit {

// What an edit did, for the user: one line each.
using Notes = std::vector<std::string>;

// Play `factor` times as fast: times divided by factor and rounded to key units; keys that
// land on the time of the key before are dropped (listed). Duration divided by factor.
Status speed(Clip& clip, double factor, Notes* notes = nullptr);
// Keep [start, end] seconds, with keys interpolated at both ends when none is there, then
// shift so the clip starts at time 0.
Status trim(Clip& clip, double start_s, double end_s, Notes* notes = nullptr);
// Play backwards: the same time span, keys in reverse.
Status reverse(Clip& clip);
// Make the last key of every animated bone equal its first, so the clip loops seamlessly.
Status loop_fix(Clip& clip);
// Keys every 1/fps seconds from the first key to the last (the last always kept), each bone
// sampled there (slerp).
Status resample(Clip& clip, double fps, Notes* notes = nullptr);
// Pre-multiply every rotation of the bone (constant or keys) by q: q * r.
Status rotate_bone(Clip& clip, std::size_t bone, const Quat& q);
// The bone becomes constant with rotation q.
Status set_constant(Clip& clip, std::size_t bone, const Quat& q);
// The track of bone `hash` from `from`, resampled onto this clip's key times (by seconds);
// added (with the source's flags) if this clip has no such bone; an animated bone it has keeps its
// bit depth.
Status copy_track(Clip& clip, const Clip& from, std::uint32_t hash, Notes* notes = nullptr);
Status remove_bone(Clip& clip, std::size_t bone);
// A new constant bone named `name` (hash = CRC-32 of the name); an error if the hash exists.
Status add_bone(Clip& clip, std::string name, const Quat& q);
// Gives the bone another hash (and name), keeping its data and, once encoded, its exact codes:
// ClipBone::renamed_from remembers the original hash (decision 24). `to` is a name or a hash as
// parse_bone_id reads it; an error if another bone already has that hash.
Status rename_bone(Clip& clip, std::size_t bone, std::string_view to);
// The bit depth (1..16) an animated bone is re-quantised at.
Status set_bits(Clip& clip, std::size_t bone, unsigned nbits);

struct ReduceReport {
  std::size_t keys_before = 0, keys_after = 0;
  double max_error_deg = 0;  // largest deviation of a dropped key from the interpolation
  // Translations and root translations (docs/motion.md) follow the kept keys: the largest distance,
  // in file units, of a dropped one from the linear interpolation (not bounded by max_deg).
  double max_translation_error = 0;
  double max_root_rotation_error_deg = 0;  // the same for root rotations, in degrees
};
// Drops shared key times (the 'aNi' timeline is shared by all bones) while every animated
// bone's dropped keys stay within max_deg of the slerp between the kept keys around them.
// Picks the fewest keys among spans that stay valid when extended key by key (an optimal
// cover when a valid span's sub-spans are valid too). First and last keys are kept.
Result<ReduceReport> reduce(Clip& clip, double max_deg);

}  // namespace edit

// Every channel of two clips compared (docs/edit.md, `mab diff`): per bone its rotation (angle)
// and translation (distance in file units), and the root motion (docs/motion.md); bones matched by
// hash (of bones sharing one, a keyed with a keyed and a constant with a constant first, then in
// order). Each pair is compared at the union of both tracks' key times in seconds,
// each clip sampled there by its own interpolation (slerp between its rotation keys, linear
// between translation keys, held past its ends), so a key inserted in either clip shows
// whichever clip comes first. A constant (rotation or translation) holds at every time.
struct ChannelDiff {
  double max = 0, mean = 0;  // degrees for a rotation, file units for a translation
  double worst_time_s = 0;   // where the difference peaks
  std::size_t times = 0;     // compared: both tracks' key times, merged
  // Each clip's key at worst_time_s: the clip's key index (Far Cry 2/3 clips, compared through
  // clip_from_legacy: the frame); -1 when that time falls between keys or the channel is constant.
  std::ptrdiff_t key_a = -1, key_b = -1;
  // A translation's: each clip's value at worst_time_s, in file units (what `mab diff` prints).
  Vec3 value_a{}, value_b{};
};
struct BoneDiff {
  std::uint32_t hash = 0;
  std::string name;
  // The rotation (all zero when neither clip rotates the bone).
  double max_deg = 0, mean_deg = 0;
  double worst_time_s = 0;                 // where the difference peaks
  std::size_t times = 0;                   // compared: both bones' key times, merged
  std::ptrdiff_t key_a = -1, key_b = -1;   // as ChannelDiff's
  Quat rotation_a, rotation_b;             // each clip's rotation at worst_time_s, as it samples it
  bool rotated = true;                     // false: neither clip rotates it (listed for its translation)
  std::optional<ChannelDiff> translation;  // when both clips translate it
  bool root_motion = false;                // the clip's root motion (Far Cry 2/3: the trajectory)
};
struct ClipDiff {
  // Bones with a channel in both clips, in the first clip's order, then the root motion.
  std::vector<BoneDiff> bones;
  std::vector<std::uint32_t> only_in_a, only_in_b;
  std::vector<std::uint32_t> rotation_kind_differs;     // rotated in one, not in the other
  std::vector<std::uint32_t> translation_kind_differs;  // translated in one, not in the other
  // Root motion held by one clip only, or whose rotation / translation one clip lacks.
  bool root_motion_only_in_a = false, root_motion_only_in_b = false;
  bool root_rotation_kind_differs = false, root_translation_kind_differs = false;
  double max_deg = 0;          // every rotation, the root's included
  double max_translation = 0;  // every translation, the root's included
  // True when every channel of both clips is equal at every compared time.
  bool identical() const noexcept;
};
// Far Cry 2/3 clips compare as their clip_from_legacy Clips (legacy_bridge.hpp): bones by skeleton
// id (a bone both keyed and constant is two bones, each matched with its own kind), every frame a key.
Result<ClipDiff> diff_clips(const Clip& a, const Clip& b);

}  // namespace mab
