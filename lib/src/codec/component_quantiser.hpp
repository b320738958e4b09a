// One stored component of one chunk: constant or varying codes for its 8 keys (format 9.2
// "Encoder notes"), the building block of the re-quantiser (requantise.cpp).
#pragma once

#include <mab/rotation_codec.hpp>

#include <array>
#include <cstdint>

namespace mab::detail {

// Keys per chunk; a short chunk's values are padded with copies of its last key, which change
// no minimum, maximum or worst error.
inline constexpr unsigned component_lanes = keys_per_chunk;

struct Component {
  bool constant = false;
  // Quantising `value` again gives this component back; a stored component with this set is a
  // fixed point on its own (see quantise_component). False where that is not established.
  bool reproduces = false;
  std::uint16_t header = 0;
  std::array<std::uint16_t, 8> raw{};          // zero beyond the chunk's keys, as decoding leaves it
  std::array<float, component_lanes> value{};  // each key's decoded value, exactly as decode_block's
  double err = 0;                              // largest |decoded - input| over the keys
  friend bool operator==(const Component&, const Component&) = default;
};

// Codes for one component: `v` holds all 8 lanes (padded); codes are kept for the first `keys`.
Component quantise_component(const double* v, unsigned keys, unsigned nbits);

// quantise_component for a component that is multiplied by a scale after decoding (a
// translation, format 10.1), where half a constant step can be more than the caller's bound
// (0.0069 units at a scale of 453): the constant only when it is no further off than the
// varying form or within `constant_slack` (capped at half a constant step); keys that all hold
// one value and miss the slack get the closest varying header and code of every base. What it
// returns is never further off than quantise_component's; `reproduces` is not established.
Component quantise_scaled_component(const double* v, unsigned keys, unsigned nbits, double constant_slack);

// quantise_component(v, keys, nbits).err == 0, mostly without running it.
bool stored_exactly(const double* v, unsigned keys, unsigned nbits);

// quantise_component for the four components of the same keys at once, `v[f][i]` being
// component i of key f (padded to 8 keys). The common case runs on all four in lockstep with
// the same float and double operations, so the result is quantise_component's bit for bit;
// components that leave it (settling over several headers, a constant within reach) are
// handed to quantise_component.
void quantise_components(const double (*v)[4], unsigned keys, unsigned nbits, Component* out);

}  // namespace mab::detail
