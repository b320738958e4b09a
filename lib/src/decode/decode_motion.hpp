// Internal: the decoder of translations, root motion and part entries (format 10, 12), and the
// rules it shares with their encoder (docs/motion.md). Where they live: container/motion_layout.hpp.
#pragma once

#include <mab/decode_clip.hpp>
#include <mab/encode_clip.hpp>

#include "container/motion_layout.hpp"
#include "io/bytes.hpp"

#include <cstring>
#include <optional>
#include <span>
#include <string>

namespace mab::decode {

// A hypothesis is proven only when its data fills the section up to padding: fewer than 16
// bytes, all zero (the 16-byte alignment legacy files use, format 8.3). Empty when that holds.
std::optional<std::string> padding_problem(std::span<const std::uint8_t> rest);
inline constexpr std::size_t max_padding = 15;

// A translation or root-motion component as a real clip stores it: finite, zero or between
// 1e-20 and 1e4 units in magnitude (the animated scale reaches about 5000 units, format 10.1).
bool plausible_translation(float v) noexcept;

using io::load_f32;
using io::load_u32;
inline std::uint32_t f32_bits(float f) noexcept {
  std::uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return u;
}

// Why an entry is not one a clip of `duration` seconds holds (its times inside the clip, its
// type one of the editor's PartEventType 1..8), or nothing. The decoder proves a reading with
// it and the encoder refuses an edit with it, so an entry that is written always reads back.
std::optional<std::string> part_problem(const ClipPart& p, float duration);

// Where decode_motion writes: a DecodedClip's members, or those of a decode that does not own
// the container (the JSON export of a stored block).
struct MotionOut {
  Clip& clip;
  BlockEvidence& evidence;
  MotionCodes& motion;
};

// Fills out.evidence, out.motion and out.clip's translations, constant translations, root
// motion and parts from block `block` of `c`, placed as `pl` (out.clip's key times already
// read). Never fails: a section whose reading is not proven stays opaque and its evidence says why.
void decode_motion(const Container& c, std::size_t block, const Placement& pl, MotionOut out,
                   const DecodeOptions& options, const Limits& limits);

// Part entries of block `block` of `c` (placed as `pl`) under the accepted layout, or why not:
// shared with encode_clip, which keeps every block's nested-block links pointing at the same
// blocks after an edit moves them.
struct PartsRead {
  Evidence evidence;
  PartHeader header = PartHeader::count_then_12;
  NestedBase base = NestedBase::none;
  std::vector<ClipPart> parts;
  std::vector<std::array<std::uint8_t, container::part_entry_size>> entries;
};
PartsRead read_parts(const Container& c, std::size_t block, const Placement& pl, float duration,
                     const DecodeOptions& options);

}  // namespace mab::decode
