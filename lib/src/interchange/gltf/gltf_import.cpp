// glTF 2.0 -> .mab (docs/gltf.md): the entry point (which animation goes into which block,
// the rig, the refusals of no-op imports), the glTF's own key times (--keep-times) and new
// clips; the template's key times are gltf_import_template.cpp's, Far Cry 2/3 clips
// gltf_import_legacy.cpp's.
#include <mab/edit_policy.hpp>
#include <mab/gltf.hpp>
#include <mab/text.hpp>

#include "interchange/gltf/gltf_import_shared.hpp"
#include "interchange/gltf/gltf_names.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <map>
#include <set>
#include <unordered_map>
#include <unordered_set>

namespace mab {

using namespace gltf_in;

namespace {

constexpr double pi = 3.14159265358979323846;

std::vector<std::string> ignored_lines(const Ignored& ig) {
  std::vector<std::string> out;
  char buf[96];
  if (ig.translation) {
    std::snprintf(buf, sizeof buf, "%.6g", ig.max_translation_offset);
    std::string line = std::to_string(ig.translation) +
                       " translation channel(s) not stored (a new clip holds rotations only); largest offset from "
                       "the rest position " +
                       buf;
    if (!ig.translation_nodes.empty()) {
      line += ", moved: ";
      for (std::size_t i = 0; i < ig.translation_nodes.size(); ++i) line += (i ? ", " : "") + ig.translation_nodes[i];
    }
    out.push_back(std::move(line));
  }
  if (ig.scale) {
    std::snprintf(buf, sizeof buf, "%.6g", ig.max_scale_offset);
    out.push_back(std::to_string(ig.scale) +
                  " scale channel(s) not stored (the format has no scale tracks); largest change from the rest "
                  "scale " +
                  buf);
  }
  if (ig.weights) out.push_back(std::to_string(ig.weights) + " morph weight channel(s) not stored (not part of .mab)");
  return out;
}

// "block_N", optionally followed by anything but a digit (tools append their own suffixes).
std::optional<std::size_t> block_named(const tinygltf::Animation& a) {
  const tinygltf::Value& ex = gltf::mabkit_extras(a.extras);
  if (ex.IsObject() && ex.Has("block") && ex.Get("block").IsNumber()) {
    const double b = ex.Get("block").GetNumberAsDouble();
    if (b >= 0 && b < 65536 && std::floor(b) == b) return static_cast<std::size_t>(b);
  }
  constexpr std::string_view prefix = "block_";
  const std::string_view name = a.name;
  if (name.substr(0, prefix.size()) != prefix) return std::nullopt;
  std::size_t b = 0;
  const char* first = name.data() + prefix.size();
  const char* last = name.data() + name.size();
  const auto r = std::from_chars(first, last, b);
  if (r.ec != std::errc() || r.ptr == first || b >= 65536) return std::nullopt;
  return b;
}

// The glTF key times of `curves`, rounded to the key rate (decision 7), sorted and unique.
Result<std::vector<std::uint32_t>> rounded_times(const std::vector<const gltf::Curve*>& curves, double rate,
                                                 const Limits& limits, double& max_shift) {
  std::vector<std::uint32_t> ticks;
  for (const auto* c : curves) {
    for (const float t : c->times) {
      const double tick = std::round(double{t} * rate);
      max_shift = std::max(max_shift, std::abs(tick / rate - t));
      if (!(tick <= 65535))
        return make_error(ErrorCode::limit_exceeded, no_offset, "key_times",
                          "time " + std::to_string(t) + " s is " + std::to_string(tick) +
                              " key-time units; the format stores at most 65535 (format 9.4)");
      ticks.push_back(static_cast<std::uint32_t>(tick));
    }
  }
  std::sort(ticks.begin(), ticks.end());
  ticks.erase(std::unique(ticks.begin(), ticks.end()), ticks.end());
  if (ticks.size() > limits.max_keys)
    return make_error(ErrorCode::limit_exceeded, no_offset, "key_times",
                      std::to_string(ticks.size()) + " distinct key times exceed the limit");
  return ticks;
}

// A rotation on a bone the template does not rotate: a new track when it moves (the encoder
// lays it out, as the Python module's state does), else nothing to store.
void new_rotation_track(const Context& ctx, const ClipBone& ob, std::vector<Quat> q, ClipBone& eb,
                        GltfAnimationImport& rep) {
  double worst = 1, spread = 1;
  for (const auto& x : q)
    worst = std::min(worst, half_cos(x, Quat{})), spread = std::min(spread, half_cos(x, q.front()));
  if (worst >= ctx.cos_tol) {
    rep.no_rotation_track.push_back(ob.hash);
    return;
  }
  eb.set_kind(spread >= ctx.cos_tol ? BoneKind::constant : BoneKind::animated);
  if (eb.kind() == BoneKind::constant) {
    eb.constant = q.front();
  } else {
    eb.set_bit_depth(16);  // re-picked against max_error_deg by the encoder
    eb.keys = std::move(q);
  }
  rep.bones_changed.push_back(ob.hash);
  rep.rotation_added.push_back(ob.hash);
  rep.tracks_changed.push_back(label(ob.hash, ob.name) + " rotation (a new track)");
}

// --keep-times: the glTF's own key times rounded to the key rate (decision 7), each key keeping its
// value; bones without a channel resampled onto them.
Status read_on_own_times(const Context& ctx, const Channels& channels, const Clip& orig, const BoneNodes& node_of,
                         Clip& edited, GltfAnimationImport& rep) {
  const auto& opt = ctx.options;
  const double rate = orig.key_rate;
  std::vector<const gltf::Curve*> used;
  for (const auto& [key, node] : node_of) used.push_back(&channels.rotation.at(node));
  if (!used.empty()) {
    if (!increasing(orig.key_times))
      return make_error(ErrorCode::bad_value, no_offset, "KeyTimes",
                        "the template's key times do not increase, so its bones cannot be resampled onto "
                        "the glTF's times (nor glTF keys placed between them without {opt:keep_times}); edit "
                        "such a clip through JSON");
    MAB_ASSIGN(edited.key_times, rounded_times(used, rate, opt.limits, rep.max_time_shift_s));
  }
  const bool same_timeline = edited.key_times == orig.key_times;
  rep.times_from_template = same_timeline;
  rep.keys = edited.key_count();
  rep.key_rate = rate;
  // Template key of each new key time, when the template has one there.
  std::vector<int> tmpl_key(edited.key_count(), -1);
  if (same_timeline) {
    for (std::size_t k = 0; k < tmpl_key.size(); ++k) tmpl_key[k] = static_cast<int>(k);
  } else {
    std::unordered_map<std::uint32_t, int> at;
    for (std::size_t k = 0; k < orig.key_count(); ++k) at.emplace(orig.key_times[k], static_cast<int>(k));
    for (std::size_t k = 0; k < edited.key_count(); ++k)
      if (auto it = at.find(edited.key_times[k]); it != at.end()) tmpl_key[k] = it->second;
  }
  std::vector<double> seconds(edited.key_count());
  for (std::size_t k = 0; k < seconds.size(); ++k) seconds[k] = edited.key_times[k] / rate;
  const double snap = time_snap(rate, !same_timeline);

  // The template's rotation of bone i at new key k, for bones the file does not move.
  std::vector<gltf::Curve> tmpl_curves(orig.bones.size());
  if (!same_timeline)
    for (std::size_t i = 0; i < orig.bones.size(); ++i)
      if (orig.bones[i].kind() == BoneKind::animated) tmpl_curves[i] = template_curve(orig, orig.bones[i]);
  auto tmpl = [&](std::size_t i, std::size_t k) -> Quat {
    const ClipBone& ob = orig.bones[i];
    if (ob.kind() == BoneKind::constant) return ob.constant;
    if (tmpl_key[k] >= 0) return ob.keys[static_cast<std::size_t>(tmpl_key[k])];
    return gltf::sample_rotation(tmpl_curves[i], seconds[k], snap);
  };
  MAB_ASSIGN(auto all_samples, reconstruct(ctx, channels.rotation, orig, node_of, seconds, snap, true, tmpl));

  for (std::size_t i = 0; i < edited.bones.size(); ++i) {
    ClipBone& eb = edited.bones[i];
    const ClipBone& ob = orig.bones[i];
    if (all_samples[i].empty()) {
      if (ob.kind() == BoneKind::animated && !same_timeline) {
        eb.keys.resize(edited.key_count());
        for (std::size_t k = 0; k < seconds.size(); ++k) eb.keys[k] = tmpl(i, k);
        rep.bones_resampled.push_back(ob.hash);
      } else if (ob.kind() != BoneKind::none) {
        rep.bones_kept.push_back(ob.hash);
      }
      continue;
    }
    if (ob.kind() == BoneKind::none) {
      new_rotation_track(ctx, ob, std::move(all_samples[i]), eb, rep);
      continue;
    }
    ++rep.bones_matched;
    std::vector<Quat> samples = std::move(all_samples[i]);
    bool changed = false;
    if (ob.kind() == BoneKind::constant) {
      double worst = 1;
      for (const auto& q : samples) worst = std::min(worst, half_cos(q, ob.constant));
      if (worst >= ctx.cos_tol) {
        ++rep.keys_matched;
        rep.max_matched_deviation_deg =
            std::max(rep.max_matched_deviation_deg, 360.0 / pi * std::acos(std::min(1.0, worst)));
        continue;
      }
      changed = true;
      ++rep.keys_changed;
      double spread = 1;
      for (const auto& q : samples) spread = std::min(spread, half_cos(q, samples.front()));
      if (samples.empty() || spread >= ctx.cos_tol) {
        eb.constant = samples.empty() ? ob.constant : samples.front();
      } else {
        eb.set_kind(BoneKind::animated);
        eb.keys = std::move(samples);
        rep.constant_to_animated.push_back(ob.hash);
      }
    } else {
      eb.keys.resize(edited.key_count());
      for (std::size_t k = 0; k < samples.size(); ++k) {
        const int tk = tmpl_key[k];
        if (tk >= 0) {
          const Quat& t = ob.keys[static_cast<std::size_t>(tk)];
          const double hc = half_cos(samples[k], t);
          if (hc >= ctx.cos_tol) {
            eb.keys[k] = t;
            ++rep.keys_matched;
            rep.max_matched_deviation_deg =
                std::max(rep.max_matched_deviation_deg, 360.0 / pi * std::acos(std::min(1.0, hc)));
            continue;
          }
        }
        eb.keys[k] = samples[k];
        ++rep.keys_changed;
        changed = true;
      }
      if (!same_timeline) changed = true;
    }
    if (changed) {
      rep.bones_changed.push_back(ob.hash);
      rep.tracks_changed.push_back(label(ob.hash, ob.name) + " rotation");
    }
  }

  return {};
}

// One animation into one block of `current` (the template, or the result of the previous
// animation).
Result<std::vector<std::uint8_t>> import_animation(const Context& ctx, const Container& current, std::size_t ai,
                                                   std::size_t block, GltfAnimationImport& rep, Ignored& ignored) {
  const auto& opt = ctx.options;
  const auto& m = ctx.model;
  rep.animation = ai;
  rep.animation_name = m.animations[ai].name;
  rep.block = block;
  MAB_ASSIGN(const DecodedClip d, decode_clip(current, block, opt.limits));
  const Clip& orig = d.clip;
  Ignored own;  // translations are read (read_motion), scales accounted for (account_unmatched)
  MAB_ASSIGN(const Channels channels, read_channels(m, ai, own));
  ignored.weights += own.weights;

  std::unordered_set<std::uint32_t> known;
  std::set<std::pair<std::uint32_t, unsigned>> bones;  // (hash, occurrence) of the block's bones
  {
    std::unordered_map<std::uint32_t, unsigned> seen;
    for (const auto& b : orig.bones) known.insert(b.hash), bones.insert({b.hash, seen[b.hash]++});
  }
  // The nodes the import reads: one per bone of the block (the first animated node naming it;
  // a second armature's copy names it again), and root motion's node.
  std::map<std::pair<std::uint32_t, unsigned>, int> bone_node;
  std::set<int> animated_nodes;
  for (const auto* curves : {&channels.rotation, &channels.translation, &channels.scale})
    for (const auto& [node, curve] : *curves) animated_nodes.insert(node);
  std::unordered_set<int> handled;
  for (const int node : animated_nodes) {
    const auto& n = m.nodes[static_cast<std::size_t>(node)];
    const NodeBone id = identify(n, static_cast<std::size_t>(node), &known);
    if (id.identified && bones.count({id.hash, id.occurrence})) {
      if (bone_node.emplace(std::make_pair(id.hash, id.occurrence), node).second) handled.insert(node);
    } else if (n.name == gltf::trajectory_node_name && !known.count(bone_hash(n.name)) && !orig.root_motion.empty()) {
      handled.insert(node);
    }
  }
  // (hash, occurrence) -> node with a rotation channel.
  BoneNodes node_of;
  for (const auto& [node, curve] : channels.rotation) {
    (void)curve;
    const auto& n = m.nodes[static_cast<std::size_t>(node)];
    if (!handled.count(node)) {
      rep.nodes_unmatched.push_back(n.name.empty() ? "node " + std::to_string(node) : n.name);
      continue;
    }
    const NodeBone id = identify(n, static_cast<std::size_t>(node), &known);
    if (id.identified && bones.count({id.hash, id.occurrence}))
      node_of.emplace(std::make_pair(id.hash, id.occurrence), node);
  }

  std::vector<std::string> animated;
  for (const auto& [node, curve] : channels.rotation) animated.push_back(m.nodes[static_cast<std::size_t>(node)].name);
  MAB_TRY(check_matched(ctx, ai, block, handled.size(), animated, rep));
  if (handled.empty()) return write_container(current);  // allow_no_op: nothing to import
  MAB_TRY(check_rig_shape(ctx, node_of));
  {
    std::vector<const gltf::Curve*> curves;
    for (const auto& [key, node] : node_of) curves.push_back(&channels.rotation.at(node));
    ClipSpan span;
    span.first_s = orig.key_times.empty() ? 0.0 : orig.key_times.front() / orig.key_rate;
    span.last_s = orig.key_times.empty() ? 0.0 : orig.key_times.back() / orig.key_rate;
    span.rate = orig.key_rate;
    span.duration = orig.duration;
    MAB_TRY(check_same_clip(ctx, ai, block, curves, span));
  }

  Clip edited = orig;
  if (opt.keep_times) {
    MAB_TRY(read_on_own_times(ctx, channels, orig, node_of, edited, rep));
  } else {
    MAB_TRY(read_on_template_times(ctx, channels, orig, node_of, edited, rep));
  }
  // Translations and root motion the template decoded (docs/motion.md) are not read from the glTF;
  // on a new timeline they are the template's, resampled.
  if (edited.key_times != orig.key_times) resample_motion(edited, orig);
  std::vector<std::string> refused;
  MAB_TRY(read_motion(ctx, channels, handled, orig, edited, rep, refused));
  MAB_TRY(account_unmatched(ctx, channels, handled, handled, std::move(refused), rep));
  MAB_TRY(reduce_keys(opt, edited, rep));
  const EncodeOptions eo = edit_policy(opt.max_error_deg, opt.max_translation_error);  // decision 21
  return encode_clip(d, edited, eo, &rep.encode);
}

// A new clip of options.game from one animation: a bone per rotation channel.
Result<std::vector<std::uint8_t>> import_new(const Context& ctx, std::size_t ai, GltfAnimationImport& rep,
                                             Ignored& ignored, std::vector<NewFieldDefault>& defaults) {
  const auto& opt = ctx.options;
  const auto& m = ctx.model;
  rep.animation = ai;
  rep.animation_name = m.animations[ai].name;
  rep.block = 0;
  MAB_ASSIGN(const Container empty, new_container(*opt.game, &defaults));
  MAB_ASSIGN(const DecodedClip d, decode_clip(empty, 0, opt.limits));
  MAB_ASSIGN(const Channels channels, read_channels(m, ai, ignored));
  if (channels.rotation.empty())
    return gltf::gltf_error(ErrorCode::not_found, "/animations/" + std::to_string(ai),
                            "the animation has no rotation channels; nothing to build a clip from");
  Clip clip = d.clip;
  const double rate = clip.key_rate;
  std::vector<const gltf::Curve*> curves;
  for (const auto& [node, c] : channels.rotation) curves.push_back(&c);
  MAB_ASSIGN(clip.key_times, rounded_times(curves, rate, opt.limits, rep.max_time_shift_s));
  if (channels.rotation.size() > opt.limits.max_bones)
    return make_error(ErrorCode::limit_exceeded, no_offset, "bones",
                      std::to_string(channels.rotation.size()) + " rotated nodes exceed the bone limit");
  std::vector<double> seconds(clip.key_count());
  for (std::size_t k = 0; k < seconds.size(); ++k) seconds[k] = clip.key_times[k] / rate;
  const double snap = time_snap(rate, true);
  BoneNodes node_of;
  std::unordered_map<std::uint32_t, unsigned> seen;
  for (const auto& [node, curve] : channels.rotation) {
    (void)curve;
    const NodeBone id = identify(m.nodes[static_cast<std::size_t>(node)], static_cast<std::size_t>(node), nullptr);
    ClipBone b;
    b.hash = id.hash;
    b.name = id.name;
    b.set_kind(BoneKind::animated);
    const unsigned occ = seen[b.hash]++;
    if (occ > 0)
      rep.nodes_unmatched.push_back(label(b.hash, b.name) + ": a second node with this hash, kept as a second bone");
    node_of.emplace(std::make_pair(b.hash, occ), node);
    clip.bones.push_back(std::move(b));
  }
  MAB_ASSIGN(auto samples, reconstruct(ctx, channels.rotation, clip, node_of, seconds, snap, false,
                                       [](std::size_t, std::size_t) { return Quat{}; }));
  for (std::size_t i = 0; i < clip.bones.size(); ++i) {
    ClipBone& b = clip.bones[i];
    auto& s = samples[i];
    double spread = 1;
    for (const auto& q : s) spread = std::min(spread, half_cos(q, s.front()));
    if (spread >= ctx.cos_tol) {
      b.set_kind(BoneKind::constant);
      b.constant = s.front();
    } else {
      b.set_bit_depth(16);  // re-picked against max_error_deg by the encoder
      b.keys = std::move(s);
    }
    rep.bones_changed.push_back(b.hash);
    rep.keys_changed += b.kind() == BoneKind::animated ? b.keys.size() : 1;
  }
  clip.duration = clip.key_times.empty() ? 0.0f : static_cast<float>(clip.key_times.back() / rate);
  rep.keys = clip.key_count();
  rep.key_rate = rate;
  MAB_TRY(reduce_keys(opt, clip, rep));
  const EncodeOptions eo = edit_policy(opt.max_error_deg, opt.max_translation_error);  // decision 21
  return encode_clip(d, clip, eo, &rep.encode);
}

// Item 4 of docs/gltf.md: the rig a rest-relative read uses. --skeleton must be the one the file
// records; without it, a recorded skeleton is used, a recorded digest alone is refused.
Status resolve_rig(const gltf::RigRecord& rig, bool has_template, Context& ctx, std::vector<std::string>& notes) {
  const auto& opt = ctx.options;
  ctx.skeleton = opt.skeleton;
  ctx.recorded = rig.kind;
  if (!rest_relative(opt, has_template) || rig.kind != gltf::RigRecord::Kind::skeleton) return {};
  if (opt.skeleton) {
    const std::uint32_t given = gltf::skeleton_digest(*opt.skeleton);
    if (given != rig.digest)
      return make_error(ErrorCode::invalid_argument, no_offset, "skeleton",
                        "the file was exported with another {opt:skeleton} (it records digest " + hex(rig.digest, 8) +
                            ", the given skeleton's is " + hex(given, 8) + "): give the one it was exported with");
    return {};
  }
  if (!rig.skeleton)
    return make_error(ErrorCode::invalid_argument, no_offset, "skeleton",
                      "the file was exported with {opt:skeleton} (digest " + hex(rig.digest, 8) +
                          ") and its rotations are relative to that skeleton's rest pose, whose data the file does not "
                          "hold: give the same {opt:skeleton}");
  ctx.skeleton = &*rig.skeleton;
  notes.push_back("rotations read against the skeleton the file records (" +
                  std::to_string(rig.skeleton->nodes.size()) + " nodes, digest " + hex(rig.digest, 8) +
                  "), as it was exported with {opt:skeleton}");
  return {};
}

Result<std::size_t> pick_animation(const tinygltf::Model& m, const GltfImportOptions& opt) {
  if (opt.animation) {
    if (*opt.animation >= m.animations.size())
      return gltf::gltf_error(ErrorCode::not_found, "/animations",
                              "no animation " + std::to_string(*opt.animation) + " (the file has " +
                                  std::to_string(m.animations.size()) + ")");
    return *opt.animation;
  }
  std::string names;
  for (std::size_t i = 0; i < m.animations.size(); ++i) {
    if (m.animations[i].name == opt.animation_name) return i;
    names += (i ? ", \"" : "\"") + m.animations[i].name + "\"";
  }
  return gltf::gltf_error(ErrorCode::not_found, "/animations",
                          "no animation named \"" + opt.animation_name + "\" (the file has " + names + ")");
}

}  // namespace

Result<GltfImport> import_gltf(std::span<const std::uint8_t> bytes, const Container* template_file,
                               const GltfImportOptions& opt) {
  if (!template_file && !opt.game)
    return make_error(ErrorCode::invalid_argument, no_offset, "template",
                      "give a template .mab, or the game of a new clip");
  if (!(opt.match_tolerance_deg >= 0) || !(opt.max_error_deg > 0))
    return make_error(ErrorCode::invalid_argument, no_offset, "tolerance", "tolerances must be positive");
  MAB_ASSIGN(const tinygltf::Model model, gltf::parse(bytes, opt.resource_dir, opt.limits));
  const gltf::RigRecord rig = gltf::read_rig_record(model);
  const bool chosen = opt.animation || !opt.animation_name.empty();
  if (model.animations.empty()) {
    // An export of a clip with nothing rotated has no animation (glTF needs a channel per
    // animation), and records that it wrote none: nothing in the template changes.
    if (template_file && !chosen && (rig.exported_animations == 0 || opt.allow_no_op)) {
      GltfImport out;
      out.report.notes.push_back("the glTF has no animations: the template is written as it is");
      MAB_ASSIGN(out.bytes, write_container(*template_file));
      return out;
    }
    return gltf::gltf_error(ErrorCode::not_found, "/animations",
                            std::string("the glTF file has no animations: nothing to import") +
                                (template_file ? " ({opt:allow_no_op} writes the template as it is)" : ""));
  }
  Context ctx{model, opt, std::cos(opt.match_tolerance_deg * pi / 360.0)};
  GltfImport out;
  MAB_TRY(resolve_rig(rig, template_file != nullptr, ctx, out.report.notes));
  Ignored ignored;
  if (!template_file) {
    std::size_t ai = 0;
    if (chosen) {
      MAB_ASSIGN(ai, pick_animation(model, opt));
    }
    GltfAnimationImport rep;
    MAB_ASSIGN(out.bytes, import_new(ctx, ai, rep, ignored, out.report.defaults));
    out.report.animations.push_back(std::move(rep));
  } else {
    std::vector<std::pair<std::size_t, std::size_t>> plan;  // (animation, block)
    if (chosen) {
      MAB_ASSIGN(const std::size_t ai, pick_animation(model, opt));
      plan.push_back({ai, opt.block.value_or(block_named(model.animations[ai]).value_or(0))});
    } else if (opt.block) {
      std::size_t ai = 0;
      for (std::size_t i = 0; i < model.animations.size(); ++i)
        if (block_named(model.animations[i]) == opt.block) {
          ai = i;
          break;
        }
      plan.push_back({ai, *opt.block});
    } else {
      std::unordered_set<std::size_t> taken;
      for (std::size_t i = 0; i < model.animations.size(); ++i) {
        const auto b = block_named(model.animations[i]);
        if (b && *b < template_file->blocks.size() && taken.insert(*b).second) plan.push_back({i, *b});
      }
      if (plan.empty()) plan.push_back({0, 0});
      // Every animation goes into a block: one no block takes (a second armature's copy of a
      // block's action, a block the template lacks) would be dropped.
      std::vector<std::string> left;
      for (std::size_t i = 0; i < model.animations.size(); ++i)
        if (std::none_of(plan.begin(), plan.end(), [&](const auto& pb) { return pb.first == i; }))
          left.push_back("animation " + std::to_string(i) + " \"" + model.animations[i].name + "\"");
      if (!left.empty() && !opt.ignore_unmatched) {
        std::string list;
        for (std::size_t i = 0; i < left.size() && i < 4; ++i) list += (i ? ", " : "") + left[i];
        if (left.size() > 4) list += ", ...";
        return gltf::gltf_error(
            ErrorCode::invalid_argument, "/animations",
            list +
                " goes into no block of the template (each block takes the one animation "
                "its extras or its name block_N give; the template has " +
                std::to_string(template_file->blocks.size()) +
                " block(s)): pick one with {opt:animation} (and {opt:block}), or pass {opt:ignore_unmatched} "
                "to drop the others on purpose");
      }
      for (const auto& l : left)
        out.report.notes.push_back(l + " dropped ({opt:ignore_unmatched}): it goes into no block");
    }
    // Each animation is encoded against the file the previous one produced, read back as a
    // reader would read it (encode_clip checks the blocks come back where they were).
    Container current = *template_file;
    for (std::size_t p = 0; p < plan.size(); ++p) {
      const auto [ai, block] = plan[p];
      if (block >= current.blocks.size())
        return make_error(ErrorCode::not_found, no_offset, "block",
                          "the template has no block " + std::to_string(block) + " (it has " +
                              std::to_string(current.blocks.size()) + ")");
      GltfAnimationImport rep;
      if (current.blocks[block].legacy() != nullptr) {
        MAB_ASSIGN(out.bytes, import_legacy_animation(ctx, current, ai, block, rep, ignored));
      } else {
        MAB_ASSIGN(out.bytes, import_animation(ctx, current, ai, block, rep, ignored));
      }
      out.report.animations.push_back(std::move(rep));
      if (p + 1 < plan.size()) {
        MAB_ASSIGN(current, read_container(out.bytes, opt.limits));
      }
    }
  }
  for (const auto& a : out.report.animations)
    out.report.max_error_deg =
        std::max({out.report.max_error_deg, a.encode.max_error_deg, a.legacy_encode.max_error_deg});
  out.report.ignored_channels = ignored_lines(ignored);
  return out;
}

}  // namespace mab
