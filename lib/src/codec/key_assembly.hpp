// Format 9.2 step 4, shared by the decoder and the re-quantiser: the re-quantiser scores its
// candidates on exactly the floats decode_block would produce, without decoding their codes.
#pragma once

#include <mab/quat.hpp>

#include <cmath>

namespace mab::detail {

// Sum of squares of the three stored values, in double where the squares of floats are exact
// (rotation_codec.hpp); `> 1` is the s > 1 test of decision 2.
inline double stored_sum_of_squares(float v0, float v1, float v2) noexcept {
  const double x = v0, y = v1, z = v2;
  return x * x + y * y + z * z;
}

// The omitted component: sqrt(1 - s), or 0 when s > 1 (decision 2), negated if its sign bit
// is set. Branch-free, so loops over keys vectorise. The float square root is correctly
// rounded, hence as deterministic as the double one.
inline float omitted_value(double s, bool negate) noexcept {
  const float root = std::sqrt(static_cast<float>(s <= 1.0 ? 1.0 - s : 0.0));
  return negate ? -root : root;
}

// The stored values go to the slots other than `omitted` in ascending order, the omitted one
// is omitted_value; when s > 1 the three are divided by sqrt(s) (decision 2, engine
// behaviour, format 16 (C7)).
inline Quat assemble_key(float v0, float v1, float v2, double s, unsigned omitted, bool negate) noexcept {
  float fx = v0, fy = v1, fz = v2;
  const float fd = omitted_value(s, negate);
  if (!(s <= 1.0)) {
    const double r = std::sqrt(s);
    fx = static_cast<float>(double{v0} / r);
    fy = static_cast<float>(double{v1} / r);
    fz = static_cast<float>(double{v2} / r);
  }
  switch (omitted) {
    case 0: return {fd, fx, fy, fz};
    case 1: return {fx, fd, fy, fz};
    case 2: return {fx, fy, fd, fz};
    default: return {fx, fy, fz, fd};
  }
}

}  // namespace mab::detail
