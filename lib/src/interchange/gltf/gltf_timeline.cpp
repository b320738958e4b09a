// Which glTF keys are edits, which are a tool's resampling, and which key times a block
// needs (see gltf_timeline.hpp, docs/gltf.md "Which keys are edits").
#include "interchange/gltf/gltf_timeline.hpp"

#include <mab/clip.hpp>

#include <algorithm>
#include <cmath>
#include <numeric>

namespace mab::gltf {

namespace {

constexpr double pi = 3.14159265358979323846;

double dot4(const Value& a, const Value& b) noexcept { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3]; }

Value unit4(const Value& q) noexcept {
  const double n = std::sqrt(dot4(q, q));
  if (!(n > 0) || !std::isfinite(n)) return {0, 0, 0, 1};
  return {q[0] / n, q[1] / n, q[2] / n, q[3] / n};
}

Value slerp(const Value& a, Value b, double u) noexcept {
  double d = dot4(a, b);
  if (d < 0) b = {-b[0], -b[1], -b[2], -b[3]}, d = -d;
  double wa = 1 - u, wb = u;
  if (d < 0.9999995) {
    const double th = std::acos(std::min(d, 1.0));
    const double s = std::sin(th);
    wa = std::sin((1 - u) * th) / s, wb = std::sin(u * th) / s;
  }
  return unit4({wa * a[0] + wb * b[0], wa * a[1] + wb * b[1], wa * a[2] + wb * b[2], wa * a[3] + wb * b[3]});
}

Value nlerp(const Value& a, Value b, double u) noexcept {
  if (dot4(a, b) < 0) b = {-b[0], -b[1], -b[2], -b[3]};
  return unit4(
      {a[0] + (b[0] - a[0]) * u, a[1] + (b[1] - a[1]) * u, a[2] + (b[2] - a[2]) * u, a[3] + (b[3] - a[3]) * u});
}

// Segment of `t` holding s: keys k and k + 1 and the parameter; k + 1 == size: at or past
// the ends (u = 0 with k the nearer end).
struct Where {
  std::size_t k = 0;
  double u = 0;
  bool inside = false;
};

Where locate(const std::vector<double>& t, double s) noexcept {
  if (t.empty() || s <= t.front()) return {0, 0, false};
  if (s >= t.back()) return {t.size() - 1, 0, false};
  const auto it = std::upper_bound(t.begin(), t.end(), s);
  const auto k = static_cast<std::size_t>(it - t.begin()) - 1;
  const double dt = t[k + 1] - t[k];
  return {k, dt > 0 ? (s - t[k]) / dt : 0.0, true};
}

// Index in sorted `times` (indices `idx` into it) of an entry within `snap` of s, or npos.
std::size_t find_near(std::span<const double> times, const std::vector<std::size_t>& idx, double s, double snap) {
  const auto it =
      std::lower_bound(idx.begin(), idx.end(), s - snap, [&](std::size_t i, double v) { return times[i] < v; });
  return it != idx.end() && times[*it] <= s + snap ? static_cast<std::size_t>(it - idx.begin()) : idx.size();
}

}  // namespace

Metric Metric::rotation(double tolerance_deg) noexcept {
  Metric m;
  m.rotation_ = true;
  m.tolerance_ = tolerance_deg;
  m.cos_half_ = std::cos(tolerance_deg * pi / 360.0);
  return m;
}

Metric Metric::translation(double tolerance_units) noexcept {
  Metric m;
  m.rotation_ = false;
  m.tolerance_ = tolerance_units;
  return m;
}

bool Metric::near(const Value& a, const Value& b) const noexcept {
  if (rotation_) {
    const double na = dot4(a, a), nb = dot4(b, b);
    return na > 0 && nb > 0 && std::abs(dot4(a, b)) / std::sqrt(na * nb) >= cos_half_;
  }
  for (unsigned i = 0; i < 3; ++i)
    if (!(std::abs(b[i] - a[i]) <= tolerance_ * std::max(1.0, std::abs(a[i])))) return false;
  return true;
}

double Metric::distance(const Value& a, const Value& b) const noexcept {
  if (rotation_) {
    const double na = dot4(a, a), nb = dot4(b, b);
    if (!(na > 0 && nb > 0)) return 180;
    return 360.0 / pi * std::acos(std::min(1.0, std::abs(dot4(a, b)) / std::sqrt(na * nb)));
  }
  double d = 0;
  for (unsigned i = 0; i < 3; ++i) d = std::max(d, std::abs(b[i] - a[i]));
  return d;
}

Value Metric::interpolate(const Value& a, const Value& b, double u) const noexcept {
  if (rotation_) return slerp(a, b, u);
  return {a[0] + (b[0] - a[0]) * u, a[1] + (b[1] - a[1]) * u, a[2] + (b[2] - a[2]) * u, 0};
}

bool Metric::on_segment(const Value& v, const Value& a, const Value& b, double u) const noexcept {
  if (!rotation_) return near(v, interpolate(a, b, u));
  // A tool evaluates a step in float arithmetic over the whole turn it spans: Blender 3.4 comes
  // within 1e-3 degree on 130-degree steps. Samples between keys get 2e-5 of the step on top.
  const Metric wide = rotation(tolerance_ + 2e-5 * distance(a, b));
  return wide.near(v, interpolate(a, b, u)) || wide.near(v, nlerp(a, b, u));
}

Value Keys::at(const Metric& m, double s) const noexcept {
  if (t.empty()) return {0, 0, 0, m.is_rotation() ? 1.0 : 0.0};
  const Where w = locate(t, s);
  if (!w.inside || w.u == 0) return v[w.k];
  return m.interpolate(v[w.k], v[w.k + 1], w.u);
}

bool Keys::explains(const Metric& m, double s, const Value& value) const noexcept {
  if (t.empty()) return false;
  const Where w = locate(t, s);
  // A file's float time next to a key's double one is that key (1e-6 of a step moves a slerp
  // by at most 2e-4 degree).
  if (!w.inside || w.u < 1e-6) return m.near(value, v[w.k]);
  if (w.u > 1 - 1e-6) return m.near(value, v[w.k + 1]);
  return m.on_segment(value, v[w.k], v[w.k + 1], w.u);
}

namespace {

// Where between a and b a rotation v lies (its projection onto their plane): the parameter of
// nlerp and that of slerp, or nothing when it is not between them.
std::optional<std::pair<double, double>> rotation_between(const Value& a, const Value& b, const Value& v) {
  const double aa = dot4(a, a), bb = dot4(b, b), ab = dot4(a, b), va = dot4(v, a), vb = dot4(v, b);
  const double det = aa * bb - ab * ab;
  if (!(det > 1e-12)) return std::nullopt;
  const double alpha = (va * bb - vb * ab) / det, beta = (vb * aa - va * ab) / det;
  if (!(alpha + beta > 0)) return std::nullopt;
  const double norm = std::sqrt(aa * (alpha * alpha * aa + 2 * alpha * beta * ab + beta * beta * bb));
  const double span = std::acos(std::clamp(ab / std::sqrt(aa * bb), -1.0, 1.0));
  const double to_v = norm > 0 ? std::acos(std::clamp((alpha * aa + beta * ab) / norm, -1.0, 1.0)) : 0.0;
  return std::make_pair(beta / (alpha + beta), span > 0 ? to_v / span : 0.0);
}

}  // namespace

bool on_path(const Metric& m, const Value& v, std::span<const Value> keys) noexcept {
  for (std::size_t i = 0; i < keys.size(); ++i) {
    if (m.near(v, keys[i])) return true;
    if (i + 1 == keys.size()) break;
    const Value& a = keys[i];
    Value b = keys[i + 1], w = v;
    std::pair<double, double> u{-1.0, -1.0};
    if (m.is_rotation()) {
      if (dot4(a, b) < 0) b = {-b[0], -b[1], -b[2], -b[3]};
      if (dot4(a, w) < 0) w = {-w[0], -w[1], -w[2], -w[3]};
      if (const auto at = rotation_between(a, b, w)) u = *at;
    } else {
      double num = 0, den = 0;
      for (unsigned c = 0; c < 3; ++c) num += (v[c] - a[c]) * (b[c] - a[c]), den += (b[c] - a[c]) * (b[c] - a[c]);
      if (den > 0) u = {num / den, num / den};
    }
    for (const double x : {u.first, u.second})
      if (x >= 0 && x <= 1 && m.on_segment(w, a, b, x)) return true;
  }
  return false;
}

double whole_frame_rate(std::span<const std::uint32_t> units, double rate) noexcept {
  return mab::whole_frame_rate(units, rate);
}

std::optional<Grid> uniform_grid(std::span<const double> times) noexcept {
  if (times.size() < 3) return std::nullopt;
  const double step = (times.back() - times.front()) / static_cast<double>(times.size() - 1);
  if (!(step > 0)) return std::nullopt;
  for (std::size_t i = 0; i < times.size(); ++i)
    if (std::abs(times[i] - (times.front() + static_cast<double>(i) * step)) > 1e-3 * step) return std::nullopt;
  return Grid{times.front(), step, times.size()};
}

namespace {

// Every key and check point of the file explained by the template's keys.
bool repeats_template(const Metric& m, const TrackEvidence& e) {
  for (const auto* list : {&e.keys, &e.checks})
    for (const std::size_t i : *list)
      if (!e.tmpl->explains(m, e.times[i], e.file[i])) return false;
  return true;
}

// How far a value read between the file's samples at time s may be from what the tool had
// there: the larger of the error resampling puts on the template's own curve at s, and the
// corner the file's samples point to (each side's last step carried on to s) against the
// straight read between the two samples around s, which cuts that corner.
double resampling_error(const Metric& m, const TrackEvidence& e, double s) {
  std::vector<double> kt(e.keys.size());
  for (std::size_t i = 0; i < kt.size(); ++i) kt[i] = e.times[e.keys[i]];
  const Where w = locate(kt, s);
  const Value t0 = e.tmpl->at(m, kt[w.k]);
  double error = m.distance(e.tmpl->at(m, s), w.inside ? m.interpolate(t0, e.tmpl->at(m, kt[w.k + 1]), w.u) : t0);
  if (!w.inside || w.k == 0 || w.k + 2 >= kt.size()) return error;
  auto file = [&](std::size_t k) { return e.file[e.keys[k]]; };
  const Value read = m.interpolate(file(w.k), file(w.k + 1), w.u);
  const Value left = m.interpolate(file(w.k - 1), file(w.k), 1 + (s - kt[w.k]) / (kt[w.k] - kt[w.k - 1]));
  const Value right = m.interpolate(file(w.k + 1), file(w.k + 2), -(kt[w.k + 1] - s) / (kt[w.k + 2] - kt[w.k + 1]));
  return std::max({error, m.distance(read, left), m.distance(read, right)});
}

}  // namespace

TrackVerdict judge_track(const Metric& m, const TrackEvidence& e, double snap) {
  TrackVerdict v;
  const std::size_t n = e.block.size();
  std::vector<double> kt(e.keys.size());
  for (std::size_t i = 0; i < kt.size(); ++i) kt[i] = e.times[e.keys[i]];
  if (auto grid = uniform_grid(kt)) {
    // Both lists are increasing: one walk finds a block time with no file key near it.
    std::size_t i = 0;
    for (const std::size_t b : e.block) {
      while (i < kt.size() && kt[i] < e.times[b] - snap) ++i;
      if (i == kt.size() || kt[i] > e.times[b] + snap) {
        v.resampled = grid;
        break;
      }
    }
  }
  auto matches = [&](std::size_t k) {
    const std::size_t b = e.block[k];
    return m.near(e.file[b], e.block_tmpl[k]) || e.tmpl->explains(m, e.times[b], e.file[b]);
  };
  // A resampled file's values at the block's times are its interpolation between samples,
  // not what the tool had there: only its own keys tell whether a track was touched.
  v.untouched = repeats_template(m, e);
  for (std::size_t k = 0; v.untouched && !v.resampled && k < n; ++k) v.untouched = matches(k);
  v.values.assign(e.block_tmpl.begin(), e.block_tmpl.end());
  v.changed.assign(n, 0);
  if (v.untouched) {
    v.matched = n;
    for (std::size_t k = 0; k < n && !v.resampled; ++k)
      v.max_matched = std::max(v.max_matched, m.distance(e.file[e.block[k]], e.block_tmpl[k]));
    return v;
  }
  for (std::size_t k = 0; k < n; ++k) {
    const std::size_t b = e.block[k];
    if (matches(k)) {
      ++v.matched;
      v.max_matched = std::max(v.max_matched, m.distance(e.file[b], e.block_tmpl[k]));
      continue;
    }
    // A resampled file with no sample at this key: its value there is an interpolation.
    if (v.resampled && find_near(e.times, e.keys, e.times[b], snap) == e.keys.size()) {
      // Kept when every sample this key shapes (from one neighbour to the other) is the
      // template's. The samples at the neighbours count: on a grid with none strictly between
      // them (every other frame), they are all that tells whether the edit reached this key.
      const double lo = k > 0 ? e.times[e.block[k - 1]] : -1e300;
      const double hi = k + 1 < n ? e.times[e.block[k + 1]] : 1e300;
      bool region_same = true;
      for (const std::size_t i : e.keys)
        if (e.times[i] >= lo - snap && e.times[i] <= hi + snap && !e.tmpl->explains(m, e.times[i], e.file[i]))
          region_same = false;
      if (region_same) {
        ++v.matched;
        continue;
      }
      v.between.push_back({k, resampling_error(m, e, e.times[b])});
    }
    v.values[k] = e.file[b];
    v.changed[k] = 1;
  }
  return v;
}

namespace {

// The keys a track plays: its block values, and the file's value at each added time it has
// a key of its own at (a key on its interpolation elsewhere changes nothing).
Keys track_keys(const TrackEvidence& e, const TrackVerdict& v, std::span<const std::uint32_t> block_units,
                std::span<const AddedTime> added, double rate, double snap) {
  Keys k;
  std::size_t a = 0;
  for (std::size_t i = 0; i <= block_units.size(); ++i) {
    const std::uint32_t limit = i < block_units.size() ? block_units[i] : UINT32_MAX;
    for (; a < added.size() && added[a].unit < limit; ++a) {
      const double s = e.times[added[a].source];
      const bool own = !v.untouched && !v.resampled &&
                       (find_near(e.times, e.keys, s, snap) < e.keys.size() ||
                        find_near(e.times, e.checks, s, snap) < e.checks.size());
      if (!own) continue;
      k.t.push_back(added[a].unit / rate);
      k.v.push_back(e.file[added[a].source]);
    }
    if (i == block_units.size()) break;
    k.t.push_back(e.times[e.block[i]]);
    k.v.push_back(v.values[i]);
  }
  return k;
}

}  // namespace

TimelinePlan plan_timeline(const Metric& m, std::span<const TimelineTrack> tracks, std::span<const std::uint32_t> units,
                           double rate, bool add, double snap) {
  TimelinePlan plan;
  if (tracks.empty()) return plan;
  const std::span<const double> times = tracks.front().evidence->times;
  for (;;) {
    // Every output time so far, in seconds: a file key this close to one is a key there.
    std::vector<double> at;
    for (const auto u : units) at.push_back(u / rate);
    for (const auto& a : plan.added) at.push_back(a.unit / rate), at.push_back(times[a.source]);
    std::sort(at.begin(), at.end());
    std::vector<Uncarried> needed;
    for (std::size_t ti = 0; ti < tracks.size(); ++ti) {
      const auto& e = *tracks[ti].evidence;
      const Keys keys = track_keys(e, *tracks[ti].verdict, units, plan.added, rate, snap);
      for (const auto* list : {&e.keys, &e.checks})
        for (const std::size_t i : *list) {
          const double s = times[i];
          const auto it = std::lower_bound(at.begin(), at.end(), s - snap);
          if (it != at.end() && *it <= s + snap) continue;
          if (keys.explains(m, s, e.file[i])) continue;
          needed.push_back({ti, i, m.distance(e.file[i], keys.at(m, s))});
        }
    }
    // Worst first, one new time per gap between the output's times this round: a key there
    // changes the interpolation of that gap alone, and may explain the others in it (Blender's
    // frames next to a key set on a new frame).
    std::sort(needed.begin(), needed.end(),
              [](const Uncarried& a, const Uncarried& b) { return a.distance > b.distance; });
    std::vector<std::size_t> gaps_used;
    std::vector<AddedTime> fresh;
    std::vector<Uncarried> stuck;
    for (auto& u : needed) {
      const double s = times[u.at];
      const auto gap = static_cast<std::size_t>(std::upper_bound(at.begin(), at.end(), s) - at.begin());
      if (std::find(gaps_used.begin(), gaps_used.end(), gap) != gaps_used.end()) continue;
      const double r = std::round(s * rate);
      if (!add) {
        stuck.push_back(u);
        continue;
      }
      if (!(r >= 0 && r <= 65535)) {
        u.why = Uncarried::Why::off_limits;
        stuck.push_back(u);
        continue;
      }
      const auto unit = static_cast<std::uint32_t>(r);
      if (std::binary_search(units.begin(), units.end(), unit) ||
          std::any_of(plan.added.begin(), plan.added.end(), [&](const AddedTime& a) { return a.unit == unit; })) {
        u.why = Uncarried::Why::collides;
        u.unit = unit;
        stuck.push_back(u);
        continue;
      }
      // Two keys rounding to one new time: the first is added, the second judged again next round.
      if (std::none_of(fresh.begin(), fresh.end(), [&](const AddedTime& a) { return a.unit == unit; })) {
        fresh.push_back({unit, u.at});
        gaps_used.push_back(gap);
        plan.max_shift_s = std::max(plan.max_shift_s, std::abs(unit / rate - s));
      }
    }
    if (fresh.empty()) {
      plan.uncarried = std::move(stuck);
      break;
    }
    plan.added.insert(plan.added.end(), fresh.begin(), fresh.end());
    std::sort(plan.added.begin(), plan.added.end(),
              [](const AddedTime& a, const AddedTime& b) { return a.unit < b.unit; });
  }
  return plan;
}

std::vector<Value> values_on_timeline(const Metric& m, const TrackEvidence& e, const TrackVerdict& v,
                                      std::span<const std::uint32_t> block_units, std::span<const AddedTime> added,
                                      double rate, double snap) {
  const Keys own = track_keys(e, v, block_units, added, rate, snap);
  std::vector<Value> out;
  std::size_t a = 0, o = 0;
  for (std::size_t i = 0; i <= block_units.size(); ++i) {
    const std::uint32_t limit = i < block_units.size() ? block_units[i] : UINT32_MAX;
    for (; a < added.size() && added[a].unit < limit; ++a) {
      const double s = added[a].unit / rate;
      // track_keys put the file's own key here, or nothing: then the interpolation.
      while (o < own.t.size() && own.t[o] < s) ++o;
      out.push_back(o < own.t.size() && own.t[o] == s ? own.v[o] : own.at(m, s));
    }
    if (i == block_units.size()) break;
    out.push_back(v.values[i]);
  }
  return out;
}

}  // namespace mab::gltf
