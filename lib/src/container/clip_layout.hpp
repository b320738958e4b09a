// Internal: where a decodable block keeps its key times, constant and animated rotations.
#pragma once

#include <mab/container.hpp>

#include <optional>
#include <span>

namespace mab::container {

struct ClipLayout {
  int key_times_slot;   // -1: the preamble after the bone tables (FC5, format 4.3)
  int constant_slot;    // JointConstantRotations
  int rotations_slot;   // JointRotations
  bool has_last_frame;  // WD1/WDL: key count = m_lastFrame + 1 (format 7)
};

// nullopt for blocks without a specified rotation layout (legacy, opaque).
std::optional<ClipLayout> clip_layout(const Block& b) noexcept;

// The key-times bytes of a block (section or FC5 preamble); empty if absent.
std::span<const std::uint8_t> key_time_bytes(const Block& b, const ClipLayout& l) noexcept;

}  // namespace mab::container
