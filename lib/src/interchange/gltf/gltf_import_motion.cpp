// glTF -> the translations and root motion of an 'aNi' block (docs/gltf.md, "Translations and
// root motion"; docs/motion.md): each translation channel of a bone the template translates,
// and the `trajectory` node's channels, judged against the template as rotations are
// (gltf_timeline.hpp); what changed lands, what the block's layout cannot hold is refused by
// name (ignore_unmatched drops it on purpose).
#include "interchange/gltf/gltf_import_shared.hpp"

#include "interchange/gltf/gltf_names.hpp"

#include <mab/edit.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <unordered_map>
#include <unordered_set>

namespace mab::gltf_in {

namespace {

// The template's values of a track at the block's times.
template <class T, class Conv>
void set_template(NodeTrack& t, const std::vector<double>& block_s, const std::vector<T>& values, Conv conv) {
  t.tmpl.t = block_s;
  for (const auto& x : values) t.tmpl.v.push_back(conv(x));
  t.block_tmpl = t.tmpl.v;
}

const gltf::Curve& curve_of(const Channels& channels, const NodeTrack& t) {
  return (t.rotation() ? channels.rotation : channels.translation).at(t.node);
}

// The values on the edited clip's timeline: at a time of the template, its value there; at an
// added time, the file's.
std::vector<gltf::Value> on_timeline(const gltf::Curve& curve, const NodeTrack& t,
                                     const std::vector<gltf::Value>& at_block, const Clip& orig, const Clip& edited,
                                     double snap) {
  std::unordered_map<std::uint32_t, std::size_t> tmpl_key;
  for (std::size_t k = 0; k < orig.key_count(); ++k) tmpl_key.emplace(orig.key_times[k], k);
  std::vector<gltf::Value> out;
  for (const auto u : edited.key_times) {
    if (const auto it = tmpl_key.find(u); it != tmpl_key.end() && it->second < at_block.size()) {
      out.push_back(at_block[it->second]);
    } else if (t.rotation()) {
      out.push_back(to_value(gltf::sample_rotation(curve, u / edited.key_rate, snap)));
    } else {
      const auto v = gltf::sample_vec3(curve, u / edited.key_rate, snap);
      out.push_back({v[0], v[1], v[2], 0});
    }
  }
  return out;
}

// A key of the file the edited timeline does not reproduce: its time, or a negative number.
double uncarried(const Context& ctx, const NodeTrack& t, const std::vector<gltf::Value>& values, const Clip& edited) {
  if (t.verdict.resampled) return -1;  // check_resample judges grids
  gltf::Keys out;
  for (const auto u : edited.key_times) out.t.push_back(u / edited.key_rate);
  out.v = values;
  const auto metric = track_metric(ctx.options, t.rotation());
  const auto& e = t.evidence;
  for (const auto* list : {&e.keys, &e.checks})
    for (const std::size_t i : *list)
      if (!out.explains(metric, e.times[i], e.file[i])) return e.times[i];
  return -1;
}

// How far a translation channel moves its node from the rest position.
double offset_from_rest(const tinygltf::Node& n, const gltf::Curve& c) {
  const auto rest = gltf::node_trs(n).t;
  double worst = 0;
  for (std::size_t k = 0; k < c.keys(); ++k) {
    const float* v = c.key(k);
    double d2 = 0;
    for (unsigned i = 0; i < 3; ++i) d2 += (v[i] - rest[i]) * (v[i] - rest[i]);
    worst = std::max(worst, std::sqrt(d2));
  }
  return worst;
}

// The tracks judged: refused when resampled edits or keys between the key times cannot land;
// changed ones written into `edited`, what the layout cannot hold into `refused`.
Status apply_motion(const Context& ctx, const Channels& channels, std::vector<NodeTrack>& tracks, const Clip& orig,
                    Clip& edited, GltfAnimationImport& rep, std::vector<std::string>& refused) {
  const double rate = orig.key_rate;
  const double snap = time_snap(rate, false);
  const double tol = ctx.options.match_tolerance_units;
  std::vector<ResampleFinding> findings;
  for (const auto& t : tracks)
    findings.push_back({t.label, &t.verdict, &t.evidence, t.rotation() ? "degrees" : "units",
                        t.rotation() ? ctx.options.match_tolerance_deg : tol});
  if (!findings.empty()) {
    GltfAnimationImport scratch;  // the rotations' resample figures stay in `rep`
    MAB_TRY(check_resample(ctx, findings, "key rate " + std::to_string(std::lround(rate)) + " per second",
                           gltf::whole_frame_rate(orig.key_times, rate), scratch));
  }
  const bool same_timeline = edited.key_times == orig.key_times;
  for (auto& t : tracks) {
    rep.translations_matched += t.rotation() ? 0 : t.verdict.matched;
    if (t.verdict.untouched) continue;
    const auto at_block = keep_template_components(t, tol);
    const auto values = same_timeline ? at_block : on_timeline(curve_of(channels, t), t, at_block, orig, edited, snap);
    // Judged before asking whether a key time changed: a key between the key times, its
    // neighbours left as they were, is an edit too, and skipping the track would drop it.
    if (const double s = uncarried(ctx, t, values, edited); s >= 0) {
      return make_error(ErrorCode::not_decodable, no_offset, "animation",
                        t.label + " has a key at " + time_text(s, gltf::whole_frame_rate(orig.key_times, rate)) +
                            " between the clip's key times that they do not reproduce: a translation or root-motion "
                            "key lands on a key time of the clip only. Key it on the clip's frames (set the scene "
                            "frame rate mab export printed before importing into Blender)");
    }
    if (!any_changed(t.verdict)) continue;
    rep.translations_changed += t.rotation() ? 0 : t.verdict.values.size() - t.verdict.matched;
    if (t.target == Target::constant_translation) {
      const auto metric = gltf::Metric::translation(tol);
      if (!std::all_of(values.begin(), values.end(),
                       [&](const gltf::Value& v) { return metric.near(v, values.front()); })) {
        refused.push_back(t.label +
                          " (now moves, but the block stores one constant translation for this bone, "
                          "format 10.2)");
        continue;
      }
      edited.bones[t.bone].constant_translation = to_vec3(values.front());
    } else if (t.target == Target::translation) {
      auto& tr = edited.bones[t.bone].translations;
      tr.clear();
      for (const auto& v : values) tr.push_back(to_vec3(v));
    } else if (t.target == Target::root_translation) {
      auto& tr = edited.root_motion.translations;
      tr.clear();
      for (const auto& v : values) tr.push_back(to_vec3(v));
    } else {
      auto& ro = edited.root_motion.rotations;
      ro.clear();
      for (const auto& v : values) ro.push_back(to_quat(v));
    }
    rep.tracks_changed.push_back(t.label);
  }
  return {};
}

}  // namespace

Status read_motion(const Context& ctx, const Channels& channels, const std::unordered_set<int>& handled,
                   const Clip& orig, Clip& edited, GltfAnimationImport& rep, std::vector<std::string>& refused) {
  const auto& m = ctx.model;
  const double rate = orig.key_rate;
  const double snap = time_snap(rate, false);
  std::vector<double> block_s;
  for (const auto u : orig.key_times) block_s.push_back(u / rate);
  if (block_s.empty()) block_s.push_back(0);  // constants alone: one time
  std::unordered_set<std::uint32_t> known;
  for (const auto& b : orig.bones) known.insert(b.hash);
  std::map<std::pair<std::uint32_t, unsigned>, std::size_t> bone_of;
  {
    std::unordered_map<std::uint32_t, unsigned> seen;
    for (std::size_t i = 0; i < orig.bones.size(); ++i)
      bone_of.emplace(std::make_pair(orig.bones[i].hash, seen[orig.bones[i].hash]++), i);
  }
  const double tol = ctx.options.match_tolerance_units;
  std::vector<NodeTrack> tracks;
  const bool keyed = orig.key_count() > 0;
  for (const auto& [node, curve] : channels.translation) {
    if (!handled.count(node)) continue;  // a node matching no bone: account_unmatched's
    const auto& n = m.nodes[static_cast<std::size_t>(node)];
    const NodeBone id = identify(n, static_cast<std::size_t>(node), &known);
    const auto it = id.identified ? bone_of.find({id.hash, id.occurrence}) : bone_of.end();
    NodeTrack t;
    t.node = node;
    if (it != bone_of.end()) {
      const ClipBone& b = orig.bones[it->second];
      t.bone = it->second;
      t.label = label(b.hash, b.name) + " translation";
      if (!b.translations.empty() && b.translations.size() == orig.key_count()) {
        set_template(t, block_s, b.translations, vec_value);
      } else if (b.constant_translation) {
        t.target = Target::constant_translation;
        t.label = label(b.hash, b.name) + " constant translation";
        t.tmpl.t = {block_s.front()};
        t.tmpl.v = {vec_value(*b.constant_translation)};
        t.block_tmpl.assign(block_s.size(), t.tmpl.v.front());
      } else {
        if (offset_from_rest(n, curve) > tol * 10)
          refused.push_back(t.label + " (the template stores no translation for this bone)");
        continue;
      }
    } else if (keyed && !orig.root_motion.translations.empty() &&
               orig.root_motion.translations.size() == orig.key_count()) {
      t.target = Target::root_translation;
      t.label = "root motion translation";
      set_template(t, block_s, orig.root_motion.translations, vec_value);
    } else {
      if (offset_from_rest(n, curve) > tol * 10) refused.push_back("root motion translation (the block stores none)");
      continue;
    }
    tracks.push_back(std::move(t));
  }
  for (const auto& [node, curve] : channels.rotation) {
    const auto& n = m.nodes[static_cast<std::size_t>(node)];
    if (!handled.count(node) || n.name != gltf::trajectory_node_name || known.count(bone_hash(n.name))) continue;
    if (!keyed || orig.root_motion.rotations.empty() || orig.root_motion.rotations.size() != orig.key_count()) {
      const Quat rest = gltf::node_trs(n).r;
      for (std::size_t k = 0; k < curve.keys(); ++k)
        if (half_cos({curve.key(k)[0], curve.key(k)[1], curve.key(k)[2], curve.key(k)[3]}, rest) < ctx.cos_tol) {
          refused.push_back("root motion rotation (the block stores none)");
          break;
        }
      continue;
    }
    NodeTrack t;
    t.node = node;
    t.target = Target::root_rotation;
    t.label = "root motion rotation";
    set_template(t, block_s, orig.root_motion.rotations, to_value);
    tracks.push_back(std::move(t));
  }
  // Root motion's rotation as the channel holds it (its node is not a bone of the rig).
  TrackTimes tt;
  tt.block_s = std::move(block_s);
  std::vector<NodeTrack*> judged;
  for (auto& t : tracks) judged.push_back(&t);
  MAB_TRY(evaluate_tracks(ctx, channels, snap, false, tt, judged));
  for (auto& t : tracks) t.verdict = gltf::judge_track(track_metric(ctx.options, t.rotation()), t.evidence, snap);
  return apply_motion(ctx, channels, tracks, orig, edited, rep, refused);
}

}  // namespace mab::gltf_in
