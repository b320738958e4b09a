// Internal: how bones are named in glTF files and found again (docs/gltf.md, "Names").
#pragma once

#include "interchange/gltf/gltf_document.hpp"

#include <mab/legacy_bridge.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace mab::gltf {

std::string generated_bone_name(std::uint32_t hash);  // "bone_0xB6C65665"
std::string duplicate_suffix(unsigned occurrence);    // ".dup1": second bone with one hash

// Far Cry 2/3 name bones by skeleton id (format 13): node "bone_<id>", found again by the
// CRC-32 of that name. A bone in both rotation masks (or both translation masks) of a clip has
// two stored values: the keyed track drives bone_<id>, the constant one "bone_<id>_constant",
// so both are seen, edited and written back (glTF 3.11: one channel per node and path).
inline std::string legacy_node_name(std::uint32_t bone) { return skeleton_bone_name(bone); }
inline std::string legacy_constant_node_name(std::uint32_t bone) { return legacy_node_name(bone) + "_constant"; }
// Root motion's node ('aNi' format 10.3, Far Cry 2/3 slots 0 and 1).
inline constexpr std::string_view trajectory_node_name = "trajectory";

// A name split into its base and the occurrence of a duplicate suffix (0 without one).
struct NameParts {
  std::string_view base;
  unsigned occurrence = 0;
};
NameParts split_duplicate(std::string_view name) noexcept;

// "bone_0xHHHHHHHH" (any case of the hex digits): the hash it names.
std::optional<std::uint32_t> parse_generated_name(std::string_view base) noexcept;

// "0xHHHHHHHH" text or a JSON number 0..2^32-1, as found in `mabkit` extras.
std::optional<std::uint32_t> hash_from_value(const tinygltf::Value& v) noexcept;

// The `mabkit` object of an extras value, or a null value.
const tinygltf::Value& mabkit_extras(const tinygltf::Value& extras) noexcept;

// The deepest node that is an ancestor of (or one of) every node in `nodes`; -1 when they
// have no common root (or the parent links are not a forest).
int common_root(const tinygltf::Model& m, const std::vector<int>& nodes);

// Parent of every node (-1 for roots); nullopt when a node has two parents or the children
// links form a cycle or name a node that does not exist.
std::optional<std::vector<int>> parents(const tinygltf::Model& m);

}  // namespace mab::gltf
