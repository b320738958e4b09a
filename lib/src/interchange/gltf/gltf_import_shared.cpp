// What the glTF import paths share (see gltf_import_shared.hpp).
#include "interchange/gltf/gltf_import_shared.hpp"
#include <mab/text.hpp>

#include "interchange/gltf/gltf_names.hpp"
#include "interchange/gltf/gltf_timeline.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <unordered_map>
#include <unordered_set>

namespace mab::gltf_in {

// How a node names a bone (docs/gltf.md, "Names"): the `mabkit` extras hash, the CRC-32 of
// its name (decision 11) where that is a template bone, a generated "bone_0xHHHHHHHH" name, the
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
  return name.empty() ? hex(hash, 8) : name + " (" + hex(hash, 8) + ")";
}

double half_cos(const Quat& a, const Quat& b) noexcept {
  const double na = double{a.x} * a.x + double{a.y} * a.y + double{a.z} * a.z + double{a.w} * a.w;
  const double nb = double{b.x} * b.x + double{b.y} * b.y + double{b.z} * b.z + double{b.w} * b.w;
  const double d = double{a.x} * b.x + double{a.y} * b.y + double{a.z} * b.z + double{a.w} * b.w;
  if (!(na > 0 && nb > 0)) return -1;
  return std::abs(d) / std::sqrt(na * nb);
}

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
      if (!tr) out.scale.emplace(ch.target_node, c);
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

// The rig `mab export` writes without a skeleton: a root turning Z-up into Y-up, every bone
// its child with an identity rest rotation.
gltf::RefRig flat_rig(const Clip& clip, const BoneNodes& node_of) {
  gltf::RefRig rig;
  rig.nodes.push_back({-1, gltf::zup_to_yup, gltf::zup_to_yup, -1, -1});
  std::unordered_map<std::uint32_t, unsigned> seen;
  for (std::size_t i = 0; i < clip.bones.size(); ++i) {
    const auto it = node_of.find({clip.bones[i].hash, seen[clip.bones[i].hash]++});
    rig.nodes.push_back(
        {0, gltf::QuatD{}, gltf::zup_to_yup, static_cast<int>(i), it == node_of.end() ? -1 : it->second});
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

Result<std::vector<std::vector<Quat>>> reconstruct(const Context& ctx, const gltf::Curves& rotation, const Clip& clip,
                                                   const BoneNodes& node_of, const std::vector<double>& seconds,
                                                   double snap, bool has_template, const TemplateRotation& tmpl) {
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
  const gltf::RefRig rig = ctx.skeleton ? skeleton_rig(*ctx.skeleton, clip, node_of) : flat_rig(clip, node_of);
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
      while (y >= 0 && std::find(up.begin(), up.end(), y) == up.end())
        y = rig.nodes[static_cast<std::size_t>(y)].parent;
      ra = y;
    }
    if (ra >= 0 && rig.nodes[static_cast<std::size_t>(ra)].file_node >= 0)
      ra = rig.nodes[static_cast<std::size_t>(ra)].parent;
    if (fa >= 0 && ra >= 0)
      g = gltf::mul(file->rest_world(fa), gltf::conj(rig.nodes[static_cast<std::size_t>(ra)].rest_world));
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
        if (n.bone >= 0)
          samples[static_cast<std::size_t>(n.bone)][k] = gltf::to_float(gltf::mul(gltf::conj(parent), w[r]));
      } else if (n.bone >= 0 && clip.bones[static_cast<std::size_t>(n.bone)].kind() != BoneKind::none) {
        w[r] = gltf::mul(parent, gltf::to_double(tmpl(static_cast<std::size_t>(n.bone), k)));
      } else {
        w[r] = gltf::mul(parent, n.rest_local);
      }
    }
  }
  return samples;
}

void node_key_times(const gltf::Curves& curves, const std::vector<int>* parent, int node, std::vector<double>& keys,
                    std::vector<double>& checks) {
  keys.clear();
  checks.clear();
  bool curved = false;
  std::size_t hops = 0;
  for (int n = node; n >= 0 && hops <= curves.size() + 1; n = parent ? (*parent)[static_cast<std::size_t>(n)] : -1) {
    if (const auto it = curves.find(n); it != curves.end()) {
      ++hops;
      keys.insert(keys.end(), it->second.times.begin(), it->second.times.end());
      curved = curved || it->second.interpolation != gltf::Interpolation::linear;
    }
    if (!parent) break;
  }
  keys = unique_times(std::move(keys));
  if (curved)
    for (std::size_t k = 0; k + 1 < keys.size(); ++k) checks.push_back((keys[k] + keys[k + 1]) / 2);
}

std::vector<double> unique_times(std::vector<double> t) {
  std::sort(t.begin(), t.end());
  t.erase(std::unique(t.begin(), t.end()), t.end());
  return t;
}

std::vector<double> evaluation_times(const std::vector<double>& block, std::vector<double> others, double merge) {
  others = unique_times(std::move(others));
  std::vector<double> out = block;
  for (const double t : others) {
    const auto it = std::lower_bound(block.begin(), block.end(), t - merge);
    if (it == block.end() || *it > t + merge) out.push_back(t);
  }
  return unique_times(std::move(out));
}

std::vector<std::size_t> index_of(const std::vector<double>& times, const std::vector<double>& wanted) {
  std::vector<std::size_t> out;
  out.reserve(wanted.size());
  for (const double t : wanted) {
    auto i = static_cast<std::size_t>(std::lower_bound(times.begin(), times.end(), t) - times.begin());
    if (i == times.size() || (i > 0 && t - times[i - 1] < times[i] - t)) --i;
    if (out.empty() || out.back() != i) out.push_back(i);
  }
  return out;
}

gltf::Value to_value(const Quat& q) noexcept { return {q.x, q.y, q.z, q.w}; }

Quat to_quat(const gltf::Value& v) noexcept {
  const Quat q{static_cast<float>(v[0]), static_cast<float>(v[1]), static_cast<float>(v[2]), static_cast<float>(v[3])};
  // Values read from floats come back bit for bit; computed ones are normalised in double.
  if (double{q.x} == v[0] && double{q.y} == v[1] && double{q.z} == v[2] && double{q.w} == v[3]) return q;
  return gltf::to_float({v[0], v[1], v[2], v[3]});
}

std::string time_text(double seconds, double fps) {
  char buf[96];
  const double frame = seconds * fps;
  if (fps > 0 && std::abs(frame - std::round(frame)) <= 0.05)
    std::snprintf(buf, sizeof buf, "%.3f s (frame %.0f at %g fps)", seconds, std::round(frame), fps);
  else if (fps > 0) std::snprintf(buf, sizeof buf, "%.3f s (frame %.2f at %g fps)", seconds, frame, fps);
  else std::snprintf(buf, sizeof buf, "%.3f s", seconds);
  return buf;
}

Status check_resample(const Context& ctx, const std::vector<ResampleFinding>& tracks, const std::string& rate_text,
                      double fps, GltfAnimationImport& rep) {
  std::size_t kept = 0, keys = 0, bad = 0;
  double step = 0, worst = 0, worst_ratio = 0, worst_rotation = 0;
  const ResampleFinding* worst_track = nullptr;
  std::size_t worst_key = 0;
  for (const auto& t : tracks) {
    if (!t.verdict->resampled) continue;
    if (step == 0) step = t.verdict->resampled->step;
    kept += t.verdict->untouched;
    const bool rotation = std::string_view(t.unit) == "degrees";
    // An edited key the samples miss: its value there is the samples' interpolation, which
    // cuts whatever corner the edit made. Refused however small the estimate.
    for (const auto& b : t.verdict->between) {
      ++keys;
      ++bad;
      if (rotation) worst_rotation = std::max(worst_rotation, b.error);
      const double ratio = b.error / std::max(t.tolerance, 1e-300);
      if (ratio >= worst_ratio) worst_ratio = ratio, worst = b.error, worst_track = &t, worst_key = b.key;
    }
  }
  if (step == 0) return {};
  rep.resampled_rate = 1.0 / step;
  rep.resampled_kept = kept;
  if (bad == 0 || ctx.options.accept_resample) {
    rep.keys_between_samples = keys;
    rep.resample_error = worst_rotation;
    return {};
  }
  char head[160];
  std::snprintf(head, sizeof head, "the glTF's channels were resampled at %.6g keys per second", 1.0 / step);
  const double t = worst_track->evidence->times[worst_track->evidence->block[worst_key]];
  char mid[160], rate[64];
  std::snprintf(mid, sizeof mid, "by up to about %.4g %s", worst, worst_track->unit);
  std::snprintf(rate, sizeof rate, "%g fps", fps);
  return make_error(
      ErrorCode::not_decodable, no_offset, "animation",
      std::string(head) +
          " (Blender's \"Always Sample Animations\" at a scene of that rate), a grid that misses the "
          "clip's key times (" +
          rate_text + "): " + std::to_string(kept) +
          " track(s) match the template at every sample and are kept exactly, but " + std::to_string(bad) +
          " edited key(s) fall between samples, which cannot give their values: read from the samples they "
          "would move " +
          mid + " (estimated; worst: " + worst_track->track + " at " + time_text(t, fps) +
          "). Untick \"Always Sample Animations\" in Blender's glTF export, or set the scene frame rate to " + rate +
          " before importing the .glb into Blender; {opt:accept_resample} reads those keys from the samples as they "
          "are");
}

Status check_matched(const Context& ctx, std::size_t ai, std::size_t block, std::size_t matched,
                     const std::vector<std::string>& nodes, GltfAnimationImport& rep) {
  if (matched != 0) return {};
  const std::string what = "animation " + std::to_string(ai) + " \"" + ctx.model.animations[ai].name + "\"";
  if (ctx.options.allow_no_op) {
    rep.nodes_unmatched = nodes;
    return {};
  }
  std::string examples;
  for (std::size_t i = 0; i < nodes.size() && i < 3; ++i) examples += (i ? ", \"" : " (\"") + nodes[i] + "\"";
  if (!examples.empty()) examples += nodes.size() > 3 ? ", ...)" : ")";
  return make_error(
      ErrorCode::not_found, no_offset, "animation",
      what + " moves no bone of the template's block " + std::to_string(block) + ": none of its " +
          std::to_string(nodes.size()) + " animated node(s)" + examples +
          " is a bone (bones are found by the mabkit hash in a node's extras, the CRC-32 of its name or "
          "a bone_0xHASH name). Check {opt:template}; export with {opt:names} so names survive; {opt:allow_no_op} "
          "writes the template as it is");
}

namespace {

std::string seconds_text(double s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f s", s);
  return buf;
}

}  // namespace

Status check_same_clip(const Context& ctx, std::size_t ai, std::size_t block,
                       const std::vector<const gltf::Curve*>& curves, const ClipSpan& span) {
  if (ctx.options.allow_other_clip) return {};
  const tinygltf::Animation& a = ctx.model.animations[ai];
  const std::string what = "animation " + std::to_string(ai) + " \"" + a.name + "\"";
  const std::string tail = " (check {opt:template}); {opt:allow_other_clip} imports it anyway";
  const tinygltf::Value& ex = gltf::mabkit_extras(a.extras);
  if (ex.IsObject() && ex.Has(span.rate_field) && ex.Get(span.rate_field).IsNumber() && ex.Has("duration") &&
      ex.Get("duration").IsNumber()) {
    const double rate = ex.Get(span.rate_field).GetNumberAsDouble();
    const double duration = ex.Get("duration").GetNumberAsDouble();
    if (!(std::abs(rate - span.rate) <= 1e-9 * span.rate) ||
        !(std::abs(duration - span.duration) <= 1e-6 * std::max(1.0, std::abs(double{span.duration}))))
      return make_error(ErrorCode::invalid_argument, no_offset, "animation",
                        what + " was exported from a clip of " + std::to_string(std::lround(rate)) + " keys/s and " +
                            seconds_text(duration) + ", but the template's block " + std::to_string(block) + " has " +
                            std::to_string(std::lround(span.rate)) + " keys/s and " + seconds_text(span.duration) +
                            ": another clip's animation, or the template changed since the export" + tail);
  }
  if (ctx.options.keep_times || !(span.last_s > span.first_s)) return {};
  double lo = 1e300, hi = -1e300;
  for (const auto* c : curves)
    if (c->keys() >= 2) lo = std::min(lo, double{c->times.front()}), hi = std::max(hi, double{c->times.back()});
  if (lo > hi) return {};
  // Tools sample up to the last whole frame (Blender: a 24th of a second short at most);
  // what is off by more than a quarter of the clip, or ends past twice its length, is not it.
  const double length = span.last_s - span.first_s;
  const double margin = std::max(0.25 * length, 0.1);
  if (hi >= span.last_s - margin && lo <= span.first_s + margin && hi <= span.first_s + 2 * length + margin) return {};
  return make_error(ErrorCode::invalid_argument, no_offset, "animation",
                    what + " has keys from " + seconds_text(lo) + " to " + seconds_text(hi) +
                        ", but the template's block " + std::to_string(block) + " has keys from " +
                        seconds_text(span.first_s) + " to " + seconds_text(span.last_s) +
                        ": it looks like another clip's animation. If the clip was shortened or moved in time on "
                        "purpose, {opt:keep_times} takes the glTF's own key times" +
                        tail);
}

namespace {

std::string node_text(const tinygltf::Model& m, int node) {
  const auto& n = m.nodes[static_cast<std::size_t>(node)].name;
  return n.empty() ? "node " + std::to_string(node) : n;
}

// Whether a channel moves its node away from its rest pose (rotations within the match
// tolerance, translations and scales within 1e-4: float noise of tools that keep matrices).
bool moves(const Context& ctx, const tinygltf::Node& n, const gltf::Curve& c, char path) {
  const gltf::Trs rest = gltf::node_trs(n);
  for (std::size_t k = 0; k < c.keys(); ++k) {
    const float* v = c.key(k);
    if (path == 'r') {
      if (half_cos({v[0], v[1], v[2], v[3]}, rest.r) < ctx.cos_tol) return true;
      continue;
    }
    const auto& ref = path == 't' ? rest.t : rest.s;
    for (unsigned i = 0; i < 3; ++i)
      if (!(std::abs(v[i] - ref[i]) <= 1e-4 * std::max(1.0, std::abs(ref[i])))) return true;
  }
  return false;
}

}  // namespace

Status account_unmatched(const Context& ctx, const Channels& channels, const std::unordered_set<int>& rotated,
                         const std::unordered_set<int>& translated, std::vector<std::string> refused,
                         GltfAnimationImport& rep) {
  const auto& m = ctx.model;
  std::vector<int> moved;
  std::vector<std::string> own;
  auto known = [&](int node) { return rotated.count(node) || translated.count(node); };
  for (const auto& [curves, path] :
       {std::pair{&channels.rotation, 'r'}, std::pair{&channels.translation, 't'}, std::pair{&channels.scale, 's'}})
    for (const auto& [node, c] : *curves) {
      if (!moves(ctx, m.nodes[static_cast<std::size_t>(node)], c, path)) continue;
      if (!known(node)) {
        if (std::find(moved.begin(), moved.end(), node) == moved.end()) moved.push_back(node);
      } else if (path == 's') {
        own.push_back(node_text(m, node) + " scale (the format has no scale tracks)");
      } else if (!(path == 'r' ? rotated : translated).count(node)) {
        own.push_back(node_text(m, node) + (path == 'r' ? " rotation" : " translation") +
                      " (the block has no such track for it)");
      }
    }
  std::sort(moved.begin(), moved.end());
  for (const int node : moved) refused.push_back(node_text(m, node) + " (matches no bone of the block)");
  refused.insert(refused.end(), own.begin(), own.end());
  if (refused.empty()) return {};
  if (ctx.options.ignore_unmatched) {
    rep.dropped_channels = std::move(refused);
    return {};
  }
  std::string list;
  for (std::size_t i = 0; i < refused.size() && i < 6; ++i) list += (i ? "; " : "") + refused[i];
  if (refused.size() > 6) list += "; and " + std::to_string(refused.size() - 6) + " more";
  return make_error(ErrorCode::invalid_argument, no_offset, "animation",
                    "animation " + std::to_string(rep.animation) + " \"" + rep.animation_name + "\" moves what block " +
                        std::to_string(rep.block) + " cannot store: " + list +
                        ". Import into the template the file was exported from, keep bone names as exported "
                        "(bones are found by the mabkit hash in a node's extras or the CRC-32 of its name), or pass "
                        "{opt:ignore_unmatched} to drop these channels on purpose");
}

TrackAgreement agreement_of(std::string track, const gltf::TrackEvidence& e, bool untouched) {
  const gltf::Metric coarse = gltf::Metric::rotation(2.0);
  TrackAgreement a{std::move(track), 0, 0, untouched};
  for (std::size_t k = 0; k < e.block.size() && k < e.block_tmpl.size(); ++k) {
    ++a.keys;
    a.matched += coarse.near(e.file[e.block[k]], e.block_tmpl[k]);
  }
  return a;
}

Status check_same_content(const Context& ctx, const GltfAnimationImport& rep,
                          const std::vector<TrackAgreement>& tracks) {
  if (ctx.options.allow_other_clip || tracks.empty()) return {};
  std::size_t agree = 0;
  for (const auto& t : tracks) agree += t.untouched || (t.keys > 0 && 4 * t.matched >= t.keys);
  if (10 * agree >= tracks.size()) return {};
  std::size_t matched = 0, keys = 0;
  for (const auto& t : tracks) matched += t.matched, keys += t.keys;
  std::vector<std::string> names;
  for (std::size_t i = 0; i < tracks.size() && i < 3; ++i) names.push_back(tracks[i].track);
  std::string list;
  for (std::size_t i = 0; i < names.size(); ++i) list += (i ? ", " : "") + names[i];
  if (tracks.size() > names.size()) list += ", ...";
  return make_error(
      ErrorCode::invalid_argument, no_offset, "animation",
      "animation " + std::to_string(rep.animation) + " \"" + rep.animation_name + "\" keeps the keys of " +
          std::to_string(agree) + " of the " + std::to_string(tracks.size()) +
          " animated track(s) of the template's block " + std::to_string(rep.block) + " (" + std::to_string(matched) +
          " of " + std::to_string(keys) + " keys within 2 degrees; " + list +
          "): an edit changes some bones and keeps the others, so this is another clip's "
          "animation (or this clip reversed or retimed). Check {opt:template}; {opt:allow_other_clip} imports "
          "it anyway");
}

namespace {

// A node of `among` above `node` in the file's tree, or -1.
int ancestor_among(const std::vector<int>& parent, int node, const std::vector<bool>& among) {
  std::size_t steps = 0;
  for (int p = parent[static_cast<std::size_t>(node)]; p >= 0 && steps++ <= parent.size();
       p = parent[static_cast<std::size_t>(p)])
    if (among[static_cast<std::size_t>(p)]) return p;
  return -1;
}

std::string node_name(const tinygltf::Model& m, int node) {
  const auto& n = m.nodes[static_cast<std::size_t>(node)].name;
  return n.empty() ? "node " + std::to_string(node) : n;
}

// The skeleton places a matched bone under another matched bone.
bool skeleton_nests_bones(const GltfSkeleton& sk, const BoneNodes& node_of) {
  std::unordered_set<std::uint32_t> hashes;
  for (const auto& [key, node] : node_of) hashes.insert(key.first);
  std::vector<bool> bone(sk.nodes.size());
  for (std::size_t i = 0; i < sk.nodes.size(); ++i)
    bone[i] = !sk.nodes[i].name.empty() && hashes.count(sk.nodes[i].hash);
  std::vector<int> parent(sk.nodes.size());
  for (std::size_t i = 0; i < sk.nodes.size(); ++i) parent[i] = sk.nodes[i].parent;
  for (std::size_t i = 0; i < sk.nodes.size(); ++i)
    if (bone[i] && ancestor_among(parent, static_cast<int>(i), bone) >= 0) return true;
  return false;
}

}  // namespace

Status check_rig_shape(const Context& ctx, const BoneNodes& node_of) {
  if (!rest_relative(ctx.options, true)) return {};
  if (ctx.recorded == gltf::RigRecord::Kind::flat && ctx.skeleton)
    return make_error(ErrorCode::invalid_argument, no_offset, "skeleton",
                      "the file records that it was exported without {opt:skeleton} (mab export's flat rig): import it "
                      "without {opt:skeleton}");
  if (ctx.recorded != gltf::RigRecord::Kind::none || node_of.empty()) return {};
  // No record (a tool dropped the extras): the file's own shape tells which rig it holds.
  const auto parent = gltf::parents(ctx.model);
  if (!parent) return {};
  std::vector<bool> bone(ctx.model.nodes.size(), false);
  for (const auto& [key, node] : node_of) bone[static_cast<std::size_t>(node)] = true;
  std::string evidence;
  for (const auto& [key, node] : node_of) {
    if (const int p = ancestor_among(*parent, node, bone); p >= 0) {
      evidence = node_name(ctx.model, node) + " hangs under " + node_name(ctx.model, p);
      break;
    }
    const auto t = gltf::node_trs(ctx.model.nodes[static_cast<std::size_t>(node)]).t;
    if (std::sqrt(t[0] * t[0] + t[1] * t[1] + t[2] * t[2]) > 1e-5) {
      evidence = node_name(ctx.model, node) + " sits away from its parent";
      break;
    }
  }
  if (!ctx.skeleton && !evidence.empty())
    return make_error(
        ErrorCode::invalid_argument, no_offset, "skeleton",
        "the file's bones are not the flat rig mab export writes without {opt:skeleton} (" + evidence +
            "): it was exported with {opt:skeleton}, and its rotations are relative to that skeleton's rest "
            "pose. Give the same {opt:skeleton} again (Blender keeps mab export's record of it only when "
            "\"Custom Properties\" is ticked in its glTF export), or {opt:rotations} local to take the "
            "rotations as written");
  if (ctx.skeleton && evidence.empty() && skeleton_nests_bones(*ctx.skeleton, node_of))
    return make_error(
        ErrorCode::invalid_argument, no_offset, "skeleton",
        "the file holds the flat rig mab export writes without {opt:skeleton} (every bone under the rig "
        "root, at its origin), not the {opt:skeleton}'s hierarchy: it was exported without {opt:skeleton}; "
        "import it without");
  return {};
}

}  // namespace mab::gltf_in
