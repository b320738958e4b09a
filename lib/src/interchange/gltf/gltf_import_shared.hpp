// Internal: what the glTF import paths share (gltf_import.cpp: the entry point, the glTF's own
// key times and new clips; gltf_import_template.cpp: 'aNi' blocks at the template's key times;
// gltf_import_legacy.cpp: Far Cry 2/3 clips, every track judged and written through
// gltf_import_tracks.cpp). How nodes name bones, the channels of one
// animation, the rigs rotations are read against (docs/gltf.md, "How import reads rotations
// back") and the rotations themselves.
#pragma once

#include <mab/gltf.hpp>

#include "interchange/gltf/gltf_document.hpp"
#include "interchange/gltf/gltf_rig.hpp"
#include "interchange/gltf/gltf_sample.hpp"
#include "interchange/gltf/gltf_timeline.hpp"

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace mab::gltf_in {

struct NodeBone {
  std::uint32_t hash = 0;
  unsigned occurrence = 0;
  std::string name;
  bool identified = false;
};

// How a node names a bone (docs/gltf.md, "Matching nodes"); `known`: the template's bones,
// null for a new clip.
NodeBone identify(const tinygltf::Node& n, std::size_t index, const std::unordered_set<std::uint32_t>* known);

std::string label(std::uint32_t hash, const std::string& name);

// |cos| of half the angle between two rotations; angle <= tol <=> this >= cos(tol / 2).
double half_cos(const Quat& a, const Quat& b) noexcept;

// The channels of one animation, by node.
struct Channels {
  gltf::Curves rotation;     // node -> curve (a node's one rotation channel)
  gltf::Curves translation;  // node -> curve (the first translation channel; Far Cry 2/3 use them)
  gltf::Curves scale;        // node -> curve (the first scale channel): the format has no scale
};

struct Ignored {
  std::size_t translation = 0, scale = 0, weights = 0;
  double max_translation_offset = 0, max_scale_offset = 0;
  std::vector<std::string> translation_nodes;
};

Result<Channels> read_channels(const tinygltf::Model& m, std::size_t ai, Ignored& ignored);

// How far from a sample time a glTF key still counts as that key, returned exactly rather than
// interpolated next to it. At the template's times: 5% of a tick, float noise from tools that
// keep times in frames. At the glTF's own times (rounded to ticks): half a tick, so each key
// keeps its value and only its time moves onto the grid.
inline double time_snap(double rate, bool own_times) noexcept { return rate > 0 ? (own_times ? 0.5 : 0.05) / rate : 0; }

// Template keys as a curve (LINEAR), to resample a bone without a channel onto new times.
gltf::Curve template_curve(const Clip& clip, const ClipBone& b);

bool increasing(const std::vector<std::uint32_t>& t);

Status reduce_keys(const GltfImportOptions& opt, Clip& clip, GltfAnimationImport& rep);

struct Context {
  const tinygltf::Model& model;
  const GltfImportOptions& options;
  double cos_tol;  // cos(tolerance / 2)
  // The rig rotations are read against (rest-relative): options.skeleton, or the one the file
  // records (gltf::RigRecord); null: mab export's flat rig.
  const GltfSkeleton* skeleton = nullptr;
  gltf::RigRecord::Kind recorded = gltf::RigRecord::Kind::none;
};

using BoneNodes = std::map<std::pair<std::uint32_t, unsigned>, int>;  // (hash, occurrence) -> file node

// The rig `mab export` writes without a skeleton, and the one it writes with `sk`.
gltf::RefRig flat_rig(const Clip& clip, const BoneNodes& node_of);
gltf::RefRig skeleton_rig(const GltfSkeleton& sk, const Clip& clip, const BoneNodes& node_of);

bool rest_relative(const GltfImportOptions& o, bool has_template);

// tmpl(bone, k): the template's rotation of `bone` at seconds[k], where the file does not move it.
using TemplateRotation = std::function<Quat(std::size_t bone, std::size_t k)>;

// samples[bone][k]: the rotation of each bone that has a channel, at each time (docs/gltf.md).
Result<std::vector<std::vector<Quat>>> reconstruct(const Context& ctx, const gltf::Curves& rotation, const Clip& clip,
                                                   const BoneNodes& node_of, const std::vector<double>& seconds,
                                                   double snap, bool has_template, const TemplateRotation& tmpl);

// --- Reading tracks against their template (gltf_timeline.hpp) ---

// The file's own key times for what `node` plays (its channel; with `parent`, those of its
// animated ancestors too, as a rest-relative read combines them) and the points midway between
// them where one of those channels is curved (CUBICSPLINE, STEP), in seconds, increasing.
void node_key_times(const gltf::Curves& curves, const std::vector<int>* parent, int node, std::vector<double>& keys,
                    std::vector<double>& checks);

std::vector<double> unique_times(std::vector<double> t);  // sorted, unique
// The times a block is evaluated at: its own (`block`, increasing, kept exactly) and `others`
// (the file's key times and check points); one of those within `merge` of a block time is that
// time (a file's float seconds next to the double ones of the clip's key units).
std::vector<double> evaluation_times(const std::vector<double>& block, std::vector<double> others, double merge);
// The index of the nearest of `times` for each of `wanted` (increasing); repeats dropped.
std::vector<std::size_t> index_of(const std::vector<double>& times, const std::vector<double>& wanted);

gltf::Value to_value(const Quat& q) noexcept;
Quat to_quat(const gltf::Value& v) noexcept;  // normalised unless already float-exact

// "1.233 s (frame 37 at 30 fps)", the frame when the time is a whole frame within 5%.
std::string time_text(double seconds, double fps);

// Tracks a tool resampled on a grid that misses the block's times: counted in `rep`, and
// refused when edited keys would be read between samples with more error than the match
// tolerance (unless accept_resample). `rate_text` says the block's key rate. The report's
// resample_error is the rotations' (degrees).
struct ResampleFinding {
  std::string track;
  const gltf::TrackVerdict* verdict = nullptr;
  const gltf::TrackEvidence* evidence = nullptr;
  const char* unit = "degrees";  // "units": a translation
  double tolerance = 0;          // the match tolerance in that unit
};
Status check_resample(const Context& ctx, const std::vector<ResampleFinding>& tracks, const std::string& rate_text,
                      double fps, GltfAnimationImport& rep);

// An 'aNi' block at the template's key times (gltf_import_template.cpp): `edited` gets the
// template's timeline plus the key times the glTF's keys between them need, and every bone's
// rotations on it; the report its counts.
Status read_on_template_times(const Context& ctx, const Channels& channels, const Clip& orig, const BoneNodes& node_of,
                              Clip& edited, GltfAnimationImport& rep);

// --- No-op imports and other clips (docs/gltf.md, "What import refuses") ---

// An animation none of whose channels names a bone of the block: refused, or with
// allow_no_op a note. `nodes`: the animated nodes' names.
Status check_matched(const Context& ctx, std::size_t ai, std::size_t block, std::size_t matched,
                     const std::vector<std::string>& nodes, GltfAnimationImport& rep);

// The animation's key range (channels of matched nodes with two keys or more) and, when its
// extras hold them, the rate and duration of the clip it was exported from, against the
// block's: refused when they clearly belong to another clip (unless allow_other_clip).
struct ClipSpan {
  double first_s = 0, last_s = 0;  // the block's first and last key times
  double rate = 0;                 // key rate (FC2/3: frame rate)
  float duration = 0;
  const char* rate_field = "key_rate";  // its name in the animation's extras
};
Status check_same_clip(const Context& ctx, std::size_t ai, std::size_t block,
                       const std::vector<const gltf::Curve*>& curves, const ClipSpan& span);

// The content of the animation against the block's decode (docs/gltf.md, "What import
// refuses"): a modder edits some bones and leaves the others' keys as they were; when fewer
// than a tenth of the animated tracks keep at least a quarter of their keys (within 2 degrees),
// the file holds
// another clip (or the template's clip reversed), refused unless allow_other_clip.
struct TrackAgreement {
  std::string track;
  std::size_t matched = 0, keys = 0;  // keys at the block's times as in the template, of all
  bool untouched = false;
};
Status check_same_content(const Context& ctx, const GltfAnimationImport& rep,
                          const std::vector<TrackAgreement>& tracks);
// A rotation track's agreement: its block keys within 2 degrees of the template's (coarse, so
// files of low precision, such as normalised-integer outputs, still count as the clip).
TrackAgreement agreement_of(std::string track, const gltf::TrackEvidence& e, bool untouched);

// Rotations read rest-relative against the flat rig or a skeleton the file's own shape
// contradicts (bones parented to bones, or placed away from their parent, in a file that
// records no rig): refused, never a silent misread.
Status check_rig_shape(const Context& ctx, const BoneNodes& node_of);

// What the format cannot hold and would otherwise be dropped (docs/gltf.md, "Every channel is
// accounted for"): channels of nodes outside `rotated` and `translated` (the nodes whose
// rotation or translation the import reads) that move them from their rest pose
// (nodes matching no bone: a second armature, a renamed or new bone), scale channels that
// move a node, and `refused` (the callers' own). Refused naming them, or with ignore_unmatched
// listed in rep.dropped_channels.
Status account_unmatched(const Context& ctx, const Channels& channels, const std::unordered_set<int>& rotated,
                         const std::unordered_set<int>& translated, std::vector<std::string> refused,
                         GltfAnimationImport& rep);

// --- One channel of one node against one track of the template (gltf_import_tracks.cpp) ---

// What a track of the template holds: a bone's rotation (its keys or its constant, by the
// bone's kind), translations, constant translation, or root motion.
enum class Target : std::uint8_t { rotation, translation, constant_translation, root_rotation, root_translation };

// What becomes of a track: the template's own (judged against it), or, for a channel on a node
// the template names but this clip has no track for (`added`, judged against its rest), what
// its caller planned: nothing (at rest), a new constant, a new keyed track, or refused.
enum class Fate : std::uint8_t { clip_track, at_rest, constant, keyed, refused };

struct NodeTrack {
  std::string label;
  std::string node_name;  // the node export writes it on (a rest-relative read's stand-in bone)
  Target target = Target::translation;
  std::size_t bone = 0;                 // into the clip's bones (bone targets)
  int node = -1;                        // the file node whose channel plays it; -1: none
  gltf::Keys tmpl;                      // the template at its own times
  std::vector<gltf::Value> block_tmpl;  // the template at each block time, bit for bit
  std::vector<gltf::Value> file;        // the file at each evaluation time
  gltf::TrackEvidence evidence;         // spans into the members above and the TrackTimes
  gltf::TrackVerdict verdict;
  std::uint32_t hash = 0;  // the bone's (ClipBone::hash); root motion: none
  bool second = false;     // a bone's second, constant value beside its keys (TrackNaming)
  bool added = false;      // a node without a track in this clip, at its rest (Fate)
  Fate fate = Fate::clip_track;
  bool rotation() const noexcept { return target == Target::rotation || target == Target::root_rotation; }
  bool root() const noexcept { return target == Target::root_rotation || target == Target::root_translation; }
};

struct TrackTimes {
  std::vector<double> block_s;     // the block's times, in seconds
  std::vector<double> times;       // every time the file is evaluated at
  std::vector<std::size_t> block;  // block_s in `times`
};

// The file at the block's times, at each channel's own key times and at check points, into
// each track with a node (the tracks must not move afterwards: evidence points into them). With
// `rest_relative_rotations` rotations are read as a bone's are (reconstruct, one stand-in bone
// per rotation track, as the options say), else as the channel holds them.
Status evaluate_tracks(const Context& ctx, const Channels& channels, double snap, bool rest_relative_rotations,
                       TrackTimes& tt, const std::vector<NodeTrack*>& tracks);

// The metric a track of the clip is judged with: the match tolerance, in degrees or units.
gltf::Metric track_metric(const GltfImportOptions& o, bool rotation) noexcept;

// A changed track's values at the block's times: the template's components where the file
// agrees within `tol` (a translation moved along one axis keeps the other two's bits).
std::vector<gltf::Value> keep_template_components(const NodeTrack& t, double tol);

gltf::Value vec_value(const Vec3& v) noexcept;
Vec3 to_vec3(const gltf::Value& v) noexcept;
bool any_changed(const gltf::TrackVerdict& v) noexcept;                // a value at some block time
bool still(const gltf::Metric& m, const std::vector<gltf::Value>& v);  // every value near the first

// --- Every track of a clip on the nodes its template names (gltf_import_tracks.cpp) ---

// How a template names its tracks' nodes and times its keyed rotations, as `mab export` wrote
// them (Far Cry 2/3, format 13: gltf_names.hpp's bone_<id>, its stored frames).
struct TrackNaming {
  // A bone's node; `second`: a bone's constant value beside its keys, on a node of its own.
  std::function<std::string(std::uint32_t hash, bool second)> node;
  std::string root;  // root motion's node
  // A keyed rotation's own keys, when the template stores fewer than one per block time (the
  // keys export writes, that a tool interpolates between); nullopt: one per block time.
  std::function<std::optional<gltf::Keys>(std::uint32_t hash)> stored_keys;
};

// The tracks of `clip` on the nodes `naming` gives, at the block's times `block_s`: rotations
// (constants first, a bone's second value on its second node), root rotation, constant
// translations, translations, root translation.
std::vector<NodeTrack> clip_node_tracks(const Clip& clip, const TrackNaming& naming,
                                        const std::vector<double>& block_s);

// Each rotation and translation channel's node to the track of `tracks` whose node it names
// (identify, first occurrence), one node a track; a channel no track takes goes to `other`
// (node, rotation, whether a track has that name), which may append a track for it (true),
// else it is listed in rep.nodes_unmatched.
void match_track_nodes(const Context& ctx, const Channels& channels, std::vector<NodeTrack>& tracks,
                       const std::function<bool(int node, bool rotation, bool named)>& other, GltfAnimationImport& rep);

// The nodes `mab export` writes for a whole file, every clip's tracks on one node per name (a
// Far Cry 2/3 bank: Blender then writes every bone of the armature into every action): name ->
// a track of it and, per channel, its values in every clip that has one.
struct FileNode {
  NodeTrack track;
  std::vector<std::vector<gltf::Value>> rotations, translations;
};
using FileNodes = std::unordered_map<std::string, FileNode>;
void add_file_nodes(FileNodes& nodes, const Clip& clip, const TrackNaming& naming);

// match_track_nodes, a channel on a node of `nodes` this clip has no track for becoming an
// `added` track (the first node of that name) at its rest (identity rotation, zero
// translation) at `frames` block times.
void match_file_nodes(const Context& ctx, const Channels& channels, const FileNodes& nodes,
                      std::vector<NodeTrack>& tracks, std::size_t frames, GltfAnimationImport& rep);

// Whether an added track's channel is no edit: at its rest within `metric`, or held still at a
// pose its node has in another clip (a key, or between two keys as a tool interpolates them):
// Blender samples a bone the action does not key where the last pose it evaluated left it.
bool added_unedited(const gltf::Metric& metric, const NodeTrack& t, const FileNodes& nodes);

// The curves of the tracks of the clip a node plays (added ones aside), after check_matched
// over every rotation and translation channel; none: nothing matched (allow_no_op).
Result<std::vector<const gltf::Curve*>> matched_curves(const Context& ctx, std::size_t ai, std::size_t block,
                                                       const Channels& channels, const std::vector<NodeTrack>& tracks,
                                                       GltfAnimationImport& rep);

// A clip read as tracks on a fixed grid: its block times `tt.block_s`, `rate` per second, none
// can be added (a Far Cry 2/3 clip's frames). Every track with a node is evaluated (rotations
// rest-relative) and judged against its template, an added one against its rest with `rest`;
// `plan` gives added tracks their fate and lists what it refuses; then what the shared path
// checks: the same clip's content, resampled edits, keys no block time reproduces (refused,
// `holder` saying what stores keys on the grid only) and every channel accounted for.
struct FixedGrid {
  double rate = 0;
  std::string holder;
  std::function<gltf::Metric(bool rotation)> rest;
  std::function<void(std::vector<NodeTrack>&, std::vector<std::string>& refused)> plan;
};
Status judge_on_fixed_grid(const Context& ctx, const Channels& channels, const Clip& clip, const FixedGrid& grid,
                           TrackTimes& tt, std::vector<NodeTrack>& tracks, GltfAnimationImport& rep);

// The judged tracks into `clip` (the template's, its bones per `bone`): a track left alone keeps
// the template's values (so its codes), an edited one takes the file's at every block time
// (the template's components where they match); a constant that now moves becomes a keyed
// track, an added track lands as its fate says, a second (constant) value made to vary is
// refused. rep counts the tracks (the per-frame counts of a Far Cry 2/3 report).
Status apply_node_tracks(const Context& ctx, const std::vector<NodeTrack>& tracks, const TrackNaming& naming,
                         Clip& clip, GltfAnimationImport& rep);

// Translations and root motion of an 'aNi' block (gltf_import_motion.cpp): every translation
// channel of a `handled` node (the one read per bone, and `trajectory`), judged
// against the template; changed tracks land in `edited` (on its timeline, after the rotations
// set it), what the layout cannot hold goes to `refused`.
Status read_motion(const Context& ctx, const Channels& channels, const std::unordered_set<int>& handled,
                   const Clip& orig, Clip& edited, GltfAnimationImport& rep, std::vector<std::string>& refused);

// One animation into a Far Cry 2/3 clip (gltf_import_legacy.cpp).
Result<std::vector<std::uint8_t>> import_legacy_animation(const Context& ctx, const Container& current, std::size_t ai,
                                                          std::size_t block, GltfAnimationImport& rep,
                                                          Ignored& ignored);

}  // namespace mab::gltf_in
