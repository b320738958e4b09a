// Joint motion read independently of the joints' frames (see gltf_rig.hpp).
#include "interchange/gltf_rig.hpp"

#include "interchange/gltf_names.hpp"

#include <cmath>

namespace mab::gltf {

QuatD to_double(const Quat& q) noexcept { return {q.x, q.y, q.z, q.w}; }

Quat to_float(const QuatD& q) noexcept {
  const double n = std::sqrt(q.x * q.x + q.y * q.y + q.z * q.z + q.w * q.w);
  if (!(n > 0) || !std::isfinite(n)) return Quat{};
  return {static_cast<float>(q.x / n), static_cast<float>(q.y / n), static_cast<float>(q.z / n),
          static_cast<float>(q.w / n)};
}

QuatD mul(const QuatD& a, const QuatD& b) noexcept {
  return {a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y, a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x,
          a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w, a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z};
}

QuatD conj(const QuatD& q) noexcept { return {-q.x, -q.y, -q.z, q.w}; }

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
  for (const int i : r.order_) {
    const auto u = static_cast<std::size_t>(i);
    r.rest_world_[u] = r.parent_[u] < 0 ? r.rest_local_[u]
                                        : mul(r.rest_world_[static_cast<std::size_t>(r.parent_[u])], r.rest_local_[u]);
  }
  return r;
}

void FileRig::world(double t, double snap, std::vector<QuatD>& out) const {
  out.resize(parent_.size());
  for (const int i : order_) {
    const auto u = static_cast<std::size_t>(i);
    const QuatD local = curve_[u] ? to_double(sample_rotation(*curve_[u], t, snap)) : rest_local_[u];
    out[u] = parent_[u] < 0 ? local : mul(out[static_cast<std::size_t>(parent_[u])], local);
  }
}

}  // namespace mab::gltf
