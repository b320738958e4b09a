// Internal: bone rotations read back from a glTF file whatever frames its joints use.
//
// Tools re-express joints in frames of their own: Blender's exporter writes each joint as
// (original rotation) x F with a rest rotation that absorbs F, for a per-bone F that depends on
// its bone heuristics. What survives every such tool is each joint's world-space motion away
// from its rest pose, W(t) x W_rest^-1. Import therefore takes that motion from the file and
// applies it to the rest pose of a reference rig (the one `mab export` wrote: its flat mabkit
// rig or the --skeleton), then reads each bone's rotation local to its parent in that rig.
#pragma once

#include "interchange/gltf/gltf_document.hpp"
#include "interchange/gltf/gltf_sample.hpp"

#include <mab/gltf.hpp>
#include <mab/quat.hpp>

#include <optional>
#include <vector>

namespace mab::gltf {

struct QuatD {
  double x = 0, y = 0, z = 0, w = 1;
};
// Inline: import composes a few per bone and key.
inline QuatD to_double(const Quat& q) noexcept { return {q.x, q.y, q.z, q.w}; }
Quat to_float(const QuatD& q) noexcept;  // normalised
inline QuatD mul(const QuatD& a, const QuatD& b) noexcept {
  return {a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y, a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x,
          a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w, a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z};
}
inline QuatD conj(const QuatD& q) noexcept { return {-q.x, -q.y, -q.z, q.w}; }

// Format 3 / Dunia is Z-up, glTF Y-up: the rotation `mab export` puts on its rig's root.
inline constexpr QuatD zup_to_yup{-0.70710678118654752, 0, 0, 0.70710678118654752};

// The file's node tree: parents, rest rotations and the rotation channels of one animation.
class FileRig {
 public:
  // nullopt when the children links are not a forest.
  static std::optional<FileRig> build(const tinygltf::Model& m, const Curves& rotation);
  // World rotation of every node at time t (seconds), channels sampled with `snap`. Nodes
  // with no animated node at or above them keep their rest rotation and are not recomputed.
  void world(double t, double snap, std::vector<QuatD>& out) const;
  const QuatD& rest_world(int node) const noexcept { return rest_world_[static_cast<std::size_t>(node)]; }

 private:
  std::vector<int> parent_, order_;  // order: parents before children
  std::vector<int> moving_;          // in order: nodes with an animated node at or above them
  std::vector<QuatD> rest_local_, rest_world_;
  std::vector<const Curve*> curve_;
};

// The rig the stored rotations are local to. Nodes are in topological order.
struct RefRig {
  struct Node {
    int parent = -1;  // index into nodes
    QuatD rest_local, rest_world;
    int bone = -1;       // clip bone it carries
    int file_node = -1;  // file node whose motion it takes (a node with a rotation channel)
  };
  std::vector<Node> nodes;
};

// What `mab export` records of the rig it wrote, in the scene's extras ({"mabkit": {"rig":
// ...}}; Blender keeps scene extras as custom properties and writes them back when "Custom
// Properties" is ticked), so import reads rotations against that rig without --skeleton, or
// refuses to guess (docs/gltf.md, "The rig travels with the file"): {"kind": "flat"}, or
// {"kind": "skeleton", "digest": "0x...", "names": "a\nb...", "parents": [...],
// "rotations": [x, y, z, w, ...], "roots": [...], "skin_root": n}. Names holding a line break
// leave the data out (the digest alone then asks for --skeleton).
std::uint32_t skeleton_digest(const GltfSkeleton& sk);
tinygltf::Value rig_record(const GltfSkeleton* sk);

struct RigRecord {
  enum class Kind : std::uint8_t { none, flat, skeleton } kind = Kind::none;
  std::uint32_t digest = 0;
  std::optional<GltfSkeleton> skeleton;  // the recorded skeleton, when its data is there and sound
  int exported_animations = -1;          // {"mabkit": {"animations": N}}: how many export wrote
};
RigRecord read_rig_record(const tinygltf::Model& m);

}  // namespace mab::gltf
