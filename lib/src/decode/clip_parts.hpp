// Internal: decode_clip's work on a container it does not take over, with the animated keys
// optional. The JSON export of a stored block uses it: it needs the container only to read,
// and decodes the keys bone by bone as it writes them, never holding every key at once.
#pragma once

#include <mab/clip.hpp>
#include <mab/container.hpp>
#include <mab/decode_clip.hpp>
#include <mab/limits.hpp>
#include <mab/rotation_codec.hpp>

#include <array>
#include <cstdint>
#include <vector>

namespace mab::decode {

struct ClipParts {
  Clip clip;  // animated bones hold their keys only when decode_parts was asked for them
  std::vector<std::array<std::uint8_t, 6>> constant_codes;  // per constant bone, in bone order
  RotationStream rotations;                                 // [chunk][animated bone]
  std::vector<std::uint8_t> bit_depths;                     // per animated bone
  BlockEvidence evidence;                                   // docs/motion.md, when motion was asked for
  MotionCodes motion;
};

// `motion`: also decode translations, root motion and parts (decode_motion) that way; null
// leaves them (and their evidence) empty.
Result<ClipParts> decode_parts(const Container& container, std::size_t block, const Limits& limits, bool keys,
                               const DecodeOptions* motion);

}  // namespace mab::decode
