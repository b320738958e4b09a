// Far Cry 2/3 clips compared rotation by rotation (legacy.hpp, diff_legacy_clips): each track
// becomes a DiffTrack sampled the way legacy_rotation_at samples it, and edit.hpp's
// diff_tracks compares them on the union of both clips' key times.
#include <mab/legacy.hpp>

#include <algorithm>
#include <cmath>
#include <string>

namespace mab {

namespace {

// The keyed track's rotation at a fractional frame: the slerp by frame distance between the
// stored keys around it (legacy_rotation_at's [guess]), held before the first and after the last.
Quat rotation_at(const LegacyRotationTrack& t, double frame) {
  if (t.frames.empty()) return {};
  const auto it = std::upper_bound(t.frames.begin(), t.frames.end(), frame, [](double f, std::uint16_t k) { return f < k; });
  if (it == t.frames.begin()) return t.keys.front();
  const auto i = static_cast<std::size_t>(it - t.frames.begin()) - 1;
  if (i + 1 == t.frames.size() || frame == t.frames[i]) return t.keys[i];
  return quat_slerp(t.keys[i], t.keys[i + 1], (frame - t.frames[i]) / (t.frames[i + 1] - t.frames[i]));
}

// A time on the clip's frame grid within rounding is that frame exactly.
double frame_of(double seconds, double rate) {
  const double f = seconds * rate;
  return std::abs(f - std::round(f)) < 1e-6 ? std::round(f) : f;
}

std::vector<DiffTrack> tracks_of(const LegacyClip& c) {
  std::vector<DiffTrack> out;
  const double rate = c.frame_rate > 0 ? double{c.frame_rate} : 1.0;  // a clip of constants alone has no rate
  for (const auto& t : c.rotations) {
    DiffTrack d;
    d.hash = t.bone;
    d.name = "bone_" + std::to_string(t.bone);
    for (const auto f : t.frames) d.times.push_back(f / rate);
    d.at = [&t, rate](double s) { return rotation_at(t, frame_of(s, rate)); };
    out.push_back(std::move(d));
  }
  for (const auto& r : c.constant_rotations) {
    DiffTrack d;
    d.hash = r.bone;
    d.name = "bone_" + std::to_string(r.bone);
    d.at = [q = r.rotation](double) { return q; };
    out.push_back(std::move(d));
  }
  if (!c.trajectory_rotation.empty()) {
    DiffTrack d;
    d.hash = legacy_trajectory_id;
    d.name = "trajectory";
    for (std::size_t f = 0; f < c.trajectory_rotation.size(); ++f) d.times.push_back(static_cast<double>(f) / rate);
    d.at = [&c, rate](double s) {
      const auto& q = c.trajectory_rotation;
      const double f = std::clamp(frame_of(s, rate), 0.0, static_cast<double>(q.size() - 1));
      const auto i = static_cast<std::size_t>(f);
      return i + 1 >= q.size() || f == static_cast<double>(i) ? q[i] : quat_slerp(q[i], q[i + 1], f - static_cast<double>(i));
    };
    out.push_back(std::move(d));
  }
  return out;
}

}  // namespace

ClipDiff diff_legacy_clips(const LegacyClip& a, const LegacyClip& b) { return diff_tracks(tracks_of(a), tracks_of(b)); }

}  // namespace mab
