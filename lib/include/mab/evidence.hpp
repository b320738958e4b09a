// How far the bytes of a section beyond the rotations were understood (docs/motion.md): decoded by
// the public decoder's reading, decoded under a numbered hypothesis the bytes were checked
// against, or kept opaque with the reason. `mab info` prints these; survey reports count them.
#pragma once

#include <cstdint>
#include <string>

namespace mab {

enum class EvidenceLevel : std::uint8_t {
  absent = 0,      // the block has no such section
  decoded = 1,     // the reading a public decoder uses (format reference [code]), and the bytes fit it
  hypothesis = 2,  // a [guess] of the format reference, tried in order; the first the bytes prove is taken
  opaque = 3,      // kept as bytes (decision 8); `detail` says why
};
static_assert(sizeof(EvidenceLevel) == 1);

struct Evidence {
  EvidenceLevel level = EvidenceLevel::absent;
  unsigned hypothesis = 0;  // 1-based, for EvidenceLevel::hypothesis
  std::string detail;       // what was accepted (and how it was checked), or why it is opaque

  bool accepted() const noexcept { return level == EvidenceLevel::decoded || level == EvidenceLevel::hypothesis; }
  // "absent", "decoded (DETAIL)", "hypothesis N accepted (DETAIL)", "opaque: DETAIL".
  std::string text() const;
};

// One entry per kind of data a block may hold besides its rotations.
struct BlockEvidence {
  Evidence translations;           // TranslationTable + JointTranslations (format 10.1)
  Evidence constant_translations;  // JointConstantTranslations (format 10.2)
  Evidence root_rotations;         // DisplacementOrientations (format 10.3)
  Evidence root_translations;      // DisplacementTranslations (format 10.3)
  Evidence parts;                  // part animations and nested blocks (format 12)
};

// Which bones a hypothesis gives a translation, in bone-table order (format 5.3: flag bits 0x40
// and 0x80 are "probably translation-related", a guess). Pinned: JSON names them.
enum class TranslationBones : std::uint8_t {
  all_bones = 0,  // every bone of the block (the public decoder's single-bone blocks, format 10.1)
  flag_0x40 = 1,  // bones whose flag byte has bit 0x40
  flag_0x80 = 2,  // bones whose flag byte has bit 0x80
};
static_assert(sizeof(TranslationBones) == 1);

// Whether bone flags `flags` carry a translation under `rule`.
inline bool translation_selected(TranslationBones rule, std::uint8_t flags) noexcept {
  switch (rule) {
    case TranslationBones::flag_0x40: return (flags & 0x40u) != 0;
    case TranslationBones::flag_0x80: return (flags & 0x80u) != 0;
    case TranslationBones::all_bones: break;
  }
  return true;
}

// Element layouts of the root-motion hypotheses (format 10.3).
enum class RootRotationLayout : std::uint8_t {
  quat48 = 0,  // one 6-byte quaternion (format 9.1) per stored key
  f32x4 = 1,   // one (x, y, z, w) f32 quaternion per stored key
};
enum class RootTranslationLayout : std::uint8_t {
  f32x3 = 0,  // one (x, y, z) f32 per stored key (FC2's trajectory element, format 10.3)
  f32x4 = 1,  // (x, y, z, w) f32 per stored key, w the same 0 or 1 throughout
};
static_assert(sizeof(RootRotationLayout) == 1 && sizeof(RootTranslationLayout) == 1);

// Part animation array layout (format 12): where the 32-byte entries start, and what a nested
// CAnimData offset is measured from.
enum class PartHeader : std::uint8_t {
  count_then_12 = 0,  // u32 count, 12 bytes, entries from +16 ("a cursor 4 floats in")
  count_only = 1,     // u32 count, entries from +4
};
enum class NestedBase : std::uint8_t {
  none = 0,     // no entry has a nested block
  entry = 1,    // from the start of the entry
  section = 2,  // from the start of the part array
  block = 3,    // from the block base (like m_offsets)
};
static_assert(sizeof(PartHeader) == 1 && sizeof(NestedBase) == 1);

}  // namespace mab
