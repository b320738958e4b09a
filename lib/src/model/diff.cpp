// The diff of two editable clips (edit.hpp: diff_clips): channels matched by bone hash, compared
// at the union of their key times. Pure functions of the clip: no codec, no container.
#include <mab/edit.hpp>

#include "model/sampling.hpp"

#include <mab/quat.hpp>

#include <cmath>
#include <functional>
#include <optional>
#include <unordered_map>

namespace mab {

using model::check_increasing;
using model::check_rate;
using model::sample_track;

namespace {

// One bone's channels, whatever the clip's model: key times in seconds (ascending; empty for a
// constant) and the value at any time in seconds.
struct DiffTrack {
  std::uint32_t hash = 0;
  std::string name;
  bool rotated = true;  // false: the bone holds no rotation
  std::vector<double> times;
  std::function<Quat(double)> at;
  bool translated = false;  // true: translation_at gives its translation
  std::vector<double> translation_times;
  std::function<Vec3(double)> translation_at;
  bool root_motion = false;  // matched with the other clip's root motion, not by hash
};

// Two key times this close (in seconds) are one time: 8 ticks at 120/s and 2 frames at 30/s.
constexpr double same_time_s = 1e-7;

// Two lists of key times merged; a single time 0 when neither has keys (two constants).
std::vector<double> union_times(const std::vector<double>& a, const std::vector<double>& b) {
  std::vector<double> t;
  t.reserve(a.size() + b.size());
  std::merge(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(t));
  std::vector<double> out;
  for (const double v : t)
    if (out.empty() || v - out.back() > same_time_s) out.push_back(v);
  if (out.empty()) out.push_back(0.0);
  return out;
}

// The index of the key of `times` at t, -1 when t falls between keys (or there are none).
std::ptrdiff_t key_at(const std::vector<double>& times, double t) {
  const auto it = std::lower_bound(times.begin(), times.end(), t - same_time_s);
  return it != times.end() && *it - t <= same_time_s ? it - times.begin() : -1;
}

double distance(const Vec3& a, const Vec3& b) noexcept {
  double sum = 0;
  for (unsigned j = 0; j < 3; ++j) sum += (double{a[j]} - double{b[j]}) * (double{a[j]} - double{b[j]});
  return std::sqrt(sum);
}

// One channel of a pair at the union of its key times: `diff(t)` is the difference at t seconds.
template <class F>
ChannelDiff diff_channel(const std::vector<double>& ta, const std::vector<double>& tb, F&& diff) {
  ChannelDiff d;
  const auto times = union_times(ta, tb);
  double sum = 0;
  for (const double t : times) {
    const double e = diff(t);
    sum += e;
    if (e > d.max) d.max = e, d.worst_time_s = t;
  }
  d.times = times.size();
  d.mean = sum / static_cast<double>(times.size());
  d.key_a = key_at(ta, d.worst_time_s);
  d.key_b = key_at(tb, d.worst_time_s);
  return d;
}

// A pair with a channel in both (the caller has listed the channels one of them lacks).
BoneDiff diff_pair(const DiffTrack& a, const DiffTrack& b) {
  BoneDiff d;
  d.hash = a.hash;
  d.name = !a.name.empty() ? a.name : b.name;
  d.root_motion = a.root_motion;
  d.rotated = a.rotated && b.rotated;
  if (d.rotated) {
    const auto r = diff_channel(a.times, b.times, [&](double t) { return angular_error_deg(a.at(t), b.at(t)); });
    d.max_deg = r.max, d.mean_deg = r.mean, d.worst_time_s = r.worst_time_s, d.times = r.times;
    d.key_a = r.key_a, d.key_b = r.key_b;
    d.rotation_a = a.at(d.worst_time_s), d.rotation_b = b.at(d.worst_time_s);
  }
  if (a.translated && b.translated) {
    auto& t = d.translation.emplace(diff_channel(a.translation_times, b.translation_times, [&](double s) {
      return distance(a.translation_at(s), b.translation_at(s));
    }));
    t.value_a = a.translation_at(t.worst_time_s), t.value_b = b.translation_at(t.worst_time_s);
  }
  return d;
}

// A pair's channels: the ones both hold compared, the others listed as held by one only.
void diff_matched(const DiffTrack& ta, const DiffTrack& tb, ClipDiff& out) {
  const bool rotation_differs = ta.rotated != tb.rotated, translation_differs = ta.translated != tb.translated;
  if (ta.root_motion) {
    out.root_rotation_kind_differs = rotation_differs;
    out.root_translation_kind_differs = translation_differs;
  } else {
    if (rotation_differs) out.rotation_kind_differs.push_back(ta.hash);
    if (translation_differs) out.translation_kind_differs.push_back(ta.hash);
  }
  if (!(ta.rotated && tb.rotated) && !(ta.translated && tb.translated)) return;
  out.bones.push_back(diff_pair(ta, tb));
  const BoneDiff& d = out.bones.back();
  out.max_deg = std::max(out.max_deg, d.max_deg);
  if (d.translation) out.max_translation = std::max(out.max_translation, d.translation->max);
}

// A clip's bone as a DiffTrack: its keys at key_times / key_rate seconds. A time on the clip's
// own grid within rounding (8 ticks at 120/s read at 30/s) is that key exactly.
double key_units(const Clip& c, double seconds) {
  double u = seconds * c.key_rate;
  if (std::abs(u - std::round(u)) < 1e-6) u = std::round(u);
  return u;
}

std::vector<double> key_seconds(const Clip& c) {
  std::vector<double> out;
  for (const auto k : c.key_times) out.push_back(k / c.key_rate);
  return out;
}

DiffTrack clip_track(const Clip& c, const ClipBone& b) {
  DiffTrack t;
  t.hash = b.hash;
  t.name = b.name;
  t.rotated = b.kind() != BoneKind::none;
  if (b.kind() == BoneKind::animated) t.times = key_seconds(c);
  t.at = [&c, &b](double seconds) { return sample_bone(c, b, key_units(c, seconds)); };
  if (!b.translations.empty()) {
    t.translated = true;
    t.translation_times = key_seconds(c);
    t.translation_at = [&c, &b](double s) { return sample_track(c.key_times, b.translations, key_units(c, s)); };
  } else if (b.constant_translation) {
    t.translated = true;
    t.translation_at = [v = *b.constant_translation](double) { return v; };
  }
  return t;
}

// The root motion (format 10.3) as a track; nullopt when the clip has none.
std::optional<DiffTrack> root_track(const Clip& c) {
  const RootMotion& m = c.root_motion;
  if (m.empty()) return std::nullopt;
  DiffTrack t;
  t.name = "root motion";
  t.root_motion = true;
  t.rotated = !m.rotations.empty();
  if (t.rotated) t.times = key_seconds(c);
  t.at = [&c, &m](double s) { return sample_track(c.key_times, m.rotations, key_units(c, s)); };
  t.translated = !m.translations.empty();
  if (t.translated) t.translation_times = key_seconds(c);
  t.translation_at = [&c, &m](double s) { return sample_track(c.key_times, m.translations, key_units(c, s)); };
  return t;
}

// For each track of `a`, the track of `b` it is compared with: one of the same hash, of the same
// kind first, then in order. A Far Cry 2/3 bone both keyed and constant is two bones of one id
// (docs/legacy.md); with one of the two removed, pairing by occurrence met the keyed track with
// the other clip's constant and reported a difference no frame of the bone shows.
std::vector<std::optional<std::size_t>> pair_tracks(const std::vector<DiffTrack>& a, const std::vector<DiffTrack>& b) {
  std::unordered_map<std::uint32_t, std::vector<std::size_t>> in_b;
  for (std::size_t i = 0; i < b.size(); ++i)
    if (!b[i].root_motion) in_b[b[i].hash].push_back(i);
  const auto kind = [](const DiffTrack& t) { return std::pair{t.rotated, t.times.empty()}; };
  std::vector<std::optional<std::size_t>> to(a.size());
  std::vector<bool> taken(b.size(), false);
  for (const bool same_kind : {true, false})
    for (std::size_t i = 0; i < a.size(); ++i) {
      const auto it = in_b.find(a[i].hash);
      if (a[i].root_motion || to[i] || it == in_b.end()) continue;
      for (const std::size_t k : it->second)
        if (!taken[k] && (!same_kind || kind(a[i]) == kind(b[k]))) {
          to[i] = k;
          taken[k] = true;
          break;
        }
    }
  return to;
}

// The two clips' tracks compared, matched by pair_tracks.
ClipDiff diff_tracks(const std::vector<DiffTrack>& a, const std::vector<DiffTrack>& b) {
  ClipDiff out;
  const auto to = pair_tracks(a, b);
  std::vector<bool> matched(b.size(), false);
  const DiffTrack* root_a = nullptr;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (a[i].root_motion) {
      root_a = &a[i];
      continue;
    }
    if (!to[i]) {
      out.only_in_a.push_back(a[i].hash);
      continue;
    }
    matched[*to[i]] = true;
    diff_matched(a[i], b[*to[i]], out);
  }
  const DiffTrack* root_b = nullptr;
  for (std::size_t i = 0; i < b.size(); ++i) {
    if (b[i].root_motion) root_b = &b[i];
    else if (!matched[i]) out.only_in_b.push_back(b[i].hash);
  }
  out.root_motion_only_in_a = root_a && !root_b;
  out.root_motion_only_in_b = root_b && !root_a;
  if (root_a && root_b) diff_matched(*root_a, *root_b, out);
  return out;
}

}  // namespace

bool ClipDiff::identical() const noexcept {
  return max_deg == 0 && max_translation == 0 && only_in_a.empty() && only_in_b.empty() &&
         rotation_kind_differs.empty() && translation_kind_differs.empty() && !root_motion_only_in_a &&
         !root_motion_only_in_b && !root_rotation_kind_differs && !root_translation_kind_differs;
}

Result<ClipDiff> diff_clips(const Clip& a, const Clip& b) {
  MAB_TRY(check_rate(a));
  MAB_TRY(check_rate(b));
  MAB_TRY(check_increasing(a, "diff (first clip)"));
  MAB_TRY(check_increasing(b, "diff (second clip)"));
  std::vector<DiffTrack> ta, tb;
  for (const auto& bone : a.bones) ta.push_back(clip_track(a, bone));
  for (const auto& bone : b.bones) tb.push_back(clip_track(b, bone));
  if (auto r = root_track(a)) ta.push_back(std::move(*r));
  if (auto r = root_track(b)) tb.push_back(std::move(*r));
  return diff_tracks(ta, tb);
}

}  // namespace mab
