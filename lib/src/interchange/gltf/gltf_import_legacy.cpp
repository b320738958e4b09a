// glTF -> Far Cry 2/3 clip (docs/gltf.md, "Far Cry 2 and 3"): the template's clip_from_legacy
// Clip (the one editable model) judged as an 'aNi' block's tracks are (gltf_import_tracks.cpp,
// gltf_timeline.hpp), every frame a block time; legacy_from_clip maps the edited Clip back for
// encode_legacy_clip, which keeps untouched tracks' stored keys and codes. What is Far Cry 2/3's
// own: the node names (gltf_names.hpp), bank nodes a clip has no track for, untimed constant
// sections, and a frame grid that gains no key times.
#include "interchange/gltf/gltf_import_shared.hpp"

#include "interchange/gltf/gltf_names.hpp"

#include <mab/legacy_bridge.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <unordered_map>
#include <unordered_set>

namespace mab::gltf_in {

namespace {

// What becomes of a channel on a bank node the clip has no track for (plan_added).
enum class Fate : std::uint8_t { clip_track, at_rest, constant, keyed, refused };

// A track of the clip, or of a bank node it lacks (`added`: at the rest export gives it).
struct Track {
  NodeTrack n;
  bool added = false;
  bool second = false;   // a bone_<id>_constant node (the bone also keyed)
  std::uint32_t id = 0;  // skeleton id; legacy_trajectory_id: the trajectory
  Fate fate = Fate::clip_track;
  const std::vector<std::vector<gltf::Value>>* poses = nullptr;  // added: its tracks in the bank's clips
};

gltf::Value vec_value(const Vec3& v) { return {v[0], v[1], v[2], 0}; }
Vec3 to_vec3(const gltf::Value& v) {
  return {static_cast<float>(v[0]), static_cast<float>(v[1]), static_cast<float>(v[2])};
}

// The tracks `mab export` writes for `c`, the clip_from_legacy Clip of `l`, on the nodes it
// names (gltf_names.hpp), rotations first; templates at `frame_s` (every frame, `rate` per
// second). A keyed rotation's own times are its stored frames, the keys export writes and a
// tool interpolates between (format 13; its every frame is legacy_rotation_at's).
std::vector<Track> clip_tracks(const Clip& c, const LegacyClip& l, const std::vector<double>& frame_s, double rate) {
  std::vector<Track> out;
  auto add = [&](Target target, std::size_t bone, std::uint32_t id, bool second, auto&& keys) {
    Track t;
    t.n.target = target, t.n.bone = bone, t.id = id, t.second = second;
    t.n.node_name = id == legacy_trajectory_id ? std::string(gltf::trajectory_node_name)
                    : second                   ? gltf::legacy_constant_node_name(id)
                                               : gltf::legacy_node_name(id);
    t.n.label = t.n.node_name + (t.n.rotation() ? " rotation" : " translation");
    for (const auto& k : keys) t.n.tmpl.v.push_back(k);
    if (t.n.tmpl.v.size() == 1) {
      t.n.tmpl.t = {0.0};
      t.n.block_tmpl.assign(frame_s.size(), t.n.tmpl.v.front());
    } else {
      t.n.tmpl.t = frame_s;
      t.n.block_tmpl = t.n.tmpl.v;
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
      const bool second = !seen.insert(b.hash).second && constant;  // clip_from_legacy: the keyed one first
      if (constant && b.kind() == BoneKind::constant)
        add(Target::rotation, i, b.hash, second, std::vector{to_value(b.constant)});
      if (constant || b.kind() != BoneKind::animated) continue;
      add(Target::rotation, i, b.hash, false, values(b.keys, to_value));
      for (const auto& tr : l.rotations) {
        if (tr.bone != b.hash) continue;
        auto& k = out.back().n.tmpl;
        k.t.clear(), k.v.clear();
        for (std::size_t j = 0; j < tr.frames.size(); ++j)
          k.t.push_back(tr.frames[j] / rate), k.v.push_back(to_value(tr.keys[j]));
      }
    }
  if (!c.root_motion.rotations.empty())
    add(Target::root_rotation, 0, legacy_trajectory_id, false, values(c.root_motion.rotations, to_value));
  for (std::size_t i = 0; i < c.bones.size(); ++i)
    if (const auto& b = c.bones[i]; b.constant_translation)
      add(Target::constant_translation, i, b.hash, !b.translations.empty(),
          std::vector{vec_value(*b.constant_translation)});
  for (std::size_t i = 0; i < c.bones.size(); ++i)
    if (!c.bones[i].translations.empty())
      add(Target::translation, i, c.bones[i].hash, false, values(c.bones[i].translations, vec_value));
  if (!c.root_motion.translations.empty())
    add(Target::root_translation, 0, legacy_trajectory_id, false, values(c.root_motion.translations, vec_value));
  return out;
}

// The nodes `mab export` writes for the bank (every clip that decodes): name -> a track of it
// (its id and node kind) and, per channel, its values in every clip that has one.
struct BankNode {
  Track track;
  std::vector<std::vector<gltf::Value>> rotations, translations;
};
using Bank = std::unordered_map<std::string, BankNode>;

Bank bank_nodes(const Container& c, const Limits& limits) {
  Bank out;
  for (std::size_t b = 0; b < c.blocks.size(); ++b)
    if (c.blocks[b].legacy() != nullptr)
      if (const auto l = decode_legacy_clip(c, b, limits))
        for (auto& t : clip_tracks(clip_from_legacy(*l), *l, {}, 1.0)) {
          auto& n = out[t.n.node_name];
          (t.n.rotation() ? n.rotations : n.translations).push_back(t.n.tmpl.v);
          n.track = std::move(t);
        }
  return out;
}

// How far a value may be from a bank node's rest and still be unedited: rotations land as
// 6-byte codes (format 9.1), whose components round by half a step each, so a difference below
// that rounding (about 0.0043 degrees) cannot be an edit the file could show; translations are
// f32 (format 13), for which the match tolerance (tools' float noise) applies.
gltf::Metric rest_metric(const GltfImportOptions& o, bool rotation) {
  constexpr double pi = 3.14159265358979323846;
  const double code_rounding_deg = std::sqrt(3.0) * double{quat48_step} * 180.0 / pi;
  return rotation ? gltf::Metric::rotation(std::max(o.match_tolerance_deg, code_rounding_deg)) : track_metric(o, false);
}

// Each track's node, as the 'aNi' import finds bones (identify: the CRC-32 of the name export
// gives); a node of the bank the clip has no track for becomes an `added` track at its rest
// (the first node of that name); what matches neither is listed.
void match_nodes(const Context& ctx, const Channels& channels, const Bank& bank, std::vector<Track>& tracks,
                 std::size_t frames, GltfAnimationImport& rep) {
  const auto& m = ctx.model;
  const std::size_t clip_tracks = tracks.size();
  for (const bool rotation : {true, false}) {
    std::unordered_map<std::uint32_t, std::size_t> track_of;
    std::unordered_set<std::uint32_t> known;
    for (std::size_t i = 0; i < clip_tracks; ++i)
      if (tracks[i].n.rotation() == rotation)
        track_of.emplace(bone_hash(tracks[i].n.node_name), i), known.insert(bone_hash(tracks[i].n.node_name));
    std::unordered_set<std::string> added;
    for (const auto& [node, curve] : rotation ? channels.rotation : channels.translation) {
      (void)curve;
      const NodeBone id = identify(m.nodes[static_cast<std::size_t>(node)], static_cast<std::size_t>(node), &known);
      const auto it = id.identified && id.occurrence == 0 ? track_of.find(id.hash) : track_of.end();
      if (it != track_of.end() && tracks[it->second].n.node < 0) {
        tracks[it->second].n.node = node;
        continue;
      }
      const auto& name = m.nodes[static_cast<std::size_t>(node)].name;
      // A bank node this clip has no track for (Blender samples every bone of the armature).
      if (const auto b = bank.find(name); b != bank.end() && it == track_of.end() && added.insert(name).second) {
        Track t = b->second.track;
        t.added = true, t.n.node = node;
        t.n.target = t.id == legacy_trajectory_id ? (rotation ? Target::root_rotation : Target::root_translation)
                     : rotation                   ? Target::rotation
                     : t.second                   ? Target::constant_translation
                                                  : Target::translation;
        t.n.label = name + (rotation ? " rotation" : " translation");
        t.poses = rotation ? &b->second.rotations : &b->second.translations;
        t.n.tmpl = {{0.0}, {rotation ? gltf::Value{0, 0, 0, 1} : gltf::Value{0, 0, 0, 0}}};
        t.n.block_tmpl.assign(frames, t.n.tmpl.v.front());
        tracks.push_back(std::move(t));
        continue;
      }
      rep.nodes_unmatched.push_back(name.empty() ? "node " + std::to_string(node)
                                                 : name + (rotation ? " (rotation)" : " (translation)"));
    }
  }
}

// Keys of edited tracks that no frame can hold (between frames, after the last): refused, as
// a frame grid gains no key times (an 'aNi' block's timeline does, gltf_import_template.cpp).
Status check_carried(const Context& ctx, const std::vector<Track>& tracks, const TrackTimes& tt, double rate,
                     double snap) {
  const std::size_t frames = tt.block_s.size();
  std::vector<std::uint32_t> units(frames);
  for (std::size_t f = 0; f < frames; ++f) units[f] = static_cast<std::uint32_t>(f);
  for (const bool rotation : {true, false}) {
    std::vector<gltf::TimelineTrack> timeline;
    std::vector<const Track*> of;
    for (const auto& t : tracks)
      if (t.n.rotation() == rotation && t.n.node >= 0 &&
          (t.fate == Fate::clip_track || t.fate == Fate::constant || t.fate == Fate::keyed) && !t.n.verdict.untouched &&
          !t.n.verdict.resampled)
        timeline.push_back({&t.n.evidence, &t.n.verdict}), of.push_back(&t);
    const auto p = gltf::plan_timeline(track_metric(ctx.options, rotation), timeline, units, rate, false, snap);
    if (p.uncarried.empty()) continue;
    const auto& u = p.uncarried.front();
    const double s = tt.times[u.at];
    char buf[96];
    std::snprintf(buf, sizeof buf, "%.4g %s", u.distance, rotation ? "degrees" : "units");
    const std::string where = s * rate > static_cast<double>(frames - 1) + 0.05
                                  ? "after the clip's last frame " + std::to_string(frames - 1)
                                  : "between its frames";
    return make_error(
        ErrorCode::not_decodable, no_offset, of[u.track]->n.label,
        "has a key at " + time_text(s, rate) + ", " + where + ", that its frames do not reproduce (" + buf + " off" +
            (p.uncarried.size() > 1 ? "; " + std::to_string(p.uncarried.size() - 1) + " more" : std::string()) +
            "): a Far Cry 2/3 clip stores keys on its frames only. Set the scene frame rate to " +
            std::to_string(std::lround(rate)) +
            " fps in Blender before importing the .glb (keys then fall on frames), and keep keys within "
            "the clip");
  }
  return {};
}

bool any_changed(const gltf::TrackVerdict& v) {
  return std::any_of(v.changed.begin(), v.changed.end(), [](char c) { return c != 0; });
}

bool still(const gltf::Metric& m, const std::vector<gltf::Value>& v) {
  return std::all_of(v.begin(), v.end(), [&](const gltf::Value& x) { return m.near(x, v.front()); });
}

// Channels on bank nodes the clip has no track for: at rest (unedited) they change nothing; an
// edit lands where the clip has the section to hold it (a constant when it does not vary, else
// a keyed or animated track; encode_legacy_clip cannot add a section), else it is listed in
// `refused` (--ignore-unmatched drops it).
void plan_added(const Context& ctx, const LegacyClip& o, std::vector<Track>& tracks, GltfAnimationImport& rep,
                std::vector<std::string>& refused) {
  for (auto& t : tracks) {
    if (!t.added || t.n.node < 0) continue;
    const auto& v = t.n.verdict;
    const bool rotation = t.n.rotation();
    const gltf::Metric metric = rest_metric(ctx.options, rotation);
    // Blender samples a bone the action does not key where the last pose it evaluated left
    // it: held still at a pose of that bone in another clip of the bank, not an edit.
    const bool held = !t.n.file.empty() && still(metric, t.n.file);
    const bool other_pose = held && std::any_of(t.poses->begin(), t.poses->end(), [&](const auto& k) {
                              return gltf::on_path(metric, t.n.file.front(), k);
                            });
    t.fate = Fate::at_rest;
    if (other_pose || !any_changed(v)) {
      ++rep.untracked_at_rest;
      continue;
    }
    const bool fixed = still(metric, v.values);
    const char* what = rotation ? "rotation" : "translation";
    const std::string clip = "clip " + std::to_string(rep.block);
    std::string why;
    if (t.id == legacy_trajectory_id) why = clip + " has no root motion " + what + " section to hold it";
    else if (t.second)
      why = clip + " holds no second (constant) value for bone " + std::to_string(t.id) + ": edit bone_" +
            std::to_string(t.id) + " instead";
    else if (fixed && o.present[rotation ? 2 : 4]) t.fate = Fate::constant;
    else if (o.present[rotation ? 3 : 5]) t.fate = Fate::keyed;
    else
      why = clip + " has no " + (fixed ? "constant or animated " : "animated ") + what +
            " section to hold it (adding a section is not supported)";
    if (why.empty()) continue;
    t.fate = Fate::refused;
    refused.push_back(t.n.label + " (no track in the clip; " + why + ")");
  }
}

// Counts a track of the clip in the report (the per-frame counts the Far Cry 2/3 report
// prints); whether the file changed it.
bool count_track(const Track& t, GltfAnimationImport& rep) {
  const auto& v = t.n.verdict;
  const bool changed = any_changed(v);
  if (t.n.rotation()) {
    ++rep.bones_matched;
    rep.keys_matched += v.matched;
    rep.keys_changed += v.values.size() - v.matched;
    rep.max_matched_deviation_deg = std::max(rep.max_matched_deviation_deg, v.max_matched);
    if (changed) rep.bones_changed.push_back(bone_hash(t.n.node_name));
  } else {
    rep.translations_matched += v.matched;
    rep.translations_changed += v.values.size() - v.matched;
  }
  if (changed) rep.tracks_changed.push_back(t.n.label);
  return changed;
}

// The ClipBone of skeleton id `id` (an added track's), a new one when the clip has none.
ClipBone& bone_of_id(Clip& clip, std::uint32_t id) {
  for (auto& b : clip.bones)
    if (b.hash == id) return b;
  ClipBone b;
  b.hash = id;
  return clip.bones[clip.add_bone(std::move(b))];
}

// Every edited track into `clip`, the template's clip_from_legacy, for legacy_from_clip: a track
// left alone keeps the template's samples (so its stored keys and codes), an edited one takes
// the file's values at every frame (the template's bits where they match). A constant that now
// moves becomes a keyed track, a new track on a bank node (plan_added) lands as planned.
Status apply_to_clip(const Context& ctx, const std::vector<Track>& tracks, Clip& clip, GltfAnimationImport& rep) {
  const gltf::Metric metric = track_metric(ctx.options, true);
  for (const auto& t : tracks) {
    if (t.n.node < 0) {
      if (t.n.rotation() && !t.added) rep.bones_kept.push_back(bone_hash(t.n.node_name));
      continue;
    }
    if (t.added ? t.fate != Fate::constant && t.fate != Fate::keyed : !count_track(t, rep)) continue;
    // An added track's template is the rest: the file's values as they are.
    const auto values = t.added ? t.n.verdict.values : keep_template_components(t.n, ctx.options.match_tolerance_units);
    std::vector<Vec3> x;
    if (!t.n.rotation())
      for (const auto& v : values) x.push_back(to_vec3(v));
    const bool fixed = t.added ? t.fate == Fate::constant
                       : t.n.rotation()
                           ? still(metric, values)
                           : std::all_of(x.begin(), x.end(), [&](const Vec3& y) { return y == x.front(); });
    if (t.added) rep.tracks_changed.push_back(t.n.label + (fixed ? " (new constant)" : " (new track)"));
    if (!fixed && t.second)
      return make_error(ErrorCode::invalid_argument, no_offset, t.n.label,
                        std::string("holds the constant ") + (t.n.rotation() ? "rotation" : "translation") +
                            " of a bone the clip also animates (bone_" + std::to_string(t.id) +
                            "); it cannot vary: animate bone_" + std::to_string(t.id) + " instead");
    if (t.n.target == Target::root_rotation) {
      for (std::size_t f = 0; f < values.size(); ++f)
        if (t.n.verdict.changed[f]) clip.root_motion.rotations[f] = to_quat(values[f]);
      continue;
    }
    if (t.n.target == Target::root_translation) {
      clip.root_motion.translations = std::move(x);
      continue;
    }
    ClipBone& b = t.added ? bone_of_id(clip, t.id) : clip.bones[t.n.bone];
    if (t.n.target == Target::rotation) {
      if (fixed && (t.added || b.kind() == BoneKind::constant)) {
        b.set_kind(BoneKind::constant);
        b.constant = to_quat(values.front());
        continue;
      }
      if (!t.added && b.kind() == BoneKind::constant) rep.constant_to_animated.push_back(bone_hash(t.n.node_name));
      b.set_kind(BoneKind::animated);
      b.keys.clear();
      for (const auto& v : values) b.keys.push_back(to_quat(v));
    } else if (t.n.target == Target::translation && !t.added) {
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

}  // namespace

Result<std::vector<std::uint8_t>> import_legacy_animation(const Context& ctx, const Container& current, std::size_t ai,
                                                          std::size_t block, GltfAnimationImport& rep,
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
                      "({opt:max_error}); {opt:keep_times} and {opt:reduce} do not apply");
  MAB_ASSIGN(const LegacyClip o, decode_legacy_clip(current, block, opt.limits));
  Ignored own;  // translations are stored here, not ignored
  MAB_ASSIGN(const Channels channels, read_channels(ctx.model, ai, own));
  ignored.weights += own.weights;  // scales: account_unmatched
  rep.keys = std::size_t{o.last_frame} + 1;
  rep.key_rate = o.frame_rate;
  // Untimed constant sections alone (JB-DOC: lastFrame 0, rate 0) need no rate, and play at
  // time 0 alone whatever lastFrame the header stores: one frame.
  const bool timed = !o.rotations.empty() || !o.translations.empty() || o.present[0] || o.present[1];
  if (timed && (!(o.frame_rate > 0) || !std::isfinite(o.frame_rate)))
    return make_error(ErrorCode::bad_value, no_offset, "frame_rate",
                      "the clip's frame rate " + std::to_string(o.frame_rate) + " cannot place its frames in time");
  const double rate = timed ? double{o.frame_rate} : 1.0;
  TrackTimes tt;
  for (std::size_t f = 0; f < (timed ? rep.keys : 1); ++f) tt.block_s.push_back(static_cast<double>(f) / rate);
  const double snap = time_snap(rate, false);
  Clip clip = clip_from_legacy(o);  // the one editable model (legacy_bridge.hpp)
  std::vector<Track> tracks = clip_tracks(clip, o, tt.block_s, rate);
  const Bank bank = bank_nodes(current, opt.limits);  // added tracks point into it
  match_nodes(ctx, channels, bank, tracks, tt.block_s.size(), rep);
  std::vector<std::string> animated;
  std::vector<const gltf::Curve*> curves;
  std::size_t matched = 0;
  for (const auto& t : tracks)
    if (t.n.node >= 0 && !t.added)
      ++matched, curves.push_back(&(t.n.rotation() ? channels.rotation : channels.translation).at(t.n.node));
  for (const auto* list : {&channels.rotation, &channels.translation})
    for (const auto& [node, c] : *list) animated.push_back(ctx.model.nodes[static_cast<std::size_t>(node)].name);
  MAB_TRY(check_matched(ctx, ai, block, matched, animated, rep));
  if (matched == 0) return write_container(current);  // allow_no_op: nothing to import
  // The key range export writes: a keyed track's last stored frame, not the clip's last frame.
  double last_s = 0;
  for (const auto& t : o.rotations)
    if (t.frames.size() >= 2) last_s = std::max(last_s, t.frames.back() / rate);
  if (o.present[0] || o.present[1] || !o.translations.empty()) last_s = std::max(last_s, o.last_frame / rate);
  MAB_TRY(check_same_clip(ctx, ai, block, curves, {0.0, last_s, o.frame_rate, o.duration, "frame_rate"}));
  std::vector<NodeTrack*> judged;
  for (auto& t : tracks) judged.push_back(&t.n);
  MAB_TRY(evaluate_tracks(ctx, channels, snap, true, tt, judged));
  for (auto& t : tracks)
    if (t.n.node >= 0)
      t.n.verdict = gltf::judge_track(t.added ? rest_metric(opt, t.n.rotation()) : track_metric(opt, t.n.rotation()),
                                      t.n.evidence, snap);
  std::vector<std::string> refused;
  plan_added(ctx, o, tracks, rep, refused);
  std::vector<ResampleFinding> findings;
  std::vector<TrackAgreement> agreement;
  for (const auto& t : tracks) {
    if (t.n.node < 0 || t.fate == Fate::at_rest || t.fate == Fate::refused) continue;
    findings.push_back({t.n.label, &t.n.verdict, &t.n.evidence, t.n.rotation() ? "degrees" : "units",
                        t.n.rotation() ? opt.match_tolerance_deg : opt.match_tolerance_units});
    if (!t.added && t.n.target == Target::rotation && clip.bones[t.n.bone].kind() == BoneKind::animated)
      agreement.push_back(agreement_of(t.n.label, t.n.evidence, t.n.verdict.untouched));
  }
  MAB_TRY(check_same_content(ctx, rep, agreement));
  MAB_TRY(check_resample(ctx, findings, "frames at " + std::to_string(std::lround(rate)) + " per second", rate, rep));
  MAB_TRY(check_carried(ctx, tracks, tt, rate, snap));
  {
    std::unordered_set<int> rotated, translated;
    for (const auto& t : tracks)
      if (t.n.node >= 0) (t.n.rotation() ? rotated : translated).insert(t.n.node);
    MAB_TRY(account_unmatched(ctx, channels, rotated, translated, std::move(refused), rep));
  }
  MAB_TRY(apply_to_clip(ctx, tracks, clip, rep));
  MAB_ASSIGN(const LegacyClip edited, legacy_from_clip(o, clip));
  const LegacyEncodeOptions lo = legacy_edit_policy(opt.max_error_deg);  // decision 21: the one error policy
  MAB_ASSIGN(const Container written, encode_legacy_clip(current, block, edited, lo, &rep.legacy_encode));
  return write_container(written);
}

}  // namespace mab::gltf_in
