// A glTF file's node tree as a skeleton for `mab export --skeleton` (docs/gltf.md).
#include <mab/gltf.hpp>
#include <mab/text.hpp>

#include "interchange/gltf/gltf_document.hpp"
#include "interchange/gltf/gltf_names.hpp"
#include "interchange/gltf/gltf_rig.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>

namespace mab {

Result<GltfSkeleton> read_gltf_skeleton(std::span<const std::uint8_t> bytes, const std::filesystem::path& resource_dir,
                                        const Limits& limits) {
  MAB_ASSIGN(const tinygltf::Model m, gltf::parse(bytes, resource_dir, limits));
  constexpr std::size_t max_nodes = 1u << 16;
  if (m.nodes.size() > max_nodes)
    return gltf::gltf_error(ErrorCode::limit_exceeded, "/nodes", std::to_string(m.nodes.size()) + " nodes");
  const auto parent = gltf::parents(m);
  if (!parent)
    return gltf::gltf_error(ErrorCode::bad_value, "/nodes",
                            "the children links are not a tree (a node with two parents, a cycle, or a bad index)");
  GltfSkeleton sk;
  sk.nodes.resize(m.nodes.size());
  for (std::size_t i = 0; i < m.nodes.size(); ++i) {
    const auto& n = m.nodes[i];
    auto& sn = sk.nodes[i];
    sn.name = n.name;
    sn.hash = bone_hash(n.name);
    sn.parent = (*parent)[i];
    sn.children = n.children;
    const gltf::Trs trs = gltf::node_trs(n);
    sn.translation = trs.t;
    sn.rotation = trs.r;
    sn.scale = trs.s;
    if (n.matrix.size() == 16) {
      sn.has_matrix = true;
      std::copy(n.matrix.begin(), n.matrix.end(), sn.matrix.begin());
    }
  }
  for (std::size_t s = 0; s < m.skins.size(); ++s) {
    for (const int j : m.skins[s].joints) {
      MAB_TRY(gltf::check_index(j, m.nodes.size(), "/skins/" + std::to_string(s) + "/joints"));
      sk.nodes[static_cast<std::size_t>(j)].joint = true;
    }
  }
  if (!m.skins.empty() && m.skins.front().skeleton >= 0) {
    MAB_TRY(gltf::check_index(m.skins.front().skeleton, m.nodes.size(), "/skins/0/skeleton"));
    sk.skin_root = m.skins.front().skeleton;
  }
  const int scene = m.defaultScene >= 0 ? m.defaultScene : (m.scenes.empty() ? -1 : 0);
  if (scene >= 0 && static_cast<std::size_t>(scene) < m.scenes.size()) {
    for (const int r : m.scenes[static_cast<std::size_t>(scene)].nodes) {
      MAB_TRY(gltf::check_index(r, m.nodes.size(), "/scenes/" + std::to_string(scene) + "/nodes"));
      if ((*parent)[static_cast<std::size_t>(r)] < 0) sk.roots.push_back(r);
    }
  }
  if (sk.roots.empty())
    for (std::size_t i = 0; i < m.nodes.size(); ++i)
      if ((*parent)[i] < 0) sk.roots.push_back(static_cast<int>(i));
  return sk;
}

}  // namespace mab

namespace mab::gltf {

namespace {

void append_bits(std::string& s, float f) {
  std::uint32_t u;
  std::memcpy(&u, &f, 4);
  char buf[12];
  std::snprintf(buf, sizeof buf, " %08X", u);
  s += buf;
}

const tinygltf::Value& scene_mabkit(const tinygltf::Model& m) {
  static const tinygltf::Value null_value;
  const int scene = m.defaultScene >= 0 ? m.defaultScene : 0;
  if (scene < 0 || static_cast<std::size_t>(scene) >= m.scenes.size()) return null_value;
  return mabkit_extras(m.scenes[static_cast<std::size_t>(scene)].extras);
}

bool whole(const tinygltf::Value& v, double lo, double hi) {
  if (!v.IsNumber()) return false;
  const double d = v.GetNumberAsDouble();
  return d >= lo && d <= hi && std::floor(d) == d;
}

// The recorded nodes, checked: as many names as parents and rotations, parents in range and
// acyclic, rotations finite and not zero. nullopt when anything is off.
std::optional<GltfSkeleton> recorded_skeleton(const tinygltf::Value& r) {
  if (!r.Has("names") || !r.Get("names").IsString() || !r.Has("parents") || !r.Get("parents").IsArray() ||
      !r.Has("rotations") || !r.Get("rotations").IsArray())
    return std::nullopt;
  const std::string& names = r.Get("names").Get<std::string>();
  const auto& parents = r.Get("parents");
  const auto& rotations = r.Get("rotations");
  const std::size_t n = parents.ArrayLen();
  constexpr std::size_t max_nodes = 1u << 16;
  if (n == 0 || n > max_nodes || rotations.ArrayLen() != 4 * n) return std::nullopt;
  GltfSkeleton sk;
  sk.nodes.resize(n);
  std::size_t at = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const auto end = names.find('\n', at);
    if ((end == std::string::npos) != (i + 1 == n)) return std::nullopt;
    sk.nodes[i].name = names.substr(at, end == std::string::npos ? std::string::npos : end - at);
    sk.nodes[i].hash = bone_hash(sk.nodes[i].name);
    at = end + 1;
    const auto& p = parents.Get(static_cast<int>(i));
    if (!whole(p, -1, static_cast<double>(n) - 1)) return std::nullopt;
    sk.nodes[i].parent = static_cast<int>(p.GetNumberAsDouble());
    double q[4];
    for (int c = 0; c < 4; ++c) {
      const auto& v = rotations.Get(static_cast<int>(4 * i) + c);
      if (!v.IsNumber() || !std::isfinite(v.GetNumberAsDouble())) return std::nullopt;
      q[c] = v.GetNumberAsDouble();
    }
    sk.nodes[i].rotation = {static_cast<float>(q[0]), static_cast<float>(q[1]), static_cast<float>(q[2]),
                            static_cast<float>(q[3])};
    sk.nodes[i].joint = true;
  }
  for (std::size_t i = 0; i < n; ++i) {
    std::size_t steps = 0;  // a cycle never reaches a root
    for (int p = sk.nodes[i].parent; p >= 0; p = sk.nodes[static_cast<std::size_t>(p)].parent)
      if (++steps > n) return std::nullopt;
    if (sk.nodes[i].parent >= 0)
      sk.nodes[static_cast<std::size_t>(sk.nodes[i].parent)].children.push_back(static_cast<int>(i));
    else sk.roots.push_back(static_cast<int>(i));
  }
  if (r.Has("skin_root") && whole(r.Get("skin_root"), 0, static_cast<double>(n) - 1))
    sk.skin_root = static_cast<int>(r.Get("skin_root").GetNumberAsDouble());
  if (r.Has("roots") && r.Get("roots").IsArray()) {
    std::vector<int> roots;
    for (std::size_t i = 0; i < r.Get("roots").ArrayLen(); ++i) {
      const auto& v = r.Get("roots").Get(static_cast<int>(i));
      if (!whole(v, 0, static_cast<double>(n) - 1) ||
          sk.nodes[static_cast<std::size_t>(v.GetNumberAsDouble())].parent >= 0)
        return std::nullopt;
      roots.push_back(static_cast<int>(v.GetNumberAsDouble()));
    }
    if (!roots.empty()) sk.roots = std::move(roots);
  }
  return sk;
}

}  // namespace

std::uint32_t skeleton_digest(const GltfSkeleton& sk) {
  // Names, parents and rest rotations: what a rest-relative read depends on.
  std::string text;
  for (const auto& n : sk.nodes) {
    text += n.name;
    text += '\x1f' + std::to_string(n.parent);
    for (unsigned c = 0; c < 4; ++c) append_bits(text, n.rotation[c]);
    text += '\n';
  }
  for (const int r : sk.roots) text += std::to_string(r) + ' ';
  text += '|' + std::to_string(sk.skin_root);
  return bone_hash(text);
}

tinygltf::Value rig_record(const GltfSkeleton* sk) {
  if (!sk) return object({{"kind", tinygltf::Value(std::string("flat"))}});
  tinygltf::Value::Object r{{"kind", tinygltf::Value(std::string("skeleton"))},
                            {"digest", tinygltf::Value(hex(skeleton_digest(*sk), 8))}};
  const bool plain = std::none_of(sk->nodes.begin(), sk->nodes.end(),
                                  [](const GltfSkeletonNode& n) { return n.name.find('\n') != std::string::npos; });
  if (plain && !sk->nodes.empty()) {
    std::string names;
    tinygltf::Value::Array parents, rotations, roots;
    for (std::size_t i = 0; i < sk->nodes.size(); ++i) {
      const auto& n = sk->nodes[i];
      names += (i ? "\n" : "") + n.name;
      parents.emplace_back(n.parent);
      for (unsigned c = 0; c < 4; ++c) rotations.emplace_back(static_cast<double>(n.rotation[c]));
    }
    for (const int i : sk->roots) roots.emplace_back(i);
    r.emplace("names", tinygltf::Value(names));
    r.emplace("parents", tinygltf::Value(std::move(parents)));
    r.emplace("rotations", tinygltf::Value(std::move(rotations)));
    r.emplace("roots", tinygltf::Value(std::move(roots)));
    r.emplace("skin_root", tinygltf::Value(sk->skin_root));
  }
  return tinygltf::Value(std::move(r));
}

RigRecord read_rig_record(const tinygltf::Model& m) {
  RigRecord out;
  const tinygltf::Value& mk = scene_mabkit(m);
  if (mk.IsObject() && mk.Has("animations") && whole(mk.Get("animations"), 0, 65535))
    out.exported_animations = static_cast<int>(mk.Get("animations").GetNumberAsDouble());
  if (!mk.IsObject() || !mk.Has("rig") || !mk.Get("rig").IsObject()) return out;
  const tinygltf::Value& r = mk.Get("rig");
  if (!r.Has("kind") || !r.Get("kind").IsString()) return out;
  const std::string& kind = r.Get("kind").Get<std::string>();
  if (kind == "flat") {
    out.kind = RigRecord::Kind::flat;
  } else if (kind == "skeleton") {
    out.kind = RigRecord::Kind::skeleton;
    if (r.Has("digest") && r.Get("digest").IsString())
      if (auto d = hash_from_value(r.Get("digest"))) out.digest = *d;
    out.skeleton = recorded_skeleton(r);
    // Data that does not hash to the digest is not the rig that was recorded.
    if (out.skeleton && skeleton_digest(*out.skeleton) != out.digest) out.skeleton.reset();
  }
  return out;
}

}  // namespace mab::gltf
