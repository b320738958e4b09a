// glTF -> Far Cry 2/3 clip (docs/gltf.md, "Far Cry 2 and 3").
#include "interchange/gltf_import_shared.hpp"

#include "interchange/gltf_legacy.hpp"
#include "interchange/gltf_names.hpp"

#include <algorithm>
#include <cmath>
#include <unordered_map>
#include <unordered_set>

namespace mab::gltf_in {

namespace {

constexpr double pi = 3.14159265358979323846;

}  // namespace

// One animation into a Far Cry 2/3 clip (docs/gltf.md, "Far Cry 2 and 3"): every track of
// the template sampled at every frame; a track within tolerance at every frame is the
// template's, bit for bit; another is handed to encode_legacy_clip, whose sparse key writer
// stores the keys max_error_deg needs. Rotations are read as for 'aNi' clips (rest-relative
// on the flat rig export writes), through a stand-in clip with a bone per rotated node.
Result<std::vector<std::uint8_t>> import_legacy_animation(const Context& ctx, const Container& current,
                                                          std::size_t ai, std::size_t block, GltfAnimationImport& rep,
                                                          Ignored& ignored) {
  const auto& opt = ctx.options;
  const auto& m = ctx.model;
  rep.animation = ai;
  rep.animation_name = m.animations[ai].name;
  rep.block = block;
  rep.legacy = true;
  rep.times_from_template = true;
  if (opt.keep_times || opt.reduce_deg)
    return make_error(ErrorCode::invalid_argument, no_offset, opt.keep_times ? "keep_times" : "reduce",
                      "Far Cry 2/3 clips are sampled at every frame and their keys chosen by the sparse key writer "
                      "(--max-error); --keep-times and --reduce do not apply");
  MAB_ASSIGN(const LegacyClip orig, decode_legacy_clip(current, block, opt.limits));
  Ignored own;  // translations are stored here, not ignored
  MAB_ASSIGN(const Channels channels, read_channels(m, ai, own));
  ignored.scale += own.scale;
  ignored.max_scale_offset = std::max(ignored.max_scale_offset, own.max_scale_offset);
  ignored.weights += own.weights;
  const double rate = orig.frame_rate;
  const std::size_t frames = std::size_t{orig.last_frame} + 1;
  rep.keys = frames;
  rep.key_rate = rate;
  // Untimed constant sections alone (JB-DOC: lastFrame 0, rate 0) need no rate: one frame at 0.
  const bool timed = !orig.rotations.empty() || !orig.translations.empty() || orig.present[0] || orig.present[1];
  if (timed && (!(rate > 0) || !std::isfinite(rate)))
    return make_error(ErrorCode::bad_value, no_offset, "frame_rate",
                      "the clip's frame rate " + std::to_string(rate) + " cannot place its frames in time");
  std::vector<double> seconds(frames);
  for (std::size_t f = 0; f < frames; ++f) seconds[f] = timed ? static_cast<double>(f) / rate : 0.0;
  const double snap = time_snap(rate, false);

  // The stand-in clip: constant rotations, keyed rotations (every frame), trajectory rotation.
  enum class Kind : std::uint8_t { constant, keyed, trajectory };
  struct Ref {
    Kind kind;
    std::size_t index;
    std::string label;
  };
  Clip pseudo;
  std::vector<Ref> refs;
  auto add_bone = [&](const std::string& node_name, Kind kind, std::size_t index) {
    ClipBone b;
    b.hash = bone_hash(node_name);
    b.name = node_name;
    b.set_kind(kind == Kind::constant ? BoneKind::constant : BoneKind::animated);
    if (kind == Kind::constant) {
      b.constant = orig.constant_rotations[index].rotation;
    } else {
      b.keys.resize(frames);
      for (std::size_t f = 0; f < frames; ++f)
        b.keys[f] = kind == Kind::keyed ? legacy_rotation_at(orig.rotations[index], static_cast<std::uint32_t>(f))
                                        : orig.trajectory_rotation[f];
    }
    pseudo.bones.push_back(std::move(b));
    refs.push_back({kind, index, node_name + " rotation"});
  };
  // A bone the clip holds constant and animates at once keeps its constant value on a node of
  // its own (gltf_legacy.hpp), and that value stays constant.
  std::unordered_set<std::uint32_t> rotation_doubled, translation_doubled;
  for (const auto& c : orig.constant_rotations)
    for (const auto& k : orig.rotations)
      if (k.bone == c.bone) rotation_doubled.insert(c.bone);
  for (const auto& c : orig.constant_translations)
    for (const auto& k : orig.translations)
      if (k.bone == c.bone) translation_doubled.insert(c.bone);
  auto constant_rotation_node = [&](std::uint32_t bone) {
    return rotation_doubled.count(bone) ? gltf::legacy_constant_node_name(bone) : gltf::legacy_node_name(bone);
  };
  auto constant_translation_node = [&](std::uint32_t bone) {
    return translation_doubled.count(bone) ? gltf::legacy_constant_node_name(bone) : gltf::legacy_node_name(bone);
  };
  for (std::size_t i = 0; i < orig.constant_rotations.size(); ++i)
    add_bone(constant_rotation_node(orig.constant_rotations[i].bone), Kind::constant, i);
  for (std::size_t i = 0; i < orig.rotations.size(); ++i)
    add_bone(gltf::legacy_node_name(orig.rotations[i].bone), Kind::keyed, i);
  if (orig.present[1]) add_bone(std::string(gltf::trajectory_node_name), Kind::trajectory, 0);

  std::unordered_set<std::uint32_t> known;
  for (const auto& b : pseudo.bones) known.insert(b.hash);
  std::unordered_set<std::uint32_t> known_translated;
  for (const auto& t : orig.constant_translations) known_translated.insert(bone_hash(constant_translation_node(t.bone)));
  for (const auto& t : orig.translations) known_translated.insert(bone_hash(gltf::legacy_node_name(t.bone)));
  if (orig.present[0]) known_translated.insert(bone_hash(gltf::trajectory_node_name));
  BoneNodes node_of;
  for (const auto& [node, curve] : channels.rotation) {
    (void)curve;
    const NodeBone id = identify(m.nodes[static_cast<std::size_t>(node)], static_cast<std::size_t>(node), &known);
    if (!id.identified || !known.count(id.hash) || !node_of.emplace(std::make_pair(id.hash, id.occurrence), node).second)
      rep.nodes_unmatched.push_back(m.nodes[static_cast<std::size_t>(node)].name.empty()
                                        ? "node " + std::to_string(node)
                                        : m.nodes[static_cast<std::size_t>(node)].name + " (rotation)");
  }
  auto tmpl = [&](std::size_t i, std::size_t k) -> Quat {
    const ClipBone& b = pseudo.bones[i];
    return b.kind() == BoneKind::constant ? b.constant : b.keys[k];
  };
  MAB_ASSIGN(auto samples, reconstruct(ctx, channels.rotation, pseudo, node_of, seconds, snap, true, tmpl));

  LegacyClip edited = orig;
  std::vector<LegacyRotationTrack> promoted;  // constant rotations that now move
  std::vector<bool> drop_constant(orig.constant_rotations.size(), false);
  for (std::size_t i = 0; i < pseudo.bones.size(); ++i) {
    if (samples[i].empty()) {
      rep.bones_kept.push_back(pseudo.bones[i].hash);
      continue;
    }
    ++rep.bones_matched;
    const auto& s = samples[i];
    std::vector<bool> same(frames);
    bool all_same = true;
    for (std::size_t f = 0; f < frames; ++f) {
      const double hc = half_cos(s[f], tmpl(i, f));
      same[f] = hc >= ctx.cos_tol;
      all_same = all_same && same[f];
      if (same[f])
        ++rep.keys_matched,
            rep.max_matched_deviation_deg = std::max(rep.max_matched_deviation_deg,
                                                     360.0 / pi * std::acos(std::min(1.0, hc)));
      else
        ++rep.keys_changed;
    }
    if (all_same) continue;
    rep.bones_changed.push_back(pseudo.bones[i].hash);
    rep.tracks_changed.push_back(refs[i].label);
    const Ref& r = refs[i];
    if (r.kind == Kind::constant) {
      double spread = 1;
      for (const auto& q : s) spread = std::min(spread, half_cos(q, s.front()));
      if (spread >= ctx.cos_tol) {
        edited.constant_rotations[r.index].rotation = s.front();
      } else if (rotation_doubled.count(orig.constant_rotations[r.index].bone)) {
        return make_error(ErrorCode::invalid_argument, no_offset, refs[i].label,
                          "holds the constant rotation of a bone the clip also keys (bone_" +
                              std::to_string(orig.constant_rotations[r.index].bone) +
                              "); it cannot vary: animate bone_<id> instead");
      } else {
        LegacyRotationTrack t;
        t.bone = orig.constant_rotations[r.index].bone;
        for (std::size_t f = 0; f < frames; ++f) t.frames.push_back(static_cast<std::uint16_t>(f));
        t.keys = s;
        promoted.push_back(std::move(t));
        drop_constant[r.index] = true;
        rep.constant_to_animated.push_back(pseudo.bones[i].hash);
      }
    } else if (r.kind == Kind::keyed) {
      // Every frame, the template's value where the file agrees: at the template's stored
      // frames that is its key itself, whose code the encoder then keeps.
      LegacyRotationTrack& t = edited.rotations[r.index];
      t.frames.clear();
      t.keys.clear();
      for (std::size_t f = 0; f < frames; ++f) {
        t.frames.push_back(static_cast<std::uint16_t>(f));
        t.keys.push_back(same[f] ? tmpl(i, f) : s[f]);
      }
    } else {
      for (std::size_t f = 0; f < frames; ++f)
        if (!same[f]) edited.trajectory_rotation[f] = s[f];
    }
  }
  if (!promoted.empty()) {
    std::vector<LegacyConstantRotation> kept;
    for (std::size_t i = 0; i < edited.constant_rotations.size(); ++i)
      if (!drop_constant[i]) kept.push_back(edited.constant_rotations[i]);
    edited.constant_rotations = std::move(kept);
    for (auto& t : promoted) edited.rotations.push_back(std::move(t));
    std::sort(edited.rotations.begin(), edited.rotations.end(),
              [](const LegacyRotationTrack& a, const LegacyRotationTrack& b) { return a.bone < b.bone; });
  }

  // Translations: the node's translation channel at every frame.
  std::unordered_map<std::uint32_t, int> tnode;
  for (const auto& [node, curve] : channels.translation) {
    (void)curve;
    const NodeBone id =
        identify(m.nodes[static_cast<std::size_t>(node)], static_cast<std::size_t>(node), &known_translated);
    if (!id.identified || !known_translated.count(id.hash) || id.occurrence != 0 || !tnode.emplace(id.hash, node).second)
      rep.nodes_unmatched.push_back(m.nodes[static_cast<std::size_t>(node)].name.empty()
                                        ? "node " + std::to_string(node)
                                        : m.nodes[static_cast<std::size_t>(node)].name + " (translation)");
  }
  const double tol = opt.match_tolerance_units;
  auto near = [&](const Vec3& a, const std::array<double, 3>& b) {
    for (unsigned k = 0; k < 3; ++k)
      if (!(std::abs(b[k] - a[k]) <= tol * std::max(1.0, std::abs(double{a[k]})))) return false;
    return true;
  };
  // Samples `name`'s channel into `values` (one per frame, the template's where within
  // tolerance); false when the node has no channel or nothing changed.
  auto sample_translations = [&](const std::string& name, std::vector<Vec3>& values) {
    const auto it = tnode.find(bone_hash(name));
    if (it == tnode.end()) return false;
    const gltf::Curve& c = channels.translation.at(it->second);
    bool changed = false;
    for (std::size_t f = 0; f < values.size(); ++f) {
      const auto v = gltf::sample_vec3(c, seconds[f], snap);
      if (near(values[f], v)) {
        ++rep.translations_matched;
        continue;
      }
      // Components within tolerance keep their bits too (a key moved along one axis).
      for (unsigned k = 0; k < 3; ++k)
        if (!(std::abs(v[k] - values[f][k]) <= tol * std::max(1.0, std::abs(double{values[f][k]}))))
          values[f][k] = static_cast<float>(v[k]);
      ++rep.translations_changed;
      changed = true;
    }
    if (changed) rep.tracks_changed.push_back(name + " translation");
    return changed;
  };
  std::vector<LegacyTranslationTrack> moved;
  std::vector<bool> drop_translation(edited.constant_translations.size(), false);
  for (std::size_t i = 0; i < edited.constant_translations.size(); ++i) {
    auto& t = edited.constant_translations[i];
    std::vector<Vec3> values(frames, t.translation);
    if (!sample_translations(constant_translation_node(t.bone), values)) continue;
    if (std::all_of(values.begin(), values.end(), [&](const Vec3& v) { return v == values.front(); })) {
      t.translation = values.front();
    } else if (translation_doubled.count(t.bone)) {
      return make_error(ErrorCode::invalid_argument, no_offset, constant_translation_node(t.bone) + " translation",
                        "holds the constant translation of a bone the clip also animates; it cannot vary: animate "
                        "bone_" + std::to_string(t.bone) + " instead");
    } else {
      moved.push_back({t.bone, std::move(values)});
      drop_translation[i] = true;
    }
  }
  for (auto& t : edited.translations) sample_translations(gltf::legacy_node_name(t.bone), t.frames);
  if (edited.present[0]) sample_translations(std::string(gltf::trajectory_node_name), edited.trajectory_translation);
  if (!moved.empty()) {
    std::vector<LegacyConstantTranslation> kept;
    for (std::size_t i = 0; i < edited.constant_translations.size(); ++i)
      if (!drop_translation[i]) kept.push_back(edited.constant_translations[i]);
    edited.constant_translations = std::move(kept);
    for (auto& t : moved) edited.translations.push_back(std::move(t));
    std::sort(edited.translations.begin(), edited.translations.end(),
              [](const LegacyTranslationTrack& a, const LegacyTranslationTrack& b) { return a.bone < b.bone; });
  }

  LegacyEncodeOptions lo;
  lo.max_error_deg = opt.max_error_deg;
  MAB_ASSIGN(const Container written, encode_legacy_clip(current, block, edited, lo, &rep.legacy_encode));
  return write_container(written);
}

}  // namespace mab::gltf_in
