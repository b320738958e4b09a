// Bone names in glTF files (docs/gltf.md, "Names").
#include "interchange/gltf/gltf_names.hpp"
#include <mab/text.hpp>

#include <charconv>
#include <cmath>

namespace mab::gltf {

std::string generated_bone_name(std::uint32_t hash) { return "bone_" + hex(hash, 8); }

std::string duplicate_suffix(unsigned occurrence) { return ".dup" + std::to_string(occurrence); }

NameParts split_duplicate(std::string_view name) noexcept {
  const auto at = name.rfind(".dup");
  if (at == std::string_view::npos || at + 4 >= name.size()) return {name, 0};
  unsigned occ = 0;
  const char* first = name.data() + at + 4;
  const char* last = name.data() + name.size();
  const auto r = std::from_chars(first, last, occ);
  if (r.ec != std::errc() || r.ptr != last || occ == 0) return {name, 0};
  return {name.substr(0, at), occ};
}

std::optional<std::uint32_t> parse_generated_name(std::string_view base) noexcept {
  constexpr std::string_view prefix = "bone_0x";
  if (base.size() != prefix.size() + 8) return std::nullopt;
  for (std::size_t i = 0; i < prefix.size(); ++i)
    if (base[i] != prefix[i] && !(i == 6 && base[i] == 'X')) return std::nullopt;
  std::uint32_t v = 0;
  const char* first = base.data() + prefix.size();
  const auto r = std::from_chars(first, base.data() + base.size(), v, 16);
  if (r.ec != std::errc() || r.ptr != base.data() + base.size()) return std::nullopt;
  return v;
}

std::optional<std::uint32_t> hash_from_value(const tinygltf::Value& v) noexcept {
  if (v.IsString()) {
    const std::string& s = v.Get<std::string>();
    if (s.size() < 3 || s[0] != '0' || (s[1] != 'x' && s[1] != 'X')) return std::nullopt;
    std::uint32_t h = 0;
    const auto r = std::from_chars(s.data() + 2, s.data() + s.size(), h, 16);
    if (r.ec != std::errc() || r.ptr != s.data() + s.size()) return std::nullopt;
    return h;
  }
  if (v.IsNumber()) {
    const double d = v.GetNumberAsDouble();
    if (d >= 0 && d <= 4294967295.0 && std::floor(d) == d) return static_cast<std::uint32_t>(d);
  }
  return std::nullopt;
}

const tinygltf::Value& mabkit_extras(const tinygltf::Value& extras) noexcept {
  static const tinygltf::Value null_value;
  if (!extras.IsObject() || !extras.Has("mabkit")) return null_value;
  const tinygltf::Value& v = extras.Get("mabkit");
  return v.IsObject() ? v : null_value;
}

std::optional<std::vector<int>> parents(const tinygltf::Model& m) {
  const std::size_t n = m.nodes.size();
  std::vector<int> parent(n, -1);
  for (std::size_t i = 0; i < n; ++i) {
    for (const int c : m.nodes[i].children) {
      if (c < 0 || static_cast<std::size_t>(c) >= n || static_cast<std::size_t>(c) == i) return std::nullopt;
      if (parent[static_cast<std::size_t>(c)] >= 0) return std::nullopt;
      parent[static_cast<std::size_t>(c)] = static_cast<int>(i);
    }
  }
  // A cycle shows as a walk up that never reaches a root: n steps are enough to tell.
  for (std::size_t i = 0; i < n; ++i) {
    int p = static_cast<int>(i);
    std::size_t steps = 0;
    while (p >= 0 && steps <= n) p = parent[static_cast<std::size_t>(p)], ++steps;
    if (p >= 0) return std::nullopt;
  }
  return parent;
}

int common_root(const tinygltf::Model& m, const std::vector<int>& nodes) {
  if (nodes.empty()) return -1;
  for (const int n : nodes)
    if (n < 0 || static_cast<std::size_t>(n) >= m.nodes.size()) return -1;
  const auto parent = parents(m);
  if (!parent) return -1;
  auto path = [&](int node) {
    std::vector<int> up;
    for (int p = node; p >= 0; p = (*parent)[static_cast<std::size_t>(p)]) up.push_back(p);
    return std::vector<int>(up.rbegin(), up.rend());
  };
  std::vector<int> prefix = path(nodes.front());
  for (std::size_t i = 1; i < nodes.size() && !prefix.empty(); ++i) {
    const auto p = path(nodes[i]);
    std::size_t k = 0;
    while (k < prefix.size() && k < p.size() && prefix[k] == p[k]) ++k;
    prefix.resize(k);
  }
  return prefix.empty() ? -1 : prefix.back();
}

}  // namespace mab::gltf
