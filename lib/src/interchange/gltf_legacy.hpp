// Internal: Far Cry 2/3 clips (spec 13) as glTF animations (docs/gltf.md, "Far Cry 2 and 3").
// A legacy clip names bones by skeleton id, not by hash: each bone is a node "bone_<id>"
// (found again on import by the CRC-32 of that name, like any named node), and root motion
// (slots 0 and 1) animates a node "trajectory".
#pragma once

#include <mab/gltf.hpp>

#include <cstdint>
#include <string>
#include <string_view>

namespace mab::gltf {

inline std::string legacy_node_name(std::uint32_t bone) { return "bone_" + std::to_string(bone); }
inline constexpr std::string_view trajectory_node_name = "trajectory";

// export_gltf for a legacy container: one animation per clip of the bank (chained clips too).
Result<std::vector<std::uint8_t>> export_legacy_gltf(const Container& c, const GltfExportOptions& o,
                                                     GltfExportReport* report);

}  // namespace mab::gltf
