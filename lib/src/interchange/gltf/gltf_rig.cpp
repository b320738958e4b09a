// Joint motion read independently of the joints' frames (see gltf_rig.hpp).
#include "interchange/gltf/gltf_rig.hpp"

#include "interchange/gltf/gltf_names.hpp"

#include <cmath>

namespace mab::gltf {

Quat to_float(const QuatD& q) noexcept {
  const double n = std::sqrt(q.x * q.x + q.y * q.y + q.z * q.z + q.w * q.w);
  if (!(n > 0) || !std::isfinite(n)) return Quat{};
  return {static_cast<float>(q.x / n), static_cast<float>(q.y / n), static_cast<float>(q.z / n),
          static_cast<float>(q.w / n)};
}

std::optional<FileRig> FileRig::build(const tinygltf::Model& m, const Curves& rotation) {
  auto parent = parents(m);
  if (!parent) return std::nullopt;
  FileRig r;
  const std::size_t n = m.nodes.size();
  r.parent_ = std::move(*parent);
  r.rest_local_.resize(n);
  r.rest_world_.resize(n);
  r.curve_.assign(n, nullptr);
  for (std::size_t i = 0; i < n; ++i) {
    const Trs t = node_trs(m.nodes[i]);
    r.rest_local_[i] = to_double(normalised(t.r));
  }
  for (const auto& [node, curve] : rotation) r.curve_[static_cast<std::size_t>(node)] = &curve;
  // Parents first: roots, then breadth first (the links were checked to be a forest).
  std::vector<std::vector<int>> children(n);
  for (std::size_t i = 0; i < n; ++i)
    if (r.parent_[i] >= 0) children[static_cast<std::size_t>(r.parent_[i])].push_back(static_cast<int>(i));
  for (std::size_t i = 0; i < n; ++i)
    if (r.parent_[i] < 0) r.order_.push_back(static_cast<int>(i));
  for (std::size_t head = 0; head < r.order_.size(); ++head)
    for (const int c : children[static_cast<std::size_t>(r.order_[head])]) r.order_.push_back(c);
  std::vector<bool> moving(n, false);
  for (const int i : r.order_) {
    const auto u = static_cast<std::size_t>(i);
    const int p = r.parent_[u];
    r.rest_world_[u] = p < 0 ? r.rest_local_[u] : mul(r.rest_world_[static_cast<std::size_t>(p)], r.rest_local_[u]);
    moving[u] = r.curve_[u] || (p >= 0 && moving[static_cast<std::size_t>(p)]);
    if (moving[u]) r.moving_.push_back(i);
  }
  return r;
}

void FileRig::world(double t, double snap, std::vector<QuatD>& out) const {
  if (out.size() != parent_.size()) out = rest_world_;
  for (const int i : moving_) {
    const auto u = static_cast<std::size_t>(i);
    const QuatD local = curve_[u] ? to_double(sample_rotation(*curve_[u], t, snap)) : rest_local_[u];
    out[u] = parent_[u] < 0 ? local : mul(out[static_cast<std::size_t>(parent_[u])], local);
  }
}

}  // namespace mab::gltf
