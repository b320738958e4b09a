// Internal: glTF animation samplers evaluated at arbitrary times (glTF 2.0, 3.11 and
// appendix C): STEP, LINEAR (slerp on the shortest arc for rotations) and CUBICSPLINE.
#pragma once

#include "interchange/gltf/gltf_document.hpp"

#include <mab/quat.hpp>
#include <mab/result.hpp>

#include <array>
#include <map>
#include <string>
#include <vector>

namespace mab::gltf {

enum class Interpolation : std::uint8_t { step = 0, linear = 1, cubic = 2 };

struct Curve {
  Interpolation interpolation = Interpolation::linear;
  unsigned width = 4;         // 4: rotation (x, y, z, w); 3: translation or scale
  std::vector<float> times;   // non-decreasing, finite, >= 0
  std::vector<float> values;  // width per key; cubic: in-tangent, value, out-tangent per key

  std::size_t keys() const noexcept { return times.size(); }
  // The value of key k (the spline vertex for cubic).
  const float* key(std::size_t k) const noexcept {
    return values.data() + (interpolation == Interpolation::cubic ? 3 * k + 1 : k) * width;
  }
};

using Curves = std::map<int, Curve>;  // by node

// Sampler `sampler` of `anim` with outputs of `width` components, checked: times finite,
// non-negative and non-decreasing, as many outputs as times (three times as many for
// CUBICSPLINE), outputs finite. `field` is the sampler's JSON path.
Result<Curve> read_curve(const tinygltf::Model& m, const tinygltf::Animation& anim, int sampler, unsigned width,
                         const std::string& field);

// Rotation at time t (seconds), normalised. Before the first key: the first; after the last:
// the last (glTF 3.11). A key within `snap` seconds of t is returned exactly, so keys a tool
// moved by float rounding are read as keys, not as interpolations next to them.
Quat sample_rotation(const Curve& c, double t, double snap = 0) noexcept;
std::array<double, 3> sample_vec3(const Curve& c, double t, double snap = 0) noexcept;

Quat normalised(const Quat& q) noexcept;

}  // namespace mab::gltf
