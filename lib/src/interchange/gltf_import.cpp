// glTF 2.0 -> .mab (docs/gltf.md): sample rotation channels at the template's key times (or
// the glTF's own), keep what matches the template bit for bit, re-quantise the rest.
#include <mab/gltf.hpp>

#include "interchange/gltf_document.hpp"
#include "interchange/gltf_legacy.hpp"
#include "interchange/gltf_names.hpp"
#include "interchange/gltf_rig.hpp"
#include "interchange/gltf_sample.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <map>
#include <unordered_map>
#include <unordered_set>

namespace mab {

namespace {

constexpr double pi = 3.14159265358979323846;

struct NodeBone {
  std::uint32_t hash = 0;
  unsigned occurrence = 0;
  std::string name;
  bool identified = false;
};

// How a node names a bone (docs/gltf.md, "Names"): the `mabkit` extras hash, the CRC-32 of
// its name (D11) where that is a template bone, a generated "bone_0xHHHHHHHH" name, the
// CRC-32 of its name without a ".001"-style suffix that tools add to repeated names, and,
// for a new clip, the CRC-32 of the name itself.
NodeBone identify(const tinygltf::Node& n, std::size_t index, const std::unordered_set<std::uint32_t>* known) {
  NodeBone nb;
  const auto parts = gltf::split_duplicate(n.name);
  nb.occurrence = parts.occurrence;
  nb.name = std::string(parts.base);
  const tinygltf::Value& ex = gltf::mabkit_extras(n.extras);
  if (ex.IsObject() && ex.Has("hash")) {
    if (auto h = gltf::hash_from_value(ex.Get("hash"))) {
      nb.hash = *h;
      nb.identified = true;
      return nb;
    }
  }
  auto known_hash = [&](std::string_view s) { return known && known->count(bone_hash(s)) > 0; };
  if (known_hash(parts.base)) {
    nb.hash = bone_hash(parts.base);
    nb.identified = true;
    return nb;
  }
  if (auto h = gltf::parse_generated_name(parts.base)) {
    nb.hash = *h;
    nb.identified = true;
    nb.name.clear();
    return nb;
  }
  // Blender and others make repeated names unique as "name.001".
  const std::string_view full = n.name;
  if (full.size() > 4 && full[full.size() - 4] == '.' &&
      std::all_of(full.end() - 3, full.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    const auto stem = full.substr(0, full.size() - 4);
    if (known_hash(stem) || (!known && gltf::parse_generated_name(stem))) {
      if (auto h = gltf::parse_generated_name(stem)) {
        nb.hash = *h;
        nb.name.clear();
      } else {
        nb.hash = bone_hash(stem);
        nb.name = std::string(stem);
      }
      nb.identified = true;
      return nb;
    }
  }
  if (!known) {
    if (n.name.empty()) nb.name = "node_" + std::to_string(index);
    nb.hash = bone_hash(nb.name);
    nb.identified = true;
  }
  return nb;
}

std::string label(std::uint32_t hash, const std::string& name) {
  return name.empty() ? gltf::hash_text(hash) : name + " (" + gltf::hash_text(hash) + ")";
}

// |cos| of half the angle between two rotations; angle <= tol <=> this >= cos(tol / 2).
double half_cos(const Quat& a, const Quat& b) noexcept {
  const double na = double{a.x} * a.x + double{a.y} * a.y + double{a.z} * a.z + double{a.w} * a.w;
  const double nb = double{b.x} * b.x + double{b.y} * b.y + double{b.z} * b.z + double{b.w} * b.w;
  const double d = double{a.x} * b.x + double{a.y} * b.y + double{a.z} * b.z + double{a.w} * b.w;
  if (!(na > 0 && nb > 0)) return -1;
  return std::abs(d) / std::sqrt(na * nb);
}

// The channels of one animation, by node.
struct Channels {
  gltf::Curves rotation;     // node -> curve (one rotation channel a node)
  gltf::Curves translation;  // node -> curve (the first translation channel; Far Cry 2/3 use them)
};

struct Ignored {
  std::size_t translation = 0, scale = 0, weights = 0;
  double max_translation_offset = 0, max_scale_offset = 0;
  std::vector<std::string> translation_nodes;
};

Result<Channels> read_channels(const tinygltf::Model& m, std::size_t ai, Ignored& ignored) {
  const tinygltf::Animation& a = m.animations[ai];
  const std::string at = "/animations/" + std::to_string(ai);
  Channels out;
  for (std::size_t ci = 0; ci < a.channels.size(); ++ci) {
    const auto& ch = a.channels[ci];
    const std::string cat = at + "/channels/" + std::to_string(ci);
    MAB_TRY(gltf::check_index(ch.target_node, m.nodes.size(), cat + "/target/node"));
    const std::string sat = at + "/samplers/" + std::to_string(ch.sampler);
    const auto& node = m.nodes[static_cast<std::size_t>(ch.target_node)];
    if (ch.target_path == "rotation") {
      MAB_ASSIGN(gltf::Curve c, gltf::read_curve(m, a, ch.sampler, 4, sat));
      // glTF 3.11: a node and path are the target of one channel per animation. Reading the
      // first of two would drop whatever the second holds without a word.
      if (!out.rotation.emplace(ch.target_node, std::move(c)).second)
        return gltf::gltf_error(ErrorCode::bad_value, cat + "/target",
                                "node " + std::to_string(ch.target_node) +
                                    " has a second rotation channel in this animation (glTF allows one per node and "
                                    "path): keep the one that holds the edit");
    } else if (ch.target_path == "translation" || ch.target_path == "scale") {
      const bool tr = ch.target_path == "translation";
      MAB_ASSIGN(const gltf::Curve c, gltf::read_curve(m, a, ch.sampler, 3, sat));
      const gltf::Trs rest = gltf::node_trs(node);
      const auto& ref = tr ? rest.t : rest.s;
      double worst = 0;
      for (std::size_t k = 0; k < c.keys(); ++k) {
        const float* v = c.key(k);
        double d2 = 0;
        for (unsigned i = 0; i < 3; ++i) d2 += (v[i] - ref[i]) * (v[i] - ref[i]);
        worst = std::max(worst, std::sqrt(d2));
      }
      if (tr) {
        out.translation.emplace(ch.target_node, c);
        ++ignored.translation;
        ignored.max_translation_offset = std::max(ignored.max_translation_offset, worst);
        if (worst > 1e-4 && ignored.translation_nodes.size() < 8)
          ignored.translation_nodes.push_back(node.name.empty() ? "node " + std::to_string(ch.target_node) : node.name);
      } else {
        ++ignored.scale;
        ignored.max_scale_offset = std::max(ignored.max_scale_offset, worst);
      }
    } else if (ch.target_path == "weights") {
      ++ignored.weights;
    } else {
      return gltf::gltf_error(ErrorCode::bad_value, cat + "/target/path",
                              "unknown path \"" + ch.target_path + "\" (translation, rotation, scale or weights)");
    }
  }
  return out;
}

std::vector<std::string> ignored_lines(const Ignored& ig) {
  std::vector<std::string> out;
  char buf[96];
  if (ig.translation) {
    std::snprintf(buf, sizeof buf, "%.6g", ig.max_translation_offset);
    std::string line = std::to_string(ig.translation) +
                       " translation channel(s) not stored (glTF translations are not read back yet; a template's "
                       "decoded translations and root motion are kept, docs/motion.md); largest offset from the rest "
                       "position " + buf;
    if (!ig.translation_nodes.empty()) {
      line += ", moved: ";
      for (std::size_t i = 0; i < ig.translation_nodes.size(); ++i)
        line += (i ? ", " : "") + ig.translation_nodes[i];
    }
    out.push_back(std::move(line));
  }
  if (ig.scale) {
    std::snprintf(buf, sizeof buf, "%.6g", ig.max_scale_offset);
    out.push_back(std::to_string(ig.scale) +
                  " scale channel(s) not stored (the format has no scale tracks); largest change from the rest "
                  "scale " + buf);
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

// How far from a sample time a glTF key still counts as that key, returned exactly rather than
// interpolated next to it. At the template's times: 5% of a tick, float noise from tools that
// keep times in frames. At the glTF's own times (rounded to ticks): half a tick, so each key
// keeps its value and only its time moves onto the grid.
double time_snap(double rate, bool own_times) noexcept { return rate > 0 ? (own_times ? 0.5 : 0.05) / rate : 0; }

// The glTF key times of `curves`, rounded to the key rate (D7), sorted and unique.
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
                              " key-time units; the format stores at most 65535 (spec 9.4)");
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

// Template keys as a curve (LINEAR), to resample a bone without a channel onto new times.
gltf::Curve template_curve(const Clip& clip, const ClipBone& b) {
  gltf::Curve c;
  c.width = 4;
  for (std::size_t k = 0; k < b.keys.size(); ++k) {
    c.times.push_back(static_cast<float>(clip.key_times[k] / clip.key_rate));
    c.values.insert(c.values.end(), {b.keys[k].x, b.keys[k].y, b.keys[k].z, b.keys[k].w});
  }
  return c;
}

bool increasing(const std::vector<std::uint32_t>& t) {
  for (std::size_t i = 1; i < t.size(); ++i)
    if (t[i] <= t[i - 1]) return false;
  return true;
}

Status reduce_keys(const GltfImportOptions& opt, Clip& clip, GltfAnimationImport& rep) {
  if (!opt.reduce_deg) return {};
  MAB_ASSIGN(const edit::ReduceReport r, edit::reduce(clip, *opt.reduce_deg));
  rep.keys_before_reduce = r.keys_before;
  rep.reduce_error_deg = r.max_error_deg;
  rep.keys = r.keys_after;
  return {};
}

struct Context {
  const tinygltf::Model& model;
  const GltfImportOptions& options;
  double cos_tol;  // cos(tolerance / 2)
};

using BoneNodes = std::map<std::pair<std::uint32_t, unsigned>, int>;  // (hash, occurrence) -> file node

// The rig `mab export` writes without a skeleton: a root turning Z-up into Y-up, every bone
// its child with an identity rest rotation.
gltf::RefRig flat_rig(const Clip& clip, const BoneNodes& node_of) {
  gltf::RefRig rig;
  rig.nodes.push_back({-1, gltf::zup_to_yup, gltf::zup_to_yup, -1, -1});
  std::unordered_map<std::uint32_t, unsigned> seen;
  for (std::size_t i = 0; i < clip.bones.size(); ++i) {
    const auto it = node_of.find({clip.bones[i].hash, seen[clip.bones[i].hash]++});
    rig.nodes.push_back({0, gltf::QuatD{}, gltf::zup_to_yup, static_cast<int>(i), it == node_of.end() ? -1 : it->second});
  }
  return rig;
}

// The rig `mab export --skeleton` writes: the skeleton's nodes, bones matched by the CRC-32
// of their names, bones it lacks added under its skin root (as export_gltf does).
gltf::RefRig skeleton_rig(const GltfSkeleton& sk, const Clip& clip, const BoneNodes& node_of) {
  gltf::RefRig rig;
  std::vector<int> ref_of(sk.nodes.size(), -1);
  std::vector<int> order;
  for (const int r : sk.roots) order.push_back(r);
  for (std::size_t i = 0; i < sk.nodes.size(); ++i)
    if (sk.nodes[i].parent < 0 && std::find(order.begin(), order.end(), static_cast<int>(i)) == order.end())
      order.push_back(static_cast<int>(i));
  for (std::size_t head = 0; head < order.size(); ++head)
    for (const int c : sk.nodes[static_cast<std::size_t>(order[head])].children)
      if (c >= 0 && static_cast<std::size_t>(c) < sk.nodes.size() && ref_of[static_cast<std::size_t>(c)] < 0 &&
          std::find(order.begin(), order.end(), c) == order.end())
        order.push_back(c);
  std::unordered_map<std::uint32_t, std::vector<int>> by_hash;
  for (const int i : order) {
    const auto& sn = sk.nodes[static_cast<std::size_t>(i)];
    gltf::RefRig::Node n;
    n.parent = sn.parent >= 0 ? ref_of[static_cast<std::size_t>(sn.parent)] : -1;
    n.rest_local = gltf::to_double(gltf::normalised(sn.rotation));
    n.rest_world = n.parent >= 0 ? gltf::mul(rig.nodes[static_cast<std::size_t>(n.parent)].rest_world, n.rest_local)
                                 : n.rest_local;
    ref_of[static_cast<std::size_t>(i)] = static_cast<int>(rig.nodes.size());
    if (!sn.name.empty()) by_hash[sn.hash].push_back(static_cast<int>(rig.nodes.size()));
    rig.nodes.push_back(n);
  }
  int attach = sk.skin_root >= 0 ? ref_of[static_cast<std::size_t>(sk.skin_root)]
                                 : (sk.roots.empty() ? -1 : ref_of[static_cast<std::size_t>(sk.roots.front())]);
  if (attach < 0) {
    rig.nodes.push_back({-1, gltf::QuatD{}, gltf::QuatD{}, -1, -1});
    attach = static_cast<int>(rig.nodes.size() - 1);
  }
  std::unordered_map<std::uint32_t, unsigned> seen;
  for (std::size_t i = 0; i < clip.bones.size(); ++i) {
    const std::uint32_t h = clip.bones[i].hash;
    const unsigned occ = seen[h]++;
    const auto fit = node_of.find({h, occ});
    const int file_node = fit == node_of.end() ? -1 : fit->second;
    auto it = by_hash.find(h);
    if (it != by_hash.end() && occ < it->second.size()) {
      auto& n = rig.nodes[static_cast<std::size_t>(it->second[occ])];
      n.bone = static_cast<int>(i);
      n.file_node = file_node;
    } else {
      const auto& a = rig.nodes[static_cast<std::size_t>(attach)];
      rig.nodes.push_back({attach, gltf::QuatD{}, a.rest_world, static_cast<int>(i), file_node});
    }
  }
  return rig;
}

bool rest_relative(const GltfImportOptions& o, bool has_template) {
  return o.rotations == GltfRotations::rest_relative ||
         (o.rotations == GltfRotations::automatic && (has_template || o.skeleton));
}

// samples[bone][k]: the rotation of each bone that has a channel, at each time (docs/gltf.md).
// `tmpl(bone, k)` is the template's rotation where the file does not move a bone.
template <class TemplateRotation>
Result<std::vector<std::vector<Quat>>> reconstruct(const Context& ctx, const gltf::Curves& rotation,
                                                    const Clip& clip, const BoneNodes& node_of,
                                                    const std::vector<double>& seconds, double snap, bool has_template,
                                                    TemplateRotation&& tmpl) {
  std::vector<std::vector<Quat>> samples(clip.bones.size());
  if (!rest_relative(ctx.options, has_template)) {
    std::unordered_map<std::uint32_t, unsigned> seen;
    for (std::size_t i = 0; i < clip.bones.size(); ++i) {
      const auto it = node_of.find({clip.bones[i].hash, seen[clip.bones[i].hash]++});
      if (it == node_of.end()) continue;
      const gltf::Curve& c = rotation.at(it->second);
      samples[i].resize(seconds.size());
      for (std::size_t k = 0; k < seconds.size(); ++k) samples[i][k] = gltf::sample_rotation(c, seconds[k], snap);
    }
    return samples;
  }
  const auto file = gltf::FileRig::build(ctx.model, rotation);
  if (!file)
    return gltf::gltf_error(ErrorCode::bad_value, "/nodes",
                            "the children links are not a tree (a node with two parents, a cycle, or a bad index)");
  const gltf::RefRig rig =
      ctx.options.skeleton ? skeleton_rig(*ctx.options.skeleton, clip, node_of) : flat_rig(clip, node_of);
  for (const auto& n : rig.nodes)
    if (n.bone >= 0 && n.file_node >= 0) samples[static_cast<std::size_t>(n.bone)].resize(seconds.size());
  // Where the file puts the rig: the node holding its bones there (an armature) against the
  // one holding them in the reference (the root). A tool that turns the whole rig (Blender's
  // armature object) moves this, not the bones; G undoes it.
  gltf::QuatD g;
  {
    std::vector<int> file_bones, ref_bones;
    for (std::size_t r = 0; r < rig.nodes.size(); ++r)
      if (rig.nodes[r].file_node >= 0) {
        file_bones.push_back(rig.nodes[r].file_node);
        ref_bones.push_back(static_cast<int>(r));
      }
    const auto fp = gltf::parents(ctx.model);
    int fa = gltf::common_root(ctx.model, file_bones);
    if (fa >= 0 && std::find(file_bones.begin(), file_bones.end(), fa) != file_bones.end())
      fa = (*fp)[static_cast<std::size_t>(fa)];
    int ra = ref_bones.empty() ? -1 : ref_bones.front();
    for (const int r : ref_bones) {
      // Deepest common ancestor in the reference (parents precede children there).
      std::vector<int> up;
      for (int x = ra; x >= 0; x = rig.nodes[static_cast<std::size_t>(x)].parent) up.push_back(x);
      int y = r;
      while (y >= 0 && std::find(up.begin(), up.end(), y) == up.end()) y = rig.nodes[static_cast<std::size_t>(y)].parent;
      ra = y;
    }
    if (ra >= 0 && rig.nodes[static_cast<std::size_t>(ra)].file_node >= 0) ra = rig.nodes[static_cast<std::size_t>(ra)].parent;
    if (fa >= 0 && ra >= 0) g = gltf::mul(file->rest_world(fa), gltf::conj(rig.nodes[static_cast<std::size_t>(ra)].rest_world));
  }
  const gltf::QuatD g_inv = gltf::conj(g);
  // W(r) = G^-1 (W'(f) W'_rest(f)^-1) G W_rest(r): the constant right-hand factor per node.
  std::vector<gltf::QuatD> post(rig.nodes.size());
  for (std::size_t r = 0; r < rig.nodes.size(); ++r)
    if (rig.nodes[r].file_node >= 0)
      post[r] = gltf::mul(gltf::mul(gltf::conj(file->rest_world(rig.nodes[r].file_node)), g), rig.nodes[r].rest_world);
  std::vector<gltf::QuatD> fw, w(rig.nodes.size());
  for (std::size_t k = 0; k < seconds.size(); ++k) {
    file->world(seconds[k], snap, fw);
    for (std::size_t r = 0; r < rig.nodes.size(); ++r) {
      const auto& n = rig.nodes[r];
      const gltf::QuatD parent = n.parent >= 0 ? w[static_cast<std::size_t>(n.parent)] : gltf::QuatD{};
      if (n.file_node >= 0) {
        w[r] = gltf::mul(gltf::mul(g_inv, fw[static_cast<std::size_t>(n.file_node)]), post[r]);
        if (n.bone >= 0) samples[static_cast<std::size_t>(n.bone)][k] = gltf::to_float(gltf::mul(gltf::conj(parent), w[r]));
      } else if (n.bone >= 0 && clip.bones[static_cast<std::size_t>(n.bone)].kind() != BoneKind::none) {
        w[r] = gltf::mul(parent, gltf::to_double(tmpl(static_cast<std::size_t>(n.bone), k)));
      } else {
        w[r] = gltf::mul(parent, n.rest_local);
      }
    }
  }
  return samples;
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
  MAB_ASSIGN(const Channels channels, read_channels(m, ai, ignored));

  std::unordered_set<std::uint32_t> known;
  for (const auto& b : orig.bones) known.insert(b.hash);
  // (hash, occurrence) -> node with a rotation channel.
  std::map<std::pair<std::uint32_t, unsigned>, int> node_of;
  std::vector<NodeBone> ids(m.nodes.size());
  for (const auto& [node, curve] : channels.rotation) {
    (void)curve;
    ids[static_cast<std::size_t>(node)] = identify(m.nodes[static_cast<std::size_t>(node)],
                                                   static_cast<std::size_t>(node), &known);
    const auto& id = ids[static_cast<std::size_t>(node)];
    if (!id.identified || !known.count(id.hash) || !node_of.emplace(std::make_pair(id.hash, id.occurrence), node).second)
      rep.nodes_unmatched.push_back(m.nodes[static_cast<std::size_t>(node)].name.empty()
                                        ? "node " + std::to_string(node)
                                        : m.nodes[static_cast<std::size_t>(node)].name);
  }

  // The timeline: the template's, or the glTF's own rounded to the key rate.
  Clip edited = orig;
  const double rate = orig.key_rate;
  if (opt.keep_times) {
    std::vector<const gltf::Curve*> used;
    for (const auto& [key, node] : node_of) used.push_back(&channels.rotation.at(node));
    if (!used.empty()) {
      if (!increasing(orig.key_times))
        return make_error(ErrorCode::bad_value, no_offset, "KeyTimes",
                          "the template's key times do not increase, so its bones cannot be resampled onto "
                          "the glTF's times; import without --keep-times");
      MAB_ASSIGN(edited.key_times, rounded_times(used, rate, opt.limits, rep.max_time_shift_s));
    }
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
      rep.no_rotation_track.push_back(ob.hash);
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
    if (changed) rep.bones_changed.push_back(ob.hash);
  }

  // Translations and root motion the template decoded (issue 16) are not read from the glTF;
  // on a new timeline they are the template's, resampled.
  if (!same_timeline) resample_motion(edited, orig);
  MAB_TRY(reduce_keys(opt, edited, rep));
  EncodeOptions eo;
  eo.max_error_deg = opt.max_error_deg;
  eo.raise_depth = true;
  return encode_clip(d, edited, eo, &rep.encode);
}

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
  EncodeOptions eo;
  eo.max_error_deg = opt.max_error_deg;
  eo.raise_depth = true;
  return encode_clip(d, clip, eo, &rep.encode);
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
  if (model.animations.empty()) {
    // An export of a clip with nothing rotated has no animation (glTF needs a channel per
    // animation): nothing in the template changes.
    if (template_file && !opt.animation && opt.animation_name.empty()) {
      GltfImport out;
      out.report.notes.push_back("the glTF has no animations: the template is written as it is");
      MAB_ASSIGN(out.bytes, write_container(*template_file));
      return out;
    }
    return gltf::gltf_error(ErrorCode::not_found, "/animations", "the glTF file has no animations");
  }
  const Context ctx{model, opt, std::cos(opt.match_tolerance_deg * pi / 360.0)};
  GltfImport out;
  Ignored ignored;
  const bool chosen = opt.animation || !opt.animation_name.empty();
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
