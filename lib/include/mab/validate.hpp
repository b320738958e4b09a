// Structural checks on a container (issue: offsets, extents, sizes, counts).
#pragma once

#include <mab/container.hpp>

#include <string>
#include <vector>

namespace mab {

enum class Severity : std::uint8_t { info = 0, warning = 1, error = 2 };
static_assert(sizeof(Severity) == 1);

struct Finding {
  Severity severity = Severity::info;
  ErrorCode code = ErrorCode::ok;
  std::uint64_t offset = no_offset;  // absolute file offset
  std::string field;
  std::string message;
  int block = -1;
};

std::string_view to_string(Severity s) noexcept;

// Slots of the 'aNi' family by meaning (format 8.1, 8.2). -1: no slot (FC5 KeyTimes).
struct AniSlots {
  int key_times, constant_rotations, rotations;
};
AniSlots ani_slots(AniShape shape) noexcept;

// Checks every block. Never modifies the container; never fails: problems are findings.
std::vector<Finding> validate(const Container& c, const Limits& limits = default_limits);

bool has_errors(const std::vector<Finding>& findings) noexcept;

// What decoding finds, block by block, decoded as `mab export` decodes them (`mab verify` and
// `mab survey` add these to validate()'s). Warnings: a Far Cry 2/3 clip whose tracks do not
// decode (the decoder's reason: a count that contradicts the masks, a group offset, a pad
// byte...); 'aNi' rotations that do not decode, or translations, root motion or part clips kept
// as bytes because no reading fits (docs/motion.md); a 6-byte code with no valid quaternion (format
// 9.1), naming the bone and key, decoded as decode_quat48 documents; a legacy code with bit 15
// of its third word set (decision 3); a Far Cry 2/3 tag table that does not decode, a tag record
// whose clip offset reaches no clip start or whose pointer slot is not 0 (format 13.5). Far Cry 4
// (layout unverified, decision 10) and legacy event chains kept as bytes are info. Never fails.
std::vector<Finding> validate_decode(const Container& c, const Limits& limits = default_limits);

}  // namespace mab
