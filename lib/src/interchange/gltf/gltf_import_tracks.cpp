// One channel of one node judged against one track of the template (gltf_import_shared.hpp,
// "One channel of one node"): what the translations and root motion of an 'aNi' block and
// every track of a Far Cry 2/3 clip share. The file is read at the block's times, at its own
// key times and at check points (docs/gltf.md, "Which keys are edits"); gltf_timeline.hpp
// judges the evidence.
#include "interchange/gltf/gltf_import_shared.hpp"

#include "interchange/gltf/gltf_names.hpp"

#include <algorithm>
#include <cmath>

namespace mab::gltf_in {

namespace {

// Rotations read as bones are (docs/gltf.md, "How import reads rotations back"): a stand-in
// clip with a bone per rotation track (`mab export`'s flat rig gives each its own node).
Status read_rotations(const Context& ctx, const Channels& channels, double snap, const TrackTimes& tt,
                      const std::vector<NodeTrack*>& tracks) {
  Clip pseudo;
  BoneNodes node_of;
  std::vector<std::size_t> of;
  for (std::size_t i = 0; i < tracks.size(); ++i) {
    const auto& t = *tracks[i];
    if (!t.rotation()) continue;
    ClipBone b;
    b.hash = bone_hash(t.node_name);
    b.set_kind(t.tmpl.t.size() > 1 ? BoneKind::animated : BoneKind::constant);
    if (t.node >= 0) node_of.emplace(std::make_pair(b.hash, 0u), t.node);
    pseudo.bones.push_back(std::move(b));
    of.push_back(i);
  }
  const gltf::Metric rot = track_metric(ctx.options, true);
  const TemplateRotation tmpl = [&](std::size_t b, std::size_t k) {
    return to_quat(tracks[of[b]]->tmpl.at(rot, tt.times[k]));
  };
  MAB_ASSIGN(auto samples, reconstruct(ctx, channels.rotation, pseudo, node_of, tt.times, snap, true, tmpl));
  for (std::size_t b = 0; b < of.size(); ++b)
    for (const auto& q : samples[b]) tracks[of[b]]->file.push_back(to_value(q));
  return {};
}

}  // namespace

Status evaluate_tracks(const Context& ctx, const Channels& channels, double snap, bool rest_relative_rotations,
                       TrackTimes& tt, const std::vector<NodeTrack*>& tracks) {
  const auto parent =
      rest_relative_rotations && rest_relative(ctx.options, true) ? gltf::parents(ctx.model) : std::nullopt;
  std::vector<std::vector<double>> keys(tracks.size()), checks(tracks.size());
  std::vector<double> all;
  for (std::size_t i = 0; i < tracks.size(); ++i) {
    const auto& t = *tracks[i];
    if (t.node < 0) continue;
    node_key_times(t.rotation() ? channels.rotation : channels.translation, t.rotation() && parent ? &*parent : nullptr,
                   t.node, keys[i], checks[i]);
    all.insert(all.end(), keys[i].begin(), keys[i].end());
    all.insert(all.end(), checks[i].begin(), checks[i].end());
  }
  tt.times = evaluation_times(tt.block_s, std::move(all), snap / 10);
  tt.block = index_of(tt.times, tt.block_s);
  if (rest_relative_rotations) MAB_TRY(read_rotations(ctx, channels, snap, tt, tracks));
  for (std::size_t i = 0; i < tracks.size(); ++i) {
    auto& t = *tracks[i];
    if (t.node < 0) continue;
    if (t.file.empty()) {
      const gltf::Curve& c = (t.rotation() ? channels.rotation : channels.translation).at(t.node);
      for (const double s : tt.times) {
        if (t.rotation()) {
          t.file.push_back(to_value(gltf::sample_rotation(c, s, snap)));
        } else {
          const auto v = gltf::sample_vec3(c, s, snap);
          t.file.push_back({v[0], v[1], v[2], 0});
        }
      }
    }
    auto& e = t.evidence;
    e.tmpl = &t.tmpl;
    e.times = tt.times;
    e.file = t.file;
    e.block = tt.block;
    e.block_tmpl = t.block_tmpl;
    e.keys = index_of(tt.times, keys[i]);
    e.checks = index_of(tt.times, checks[i]);
  }
  return {};
}

gltf::Metric track_metric(const GltfImportOptions& o, bool rotation) noexcept {
  return rotation ? gltf::Metric::rotation(o.match_tolerance_deg) : gltf::Metric::translation(o.match_tolerance_units);
}

std::vector<gltf::Value> keep_template_components(const NodeTrack& t, double tol) {
  std::vector<gltf::Value> out = t.verdict.values;
  if (t.rotation()) return out;
  for (std::size_t k = 0; k < out.size() && k < t.block_tmpl.size(); ++k)
    for (unsigned c = 0; c < 3; ++c) {
      const double a = t.block_tmpl[k][c], b = out[k][c];
      if (std::abs(b - a) <= tol * std::max(1.0, std::abs(a))) out[k][c] = a;
    }
  return out;
}

}  // namespace mab::gltf_in
