// Test helper: glTF files written from scratch (JSON text with the buffer as a base64 data
// URI, or GLB), so tests can feed import and the skeleton reader exactly the document a case
// needs: odd component types, strides, external buffers, broken headers.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace mab::test {

class GltfBuilder {
 public:
  nlohmann::json j;
  std::vector<std::uint8_t> bin;

  GltfBuilder() { j = {{"asset", {{"version", "2.0"}}}}; }

  // Appends `bytes` (4-byte aligned) as a buffer view of buffer 0; its index.
  int add_view(const std::vector<std::uint8_t>& bytes, unsigned stride = 0) {
    while (bin.size() % 4) bin.push_back(0);
    nlohmann::json v = {{"buffer", 0}, {"byteOffset", bin.size()}, {"byteLength", bytes.size()}};
    if (stride) v["byteStride"] = stride;
    bin.insert(bin.end(), bytes.begin(), bytes.end());
    j["bufferViews"].push_back(v);
    return static_cast<int>(j["bufferViews"].size() - 1);
  }

  int add_accessor(int view, int component_type, const char* type, std::size_t count, bool normalized = false,
                   std::size_t offset = 0) {
    nlohmann::json a = {{"componentType", component_type}, {"type", type}, {"count", count}};
    if (view >= 0) a["bufferView"] = view;
    if (normalized) a["normalized"] = true;
    if (offset) a["byteOffset"] = offset;
    j["accessors"].push_back(a);
    return static_cast<int>(j["accessors"].size() - 1);
  }

  int add_floats(const std::vector<float>& f, const char* type) {
    const std::size_t width = std::string(type) == "SCALAR" ? 1 : std::string(type) == "VEC3" ? 3 : 4;
    return add_accessor(add_view(bytes_of(f)), 5126, type, f.size() / width);
  }

  int add_node(const std::string& name, nlohmann::json extra = nlohmann::json::object()) {
    extra["name"] = name;
    j["nodes"].push_back(extra);
    return static_cast<int>(j["nodes"].size() - 1);
  }

  // A sampler from accessor `input` to `output` and a channel driving `path` of `node`.
  void add_channel(int anim, int input, int output, int node, const char* path, const char* interpolation = "LINEAR") {
    while (static_cast<int>(j["animations"].size()) <= anim)
      j["animations"].push_back({{"samplers", nlohmann::json::array()}, {"channels", nlohmann::json::array()}});
    auto& a = j["animations"][static_cast<std::size_t>(anim)];
    a["samplers"].push_back({{"input", input}, {"output", output}, {"interpolation", interpolation}});
    a["channels"].push_back({{"sampler", a["samplers"].size() - 1}, {"target", {{"node", node}, {"path", path}}}});
  }

  // A root "rig" with `names` as its children, one scene; the node indices of the children.
  std::vector<int> flat_rig(const std::vector<std::string>& names) {
    const int root = add_node("rig");
    std::vector<int> out;
    for (const auto& n : names) {
      out.push_back(add_node(n));
      j["nodes"][static_cast<std::size_t>(root)]["children"].push_back(out.back());
    }
    j["scenes"] = {{{"nodes", {root}}}};
    j["scene"] = 0;
    return out;
  }

  template <class T>
  static std::vector<std::uint8_t> bytes_of(const std::vector<T>& v) {
    std::vector<std::uint8_t> out(v.size() * sizeof(T));
    if (!v.empty()) std::memcpy(out.data(), v.data(), out.size());
    return out;
  }

  static std::string base64(const std::vector<std::uint8_t>& in) {
    static constexpr char d[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    std::string out;
    for (std::size_t i = 0; i < in.size(); i += 3) {
      const std::uint32_t v = std::uint32_t{in[i]} << 16 | (i + 1 < in.size() ? std::uint32_t{in[i + 1]} << 8 : 0u) |
                              (i + 2 < in.size() ? in[i + 2] : 0u);
      out += d[v >> 18];
      out += d[(v >> 12) & 63];
      out += i + 1 < in.size() ? d[(v >> 6) & 63] : '=';
      out += i + 2 < in.size() ? d[v & 63] : '=';
    }
    return out;
  }

  // glTF text with the buffer as a data URI (or `uri` when given: an external file).
  std::vector<std::uint8_t> text(const std::string& uri = {}) const {
    nlohmann::json doc = j;
    if (!bin.empty() || !uri.empty())
      doc["buffers"] = {{{"byteLength", bin.size()},
                         {"uri", uri.empty() ? "data:application/octet-stream;base64," + base64(bin) : uri}}};
    const std::string s = doc.dump();
    return {s.begin(), s.end()};
  }

  // GLB: 12-byte header, JSON chunk padded with spaces, BIN chunk padded with zeros.
  std::vector<std::uint8_t> glb() const {
    nlohmann::json doc = j;
    if (!bin.empty()) doc["buffers"] = {{{"byteLength", bin.size()}}};
    std::string json = doc.dump();
    while (json.size() % 4) json += ' ';
    std::vector<std::uint8_t> b = bin;
    while (b.size() % 4) b.push_back(0);
    std::vector<std::uint8_t> out;
    auto put32 = [&](std::size_t v) {
      for (int i = 0; i < 4; ++i) out.push_back(static_cast<std::uint8_t>(v >> (8 * i)));
    };
    put32(0x46546C67u);
    put32(2);
    put32(12 + 8 + json.size() + (b.empty() ? 0 : 8 + b.size()));
    put32(json.size());
    put32(0x4E4F534Au);
    out.insert(out.end(), json.begin(), json.end());
    if (!b.empty()) {
      put32(b.size());
      put32(0x004E4942u);
      out.insert(out.end(), b.begin(), b.end());
    }
    return out;
  }
};

}  // namespace mab::test
