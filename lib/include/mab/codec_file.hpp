// Container + codecs <-> editable clip, for the 'aNi' family (WD1, WD2, WDL, FC5; FC4
// where its layout is read). Keeps the exact codes so an unedited clip re-encodes to
// the same bytes; changed chunks are re-quantised with a measured error.
#pragma once

#include <mab/clip.hpp>
#include <mab/container.hpp>
#include <mab/evidence.hpp>
#include <mab/rotation_codec.hpp>
#include <mab/translation_codec.hpp>

#include <array>
#include <optional>
#include <utility>
#include <vector>

namespace mab {

struct DecodeOptions {
  // Refuse every hypothesis (format reference [guess] readings): only what a public decoder reads is
  // decoded, everything else stays opaque with that reason (`--strict-layout`).
  bool strict_layout = false;
  // Decode each animated bone's keys. false: the keys stay empty (everything else, the key
  // times, the exact codes and the motion evidence included, is read and checked as usual),
  // for callers that only inspect a clip, such as `mab info`; such a clip is not an edit to
  // give encode_clip.
  bool keys = true;
};

// What decode_clip read beyond the rotations (docs/motion.md) and how, so encode_clip writes it back
// the same way. Only the parts whose evidence is accepted hold anything.
struct MotionCodes {
  // TranslationTable + JointTranslations (format 10.1): the accepted bone rule, one entry per
  // translated bone in bone order, the stream's exact codes.
  TranslationBones translation_bones = TranslationBones::all_bones;
  std::vector<TranslationEntry> translation_table;
  TranslationStream translations;
  // JointConstantTranslations (format 10.2): 3 x f32 per bone of the rule, in bone order.
  TranslationBones constant_bones = TranslationBones::flag_0x80;
  // Root motion (format 10.3): the element layouts, and the 6-byte codes of quat48 rotations.
  RootRotationLayout root_rotation_layout = RootRotationLayout::quat48;
  std::vector<Quat48> root_rotation_codes;
  RootTranslationLayout root_translation_layout = RootTranslationLayout::f32x3;
  std::uint32_t root_translation_w_bits = 0;  // f32x4: the fourth float, as stored
  // Part animations (format 12): the array layout and each 32-byte entry as stored (the fields
  // not modelled in ClipPart are written back from here).
  PartHeader part_header = PartHeader::count_then_12;
  NestedBase nested_base = NestedBase::none;
  std::vector<std::array<std::uint8_t, 32>> part_entries;
};

struct DecodedClip {
  Container container;  // the file, with every section and header field
  std::size_t block = 0;
  Clip clip;  // as decoded from the codes below: edit a copy
  // Exact codes, for lossless re-encoding of what the user did not change.
  std::vector<std::array<std::uint8_t, 6>> constant_codes;  // per constant bone, in bone order
  RotationStream rotations;                                 // [chunk][animated bone]
  // Translations, root motion and part entries (docs/motion.md): what was decoded and on which
  // evidence; a section whose evidence is not accepted stays opaque bytes in `container`.
  BlockEvidence evidence;
  MotionCodes motion;
  DecodeOptions options;  // what decode_clip was asked (encode_clip reads the file the same way)
};


// Key time units per second for a block (decision 7): WD1 ticks at 120; WDL/WD2 frames
// at the header's frame rate; FC4/FC5 frames at 30 unless the header says otherwise.
double key_rate(const Container& c, std::size_t block) noexcept;

// Rotations (format 9) must decode or the call fails; translations, root motion and part
// entries (format 10, 12) are decoded where the bytes prove a reading and otherwise stay opaque,
// each with its evidence in DecodedClip::evidence.
Result<DecodedClip> decode_clip(Container container, std::size_t block = 0,
                                const Limits& limits = default_limits);
Result<DecodedClip> decode_clip(Container container, std::size_t block, const DecodeOptions& options,
                                const Limits& limits = default_limits);

// The error bound every command applies to the keys it re-quantises for a user's edit unless
// told otherwise (`mab import` of JSON and glTF, `mab edit`: `--max-error`; decision 21).
inline constexpr double default_max_error_deg = 0.01;
// The same for re-quantised translation keys, in file units (decision 21).
inline constexpr double default_max_translation_error = 0.001;

struct EncodeOptions {
  double max_error_deg = default_max_error_deg;  // bound for choose_depth and raise_depth
  bool choose_depth = false;    // re-pick each changed bone's bit depth (format 5.3 low nibble)
  // Keep a changed bone's bit depth (so only its changed chunks are re-quantised) unless
  // its error then exceeds max_error_deg; then re-pick it as choose_depth does. A bone the
  // original lacks (added, or constant before) always gets a chosen depth. A depth the edit
  // itself set (the bone's flags give another depth than the original's: edit::set_bits, a
  // JSON document's flags) is the user's and is kept.
  bool raise_depth = false;
  // Re-quantise every animated bone, unchanged ones too, at the smallest depth meeting
  // max_error_deg (`mab edit --requantise`).
  bool requantise_all = false;
  // Nothing is encoded when a re-quantised key or a re-encoded constant ends up more than
  // max_error_deg from the edit: invalid_argument (field "max_error") naming the worst bone,
  // its error and why no finer storage exists (see edit_policy).
  bool refuse_above_max_error = false;
  // With raise_depth: a bone whose re-quantised translation chunks (format 10.1) miss this many
  // file units at its depth gets the smallest finer depth (and the scale it needs) meeting it,
  // 16 bits at most. What 16 bits still miss (a track spanning hundreds of units) is written at
  // 16 bits, the finest the format holds, and its error reported; refused instead (nothing
  // written) with refuse_above_max_translation_error, which edit_policy sets. Without
  // raise_depth the bone's depth is kept and the error only reported.
  double max_translation_error = default_max_translation_error;
  bool refuse_above_max_translation_error = false;
};

// The one error policy of every command that writes a user's edit (`mab import` of JSON and
// glTF, `mab edit`; decision 21, docs/json-format.md "Error policy"): a changed bone keeps its
// bit depth unless that misses max_error_deg, then gets the smallest depth meeting it (16 at
// most); a depth the edit asked for is kept; whatever still misses the bound (a key at 16 bits,
// a requested depth, a 6-byte constant) is refused, nothing written. Far Cry 2/3 clips have no
// depth: legacy_edit_policy (legacy.hpp) applies the same bound through the sparse key writer.
// Translations: max_translation_error, default_max_translation_error when not given, refused
// when missed as the rotation bound is (refuse_above_max_translation_error).
EncodeOptions edit_policy(double max_error_deg = default_max_error_deg,
                          std::optional<double> max_translation_error = std::nullopt);

struct EncodeReport {
  std::size_t chunks_reused = 0, chunks_requantised = 0;
  std::size_t constants_reused = 0, constants_encoded = 0;
  double max_error_deg = 0;              // over every re-quantised key
  std::vector<double> bone_error_deg;    // per bone of the edited clip (0 when reused)
  double max_error_bound = 0;            // EncodeOptions::max_error_deg
  // Translations (format 10.1): chunks per translated bone, and the largest error of a
  // re-quantised translation component, in file units.
  std::size_t translation_chunks_reused = 0, translation_chunks_requantised = 0;
  double max_translation_error = 0;
  std::size_t translation_scales_widened = 0;  // bones whose TranslationTable scale grew to hold an edit
  std::size_t translation_depths_raised = 0;   // bones given a finer depth to meet max_translation_error
  // Other sections rewritten from edited values (constant translations, root motion, parts).
  std::vector<std::string> motion_sections_rewritten;
  // The shared key timeline (format 9.4): stored keys before and after, and the key times new to
  // the timeline or gone from it (decision 22: an added time is reported, never dropped).
  std::size_t key_times_before = 0, key_times_after = 0;
  std::size_t key_times_added = 0, key_times_removed = 0;
  // Animated bones (in both clips) written at another depth than the original's: asked for by
  // the edit, or raised (or re-picked) by the encoder to meet max_error_deg.
  struct DepthChange {
    std::uint32_t hash = 0;
    unsigned before = 0, after = 0;
    bool requested = false;  // the edit's own depth, kept as asked
  };
  std::vector<DepthChange> depth_changes;
  // The bone table: bones the original lacks, bones it has that the edit dropped, renames.
  std::vector<std::uint32_t> bones_added, bones_removed;
  std::vector<std::pair<std::uint32_t, std::uint32_t>> bones_renamed;  // (original hash, new hash)
  // What the written file may carry that nothing here could check, one line each: a part
  // array that did not decode (kept as bytes, format 12) in a file whose blocks this edit
  // moved, whose entries, if they link nested blocks, now point where those blocks were.
  std::vector<std::string> warnings;
};

// Writes `edited` into a copy of `original.container`: KeyTimes, constant rotations,
// JointRotations (chunk table included), bone table, m_dataCounts[2] and [4],
// m_lastFrame, duration, offsets and m_animationDataSize. A chunk of a bone whose
// floats equal the original decode keeps its codes; others are re-quantised.
// Translations, root motion and part entries whose evidence was accepted are written back the
// way they were read (same hypothesis): unchanged values keep their bytes, edited translation
// chunks are re-quantised (error in EncodeReport). Data of a section that was not decoded
// cannot be added (invalid_argument naming the section and its evidence).
Result<std::vector<std::uint8_t>> encode_clip(const DecodedClip& original, const Clip& edited,
                                              const EncodeOptions& options = {},
                                              EncodeReport* report = nullptr);

// As encode_clip, returning the container instead of bytes.
Result<Container> encode_clip_container(const DecodedClip& original, const Clip& edited,
                                        const EncodeOptions& options = {},
                                        EncodeReport* report = nullptr);

}  // namespace mab
