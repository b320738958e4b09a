// A glTF file's node tree as a skeleton for `mab export --skeleton` (docs/gltf.md).
#include <mab/gltf.hpp>

#include "interchange/gltf_document.hpp"
#include "interchange/gltf_names.hpp"

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
