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

// A per-frame track (translations, the trajectory) at a fractional frame: linear between frames,
// held before the first and after the last.
template <class T, class Mix>
T per_frame_at(const std::vector<T>& v, double frame, Mix mix) {
  const double f = std::clamp(frame, 0.0, static_cast<double>(v.size() - 1));
  const auto i = static_cast<std::size_t>(f);
  return i + 1 >= v.size() || f == static_cast<double>(i) ? v[i] : mix(v[i], v[i + 1], f - static_cast<double>(i));
}

Vec3 lerp(const Vec3& a, const Vec3& b, double u) {
  Vec3 out;
  for (unsigned j = 0; j < 3; ++j) out[j] = static_cast<float>(double{a[j]} + (double{b[j]} - double{a[j]}) * u);
  return out;
}

std::vector<double> frame_times(std::size_t frames, double rate) {
  std::vector<double> out;
  for (std::size_t f = 0; f < frames; ++f) out.push_back(static_cast<double>(f) / rate);
  return out;
}

// The bone's first entry in `out` (its keyed rotation, else its constant one), a new entry
// without rotation when it has none.
DiffTrack& entry_of(std::vector<DiffTrack>& out, std::uint32_t bone) {
  for (auto& d : out)
    if (d.hash == bone && !d.root_motion) return d;
  DiffTrack d;
  d.hash = bone;
  d.name = "bone_" + std::to_string(bone);
  d.rotated = false;
  out.push_back(std::move(d));
  return out.back();
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
  for (const auto& t : c.translations) {
    if (t.frames.empty()) continue;
    DiffTrack& d = entry_of(out, t.bone);
    d.translated = true;
    d.translation_times = frame_times(t.frames.size(), rate);
    d.translation_at = [&t, rate](double s) { return per_frame_at(t.frames, frame_of(s, rate), lerp); };
  }
  for (const auto& ct : c.constant_translations) {
    DiffTrack& d = entry_of(out, ct.bone);
    if (d.translated) continue;
    d.translated = true;
    d.translation_at = [v = ct.translation](double) { return v; };
  }
  if (!c.trajectory_rotation.empty() || !c.trajectory_translation.empty()) {
    DiffTrack d;
    d.hash = legacy_trajectory_id;
    d.name = "trajectory";
    d.root_motion = true;
    d.rotated = !c.trajectory_rotation.empty();
    d.times = frame_times(c.trajectory_rotation.size(), rate);
    d.at = [&c, rate](double s) {
      return c.trajectory_rotation.empty() ? Quat{} : per_frame_at(c.trajectory_rotation, frame_of(s, rate), quat_slerp);
    };
    d.translated = !c.trajectory_translation.empty();
    d.translation_times = frame_times(c.trajectory_translation.size(), rate);
    d.translation_at = [&c, rate](double s) {
      return c.trajectory_translation.empty() ? Vec3{} : per_frame_at(c.trajectory_translation, frame_of(s, rate), lerp);
    };
    out.push_back(std::move(d));
  }
  return out;
}

}  // namespace

ClipDiff diff_legacy_clips(const LegacyClip& a, const LegacyClip& b) { return diff_tracks(tracks_of(a), tracks_of(b)); }

}  // namespace mab
