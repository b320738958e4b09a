// Internal: Far Cry 2/3 clips (format 13) as glTF animations (docs/gltf.md, "Far Cry 2 and 3").
// A legacy clip names bones by skeleton id, not by hash: each bone is a node "bone_<id>"
// (found again on import by the CRC-32 of that name, like any named node), root motion
// (slots 0 and 1) animates a node "trajectory", and a constant value of a bone that the same
// clip also animates goes to a node "bone_<id>_constant".
#pragma once

#include <mab/gltf.hpp>
#include <mab/legacy.hpp>

#include <algorithm>
#include <vector>

#include <cstdint>
#include <string>
#include <string_view>

namespace mab::gltf {

inline std::string legacy_node_name(std::uint32_t bone) { return "bone_" + std::to_string(bone); }
// A bone in both rotation masks (or both translation masks) of a clip has two stored values:
// the keyed track drives bone_<id>, the constant one this node of its own, so both are seen,
// edited and written back (docs/gltf.md, "Far Cry 2 and 3").
inline std::string legacy_constant_node_name(std::uint32_t bone) { return legacy_node_name(bone) + "_constant"; }
inline constexpr std::string_view trajectory_node_name = "trajectory";

// Bones of `clip` held constant and animated at once (rotation or translation), ascending.
inline std::vector<std::uint32_t> legacy_doubled_bones(const LegacyClip& clip) {
  std::vector<std::uint32_t> out;
  for (const auto& c : clip.constant_rotations)
    for (const auto& k : clip.rotations)
      if (k.bone == c.bone) out.push_back(c.bone);
  for (const auto& c : clip.constant_translations)
    for (const auto& k : clip.translations)
      if (k.bone == c.bone) out.push_back(c.bone);
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

// export_gltf for a legacy container: one animation per clip of the bank (chained clips too).
Result<std::vector<std::uint8_t>> export_legacy_gltf(const Container& c, const GltfExportOptions& o,
                                                     GltfExportReport* report);

}  // namespace mab::gltf
