// Far Cry 2/3 clips (LegacyClip, format 13) as the one editable model, mab::Clip (issue 33: the
// edit operations of edit.hpp are written once, against Clip). clip_from_legacy maps a decoded
// clip onto a Clip densely; legacy_from_clip maps an edited Clip back onto the original decode,
// ready for encode_legacy_clip, which keeps every untouched section's bytes and writes edited
// keyed tracks with its sparse key writer (docs/legacy.md, "Editing with mab edit").
#pragma once

#include <mab/clip.hpp>
#include <mab/edit.hpp>
#include <mab/legacy.hpp>
#include <mab/result.hpp>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace mab {

// A Clip of `legacy`: key_rate is the frame rate (30 for a clip of untimed constant sections
// alone, which has none), key_times every frame 0..lastFrame. One ClipBone per skeleton bone id
// (ClipBone::hash holds the id; no name, no bit depth): keyed rotation tracks become animated
// bones sampled at every frame with legacy_rotation_at, constant rotations constant bones,
// translations per-key translations and constant translations constant ones; a bone with
// translations and no rotation has BoneKind::none. A bone both keyed and constant (slots 3 and
// 2) is two ClipBones with its id, the keyed one first. The trajectory is the root motion.
Clip clip_from_legacy(const LegacyClip& legacy);

// How the edits moved time, in seconds: new = old * scale + offset. Event times (slot 7) follow
// it; tag record times (slot 6) are the scene's and do not.
struct LegacyTimeMap {
  double scale = 1.0;
  double offset = 0.0;
  bool identity() const noexcept { return scale == 1.0 && offset == 0.0; }
  // This map, then `next`.
  LegacyTimeMap then(const LegacyTimeMap& next) const noexcept {
    return {scale * next.scale, offset * next.scale + next.offset};
  }
};

// How edit::speed, edit::trim and edit::reverse move time on `before`, the clip_from_legacy Clip
// they are given (event nodes follow it; `mab edit` and the Python module compose them).
LegacyTimeMap legacy_speed_map(double factor) noexcept;
LegacyTimeMap legacy_trim_map(const Clip& before, double start_s) noexcept;
LegacyTimeMap legacy_reverse_map(const Clip& before) noexcept;

struct LegacyBridgeReport {
  std::size_t tracks_kept = 0;       // keyed tracks whose samples equal the original's: stored keys kept
  std::size_t tracks_edited = 0;     // keyed tracks handed to the sparse writer as samples
  bool resampled_to_frames = false;  // the edited key times were not every frame: sampled at every frame
  std::size_t events_moved = 0;      // event nodes given a new time by the LegacyTimeMap
  std::size_t events_outside = 0;    // of all nodes, those whose time falls outside [0, duration]
  std::string duration_rule;         // as LegacyTrimReport's, when lastFrame changed
};

// `edited` (a clip_from_legacy of `original`, edited) as a LegacyClip for encode_legacy_clip.
// Key times must increase from 0 at the original frame rate; times that are not every frame are
// sampled at every frame first (edit::resample; rotations by slerp, translations linearly), since
// the format stores every frame at a fixed rate. A keyed track whose samples equal the original
// track's rotation at every frame (the original's own, or the one renamed_from names) is that
// track, stored keys and codes; any other is given at every frame (samples) for the sparse key
// writer. A changed lastFrame sets the duration by the clip's own rule (docs/legacy.md, "Trims").
// invalid_argument naming the field for what the format cannot hold (a key rate other than the
// frame rate, more than 65536 frames, two bones of one id in one slot).
Result<LegacyClip> legacy_from_clip(const LegacyClip& original, const Clip& edited, const LegacyTimeMap& time = {},
                                    LegacyBridgeReport* report = nullptr);

// A Far Cry 2/3 bone's name, the one spelling `mab edit`, `mab diff`, glTF nodes and Python use:
// "bone_12" (a skeleton id: the format holds no names, format 13).
std::string skeleton_bone_name(std::uint32_t id);
// That name, or the bare id "12", read back; invalid_argument otherwise.
Result<std::uint32_t> parse_legacy_bone(std::string_view text);
// The first bone of a clip_from_legacy Clip with that id; not_found naming it otherwise.
Result<std::size_t> find_legacy_bone(const Clip& clip, std::string_view text);

// The edit operations (edit.hpp) a Far Cry 2/3 clip cannot carry, by their option names
// ("bits", "requantise", "resample"): why, naming what to use instead ({opt:NAME}, error.hpp);
// nullopt for an operation that carries over. `mab edit` and Python refuse them by this text.
std::optional<std::string> legacy_edit_refusal(std::string_view operation);
// A new constant bone of skeleton id `id` (Far Cry 2/3 bones have no names to add by), named by
// skeleton_bone_name; invalid_argument when the clip has the id.
Status add_skeleton_bone(Clip& clip, std::uint32_t id, const Quat& rotation);
// --rotate-bone, --set-constant and --remove-bone by skeleton id: a bone both keyed and constant
// is two bones of the Clip (clip_from_legacy), and every rotation of the bone (docs/edit.md) is
// both: rotate turns both; set_constant leaves the bone one constant rotation (its other one
// goes, its translations stay); remove drops both. not_found naming the id when the clip has
// none; rotate's invalid_argument when no bone of the id has a rotation.
Status rotate_skeleton_bone(Clip& clip, std::uint32_t id, const Quat& rotation);
Status set_skeleton_constant(Clip& clip, std::uint32_t id, const Quat& rotation);
Status remove_skeleton_bone(Clip& clip, std::uint32_t id);
// --copy-track by skeleton id from another Far Cry 2/3 clip: the whole bone's rotation, as
// edit::copy_track copies one bone's (a bone of the id both keyed and constant here is one bone
// first, keeping its translations; the source's two are both copied).
Status copy_skeleton_track(Clip& clip, const Clip& from, std::uint32_t id, edit::Notes* notes = nullptr);
// Every bone of id `from` takes id `to`, remembering in renamed_from which stored track it is
// (legacy_from_clip keeps that track's keys); invalid_argument when the clip has `to`.
Status rename_skeleton_bone(Clip& clip, std::uint32_t from, std::uint32_t to);

}  // namespace mab
