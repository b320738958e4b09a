// Container -> editable clip, for the 'aNi' family (WD1, WD2, WDL, FC5; FC4 where its layout is
// read): the clip and the exact codes beside it, so that encode_clip (encode_clip.hpp) writes an
// unedited clip back to the same bytes.
#pragma once

#include <mab/clip.hpp>
#include <mab/container.hpp>
#include <mab/evidence.hpp>
#include <mab/rotation_codec.hpp>
#include <mab/translation_codec.hpp>

#include <array>
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
Result<DecodedClip> decode_clip(Container container, std::size_t block = 0, const Limits& limits = default_limits);
Result<DecodedClip> decode_clip(Container container, std::size_t block, const DecodeOptions& options,
                                const Limits& limits = default_limits);

}  // namespace mab
