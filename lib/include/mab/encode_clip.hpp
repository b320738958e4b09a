// Editable clip -> container, for the 'aNi' family: unchanged chunks keep their codes, changed
// ones are re-quantised with a measured error (EncodeReport). The options every command uses for
// a user's edit come from edit_policy (edit_policy.hpp).
#pragma once

#include <mab/decode_clip.hpp>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace mab {

// The error bound every command applies to the keys it re-quantises for a user's edit unless
// told otherwise (`mab import` of JSON and glTF, `mab edit`: `--max-error`; decision 21).
inline constexpr double default_max_error_deg = 0.01;
// The same for re-quantised translation keys, in file units (decision 21).
inline constexpr double default_max_translation_error = 0.001;

struct EncodeOptions {
  double max_error_deg = default_max_error_deg;  // bound for choose_depth and raise_depth
  bool choose_depth = false;                     // re-pick each changed bone's bit depth (format 5.3 low nibble)
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

struct EncodeReport {
  std::size_t chunks_reused = 0, chunks_requantised = 0;
  std::size_t constants_reused = 0, constants_encoded = 0;
  double max_error_deg = 0;            // over every re-quantised key
  std::vector<double> bone_error_deg;  // per bone of the edited clip (0 when reused)
  double max_error_bound = 0;          // EncodeOptions::max_error_deg
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
                                              const EncodeOptions& options = {}, EncodeReport* report = nullptr);

// As encode_clip, returning the container instead of bytes.
Result<Container> encode_clip_container(const DecodedClip& original, const Clip& edited,
                                        const EncodeOptions& options = {}, EncodeReport* report = nullptr);

}  // namespace mab
