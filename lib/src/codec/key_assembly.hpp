// Spec 9.2 step 4, shared by the decoder and the re-quantiser: the re-quantiser scores its
// candidates on exactly the floats decode_block would produce, without decoding their codes.
#pragma once

#include <mab/quat.hpp>

#include <cmath>

namespace mab::detail {

// Sum of squares of the three stored values, in double where the squares of floats are exact
// (rotation_codec.hpp); `> 1` is the s > 1 test of decision D2.
inline double stored_sum_of_squares(float v0, float v1, float v2) noexcept {
  const double x = v0, y = v1, z = v2;
  return x * x + y * y + z * z;
}

// The stored values go to the slots other than `omitted` in ascending order; the omitted one is
// sqrt(1 - s), or 0 with the three divided by sqrt(s) when s > 1 (decision D2), then negated.
inline Quat assemble_key(float v0, float v1, float v2, double s, unsigned omitted,
                         bool negate) noexcept {
  float fx = v0, fy = v1, fz = v2, fd = 0.0f;
  if (s <= 1.0) {
    // The float square root is correctly rounded, hence as deterministic as the double one.
    fd = std::sqrt(static_cast<float>(1.0 - s));
  } else {
    // Decision D2 (engine behaviour, spec C7): renormalise the stored three, omitted = 0.
    const double r = std::sqrt(s);
    fx = static_cast<float>(double{v0} / r);
    fy = static_cast<float>(double{v1} / r);
    fz = static_cast<float>(double{v2} / r);
  }
  if (negate) fd = -fd;
  switch (omitted) {
    case 0:
      return {fd, fx, fy, fz};
    case 1:
      return {fx, fd, fy, fz};
    case 2:
      return {fx, fy, fd, fz};
    default:
      return {fx, fy, fz, fd};
  }
}

}  // namespace mab::detail
