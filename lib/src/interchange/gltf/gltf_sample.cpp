// glTF sampler evaluation (glTF 2.0 3.11, appendix C).
#include "interchange/gltf/gltf_sample.hpp"

#include <algorithm>
#include <cmath>

namespace mab::gltf {

Quat normalised(const Quat& q) noexcept { return quat_normalised(q); }

Result<Curve> read_curve(const tinygltf::Model& m, const tinygltf::Animation& anim, int sampler, unsigned width,
                         const std::string& field) {
  MAB_TRY(check_index(sampler, anim.samplers.size(), field));
  const std::string at = field;
  const tinygltf::AnimationSampler& s = anim.samplers[static_cast<std::size_t>(sampler)];
  Curve c;
  c.width = width;
  if (s.interpolation == "LINEAR" || s.interpolation.empty()) c.interpolation = Interpolation::linear;
  else if (s.interpolation == "STEP") c.interpolation = Interpolation::step;
  else if (s.interpolation == "CUBICSPLINE") c.interpolation = Interpolation::cubic;
  else
    return gltf_error(ErrorCode::bad_value, at + "/interpolation",
                      "unknown interpolation \"" + s.interpolation + "\" (LINEAR, STEP or CUBICSPLINE)");
  MAB_ASSIGN(c.times, read_floats(m, s.input, 1, false, at + "/input"));
  MAB_ASSIGN(c.values, read_floats(m, s.output, width, width == 4, at + "/output"));
  if (c.times.empty()) return gltf_error(ErrorCode::bad_value, at + "/input", "a sampler needs at least one key");
  for (std::size_t k = 0; k < c.times.size(); ++k) {
    const float t = c.times[k];
    if (!std::isfinite(t) || t < 0)
      return gltf_error(ErrorCode::bad_value, at + "/input",
                        "key " + std::to_string(k) + " has time " + std::to_string(t) + " (times are finite and >= 0)");
    if (k > 0 && t < c.times[k - 1])
      return gltf_error(ErrorCode::bad_value, at + "/input",
                        "key times decrease at key " + std::to_string(k) + " (glTF 3.11: they increase)");
  }
  const std::size_t per_key = c.interpolation == Interpolation::cubic ? 3 : 1;
  if (c.values.size() != c.times.size() * per_key * width)
    return gltf_error(ErrorCode::count_mismatch, at + "/output",
                      std::to_string(c.values.size() / width) + " outputs for " + std::to_string(c.times.size()) +
                          " keys" + (per_key == 3 ? " (CUBICSPLINE needs three per key)" : ""));
  for (const float v : c.values)
    if (!std::isfinite(v)) return gltf_error(ErrorCode::bad_value, at + "/output", "an output value is not finite");
  return c;
}

namespace {

// Segment [k, k+1] holding t and the parameter u in [0, 1]; k + 1 == keys() means "at or
// after the last key".
struct Where {
  std::size_t k;
  double u;
};

Where locate(const Curve& c, double t) noexcept {
  const auto& ts = c.times;
  if (t <= ts.front()) return {0, 0};
  if (t >= ts.back()) return {ts.size() - 1, 0};
  const auto it = std::upper_bound(ts.begin(), ts.end(), static_cast<float>(t), [](float a, float b) { return a < b; });
  std::size_t k = static_cast<std::size_t>(it - ts.begin());
  k = k == 0 ? 0 : k - 1;
  // The comparison above was in float; refine in double.
  while (k + 1 < ts.size() && t >= ts[k + 1]) ++k;
  while (k > 0 && t < ts[k]) --k;
  if (k + 1 >= ts.size()) return {ts.size() - 1, 0};
  const double dt = double{ts[k + 1]} - ts[k];
  return {k, dt > 0 ? std::clamp((t - ts[k]) / dt, 0.0, 1.0) : 0.0};
}

std::size_t nearest_key(const Curve& c, double t, double snap) noexcept {
  if (!(snap > 0)) return c.keys();
  const auto& ts = c.times;
  const auto it = std::lower_bound(ts.begin(), ts.end(), static_cast<float>(t - snap));
  std::size_t best = c.keys();
  double best_d = snap;
  for (auto i = it; i != ts.end() && *i <= t + snap; ++i) {
    const double d = std::abs(double{*i} - t);
    if (d <= best_d) {
      best_d = d;
      best = static_cast<std::size_t>(i - ts.begin());
      if (d == 0) break;
    }
  }
  return best;
}

Quat quat_at(const float* p) noexcept { return {p[0], p[1], p[2], p[3]}; }

// glTF appendix C: cubic Hermite spline with the stored tangents scaled by the key interval.
void hermite(const Curve& c, std::size_t k, double u, double* out) noexcept {
  const unsigned w = c.width;
  const double td = double{c.times[k + 1]} - c.times[k];
  const float* v0 = c.values.data() + (3 * k + 1) * w;
  const float* b0 = c.values.data() + (3 * k + 2) * w;    // out-tangent of k
  const float* a1 = c.values.data() + (3 * (k + 1)) * w;  // in-tangent of k + 1
  const float* v1 = c.values.data() + (3 * (k + 1) + 1) * w;
  const double u2 = u * u, u3 = u2 * u;
  const double h00 = 2 * u3 - 3 * u2 + 1, h10 = u3 - 2 * u2 + u, h01 = -2 * u3 + 3 * u2, h11 = u3 - u2;
  for (unsigned i = 0; i < w; ++i) out[i] = h00 * v0[i] + td * h10 * b0[i] + h01 * v1[i] + td * h11 * a1[i];
}

}  // namespace

Quat sample_rotation(const Curve& c, double t, double snap) noexcept {
  if (c.keys() == 0 || c.width != 4) return Quat{};
  if (const std::size_t n = nearest_key(c, t, snap); n < c.keys()) return normalised(quat_at(c.key(n)));
  const Where w = locate(c, t);
  if (w.u == 0 || w.k + 1 >= c.keys() || c.interpolation == Interpolation::step) return normalised(quat_at(c.key(w.k)));
  if (c.interpolation == Interpolation::linear) return quat_slerp(quat_at(c.key(w.k)), quat_at(c.key(w.k + 1)), w.u);
  double v[4];
  hermite(c, w.k, w.u, v);
  return normalised(
      {static_cast<float>(v[0]), static_cast<float>(v[1]), static_cast<float>(v[2]), static_cast<float>(v[3])});
}

std::array<double, 3> sample_vec3(const Curve& c, double t, double snap) noexcept {
  if (c.keys() == 0 || c.width != 3) return {0, 0, 0};
  if (const std::size_t n = nearest_key(c, t, snap); n < c.keys()) {
    const float* k = c.key(n);
    return {k[0], k[1], k[2]};
  }
  const Where w = locate(c, t);
  const float* a = c.key(w.k);
  if (w.u == 0 || w.k + 1 >= c.keys() || c.interpolation == Interpolation::step) return {a[0], a[1], a[2]};
  if (c.interpolation == Interpolation::linear) {
    const float* b = c.key(w.k + 1);
    return {a[0] + (b[0] - a[0]) * w.u, a[1] + (b[1] - a[1]) * w.u, a[2] + (b[2] - a[2]) * w.u};
  }
  double v[3];
  hermite(c, w.k, w.u, v);
  return {v[0], v[1], v[2]};
}

}  // namespace mab::gltf
