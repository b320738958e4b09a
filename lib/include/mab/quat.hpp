// Quaternions and the 6-byte packed constant rotation (format 9.1).
#pragma once

#include <array>
#include <cstdint>
#include <span>

namespace mab {

// Component order is (x, y, z, w) everywhere in the format (format 9.1, 9.2).
struct Quat {
  float x = 0.0f;
  float y = 0.0f;
  float z = 0.0f;
  float w = 1.0f;

  float operator[](unsigned i) const noexcept { return i == 0 ? x : i == 1 ? y : i == 2 ? z : w; }
  float& operator[](unsigned i) noexcept { return i == 0 ? x : i == 1 ? y : i == 2 ? z : w; }
  friend bool operator==(const Quat&, const Quat&) = default;
};

// A translation (x, y, z) in the bone's parent space, in file units (format 10, 13).
using Vec3 = std::array<float, 3>;

// Rotation angle in degrees between the rotations of a and b. q and -q are the same rotation,
// so the result is in [0, 180]. Inputs are normalised; a zero or non-finite input gives 180.
double angular_error_deg(const Quat& a, const Quat& b) noexcept;

// Rotation arithmetic for edits and interchange, in double precision, results normalised.
// a * b applies b first, then a (a pre-multiplies).
Quat quat_mul(const Quat& a, const Quat& b) noexcept;
Quat quat_normalised(const Quat& q) noexcept;  // identity for a zero or non-finite input
// Spherical interpolation on the shortest arc (glTF appendix C): t = 0 gives a, 1 gives b
// (up to sign and normalisation).
Quat quat_slerp(const Quat& a, const Quat& b, double t) noexcept;

// Three little-endian u16 words w0, w1, w2 as stored in JointConstantRotations.
using Quat48 = std::array<std::uint16_t, 3>;

// One quantum of a stored component: sqrt(2)/32767, the engine's float 4.315969e-05.
inline constexpr float quat48_step = 4.315969e-05f;
// float(1/sqrt(2)); stored values are code * step - bias.
inline constexpr float quat48_bias = 0.70710677f;

// Total for every one of the 2^48 inputs (decision 3: w2 is read unsigned). The implicit
// component is sqrt(1 - a^2 - b^2 - c^2); where that is negative the code holds no valid
// quaternion (quat48_valid) and decodes to a, b, c divided by their length with the implicit
// component 0: a unit quaternion, the same rotation the 'aNi' decoders' clamp gives
// (docs/legacy.md, "Codes with no valid quaternion").
Quat decode_quat48(const Quat48& words) noexcept;
Quat decode_quat48(std::span<const std::uint8_t, 6> bytes) noexcept;

// Decision 3: bit 15 of w2 puts c outside +-1/sqrt(2), which no encoder produces; decode
// accepts it and `verify` reports it through this predicate.
bool quat48_suspicious(const Quat48& words) noexcept;

// 1 - a^2 - b^2 - c^2 >= 0 (format 9.1). The public FC2 readers (BUU, QJ-OLD) reject a code
// where it is negative; no encoder writes one, and `verify` reports each with its bone and key.
bool quat48_valid(const Quat48& words) noexcept;

// Drops the largest-magnitude component (lowest index on a tie), negating the quaternion so
// the dropped one is >= 0, and stores the other three at the nearest step (the lower code on
// an exact tie, which makes identity FF BF FF BF FF 3F). When components are within a few
// quanta of each other, decode-then-encode can move to other codes; the result is then the
// smallest code of the cycle that map falls into, so encode(decode(y)) == y for every result
// y, at the price of a few quanta of error in those near-tie cases (format 9.1 encoder note).
// The input is normalised first; a zero or non-finite input encodes identity.
Quat48 encode_quat48(const Quat& q) noexcept;
std::array<std::uint8_t, 6> encode_quat48_bytes(const Quat& q) noexcept;

Quat48 quat48_from_bytes(std::span<const std::uint8_t, 6> bytes) noexcept;
std::array<std::uint8_t, 6> quat48_to_bytes(const Quat48& words) noexcept;

}  // namespace mab
