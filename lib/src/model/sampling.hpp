// Sampling and checks the clip's edits and its diff share (edit.cpp, diff.cpp): a per-key track
// at any time, and the clip's key rate and key times checked before either uses them.
#pragma once

#include <mab/clip.hpp>
#include <mab/quat.hpp>
#include <mab/result.hpp>

#include <algorithm>
#include <cstdint>
#include <vector>

namespace mab::model {

Status check_increasing(const Clip& c, const char* what);
Status check_rate(const Clip& c);

inline Vec3 lerp(const Vec3& a, const Vec3& b, double u) noexcept {
  Vec3 out;
  for (unsigned j = 0; j < 3; ++j) out[j] = static_cast<float>(double{a[j]} + (double{b[j]} - double{a[j]}) * u);
  return out;
}
inline Quat between(const Quat& a, const Quat& b, double u) noexcept { return quat_slerp(a, b, u); }
inline Vec3 between(const Vec3& a, const Vec3& b, double u) noexcept { return lerp(a, b, u); }

// A per-key track at time t (key units): its key there, or the interpolation between the keys
// around t, clamped to the first and last key. `times` must increase and match the track.
template <class T>
T sample_track(const std::vector<std::uint32_t>& times, const std::vector<T>& track, double t) noexcept {
  if (track.empty() || times.size() != track.size()) return T{};
  if (t <= times.front()) return track.front();
  if (t >= times.back()) return track.back();
  const auto it = std::upper_bound(times.begin(), times.end(), t, [](double v, std::uint32_t k) { return v < k; });
  const auto k = static_cast<std::size_t>(it - times.begin());
  const double t0 = times[k - 1], t1 = times[k];
  if (t == t0) return track[k - 1];
  return between(track[k - 1], track[k], (t - t0) / (t1 - t0));
}

}  // namespace mab::model
