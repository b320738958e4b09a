// glTF 2.0 interchange (docs/gltf.md): a .mab's rotations as a skeleton animation that
// animation tools (Blender) open and write back, and the way back into a .mab.
//
// Export writes one node per bone and one animation per decodable block, rotation channels
// with LINEAR interpolation at the key times in seconds, and records in the scene's extras the
// frame rate every key sits on and the rig. Import reads a glTF animation at the template's
// key times (adding the ones keys set between them need) or its own, keeps every bone the file
// only repeats (even resampled by a tool) bit for bit, and re-quantises the rest, so an
// unedited export comes back as the template's exact bytes and an edit changes only what it
// touches; what cannot land is refused with the reason.
#pragma once

#include <mab/decode_clip.hpp>
#include <mab/encode_clip.hpp>
#include <mab/edit.hpp>
#include <mab/legacy.hpp>
#include <mab/variant.hpp>

#include <cstdint>
#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace mab {

// --- Skeletons: names, hierarchy and rest pose from a glTF file ---

struct GltfSkeletonNode {
  std::string name;
  std::uint32_t hash = 0;  // bone_hash(name) (decision 11)
  int parent = -1;
  std::vector<int> children;
  // Rest pose. A node given by a matrix keeps it for nodes that are not animated; animated
  // nodes need TRS (glTF 3.7.3.1), so the matrix is also decomposed here.
  bool has_matrix = false;
  std::array<double, 16> matrix{};  // column-major, as glTF stores it
  std::array<double, 3> translation{0, 0, 0};
  Quat rotation{};
  std::array<double, 3> scale{1, 1, 1};
  bool joint = false;  // in a skin's joints
};

struct GltfSkeleton {
  std::vector<GltfSkeletonNode> nodes;  // glTF node order
  std::vector<int> roots;               // scene roots (the default scene, else all parentless)
  int skin_root = -1;                   // skins[0].skeleton, if given
};

// Reads the node tree of a glTF or GLB file; a .gltf's external buffers are looked for in
// `resource_dir` (the file's folder), since tinygltf reads them even though a skeleton does
// not need them.
Result<GltfSkeleton> read_gltf_skeleton(std::span<const std::uint8_t> bytes,
                                        const std::filesystem::path& resource_dir = {},
                                        const Limits& limits = default_limits);

// --- Export ---

struct GltfExportOptions {
  bool binary = false;             // GLB; otherwise .gltf with the buffer embedded as base64
  std::vector<std::string> names;  // bone names, matched to bones by their CRC-32 (decision 11)
  const GltfSkeleton* skeleton = nullptr;
  std::string rig_name = "mabkit_rig";  // the root node when there is no skeleton
};

struct GltfExportReport {
  std::size_t animations = 0, channels = 0, keys = 0, nodes = 0;
  std::size_t translation_channels = 0;  // of `channels` (Far Cry 2/3: translations, root motion)
  std::size_t named = 0;                 // bones named from `names` or the skeleton
  struct SkippedBlock {
    std::size_t block;
    std::string reason;
  };
  std::vector<SkippedBlock> skipped_blocks;       // blocks whose rotations do not decode
  std::vector<std::uint32_t> bones_without_node;  // with a skeleton: bones it lacks
  std::vector<std::string> nodes_without_bone;    // skeleton joints no block animates
  // The frame rate at which every key of the first exported block falls on a whole frame (the
  // scene rate to set in Blender before importing), also in the scene's and each animation's
  // extras ("fps").
  double scene_fps = 0;
};

// Far Cry 2/3 banks: one animation per clip (chained clips included), a node "bone_<id>" per
// skeleton bone id and "trajectory" for root motion, with rotation and translation channels;
// `names` and `skeleton` do not apply (invalid_argument).
// Every decodable block of `c` (WD1, WD2, WDL, FC4, FC5). Fails with not_decodable when no
// block decodes, and with bad_value when a block's key times are not strictly increasing
// (glTF requires it; JSON keeps such clips).
Result<std::vector<std::uint8_t>> export_gltf(const Container& c, const GltfExportOptions& options = {},
                                              GltfExportReport* report = nullptr);

// --- Import ---

// What a rotation channel means (docs/gltf.md, "How rotations are read back").
enum class GltfRotations : std::uint8_t {
  automatic = 0,      // rest_relative with a template, local for a new clip
  rest_relative = 1,  // each joint's motion from its rest pose in the file, applied to the
                      // rig of the export (its flat rig, or `skeleton`): what survives
                      // tools that change joint frames (Blender)
  local = 2,          // each node's rotation as the file writes it
};

struct GltfImportOptions {
  GltfRotations rotations = GltfRotations::automatic;
  const GltfSkeleton* skeleton = nullptr;  // the --skeleton of the export; default: its flat rig
  std::optional<std::size_t> animation;    // index; default: see import_gltf
  std::string animation_name;              // or by name
  std::optional<std::size_t> block;        // template block to write; default: see import_gltf
  bool keep_times = false;                 // the glTF's own key times, rounded to the key rate (decision 7)
  double max_error_deg = 0.01;
  // Units (EncodeOptions::max_translation_error); given, it is also refused when missed.
  std::optional<double> max_translation_error;
  // Drop shared key times while every bone stays within this many degrees of the
  // interpolation (edit::reduce), before re-quantising.
  std::optional<double> reduce_deg;
  // A sampled key within this angle of the template's key is the template's key, bit for
  // bit: tools that keep floats (Blender) move untouched keys by ~1e-5 degree.
  double match_tolerance_deg = 1e-3;
  // Far Cry 2/3 translations: a sampled value within this distance of the template's (per
  // component, relative to max(1, |value|)) is the template's, bit for bit.
  double match_tolerance_units = 1e-5;
  std::optional<Game> game;  // no template: build a new clip of this game
  // Where a .gltf's external buffers (relative URIs) are read from; empty: refuse them.
  std::filesystem::path resource_dir;
  Limits limits = default_limits;
  // With a template (docs/gltf.md, "Which keys are edits"). A key the glTF sets between the
  // template's key times gets a key time of its own in the block (legacy clips: every frame
  // is sampled); template_times keeps the template's times only and lists such changes in
  // GltfAnimationImport::dropped instead.
  bool template_times = false;
  // A glTF whose channels a tool resampled on a grid missing the template's key times
  // (Blender's "Always Sample Animations" at another frame rate): edited keys between its
  // samples are refused (not_decodable) unless this reads them from the samples as they are.
  // Bones that match the template at every sample are kept either way.
  bool accept_resample = false;
  // Write the template as it is when the glTF has no animation or an animation matches no bone
  // (refused otherwise: nothing would be imported).
  bool allow_no_op = false;
  // Import an animation whose key range or recorded duration does not fit the template's
  // block (refused otherwise: it looks like another clip's).
  bool allow_other_clip = false;
  // Drop on purpose what the template's block cannot store (refused otherwise, naming it):
  // channels of nodes matching no bone that move them, scale channels that move a node, a
  // translation on a bone the template does not translate, a constant translation that now
  // varies, animations no block takes, Far Cry 2/3: an edited channel on a bank node the clip
  // has no track and no section for.
  bool ignore_unmatched = false;
};

// One glTF animation written into one block.
struct GltfAnimationImport {
  std::size_t animation = 0;
  std::string animation_name;
  std::size_t block = 0;
  std::size_t keys = 0;  // key times of the block written
  bool times_from_template = false;
  double key_rate = 0;            // key time units per second (decision 7)
  double max_time_shift_s = 0;    // the glTF's times: the largest move onto the key-rate grid
  std::size_t bones_matched = 0;  // template bones with a rotation channel
  std::size_t keys_matched = 0;   // sampled keys equal to the template within tolerance
  std::size_t keys_changed = 0;
  double max_matched_deviation_deg = 0;             // largest deviation among the matched keys
  std::vector<std::uint32_t> bones_changed;         // bones whose rotations changed
  std::vector<std::uint32_t> bones_kept;            // template bones without a channel: as they were
  std::vector<std::uint32_t> bones_resampled;       // ... resampled onto a new timeline
  std::vector<std::string> nodes_unmatched;         // animated nodes with no template bone
  std::vector<std::uint32_t> no_rotation_track;     // channel on a bone the template does not rotate, at rest
  std::vector<std::uint32_t> rotation_added;        // ... that moves it: a new rotation track
  std::vector<std::uint32_t> constant_to_animated;  // template constant bones that now move
  std::size_t keys_before_reduce = 0;               // with reduce_deg: keys before key reduction
  double reduce_error_deg = 0;                      // largest deviation of a dropped key
  EncodeReport encode;
  // Keys set between the template's key times: the key times the block gained for them (key
  // units, increasing) and the largest move of such a key onto the key grid (decision 7).
  std::vector<std::uint32_t> times_added;
  double max_added_shift_s = 0;
  // template_times: changes between the template's key times that were not carried.
  struct Dropped {
    std::string track;  // bone label
    double time_s = 0;
    double deviation = 0;  // degrees (or units) from what the block plays there
  };
  std::vector<Dropped> dropped;
  // A tool resampled the channels on a grid missing the template's times: the grid's rate,
  // the tracks kept bit for bit because they match the template at every sample, and (with
  // accept_resample) the edited keys read between samples and an estimate of how far that
  // moves them (rotations, degrees).
  double resampled_rate = 0;
  std::size_t resampled_kept = 0;
  std::size_t keys_between_samples = 0;
  double resample_error = 0;
  // Far Cry 2/3 blocks (sampled at every frame; keys_* count frames of rotation tracks):
  bool legacy = false;
  std::size_t translations_matched = 0, translations_changed = 0;  // frames, within match_tolerance_units
  std::vector<std::string> tracks_changed;                         // "bone_21 rotation", "trajectory translation", ...
  // Channels on nodes of the bank (bone_<id>, trajectory) the clip has no track for, unedited
  // (Blender writes every bone): at rest, or held at a pose of that node in another clip:
  // nothing to store. Edited ones land in tracks_changed ("bone_4 rotation (new constant)") or
  // are refused (ignore_unmatched: dropped_channels).
  std::size_t untracked_at_rest = 0;
  // With ignore_unmatched: what moved and was not stored ("spine1 (matches no bone of the block)").
  std::vector<std::string> dropped_channels;
  LegacyEncodeReport legacy_encode;
};

struct GltfImportReport {
  std::vector<GltfAnimationImport> animations;
  std::vector<std::string> ignored_channels;  // translation/scale/weights: one line per kind
  std::vector<NewFieldDefault> defaults;      // new clip: fields without a source
  std::vector<std::string> notes;
  double max_error_deg = 0;  // over every animation
};

struct GltfImport {
  std::vector<std::uint8_t> bytes;  // the .mab
  GltfImportReport report;
};

// glTF or GLB bytes into a .mab. With `template_file` (the template's container): the
// animation given (options.animation or animation_name) goes into options.block, else into
// the block its `mabkit` extras or its name ("block_N...") give, else block 0; without those
// options every animation that names a block of the template goes into it, and if none does
// the first goes into block 0. Nodes are matched to bones by the `mabkit` extras hash, the
// CRC-32 of their name, or a "bone_0xHHHHHHHH" name; unmatched bones, the header and every
// other section are kept. Without a template, options.game must be set: the animation (the
// first unless one is given) becomes a new clip with a bone per rotation channel, at the
// glTF's own key times; its translation, scale and weight channels are listed in the report,
// not stored. With a template, translations of translated bones and root motion (the
// `trajectory` node) are read back too. Refused (docs/gltf.md): a file with no animation or
// an animation matching no bone (not_found; allow_no_op), another clip's animation, by its
// range, its extras or its content (invalid_argument; allow_other_clip), what the block cannot
// store (invalid_argument; ignore_unmatched), a rig the file says it was not written on
// (invalid_argument), edited keys a resampled file misses (not_decodable; accept_resample), a
// key between the template's times that cannot get a time of its own (not_decodable).
Result<GltfImport> import_gltf(std::span<const std::uint8_t> gltf, const Container* template_file,
                               const GltfImportOptions& options = {});

}  // namespace mab
