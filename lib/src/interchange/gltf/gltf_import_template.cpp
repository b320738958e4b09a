// glTF -> an 'aNi' block at the template's key times (docs/gltf.md, "Which keys are edits"):
// each bone's track judged against the template (gltf_timeline.hpp), key times added where the
// glTF holds keys between the template's, resampled files refused where reading them would
// move keys.
#include "interchange/gltf/gltf_import_shared.hpp"
#include <mab/text.hpp>

#include "interchange/gltf/gltf_names.hpp"
#include "interchange/gltf/gltf_timeline.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <unordered_map>

namespace mab::gltf_in {

namespace {

// Bones times evaluated: beyond this the glTF holds far more distinct key times than any clip.
constexpr std::size_t max_evaluations = std::size_t{1} << 23;

struct BlockEvidence {
  std::vector<double> times;                   // every time the file is evaluated at
  std::vector<double> block_s;                 // the template's key times, in seconds
  std::vector<std::size_t> block;              // their index in `times`
  std::vector<std::vector<gltf::Value>> held;  // per constant bone: its value at every block time
  std::vector<gltf::Keys> tmpl;                // per bone: its template keys (none: empty)
  std::vector<std::vector<gltf::Value>> file;  // per bone with a channel: its rotation at `times`
  std::vector<gltf::TrackEvidence> evidence;   // per bone; tmpl == nullptr without a channel
};

// A bone without a rotation track is held at its rest pose (identity on export's rigs): a
// channel that moves it is a new track.
gltf::Keys template_keys(const ClipBone& b, const std::vector<double>& block_s) {
  gltf::Keys k;
  if (b.kind() == BoneKind::none) {
    k.t = {block_s.empty() ? 0.0 : block_s.front()};
    k.v = {to_value(Quat{})};
  } else if (b.kind() == BoneKind::animated) {
    k.t = block_s;
    for (const auto& q : b.keys) k.v.push_back(to_value(q));
  } else if (b.kind() == BoneKind::constant) {
    k.t = {block_s.empty() ? 0.0 : block_s.front()};
    k.v = {to_value(b.constant)};
  }
  return k;
}

// Every bone's template keys, the file's rotation of every bone with a channel at the
// template's times, at its own key times and at check points, and what judge_track needs.
Status gather(const Context& ctx, const Channels& channels, const Clip& orig, const BoneNodes& node_of,
              const gltf::Metric& metric, double snap, BlockEvidence& ev) {
  const std::size_t n = orig.bones.size();
  for (const auto t : orig.key_times) ev.block_s.push_back(t / orig.key_rate);
  const auto parent = rest_relative(ctx.options, true) ? gltf::parents(ctx.model) : std::nullopt;
  std::vector<std::vector<double>> keys(n), checks(n);
  std::vector<bool> has_node(n, false);
  std::vector<double> all;
  std::unordered_map<std::uint32_t, unsigned> seen;
  ev.tmpl.resize(n);
  std::size_t tracks = 0;
  int last = -1;  // the last bone whose times went into `all`
  for (std::size_t i = 0; i < n; ++i) {
    const ClipBone& b = orig.bones[i];
    const unsigned occ = seen[b.hash]++;
    ev.tmpl[i] = template_keys(b, ev.block_s);
    const auto it = node_of.find({b.hash, occ});
    if (it == node_of.end()) continue;
    has_node[i] = true;
    ++tracks;
    node_key_times(channels.rotation, parent ? &*parent : nullptr, it->second, keys[i], checks[i]);
    // Channels mostly share one time accessor: its times go in once.
    if (last >= 0 && keys[i] == keys[static_cast<std::size_t>(last)] &&
        checks[i] == checks[static_cast<std::size_t>(last)])
      continue;
    last = static_cast<int>(i);
    all.insert(all.end(), keys[i].begin(), keys[i].end());
    all.insert(all.end(), checks[i].begin(), checks[i].end());
  }
  ev.times = evaluation_times(ev.block_s, std::move(all), snap / 10);
  if (tracks * ev.times.size() > max_evaluations)
    return make_error(ErrorCode::limit_exceeded, no_offset, "animation",
                      std::to_string(tracks) + " bones at " + std::to_string(ev.times.size()) +
                          " distinct key times are more evaluations than the import allows");
  const TemplateRotation tmpl = [&](std::size_t i, std::size_t k) {
    return to_quat(ev.tmpl[i].at(metric, ev.times[k]));
  };
  MAB_ASSIGN(auto samples, reconstruct(ctx, channels.rotation, orig, node_of, ev.times, snap, true, tmpl));
  ev.file.resize(n);
  ev.evidence.resize(n);
  ev.block = index_of(ev.times, ev.block_s);
  ev.held.resize(n);
  int prev = -1;  // the last bone given evidence
  for (std::size_t i = 0; i < n; ++i) {
    if (!has_node[i] || samples[i].empty()) continue;
    for (const auto& q : samples[i]) ev.file[i].push_back(to_value(q));
    gltf::TrackEvidence& e = ev.evidence[i];
    e.tmpl = &ev.tmpl[i];
    e.times = ev.times;
    e.file = ev.file[i];
    e.block = ev.block;
    const ClipBone& b = orig.bones[i];
    if (b.kind() != BoneKind::animated)
      ev.held[i].assign(ev.block.size(), to_value(b.kind() == BoneKind::constant ? b.constant : Quat{}));
    e.block_tmpl = b.kind() == BoneKind::animated ? std::span<const gltf::Value>(ev.tmpl[i].v) : ev.held[i];
    const auto* same = prev >= 0 && keys[i] == keys[static_cast<std::size_t>(prev)] &&
                               checks[i] == checks[static_cast<std::size_t>(prev)]
                           ? &ev.evidence[static_cast<std::size_t>(prev)]
                           : nullptr;
    e.keys = same ? same->keys : index_of(ev.times, keys[i]);
    e.checks = same ? same->checks : index_of(ev.times, checks[i]);
    prev = static_cast<int>(i);
  }
  return {};
}

// Judges every bone with a channel and counts what matched (report lines "bones", "keys").
std::vector<gltf::TrackVerdict> judge_bones(const Clip& orig, const BlockEvidence& ev, const gltf::Metric& metric,
                                            double snap, GltfAnimationImport& rep) {
  std::vector<gltf::TrackVerdict> verdicts(orig.bones.size());
  for (std::size_t i = 0; i < orig.bones.size(); ++i) {
    if (!ev.evidence[i].tmpl) continue;
    auto& v = verdicts[i] = gltf::judge_track(metric, ev.evidence[i], snap);
    if (orig.bones[i].kind() == BoneKind::none) continue;  // counted by assemble
    ++rep.bones_matched;
    rep.max_matched_deviation_deg = std::max(rep.max_matched_deviation_deg, v.max_matched);
    if (orig.bones[i].kind() == BoneKind::constant) {
      ++(v.untouched ? rep.keys_matched : rep.keys_changed);
    } else {
      rep.keys_matched += v.matched;
      rep.keys_changed += v.values.size() - v.matched;
    }
  }
  return verdicts;
}

std::string rate_text(const Clip& clip, double fps) {
  char buf[160];
  std::snprintf(buf, sizeof buf, "key rate %g per second, every key a whole frame at %g fps", clip.key_rate, fps);
  return buf;
}

// The key times edited bones need between the template's (or, with template_times, the
// changes left out); refused when a key cannot get a time of its own.
Result<gltf::TimelinePlan> plan(const Context& ctx, const Clip& orig, const BlockEvidence& ev,
                                const std::vector<gltf::TrackVerdict>& verdicts, const gltf::Metric& metric,
                                double snap, double fps, GltfAnimationImport& rep) {
  std::vector<gltf::TimelineTrack> tracks;
  std::vector<std::size_t> bone_of;
  for (std::size_t i = 0; i < verdicts.size(); ++i)
    if (ev.evidence[i].tmpl && !verdicts[i].untouched && !verdicts[i].resampled) {
      tracks.push_back({&ev.evidence[i], &verdicts[i]});
      bone_of.push_back(i);
    }
  const bool add = !ctx.options.template_times;
  gltf::TimelinePlan p = gltf::plan_timeline(metric, tracks, orig.key_times, orig.key_rate, add, snap);
  auto name = [&](const gltf::Uncarried& u) {
    const ClipBone& b = orig.bones[bone_of[u.track]];
    return label(b.hash, b.name);
  };
  if (!add) {
    for (const auto& u : p.uncarried) rep.dropped.push_back({name(u), ev.times[u.at], u.distance});
    return p;
  }
  if (p.uncarried.empty()) return p;
  const auto& u = p.uncarried.front();
  char dist[64];
  std::snprintf(dist, sizeof dist, "%.4g degrees", u.distance);
  const std::string where = name(u) + " has a key at " + time_text(ev.times[u.at], fps) + " that moves it " + dist +
                            " away from what the clip plays there";
  std::string why = u.why == gltf::Uncarried::Why::collides
                        ? ", but that time rounds onto key time " + std::to_string(u.unit) + " (" +
                              rate_text(orig, fps) + "), which already holds a key"
                        : ", beyond the last key time the format stores (65535 units)";
  return make_error(
      ErrorCode::not_decodable, no_offset, "animation",
      where + why +
          (p.uncarried.size() > 1 ? " (and " + std::to_string(p.uncarried.size() - 1) + " more such key(s))"
                                  : std::string()) +
          ": a .mab cannot hold it. Set the scene frame rate to " + std::to_string(std::lround(fps)) +
          " fps in Blender before importing the .glb (keys then fall on whole frames), or pass "
          "{opt:template_times} to sample at the template's key times only");
}

// The edited clip: the timeline with the added times, every bone's rotations on it.
void assemble(const Clip& orig, const BlockEvidence& ev, const std::vector<gltf::TrackVerdict>& verdicts,
              const gltf::TimelinePlan& p, const gltf::Metric& metric, double snap, Clip& edited,
              GltfAnimationImport& rep) {
  const double rate = orig.key_rate;
  std::vector<bool> sourced(orig.bones.size(), false);  // bones whose own keys needed an added time
  for (const auto& a : p.added) {
    rep.times_added.push_back(a.unit);
    for (std::size_t i = 0; i < orig.bones.size(); ++i)
      if (const auto& e = ev.evidence[i]; e.tmpl && (std::binary_search(e.keys.begin(), e.keys.end(), a.source) ||
                                                     std::binary_search(e.checks.begin(), e.checks.end(), a.source)))
        sourced[i] = sourced[i] || !verdicts[i].untouched;
  }
  rep.max_added_shift_s = p.max_shift_s;
  std::vector<std::uint32_t> units = orig.key_times;
  for (const auto& a : p.added) units.push_back(a.unit);
  std::sort(units.begin(), units.end());
  edited.key_times = units;
  if (!units.empty() && units.back() / rate > edited.duration)
    edited.duration = static_cast<float>(units.back() / rate);
  gltf::TrackVerdict kept;  // a bone without a channel: the template, interpolated at added times
  kept.untouched = true;
  for (std::size_t i = 0; i < orig.bones.size(); ++i) {
    const ClipBone& ob = orig.bones[i];
    ClipBone& eb = edited.bones[i];
    const gltf::TrackEvidence& e = ev.evidence[i];
    if (ob.kind() == BoneKind::none && (!e.tmpl || verdicts[i].untouched)) {
      if (e.tmpl) rep.no_rotation_track.push_back(ob.hash);
      continue;
    }
    if (!e.tmpl) {
      if (ob.kind() == BoneKind::animated && !p.added.empty()) {
        eb.keys.clear();
        for (const auto u : units) eb.keys.push_back(to_quat(ev.tmpl[i].at(metric, u / rate)));
        rep.bones_resampled.push_back(ob.hash);
      } else {
        rep.bones_kept.push_back(ob.hash);
      }
      continue;
    }
    const auto& v = verdicts[i];
    if (v.untouched) {
      if (ob.kind() == BoneKind::animated && !p.added.empty()) {
        eb.keys.clear();
        for (const auto u : units) eb.keys.push_back(to_quat(ev.tmpl[i].at(metric, u / rate)));
        rep.bones_resampled.push_back(ob.hash);
      }
      continue;
    }
    auto values = gltf::values_on_timeline(metric, e, v, orig.key_times, p.added, rate, snap);
    // A clip without key times holds constants alone: the file's own keys are all there is.
    if (values.empty())
      for (const auto k : e.keys) values.push_back(e.file[k]);
    const bool changed = sourced[i] || std::any_of(v.changed.begin(), v.changed.end(), [](char c) { return c != 0; }) ||
                         orig.key_times.empty();
    if (!changed) {
      if (ob.kind() == BoneKind::animated && !p.added.empty()) rep.bones_resampled.push_back(ob.hash);
    } else {
      rep.bones_changed.push_back(ob.hash);
      rep.tracks_changed.push_back(label(ob.hash, ob.name) + " rotation" +
                                   (ob.kind() == BoneKind::none ? " (a new track)" : ""));
    }
    if (ob.kind() == BoneKind::none) {
      if (!changed || values.empty()) continue;
      // A new track (the encoder lays it out, as the Python module's state does).
      const bool still = std::all_of(values.begin(), values.end(),
                                     [&](const gltf::Value& x) { return metric.near(x, values.front()); });
      rep.rotation_added.push_back(ob.hash);
      if (still || orig.key_times.empty()) {
        eb.set_kind(BoneKind::constant);
        eb.constant = to_quat(values.front());
        if (!still) rep.constant_to_animated.push_back(ob.hash);  // refused below: no key times
        continue;
      }
      eb.set_kind(BoneKind::animated);
      eb.set_bit_depth(16);  // re-picked against max_error_deg by the encoder
    } else if (ob.kind() == BoneKind::constant) {
      if (!changed || values.empty()) continue;
      const bool still = std::all_of(values.begin(), values.end(),
                                     [&](const gltf::Value& x) { return metric.near(x, values.front()); });
      if (still) {
        eb.constant = to_quat(values.front());
        continue;
      }
      if (orig.key_times.empty()) {
        rep.constant_to_animated.push_back(ob.hash);  // refused by the caller: no key times to animate on
        continue;
      }
      eb.set_kind(BoneKind::animated);
      rep.constant_to_animated.push_back(ob.hash);
    }
    eb.keys.clear();
    for (const auto& x : values) eb.keys.push_back(to_quat(x));
  }
  rep.times_from_template = p.added.empty();
  rep.keys = edited.key_count();
}

}  // namespace

Status read_on_template_times(const Context& ctx, const Channels& channels, const Clip& orig, const BoneNodes& node_of,
                              Clip& edited, GltfAnimationImport& rep) {
  const double rate = orig.key_rate;
  rep.key_rate = rate;
  rep.times_from_template = true;
  rep.keys = orig.key_count();
  if (!increasing(orig.key_times))
    return make_error(ErrorCode::bad_value, no_offset, "KeyTimes",
                      "the template's key times do not increase, so glTF keys cannot be placed between them (glTF "
                      "export refuses such clips; edit them through JSON)");
  const double snap = time_snap(rate, false);
  const gltf::Metric metric = gltf::Metric::rotation(ctx.options.match_tolerance_deg);
  BlockEvidence ev;
  MAB_TRY(gather(ctx, channels, orig, node_of, metric, snap, ev));
  const auto verdicts = judge_bones(orig, ev, metric, snap, rep);
  {
    std::vector<TrackAgreement> agreement;
    for (std::size_t i = 0; i < verdicts.size(); ++i)
      if (ev.evidence[i].tmpl && orig.bones[i].kind() == BoneKind::animated)
        agreement.push_back(
            agreement_of(label(orig.bones[i].hash, orig.bones[i].name), ev.evidence[i], verdicts[i].untouched));
    MAB_TRY(check_same_content(ctx, rep, agreement));
  }
  const double fps = gltf::whole_frame_rate(orig.key_times, rate);
  std::vector<ResampleFinding> findings;
  for (std::size_t i = 0; i < verdicts.size(); ++i)
    if (ev.evidence[i].tmpl)
      findings.push_back({label(orig.bones[i].hash, orig.bones[i].name), &verdicts[i], &ev.evidence[i], "degrees",
                          ctx.options.match_tolerance_deg});
  MAB_TRY(check_resample(ctx, findings, rate_text(orig, fps), fps, rep));
  MAB_ASSIGN(const gltf::TimelinePlan p, plan(ctx, orig, ev, verdicts, metric, snap, fps, rep));
  assemble(orig, ev, verdicts, p, metric, snap, edited, rep);
  if (orig.key_times.empty() && !rep.constant_to_animated.empty())
    return make_error(ErrorCode::not_decodable, no_offset, "animation",
                      hex(rep.constant_to_animated.front(), 8) +
                          " now moves, but the template's block has no key times to animate it on: {opt:keep_times} "
                          "takes the glTF's own key times");
  return {};
}

}  // namespace mab::gltf_in
