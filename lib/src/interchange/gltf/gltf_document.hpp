// Internal: tinygltf (Debian libtinygltf-dev, compiled here so sanitizers and the fuzzers see
// it) behind a bounds-checked layer. tinygltf parses the JSON and the buffers; everything it
// returns is still untrusted, so every index, range and count is checked here before use.
#pragma once

#define TINYGLTF_NO_STB_IMAGE
#define TINYGLTF_NO_STB_IMAGE_WRITE
#define TINYGLTF_NO_EXTERNAL_IMAGE
#define TINYGLTF_NO_FS
#define TINYGLTF_USE_CPP14
#include <tiny_gltf.h>

#include <mab/limits.hpp>
#include <mab/quat.hpp>
#include <mab/result.hpp>

#include <array>
#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace mab::gltf {

// glTF (JSON text) or GLB (by its "glTF" magic). External buffers are read from
// `resource_dir` only (relative URIs, through read_file and its size cap); an empty
// `resource_dir` refuses them. Images are never decoded.
Result<tinygltf::Model> parse(std::span<const std::uint8_t> bytes, const std::filesystem::path& resource_dir,
                              const Limits& limits);

// GLB, or glTF text with the buffers embedded as base64 data URIs. tinygltf writes the JSON;
// a model whose only buffer is in memory (what export builds) has that buffer moved straight
// into the GLB chunk or the data URI instead of through tinygltf's several copies of it.
Result<std::vector<std::uint8_t>> serialize(tinygltf::Model model, bool binary);

// Accessor contents as floats, `width` per element (1 SCALAR, 3 VEC3, 4 VEC4), checked
// against the accessor, its buffer view and its buffer. FLOAT always; with `normalized_ok`
// also the normalized integer types glTF allows for rotations (glTF 3.11). `field` names the
// accessor in errors ("/animations/0/samplers/3/output").
Result<std::vector<float>> read_floats(const tinygltf::Model& m, int accessor, unsigned width, bool normalized_ok,
                                       const std::string& field);

// Index checks: `index` names an element of an array of `size` (JSON path `field`).
Status check_index(int index, std::size_t size, const std::string& field);

Error gltf_error(ErrorCode code, std::string field, std::string detail);

// The node's rest rotation/translation/scale (glTF 5.25 defaults), or the decomposition of its
// matrix when it has one (exact for a TRS matrix, the polar rotation otherwise).
struct Trs {
  std::array<double, 3> t{0, 0, 0};
  Quat r{};
  std::array<double, 3> s{1, 1, 1};
};
Trs node_trs(const tinygltf::Node& n);

// Export helpers shared by the 'aNi' and the legacy writers.
void append_floats(std::vector<unsigned char>& buf, const float* f, std::size_t n);
tinygltf::Value object(std::initializer_list<std::pair<const std::string, tinygltf::Value>> kv);
// A FLOAT accessor of `count` elements of `type` at `offset` in buffer view `view`; its index.
int add_float_accessor(tinygltf::Model& m, std::size_t offset, std::size_t count, int type, int view);
// A LINEAR sampler from accessor `input` (times) to `output` (values) and the channel that
// drives `path` of `node` with it; the channel is returned for its extras.
tinygltf::AnimationChannel& add_linear_channel(tinygltf::Animation& anim, int input, int output, int node,
                                               const char* path);
// Unit length within float rounding, as the glTF validator requires of rotation outputs.
Quat unit(const Quat& q) noexcept;
// `keys` as unit quaternions, each on the hemisphere of the one before (q and -q are one
// rotation; a LINEAR sampler across hemispheres turns the long way round), 4 floats a key
// written from `out` on (unaligned is fine).
void write_continuous_quats(std::span<const Quat> keys, void* out) noexcept;

}  // namespace mab::gltf
