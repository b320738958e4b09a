// glTF -> Far Cry 2/3 clip (docs/gltf.md, "Far Cry 2 and 3"): every track of the template
// judged at every frame against what the file holds (gltf_timeline.hpp); a track the file only
// repeats (however a tool resampled it) is the template's, bit for bit. The verdicts land on
// the one editable model (clip_from_legacy), which legacy_from_clip maps back for
// encode_legacy_clip: untouched tracks keep their stored keys and codes, the sparse key writer
// stores the keys max_error_deg needs for edited ones. Rotations
// are read as for 'aNi' clips (rest-relative on the flat rig export writes), through a
// stand-in clip with a bone per rotated node.
#include "interchange/gltf/gltf_import_shared.hpp"

#include "interchange/gltf/gltf_names.hpp"

#include <mab/legacy_bridge.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <optional>
#include <unordered_map>
#include <unordered_set>

namespace mab::gltf_in {

namespace {

// added: a node of the bank (bone_<id>, bone_<id>_constant, trajectory) the clip has no track
// for; unedited it is at the rest `mab export` gives it (no channel: identity, zero).
enum class Kind : std::uint8_t { constant, keyed, trajectory, added };

// One track of the clip as export wrote it (gltf_export.cpp) and as the file holds it.
struct LegacyTrack {
  Kind kind = Kind::constant;
  bool rotation = true;
  std::size_t index = 0;  // into the clip's constant or animated array (0: the trajectory)
  std::string node;       // bone_<id>, bone_<id>_constant or trajectory
  std::uint32_t bone = 0;  // added: the skeleton id (legacy_trajectory_id: the trajectory)
  bool second_value = false;  // added: a bone_<id>_constant node
  enum class Fate : std::uint8_t { at_rest, constant, keyed, refused } fate = Fate::at_rest;  // added only
  const std::vector<std::vector<gltf::Value>>* poses = nullptr;  // added: the node's tracks in other clips
  int file_node = -1;
  gltf::Keys tmpl;                     // the template at its own times (a keyed track: its stored frames)
  std::vector<gltf::Value> per_frame;  // the template at every frame
  std::vector<gltf::Value> file;       // the file at every evaluation time
  gltf::TrackEvidence evidence;
  gltf::TrackVerdict verdict;
  std::string label() const { return node + (rotation ? " rotation" : " translation"); }
};

struct LegacyRead {
  LegacyClip orig;
  std::size_t frames = 1;
  double rate = 1;  // frames per second; 1 for a clip of untimed constants (every time is 0)
  std::vector<double> frame_s;
  std::unordered_set<std::uint32_t> rotation_doubled, translation_doubled;  // constant and animated at once
  std::vector<LegacyTrack> tracks;
  std::vector<double> times;        // every time the file is evaluated at
  std::vector<std::size_t> frames_at;  // each frame's index in `times`
};

gltf::Value vec_value(const Vec3& v) { return {v[0], v[1], v[2], 0}; }

// The nodes `mab export` writes for the bank (every clip that decodes): name -> skeleton id,
// and the node's tracks in the clips that have one (values in key order: a constant is one).
struct BankNode {
  std::uint32_t bone = 0;
  bool second_value = false;
  std::vector<std::vector<gltf::Value>> rotations, translations;
};
using Bank = std::unordered_map<std::string, BankNode>;

// Bones of `clip` held constant and animated at once (rotation or translation), ascending.
std::vector<std::uint32_t> doubled_bones(const LegacyClip& clip) {
  std::vector<std::uint32_t> out;
  for (const auto& c : clip.constant_rotations)
    for (const auto& k : clip.rotations)
      if (k.bone == c.bone) out.push_back(c.bone);
  for (const auto& c : clip.constant_translations)
    for (const auto& k : clip.translations)
      if (k.bone == c.bone) out.push_back(c.bone);
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

void add_clip_nodes(const LegacyClip& l, Bank& out) {
  const auto doubled = doubled_bones(l);
  auto node = [&](std::uint32_t bone, bool constant) -> BankNode& {
    const bool second = constant && std::binary_search(doubled.begin(), doubled.end(), bone);
    auto& n = out[second ? gltf::legacy_constant_node_name(bone) : gltf::legacy_node_name(bone)];
    n.bone = bone, n.second_value = second;
    return n;
  };
  for (const auto& t : l.constant_rotations) node(t.bone, true).rotations.push_back({to_value(t.rotation)});
  for (const auto& t : l.rotations) {
    std::vector<gltf::Value> keys;
    for (const auto& q : t.keys) keys.push_back(to_value(q));
    node(t.bone, false).rotations.push_back(std::move(keys));
  }
  auto vecs = [](const std::vector<Vec3>& v) {
    std::vector<gltf::Value> values;
    for (const auto& x : v) values.push_back(vec_value(x));
    return values;
  };
  for (const auto& t : l.constant_translations) node(t.bone, true).translations.push_back({vec_value(t.translation)});
  for (const auto& t : l.translations) node(t.bone, false).translations.push_back(vecs(t.frames));
  if (!l.present[0] && !l.present[1]) return;
  auto& n = out[std::string(gltf::trajectory_node_name)];
  n.bone = legacy_trajectory_id;
  if (l.present[0]) n.translations.push_back(vecs(l.trajectory_translation));
  if (l.present[1]) {
    std::vector<gltf::Value> keys;
    for (const auto& q : l.trajectory_rotation) keys.push_back(to_value(q));
    n.rotations.push_back(std::move(keys));
  }
}

Bank bank_nodes(const Container& c, const Limits& limits) {
  Bank out;
  for (std::size_t b = 0; b < c.blocks.size(); ++b)
    if (c.blocks[b].legacy() != nullptr)
      if (const auto l = decode_legacy_clip(c, b, limits)) add_clip_nodes(*l, out);
  return out;
}

double dot4(const gltf::Value& x, const gltf::Value& y) { return x[0] * y[0] + x[1] * y[1] + x[2] * y[2] + x[3] * y[3]; }

// Where between a and b a rotation v lies (its projection onto their plane): the parameter of
// nlerp and that of slerp, or nothing when it is not between them.
std::optional<std::pair<double, double>> rotation_between(const gltf::Value& a, const gltf::Value& b,
                                                           const gltf::Value& v) {
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

// Whether `v` is a pose of `keys` (a track of another clip: at a key, or where a tool
// interpolating between two puts it: slerp or nlerp, lerp for translations).
bool on_track(const gltf::Metric& m, const gltf::Value& v, const std::vector<gltf::Value>& keys) {
  for (std::size_t i = 0; i < keys.size(); ++i) {
    if (m.near(v, keys[i])) return true;
    if (i + 1 == keys.size()) break;
    const gltf::Value& a = keys[i];
    gltf::Value b = keys[i + 1], w = v;
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

// How far a value may be from a bank node's rest and still be unedited: rotations land as
// 6-byte codes (format 9.1), whose components round by half a step each, so a difference below
// that rounding (about 0.0043 degrees) cannot be an edit the file could show; translations are
// f32 (format 13), for which the match tolerance (tools' float noise) applies.
gltf::Metric rest_metric(const GltfImportOptions& o, bool rotation) {
  constexpr double pi = 3.14159265358979323846;
  const double code_rounding_deg = std::sqrt(3.0) * double{quat48_step} * 180.0 / pi;
  return rotation ? gltf::Metric::rotation(std::max(o.match_tolerance_deg, code_rounding_deg))
                  : gltf::Metric::translation(o.match_tolerance_units);
}

// The clip's tracks, rotations first (their order is the stand-in clip's bone order).
void build_tracks(LegacyRead& r) {
  const LegacyClip& o = r.orig;
  for (const auto& c : o.constant_rotations)
    for (const auto& k : o.rotations)
      if (k.bone == c.bone) r.rotation_doubled.insert(c.bone);
  for (const auto& c : o.constant_translations)
    for (const auto& k : o.translations)
      if (k.bone == c.bone) r.translation_doubled.insert(c.bone);
  auto constant_node = [](const std::unordered_set<std::uint32_t>& doubled, std::uint32_t bone) {
    return doubled.count(bone) ? gltf::legacy_constant_node_name(bone) : gltf::legacy_node_name(bone);
  };
  auto add = [&](Kind kind, bool rotation, std::size_t index, std::string node, gltf::Keys tmpl,
                 std::vector<gltf::Value> per_frame) {
    LegacyTrack t;
    t.kind = kind, t.rotation = rotation, t.index = index, t.node = std::move(node);
    t.tmpl = std::move(tmpl), t.per_frame = std::move(per_frame);
    r.tracks.push_back(std::move(t));
  };
  auto every_frame = [&](auto&& value_at) {
    gltf::Keys k;
    k.t = r.frame_s;
    for (std::size_t f = 0; f < r.frames; ++f) k.v.push_back(value_at(f));
    return k;
  };
  for (std::size_t i = 0; i < o.constant_rotations.size(); ++i) {
    const auto v = to_value(o.constant_rotations[i].rotation);
    add(Kind::constant, true, i, constant_node(r.rotation_doubled, o.constant_rotations[i].bone), {{0.0}, {v}},
        std::vector<gltf::Value>(r.frames, v));
  }
  for (std::size_t i = 0; i < o.rotations.size(); ++i) {
    const auto& tr = o.rotations[i];
    gltf::Keys k;
    for (std::size_t j = 0; j < tr.frames.size(); ++j) k.t.push_back(tr.frames[j] / r.rate), k.v.push_back(to_value(tr.keys[j]));
    const auto all = every_frame([&](std::size_t f) { return to_value(legacy_rotation_at(tr, static_cast<std::uint32_t>(f))); });
    add(Kind::keyed, true, i, gltf::legacy_node_name(tr.bone), std::move(k), all.v);
  }
  if (o.present[1]) {
    auto k = every_frame([&](std::size_t f) { return to_value(o.trajectory_rotation[f]); });
    auto v = k.v;
    add(Kind::trajectory, true, 0, std::string(gltf::trajectory_node_name), std::move(k), std::move(v));
  }
  for (std::size_t i = 0; i < o.constant_translations.size(); ++i) {
    const auto v = vec_value(o.constant_translations[i].translation);
    add(Kind::constant, false, i, constant_node(r.translation_doubled, o.constant_translations[i].bone), {{0.0}, {v}},
        std::vector<gltf::Value>(r.frames, v));
  }
  for (std::size_t i = 0; i < o.translations.size(); ++i) {
    auto k = every_frame([&](std::size_t f) { return vec_value(o.translations[i].frames[f]); });
    auto v = k.v;
    add(Kind::keyed, false, i, gltf::legacy_node_name(o.translations[i].bone), std::move(k), std::move(v));
  }
  if (o.present[0]) {
    auto k = every_frame([&](std::size_t f) { return vec_value(o.trajectory_translation[f]); });
    auto v = k.v;
    add(Kind::trajectory, false, 0, std::string(gltf::trajectory_node_name), std::move(k), std::move(v));
  }
}

// Each track's node: rotation channels by the names export gives, translation channels by
// the CRC-32 of the name; what matches no track is listed.
void match_nodes(const Context& ctx, const Channels& channels, const Bank& bank, LegacyRead& r,
                 GltfAnimationImport& rep) {
  const auto& m = ctx.model;
  const std::size_t clip_tracks = r.tracks.size();
  for (const bool rotation : {true, false}) {
    std::unordered_map<std::uint32_t, std::size_t> track_of;
    std::unordered_set<std::uint32_t> known;
    for (std::size_t i = 0; i < clip_tracks; ++i)
      if (r.tracks[i].rotation == rotation) track_of.emplace(bone_hash(r.tracks[i].node), i), known.insert(bone_hash(r.tracks[i].node));
    std::unordered_set<std::string> added;
    for (const auto& [node, curve] : rotation ? channels.rotation : channels.translation) {
      (void)curve;
      const NodeBone id = identify(m.nodes[static_cast<std::size_t>(node)], static_cast<std::size_t>(node), &known);
      const auto it = id.identified && id.occurrence == 0 ? track_of.find(id.hash) : track_of.end();
      if (it != track_of.end() && r.tracks[it->second].file_node < 0) {
        r.tracks[it->second].file_node = node;
        continue;
      }
      const auto& name = m.nodes[static_cast<std::size_t>(node)].name;
      // A bank node this clip has no track for (Blender samples every bone of the armature):
      // judged against its rest; the first node of that name only.
      if (const auto b = bank.find(name); b != bank.end() && it == track_of.end() && added.insert(name).second) {
        LegacyTrack t;
        t.kind = Kind::added, t.rotation = rotation, t.node = name, t.file_node = node;
        t.bone = b->second.bone, t.second_value = b->second.second_value;
        t.poses = rotation ? &b->second.rotations : &b->second.translations;
        const gltf::Value rest = rotation ? gltf::Value{0, 0, 0, 1} : gltf::Value{0, 0, 0, 0};
        t.tmpl = {{0.0}, {rest}};
        t.per_frame.assign(r.frames, rest);
        r.tracks.push_back(std::move(t));
        continue;
      }
      rep.nodes_unmatched.push_back(name.empty() ? "node " + std::to_string(node)
                                                 : name + (rotation ? " (rotation)" : " (translation)"));
    }
  }
}

// The file at the frames, at its own key times and at check points, and each matched track's
// evidence. Rotations through the stand-in clip (one bone per rotation track).
Status evaluate(const Context& ctx, const Channels& channels, LegacyRead& r, double snap) {
  const auto parent = rest_relative(ctx.options, true) ? gltf::parents(ctx.model) : std::nullopt;
  std::vector<std::vector<double>> keys(r.tracks.size()), checks(r.tracks.size());
  std::vector<double> all;
  for (std::size_t i = 0; i < r.tracks.size(); ++i) {
    const auto& t = r.tracks[i];
    if (t.file_node < 0) continue;
    node_key_times(t.rotation ? channels.rotation : channels.translation, t.rotation && parent ? &*parent : nullptr,
                   t.file_node, keys[i], checks[i]);
    all.insert(all.end(), keys[i].begin(), keys[i].end());
    all.insert(all.end(), checks[i].begin(), checks[i].end());
  }
  r.times = evaluation_times(r.frame_s, std::move(all), snap / 10);
  Clip pseudo;
  BoneNodes node_of;
  std::vector<std::size_t> bone_track;
  for (std::size_t i = 0; i < r.tracks.size(); ++i) {
    if (!r.tracks[i].rotation) continue;
    ClipBone b;
    b.hash = bone_hash(r.tracks[i].node);
    b.set_kind(r.tracks[i].kind == Kind::constant || r.tracks[i].kind == Kind::added ? BoneKind::constant
                                                                                     : BoneKind::animated);
    if (r.tracks[i].file_node >= 0) node_of.emplace(std::make_pair(b.hash, 0u), r.tracks[i].file_node);
    pseudo.bones.push_back(std::move(b));
    bone_track.push_back(i);
  }
  const gltf::Metric rot = gltf::Metric::rotation(ctx.options.match_tolerance_deg);
  const TemplateRotation tmpl = [&](std::size_t b, std::size_t k) {
    return to_quat(r.tracks[bone_track[b]].tmpl.at(rot, r.times[k]));
  };
  MAB_ASSIGN(auto samples, reconstruct(ctx, channels.rotation, pseudo, node_of, r.times, snap, true, tmpl));
  r.frames_at = index_of(r.times, r.frame_s);
  for (std::size_t b = 0; b < bone_track.size(); ++b)
    for (const auto& q : samples[b]) r.tracks[bone_track[b]].file.push_back(to_value(q));
  for (std::size_t i = 0; i < r.tracks.size(); ++i) {
    auto& t = r.tracks[i];
    if (t.file_node < 0) continue;
    if (!t.rotation) {
      const gltf::Curve& c = channels.translation.at(t.file_node);
      for (const double s : r.times) {
        const auto v = gltf::sample_vec3(c, s, snap);
        t.file.push_back({v[0], v[1], v[2], 0});
      }
    }
    t.evidence.tmpl = &t.tmpl;
    t.evidence.times = r.times;
    t.evidence.file = t.file;
    t.evidence.block = r.frames_at;
    t.evidence.block_tmpl = t.per_frame;
    t.evidence.keys = index_of(r.times, keys[i]);
    t.evidence.checks = index_of(r.times, checks[i]);
  }
  return {};
}

// Keys of edited tracks that no frame can hold (between frames, after the last): refused.
Status check_carried(const Context& ctx, const LegacyRead& r, double snap,
                     const std::function<bool(const LegacyTrack&)>& stored) {
  std::vector<std::uint32_t> units(r.frames);
  for (std::size_t f = 0; f < r.frames; ++f) units[f] = static_cast<std::uint32_t>(f);
  for (const bool rotation : {true, false}) {
    const gltf::Metric metric = rotation ? gltf::Metric::rotation(ctx.options.match_tolerance_deg)
                                         : gltf::Metric::translation(ctx.options.match_tolerance_units);
    std::vector<gltf::TimelineTrack> tracks;
    std::vector<const LegacyTrack*> of;
    for (const auto& t : r.tracks)
      if (t.rotation == rotation && stored(t) && !t.verdict.untouched && !t.verdict.resampled)
        tracks.push_back({&t.evidence, &t.verdict}), of.push_back(&t);
    const auto p = gltf::plan_timeline(metric, tracks, units, r.rate, false, snap);
    if (p.uncarried.empty()) continue;
    const auto& u = p.uncarried.front();
    const double s = r.times[u.at];
    char buf[96];
    std::snprintf(buf, sizeof buf, "%.4g %s", u.distance, rotation ? "degrees" : "units");
    const std::string where = s * r.rate > static_cast<double>(r.frames - 1) + 0.05
                                  ? "after the clip's last frame " + std::to_string(r.frames - 1)
                                  : "between its frames";
    return make_error(ErrorCode::not_decodable, no_offset, of[u.track]->label(),
                      "has a key at " + time_text(s, r.rate) + ", " + where + ", that its frames do not reproduce (" +
                          buf + " off" +
                          (p.uncarried.size() > 1 ? "; " + std::to_string(p.uncarried.size() - 1) + " more" : std::string()) +
                          "): a Far Cry 2/3 clip stores keys on its frames only. Set the scene frame rate to " +
                          std::to_string(std::lround(r.rate)) +
                          " fps in Blender before importing the .glb (keys then fall on frames), and keep keys within "
                          "the clip");
  }
  return {};
}

// The values of a translation track at every frame: the template's, with the components the
// file changes beyond tolerance (a key moved along one axis keeps the other two's bits).
std::vector<Vec3> translation_frames(const LegacyTrack& t, double tol) {
  std::vector<Vec3> out(t.per_frame.size());
  for (std::size_t f = 0; f < out.size(); ++f)
    for (unsigned c = 0; c < 3; ++c) {
      const double a = t.per_frame[f][c], b = t.verdict.values[f][c];
      out[f][c] = static_cast<float>(std::abs(b - a) <= tol * std::max(1.0, std::abs(a)) ? a : b);
    }
  return out;
}

// Channels on bank nodes the clip has no track for: at rest (unedited) they change nothing; an
// edit lands where the clip has the section to hold it (a constant when it does not vary, else
// a keyed or animated track; encode_legacy_clip cannot add a section), else it is listed in
// `refused` (--ignore-unmatched drops it).
void plan_added(const Context& ctx, LegacyRead& r, GltfAnimationImport& rep, std::vector<std::string>& refused) {
  for (auto& t : r.tracks) {
    if (t.kind != Kind::added) continue;
    const auto& v = t.verdict;
    const gltf::Metric metric = rest_metric(ctx.options, t.rotation);
    // Blender samples a bone the action does not key where the last pose it evaluated left
    // it: held still at a pose of that bone in another clip of the bank, not an edit.
    const bool held = !t.file.empty() && std::all_of(t.file.begin(), t.file.end(), [&](const gltf::Value& x) {
      return metric.near(x, t.file.front());
    });
    const bool other_pose = held && t.poses != nullptr && std::any_of(t.poses->begin(), t.poses->end(), [&](const auto& k) {
      return on_track(metric, t.file.front(), k);
    });
    if (other_pose || std::none_of(v.changed.begin(), v.changed.end(), [](char c) { return c != 0; })) {
      ++rep.untracked_at_rest;
      continue;
    }
    const bool still =
        std::all_of(v.values.begin(), v.values.end(), [&](const gltf::Value& x) { return metric.near(x, v.values.front()); });
    const char* what = t.rotation ? "rotation" : "translation";
    const std::string clip = "clip " + std::to_string(rep.block);
    std::string why;
    if (t.bone == legacy_trajectory_id)
      why = clip + " has no root motion " + what + " section to hold it";
    else if (t.second_value)
      why = clip + " holds no second (constant) value for bone " + std::to_string(t.bone) + ": edit bone_" +
            std::to_string(t.bone) + " instead";
    else if (still && r.orig.present[t.rotation ? 2 : 4])
      t.fate = LegacyTrack::Fate::constant;
    else if (r.orig.present[t.rotation ? 3 : 5])
      t.fate = LegacyTrack::Fate::keyed;
    else
      why = clip + " has no " + (still ? "constant or animated " : "animated ") + what +
            " section to hold it (adding a section is not supported)";
    if (why.empty()) continue;
    t.fate = LegacyTrack::Fate::refused;
    refused.push_back(t.label() + " (no track in the clip; " + why + ")");
  }
}

// The skeleton id a track of the clip stores (added tracks carry theirs).
std::uint32_t track_bone(const LegacyRead& r, const LegacyTrack& t) {
  if (t.kind == Kind::added || t.kind == Kind::trajectory) return t.bone;
  const LegacyClip& o = r.orig;
  if (t.rotation) return t.kind == Kind::constant ? o.constant_rotations[t.index].bone : o.rotations[t.index].bone;
  return t.kind == Kind::constant ? o.constant_translations[t.index].bone : o.translations[t.index].bone;
}

// The ClipBone of bone `id` in a clip_from_legacy Clip (`second`: the constant rotation of a bone
// also keyed, its second ClipBone); a new bone without rotation when the clip has none.
ClipBone& clip_bone(Clip& clip, std::uint32_t id, bool second) {
  std::vector<std::size_t> at;
  for (std::size_t i = 0; i < clip.bones.size(); ++i)
    if (clip.bones[i].hash == id) at.push_back(i);
  if (at.empty()) {
    ClipBone b;
    b.hash = id;
    return clip.bones[clip.add_bone(std::move(b))];
  }
  return clip.bones[second && at.size() > 1 ? at[1] : at[0]];
}

// Counts a track of the clip in the report; whether the file changed it.
bool count_track(const LegacyTrack& t, GltfAnimationImport& rep) {
  const auto& v = t.verdict;
  const bool changed = std::any_of(v.changed.begin(), v.changed.end(), [](char c) { return c != 0; });
  if (t.rotation) {
    ++rep.bones_matched;
    rep.keys_matched += v.matched;
    rep.keys_changed += v.values.size() - v.matched;
    rep.max_matched_deviation_deg = std::max(rep.max_matched_deviation_deg, v.max_matched);
    if (changed) rep.bones_changed.push_back(bone_hash(t.node));
  } else {
    rep.translations_matched += v.matched;
    rep.translations_changed += v.values.size() - v.matched;
  }
  if (changed) rep.tracks_changed.push_back(t.label());
  return changed;
}

// Every edited track into `clip`, the template's clip_from_legacy, for legacy_from_clip: a track
// left alone keeps the template's samples (so its stored keys and codes), an edited one takes
// the file's values at every frame (the template's bits where they match). A constant that now
// moves becomes a keyed track, a new track on a bank node (plan_added) lands as planned.
Status apply_to_clip(const Context& ctx, const LegacyRead& r, Clip& clip, GltfAnimationImport& rep) {
  const gltf::Metric metric = gltf::Metric::rotation(ctx.options.match_tolerance_deg);
  for (const auto& t : r.tracks) {
    const bool added = t.kind == Kind::added;
    if (t.file_node < 0) {
      if (t.rotation && !added) rep.bones_kept.push_back(bone_hash(t.node));
      continue;
    }
    if (added ? t.fate != LegacyTrack::Fate::constant && t.fate != LegacyTrack::Fate::keyed : !count_track(t, rep))
      continue;
    const auto& values = t.verdict.values;
    const std::uint32_t id = track_bone(r, t);
    const bool doubled = (t.rotation ? r.rotation_doubled : r.translation_doubled).count(id) > 0;
    const bool still = added ? t.fate == LegacyTrack::Fate::constant
                             : std::all_of(values.begin(), values.end(),
                                           [&](const gltf::Value& x) { return metric.near(x, values.front()); });
    const auto refuse = [&] {
      return make_error(ErrorCode::invalid_argument, no_offset, t.label(),
                        std::string("holds the constant ") + (t.rotation ? "rotation" : "translation") +
                            " of a bone the clip also animates (bone_" + std::to_string(id) +
                            "); it cannot vary: animate bone_" + std::to_string(id) + " instead");
    };
    if (t.rotation && t.kind == Kind::constant && !still && doubled) return refuse();
    if (added) rep.tracks_changed.push_back(t.label() + (still ? " (new constant)" : " (new track)"));
    if (t.rotation) {
      std::vector<Quat> q;
      for (const auto& x : values) q.push_back(to_quat(x));
      if (t.kind == Kind::trajectory) {
        for (std::size_t f = 0; f < r.frames; ++f)
          if (t.verdict.changed[f]) clip.root_motion.rotations[f] = q[f];
        continue;
      }
      ClipBone& b = clip_bone(clip, id, t.kind == Kind::constant && doubled);
      if ((t.kind == Kind::constant || added) && still) {
        b.set_kind(BoneKind::constant);
        b.constant = q.front();
        continue;
      }
      if (t.kind == Kind::constant) rep.constant_to_animated.push_back(bone_hash(t.node));
      b.set_kind(BoneKind::animated);
      b.keys = std::move(q);
      continue;
    }
    std::vector<Vec3> x;
    if (added)
      for (const auto& v : values) x.push_back({static_cast<float>(v[0]), static_cast<float>(v[1]), static_cast<float>(v[2])});
    else
      x = translation_frames(t, ctx.options.match_tolerance_units);
    const bool same = std::all_of(x.begin(), x.end(), [&](const Vec3& y) { return y == x.front(); });
    if (t.kind == Kind::trajectory) {
      clip.root_motion.translations = std::move(x);
    } else if (t.kind == Kind::keyed) {
      clip_bone(clip, id, false).translations = std::move(x);
    } else if (added ? still : same) {
      clip_bone(clip, id, false).constant_translation = x.front();
    } else if (doubled) {
      return refuse();
    } else {
      ClipBone& b = clip_bone(clip, id, false);
      b.constant_translation.reset();
      b.translations = std::move(x);
    }
  }
  return {};
}

}  // namespace

Result<std::vector<std::uint8_t>> import_legacy_animation(const Context& ctx, const Container& current,
                                                          std::size_t ai, std::size_t block, GltfAnimationImport& rep,
                                                          Ignored& ignored) {
  const auto& opt = ctx.options;
  rep.animation = ai;
  rep.animation_name = ctx.model.animations[ai].name;
  rep.block = block;
  rep.legacy = true;
  rep.times_from_template = true;
  if (opt.keep_times || opt.reduce_deg)
    return make_error(ErrorCode::invalid_argument, no_offset, opt.keep_times ? "keep_times" : "reduce",
                      "Far Cry 2/3 clips are sampled at every frame and their keys chosen by the sparse key writer "
                      "(--max-error); --keep-times and --reduce do not apply");
  LegacyRead r;
  MAB_ASSIGN(r.orig, decode_legacy_clip(current, block, opt.limits));
  Ignored own;  // translations are stored here, not ignored
  MAB_ASSIGN(const Channels channels, read_channels(ctx.model, ai, own));
  ignored.weights += own.weights;  // scales: account_unmatched
  const LegacyClip& o = r.orig;
  r.frames = std::size_t{o.last_frame} + 1;
  rep.keys = r.frames;
  rep.key_rate = o.frame_rate;
  // Untimed constant sections alone (JB-DOC: lastFrame 0, rate 0) need no rate: one frame at 0.
  const bool timed = !o.rotations.empty() || !o.translations.empty() || o.present[0] || o.present[1];
  if (timed && (!(o.frame_rate > 0) || !std::isfinite(o.frame_rate)))
    return make_error(ErrorCode::bad_value, no_offset, "frame_rate",
                      "the clip's frame rate " + std::to_string(o.frame_rate) + " cannot place its frames in time");
  r.rate = timed ? double{o.frame_rate} : 1.0;
  // Untimed constants play at time 0 alone, whatever lastFrame the header stores: one frame
  // (with one per lastFrame, edited constants were planned past the one time they have).
  if (!timed) r.frames = 1;
  for (std::size_t f = 0; f < r.frames; ++f) r.frame_s.push_back(timed ? static_cast<double>(f) / r.rate : 0.0);
  const double snap = time_snap(r.rate, false);
  build_tracks(r);
  const Bank bank = bank_nodes(current, opt.limits);
  match_nodes(ctx, channels, bank, r, rep);
  std::vector<std::string> animated;
  std::vector<const gltf::Curve*> curves;
  std::size_t matched = 0;
  for (const auto& t : r.tracks)
    if (t.file_node >= 0 && t.kind != Kind::added) ++matched, curves.push_back(&(t.rotation ? channels.rotation : channels.translation).at(t.file_node));
  for (const auto* list : {&channels.rotation, &channels.translation})
    for (const auto& [node, c] : *list) animated.push_back(ctx.model.nodes[static_cast<std::size_t>(node)].name);
  MAB_TRY(check_matched(ctx, ai, block, matched, animated, rep));
  if (matched == 0) return write_container(current);  // allow_no_op: nothing to import
  // The key range export writes: a keyed track's last stored frame, not the clip's last frame.
  double last_s = 0;
  for (const auto& t : r.tracks)
    if (t.tmpl.t.size() >= 2) last_s = std::max(last_s, t.tmpl.t.back());
  MAB_TRY(check_same_clip(ctx, ai, block, curves, {0.0, last_s, o.frame_rate, o.duration, "frame_rate"}));
  MAB_TRY(evaluate(ctx, channels, r, snap));
  for (auto& t : r.tracks) {
    if (t.file_node < 0) continue;
    t.verdict = gltf::judge_track(t.kind == Kind::added ? rest_metric(opt, t.rotation)
                                  : t.rotation          ? gltf::Metric::rotation(opt.match_tolerance_deg)
                                                        : gltf::Metric::translation(opt.match_tolerance_units),
                                  t.evidence, snap);
  }
  std::vector<std::string> refused;
  plan_added(ctx, r, rep, refused);
  // A track of the clip, or a new one that lands (those at rest or refused are not stored).
  auto stored = [](const LegacyTrack& t) {
    return t.file_node >= 0 && (t.kind != Kind::added || t.fate == LegacyTrack::Fate::constant ||
                                t.fate == LegacyTrack::Fate::keyed);
  };
  std::vector<ResampleFinding> findings;
  for (const auto& t : r.tracks)
    if (stored(t))
      findings.push_back({t.label(), &t.verdict, &t.evidence, t.rotation ? "degrees" : "units",
                          t.rotation ? opt.match_tolerance_deg : opt.match_tolerance_units});
  {
    std::vector<TrackAgreement> agreement;
    for (const auto& t : r.tracks)
      if (t.file_node >= 0 && t.kind == Kind::keyed && t.rotation)
        agreement.push_back(agreement_of(t.label(), t.evidence, t.verdict.untouched));
    MAB_TRY(check_same_content(ctx, rep, agreement));
  }
  MAB_TRY(check_resample(ctx, findings, "frames at " + std::to_string(std::lround(r.rate)) + " per second", r.rate, rep));
  MAB_TRY(check_carried(ctx, r, snap, stored));
  {
    std::unordered_set<int> rotated, translated;
    for (const auto& t : r.tracks)
      if (t.file_node >= 0) (t.rotation ? rotated : translated).insert(t.file_node);
    MAB_TRY(account_unmatched(ctx, channels, rotated, translated, std::move(refused), rep));
  }
  Clip clip = clip_from_legacy(o);  // the one editable model (legacy_bridge.hpp)
  MAB_TRY(apply_to_clip(ctx, r, clip, rep));
  MAB_ASSIGN(const LegacyClip edited, legacy_from_clip(o, clip));
  const LegacyEncodeOptions lo = legacy_edit_policy(opt.max_error_deg);  // decision 21: the one error policy
  MAB_ASSIGN(const Container written, encode_legacy_clip(current, block, edited, lo, &rep.legacy_encode));
  return write_container(written);
}

}  // namespace mab::gltf_in
