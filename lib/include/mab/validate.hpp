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

// Slots of the 'aNi' family by meaning (spec 8.1, 8.2). -1: no slot (FC5 KeyTimes).
struct AniSlots {
  int key_times, constant_rotations, rotations;
};
AniSlots ani_slots(AniShape shape) noexcept;

// Checks every block. Never modifies the container; never fails: problems are findings.
std::vector<Finding> validate(const Container& c, const Limits& limits = default_limits);

bool has_errors(const std::vector<Finding>& findings) noexcept;

}  // namespace mab
