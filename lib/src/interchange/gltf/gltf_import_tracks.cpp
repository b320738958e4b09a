// One channel of one node judged against one track of the template (gltf_import_shared.hpp,
// "One channel of one node"): what the translations and root motion of an 'aNi' block and
// every track of a Far Cry 2/3 clip share. The file is read at the block's times, at its own
// key times and at check points (docs/gltf.md, "Which keys are edits"); gltf_timeline.hpp
// judges the evidence. And a clip read as tracks on the nodes its template names, on a fixed
// grid of block times (Far Cry 2/3: every frame), written back into the clip.
#include "interchange/gltf/gltf_import_shared.hpp"

#include "interchange/gltf/gltf_names.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <unordered_map>
#include <unordered_set>

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

// The ClipBone of hash `hash` (an added track's), a new one when the clip has none.
ClipBone& bone_of_hash(Clip& clip, std::uint32_t hash) {
  for (auto& b : clip.bones)
    if (b.hash == hash) return b;
  ClipBone b;
  b.hash = hash;
  return clip.bones[clip.add_bone(std::move(b))];
}

// Counts a track of the clip in the report; whether the file changed it.
bool count_track(const NodeTrack& t, GltfAnimationImport& rep) {
  const auto& v = t.verdict;
  const bool changed = any_changed(v);
  if (t.rotation()) {
    ++rep.bones_matched;
    rep.keys_matched += v.matched;
    rep.keys_changed += v.values.size() - v.matched;
    rep.max_matched_deviation_deg = std::max(rep.max_matched_deviation_deg, v.max_matched);
    if (changed) rep.bones_changed.push_back(bone_hash(t.node_name));
  } else {
    rep.translations_matched += v.matched;
    rep.translations_changed += v.values.size() - v.matched;
  }
  if (changed) rep.tracks_changed.push_back(t.label);
  return changed;
}

// Keys of edited tracks that no block time holds (between them, after the last): refused, as
// the grid gains no key times (an 'aNi' block's timeline does, gltf_import_template.cpp).
Status check_off_grid(const Context& ctx, const Channels& channels, const std::vector<NodeTrack>& tracks,
                      const TrackTimes& tt, double rate, double snap, const std::string& holder) {
  const std::size_t frames = tt.block_s.size();
  std::vector<std::uint32_t> units(frames);
  for (std::size_t f = 0; f < frames; ++f) units[f] = static_cast<std::uint32_t>(f);
  for (const bool rotation : {true, false}) {
    std::vector<gltf::TimelineTrack> timeline;
    std::vector<const NodeTrack*> of;
    for (const auto& t : tracks)
      if (t.rotation() == rotation && t.node >= 0 &&
          (t.fate == Fate::clip_track || t.fate == Fate::constant || t.fate == Fate::keyed) && !t.verdict.untouched &&
          !t.verdict.resampled)
        timeline.push_back({&t.evidence, &t.verdict}), of.push_back(&t);
    // No times added: what the grid does not carry is listed, never dropped.
    const auto p = gltf::plan_timeline(track_metric(ctx.options, rotation), timeline, units, rate, false, snap);
    if (p.uncarried.empty()) continue;
    const auto& u = p.uncarried.front();
    const double s = tt.times[u.at];
    char buf[96];
    std::snprintf(buf, sizeof buf, "%.4g %s", u.distance, rotation ? "degrees" : "units");
    const std::string where = s * rate > static_cast<double>(frames - 1) + 0.05
                                  ? "after the clip's last frame " + std::to_string(frames - 1)
                                  : "between its frames";
    const std::string more =
        p.uncarried.size() > 1 ? "; " + std::to_string(p.uncarried.size() - 1) + " more" : std::string();
    // Between the keys of a STEP or CUBICSPLINE channel (a check point, node_key_times): its keys
    // may all be on frames, and the curve between them is what the frames' slerp cannot play.
    const auto& curves = rotation ? channels.rotation : channels.translation;
    if (const auto c = curves.find(of[u.track]->node);
        c != curves.end() && c->second.interpolation != gltf::Interpolation::linear &&
        std::none_of(c->second.times.begin(), c->second.times.end(), [&](float k) { return std::fabs(k - s) <= snap; }))
      return make_error(ErrorCode::not_decodable, no_offset, of[u.track]->label,
                        std::string("is ") +
                            (c->second.interpolation == gltf::Interpolation::step ? "STEP" : "CUBICSPLINE") +
                            " interpolated: between its keys, at " + time_text(s, rate) + ", it is " + buf +
                            " from what " + holder + " plays there (a slerp between frames" + more +
                            "). Make its keys linear (Blender: Key > Interpolation Mode > Linear) or key every "
                            "frame");
    return make_error(ErrorCode::not_decodable, no_offset, of[u.track]->label,
                      "has a key at " + time_text(s, rate) + ", " + where + ", that its frames do not reproduce (" +
                          buf + " off" + more + "): " + holder +
                          " stores keys on its frames only. Set the scene frame rate to " +
                          std::to_string(std::lround(rate)) +
                          " fps in Blender before importing the .glb (keys then fall on frames), and keep keys "
                          "within the clip");
  }
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

namespace mab::gltf_in {

gltf::Value vec_value(const Vec3& v) noexcept { return {v[0], v[1], v[2], 0}; }

Vec3 to_vec3(const gltf::Value& v) noexcept {
  return {static_cast<float>(v[0]), static_cast<float>(v[1]), static_cast<float>(v[2])};
}

bool any_changed(const gltf::TrackVerdict& v) noexcept {
  return std::any_of(v.changed.begin(), v.changed.end(), [](char c) { return c != 0; });
}

bool still(const gltf::Metric& m, const std::vector<gltf::Value>& v) {
  return std::all_of(v.begin(), v.end(), [&](const gltf::Value& x) { return m.near(x, v.front()); });
}

std::vector<NodeTrack> clip_node_tracks(const Clip& c, const TrackNaming& naming, const std::vector<double>& block_s) {
  std::vector<NodeTrack> out;
  auto add = [&](Target target, std::size_t bone, std::uint32_t hash, bool second, auto&& keys) {
    NodeTrack t;
    t.target = target, t.bone = bone, t.hash = hash, t.second = second;
    t.node_name = t.root() ? naming.root : naming.node(hash, second);
    t.label = t.node_name + (t.rotation() ? " rotation" : " translation");
    for (const auto& k : keys) t.tmpl.v.push_back(k);
    if (t.tmpl.v.size() == 1) {
      t.tmpl.t = {0.0};
      t.block_tmpl.assign(block_s.size(), t.tmpl.v.front());
    } else {
      t.tmpl.t = block_s;
      t.block_tmpl = t.tmpl.v;
    }
    out.push_back(std::move(t));
  };
  auto values = [](const auto& v, auto conv) {
    std::vector<gltf::Value> list;
    for (const auto& x : v) list.push_back(conv(x));
    return list;
  };
  std::unordered_set<std::uint32_t> seen;
  for (const bool constant : {true, false})
    for (std::size_t i = 0; i < c.bones.size(); ++i) {
      const ClipBone& b = c.bones[i];
      const bool second = !seen.insert(b.hash).second && constant;  // a bone's keyed ClipBone comes first
      if (constant && b.kind() == BoneKind::constant)
        add(Target::rotation, i, b.hash, second, std::vector{to_value(b.constant)});
      if (constant || b.kind() != BoneKind::animated) continue;
      add(Target::rotation, i, b.hash, false, values(b.keys, to_value));
      if (naming.stored_keys)
        if (auto k = naming.stored_keys(b.hash)) out.back().tmpl = std::move(*k);
    }
  if (!c.root_motion.rotations.empty())
    add(Target::root_rotation, 0, 0, false, values(c.root_motion.rotations, to_value));
  for (std::size_t i = 0; i < c.bones.size(); ++i)
    if (const auto& b = c.bones[i]; b.constant_translation)
      add(Target::constant_translation, i, b.hash, !b.translations.empty(),
          std::vector{vec_value(*b.constant_translation)});
  for (std::size_t i = 0; i < c.bones.size(); ++i)
    if (!c.bones[i].translations.empty())
      add(Target::translation, i, c.bones[i].hash, false, values(c.bones[i].translations, vec_value));
  if (!c.root_motion.translations.empty())
    add(Target::root_translation, 0, 0, false, values(c.root_motion.translations, vec_value));
  return out;
}

void match_track_nodes(const Context& ctx, const Channels& channels, std::vector<NodeTrack>& tracks,
                       const std::function<bool(int node, bool rotation, bool named)>& other,
                       GltfAnimationImport& rep) {
  const auto& m = ctx.model;
  const std::size_t own = tracks.size();
  for (const bool rotation : {true, false}) {
    std::unordered_map<std::uint32_t, std::size_t> track_of;
    std::unordered_set<std::uint32_t> known;
    for (std::size_t i = 0; i < own; ++i)
      if (tracks[i].rotation() == rotation)
        track_of.emplace(bone_hash(tracks[i].node_name), i), known.insert(bone_hash(tracks[i].node_name));
    for (const auto& [node, curve] : rotation ? channels.rotation : channels.translation) {
      (void)curve;
      const NodeBone id = identify(m.nodes[static_cast<std::size_t>(node)], static_cast<std::size_t>(node), &known);
      const auto it = id.identified && id.occurrence == 0 ? track_of.find(id.hash) : track_of.end();
      if (it != track_of.end() && tracks[it->second].node < 0) {
        tracks[it->second].node = node;
        continue;
      }
      if (other(node, rotation, it != track_of.end())) continue;
      const auto& name = m.nodes[static_cast<std::size_t>(node)].name;
      rep.nodes_unmatched.push_back(name.empty() ? "node " + std::to_string(node)
                                                 : name + (rotation ? " (rotation)" : " (translation)"));
    }
  }
}

void add_file_nodes(FileNodes& nodes, const Clip& clip, const TrackNaming& naming) {
  for (auto& t : clip_node_tracks(clip, naming, {})) {
    auto& n = nodes[t.node_name];
    (t.rotation() ? n.rotations : n.translations).push_back(t.tmpl.v);
    n.track = std::move(t);
  }
}

void match_file_nodes(const Context& ctx, const Channels& channels, const FileNodes& nodes,
                      std::vector<NodeTrack>& tracks, std::size_t frames, GltfAnimationImport& rep) {
  std::unordered_set<std::string> added[2];  // per channel kind: the names added
  match_track_nodes(
      ctx, channels, tracks,
      [&](int node, bool rotation, bool named) {
        const auto& name = ctx.model.nodes[static_cast<std::size_t>(node)].name;
        const auto b = nodes.find(name);
        if (b == nodes.end() || named || !added[rotation].insert(name).second) return false;
        NodeTrack t = b->second.track;
        t.added = true, t.node = node;
        t.target = t.root()   ? (rotation ? Target::root_rotation : Target::root_translation)
                   : rotation ? Target::rotation
                   : t.second ? Target::constant_translation
                              : Target::translation;
        t.label = name + (rotation ? " rotation" : " translation");
        t.tmpl = {{0.0}, {rotation ? gltf::Value{0, 0, 0, 1} : gltf::Value{0, 0, 0, 0}}};
        t.block_tmpl.assign(frames, t.tmpl.v.front());
        tracks.push_back(std::move(t));
        return true;
      },
      rep);
}

bool added_unedited(const gltf::Metric& metric, const NodeTrack& t, const FileNodes& nodes) {
  const bool held = !t.file.empty() && still(metric, t.file);
  const FileNode& node = nodes.at(t.node_name);
  const auto& poses = t.rotation() ? node.rotations : node.translations;
  return (held && std::any_of(poses.begin(), poses.end(),
                              [&](const auto& k) { return gltf::on_path(metric, t.file.front(), k); })) ||
         !any_changed(t.verdict);
}

Result<std::vector<const gltf::Curve*>> matched_curves(const Context& ctx, std::size_t ai, std::size_t block,
                                                       const Channels& channels, const std::vector<NodeTrack>& tracks,
                                                       GltfAnimationImport& rep) {
  std::vector<std::string> animated;
  std::vector<const gltf::Curve*> curves;
  for (const auto& t : tracks)
    if (t.node >= 0 && !t.added)
      curves.push_back(&(t.rotation() ? channels.rotation : channels.translation).at(t.node));
  for (const auto* list : {&channels.rotation, &channels.translation})
    for (const auto& [node, c] : *list) animated.push_back(ctx.model.nodes[static_cast<std::size_t>(node)].name);
  MAB_TRY(check_matched(ctx, ai, block, curves.size(), animated, rep));
  return curves;
}

Status judge_on_fixed_grid(const Context& ctx, const Channels& channels, const Clip& clip, const FixedGrid& grid,
                           TrackTimes& tt, std::vector<NodeTrack>& tracks, GltfAnimationImport& rep) {
  const auto& opt = ctx.options;
  const double snap = time_snap(grid.rate, false);
  std::vector<NodeTrack*> judged;
  for (auto& t : tracks) judged.push_back(&t);
  MAB_TRY(evaluate_tracks(ctx, channels, snap, true, tt, judged));
  for (auto& t : tracks)
    if (t.node >= 0)
      t.verdict =
          gltf::judge_track(t.added ? grid.rest(t.rotation()) : track_metric(opt, t.rotation()), t.evidence, snap);
  std::vector<std::string> refused;
  grid.plan(tracks, refused);
  std::vector<ResampleFinding> findings;
  std::vector<TrackAgreement> agreement;
  for (const auto& t : tracks) {
    if (t.node < 0 || t.fate == Fate::at_rest || t.fate == Fate::refused) continue;
    findings.push_back({t.label, &t.verdict, &t.evidence, t.rotation() ? "degrees" : "units",
                        t.rotation() ? opt.match_tolerance_deg : opt.match_tolerance_units});
    if (!t.added && t.target == Target::rotation && clip.bones[t.bone].kind() == BoneKind::animated)
      agreement.push_back(agreement_of(t.label, t.evidence, t.verdict.untouched));
  }
  MAB_TRY(check_same_content(ctx, rep, agreement));
  MAB_TRY(check_resample(ctx, findings, "frames at " + std::to_string(std::lround(grid.rate)) + " per second",
                         grid.rate, rep));
  MAB_TRY(check_off_grid(ctx, channels, tracks, tt, grid.rate, snap, grid.holder));
  std::unordered_set<int> rotated, translated;
  for (const auto& t : tracks)
    if (t.node >= 0) (t.rotation() ? rotated : translated).insert(t.node);
  return account_unmatched(ctx, channels, rotated, translated, std::move(refused), rep);
}

Status apply_node_tracks(const Context& ctx, const std::vector<NodeTrack>& tracks, const TrackNaming& naming,
                         Clip& clip, GltfAnimationImport& rep) {
  const gltf::Metric metric = track_metric(ctx.options, true);
  for (const auto& t : tracks) {
    if (t.node < 0) {
      if (t.rotation() && !t.added) rep.bones_kept.push_back(bone_hash(t.node_name));
      continue;
    }
    if (t.added ? t.fate != Fate::constant && t.fate != Fate::keyed : !count_track(t, rep)) continue;
    // An added track's template is the rest: the file's values as they are.
    const auto values = t.added ? t.verdict.values : keep_template_components(t, ctx.options.match_tolerance_units);
    std::vector<Vec3> x;
    if (!t.rotation())
      for (const auto& v : values) x.push_back(to_vec3(v));
    const bool fixed = t.added        ? t.fate == Fate::constant
                       : t.rotation() ? still(metric, values)
                                      : std::all_of(x.begin(), x.end(), [&](const Vec3& y) { return y == x.front(); });
    if (t.added) rep.tracks_changed.push_back(t.label + (fixed ? " (new constant)" : " (new track)"));
    if (!fixed && t.second)
      return make_error(ErrorCode::invalid_argument, no_offset, t.label,
                        std::string("holds the constant ") + (t.rotation() ? "rotation" : "translation") +
                            " of a bone the clip also animates (" + naming.node(t.hash, false) +
                            "); it cannot vary: animate " + naming.node(t.hash, false) + " instead");
    if (t.target == Target::root_rotation) {
      for (std::size_t f = 0; f < values.size(); ++f)
        if (t.verdict.changed[f]) clip.root_motion.rotations[f] = to_quat(values[f]);
      continue;
    }
    if (t.target == Target::root_translation) {
      clip.root_motion.translations = std::move(x);
      continue;
    }
    ClipBone& b = t.added ? bone_of_hash(clip, t.hash) : clip.bones[t.bone];
    if (t.target == Target::rotation) {
      if (fixed && (t.added || b.kind() == BoneKind::constant)) {
        b.set_kind(BoneKind::constant);
        b.constant = to_quat(values.front());
        continue;
      }
      if (!t.added && b.kind() == BoneKind::constant) rep.constant_to_animated.push_back(bone_hash(t.node_name));
      b.set_kind(BoneKind::animated);
      b.keys.clear();
      for (const auto& v : values) b.keys.push_back(to_quat(v));
    } else if (t.target == Target::translation && !t.added) {
      b.translations = std::move(x);
    } else if (fixed) {
      b.constant_translation = x.front();
    } else {
      b.constant_translation.reset();
      b.translations = std::move(x);
    }
  }
  return {};
}

}  // namespace mab::gltf_in
