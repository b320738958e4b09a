// tinygltf behind bounds checks (see gltf_document.hpp).
#include "interchange/gltf/gltf_document.hpp"

#include <mab/file_io.hpp>

#include "io/bytes.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <exception>
#include <limits>
#include <new>
#include <sstream>

namespace mab::gltf {

namespace {

namespace fs = std::filesystem;

struct FsContext {
  fs::path root;  // lexically normal, empty: no file access
  Limits limits;
};

// Inside the resource folder after lexical normalisation; nothing else is ever opened.
bool inside(const FsContext& ctx, const std::string& path) {
  if (ctx.root.empty() || path.empty()) return false;
  const fs::path p = fs::path(path).lexically_normal();
  const auto rel = p.lexically_relative(ctx.root);
  if (rel.empty() || rel.is_absolute()) return false;
  const auto first = *rel.begin();
  return first != ".." && first != ".";
}

bool file_exists(const std::string& path, void* user) {
  const auto* ctx = static_cast<const FsContext*>(user);
  std::error_code ec;
  return inside(*ctx, path) && fs::is_regular_file(path, ec);
}

std::string expand_path(const std::string& path, void*) { return path; }

bool read_whole_file(std::vector<unsigned char>* out, std::string* err, const std::string& path, void* user) {
  const auto* ctx = static_cast<const FsContext*>(user);
  if (!inside(*ctx, path)) {
    if (err) *err = "outside the resource folder";
    return false;
  }
  auto bytes = read_file(path, ctx->limits);
  if (!bytes) {
    if (err) *err = bytes.error().message();
    return false;
  }
  *out = std::move(bytes).value();
  return true;
}

bool write_whole_file(std::string* err, const std::string&, const std::vector<unsigned char>&, void*) {
  if (err) *err = "mabkit writes glTF through its own atomic writer";
  return false;
}

// Images are never needed for animation: accepted and left undecoded.
bool skip_image(tinygltf::Image*, const int, std::string*, std::string*, int, int, const unsigned char*, int, void*) {
  return true;
}

// tinygltf reports several lines; a CLI error is one.
std::string one_line(std::string s) {
  std::replace(s.begin(), s.end(), '\n', ' ');
  while (!s.empty() && s.back() == ' ') s.pop_back();
  return s;
}

// glTF 4.4 (GLB): checked here so a bad header gets an offset and a field name.
Status check_glb(std::span<const std::uint8_t> b) {
  if (b.size() < 20)
    return make_error(ErrorCode::truncated, 0, "GLB header",
                      "a GLB needs 20 bytes of headers, the file has " + std::to_string(b.size()));
  const std::uint32_t version = io::load_u32(b, 4), length = io::load_u32(b, 8);
  const std::uint32_t json_length = io::load_u32(b, 12), json_type = io::load_u32(b, 16);
  if (version != 2)
    return make_error(ErrorCode::unsupported_version, 4, "GLB version",
                      "GLB version " + std::to_string(version) + "; only 2 is defined");
  if (length != b.size())
    return make_error(ErrorCode::size_mismatch, 8, "GLB length",
                      "header says " + std::to_string(length) + " bytes, the file has " + std::to_string(b.size()));
  if (json_type != 0x4E4F534Au)
    return make_error(ErrorCode::bad_value, 16, "GLB chunk 0 type", "the first chunk must be JSON");
  if (json_length == 0 || json_length > b.size() - 20)
    return make_error(ErrorCode::out_of_bounds, 12, "GLB chunk 0 length",
                      std::to_string(json_length) + " bytes of JSON do not fit in the file");
  const std::uint64_t bin_at = 20ull + json_length;
  if (bin_at < b.size()) {
    if (b.size() - bin_at < 8) return make_error(ErrorCode::truncated, bin_at, "GLB chunk 1", "chunk header cut short");
    const std::uint32_t bin_length = io::load_u32(b, bin_at), bin_type = io::load_u32(b, bin_at + 4);
    if (bin_type != 0x004E4942u)
      return make_error(ErrorCode::bad_value, bin_at + 4, "GLB chunk 1 type", "the second chunk must be BIN");
    if (bin_length > b.size() - bin_at - 8)
      return make_error(ErrorCode::out_of_bounds, bin_at, "GLB chunk 1 length",
                        std::to_string(bin_length) + " bytes of BIN do not fit in the file");
  }
  return {};
}

}  // namespace

Error gltf_error(ErrorCode code, std::string field, std::string detail) {
  return make_error(code, no_offset, std::move(field), std::move(detail));
}

Status check_index(int index, std::size_t size, const std::string& field) {
  if (index < 0 || static_cast<std::size_t>(index) >= size)
    return gltf_error(ErrorCode::out_of_bounds, field,
                      "index " + std::to_string(index) + " is not one of the " + std::to_string(size) + " defined");
  return {};
}

Result<tinygltf::Model> parse(std::span<const std::uint8_t> bytes, const fs::path& resource_dir, const Limits& limits) {
  if (bytes.size() > limits.max_file_size || bytes.size() > std::numeric_limits<unsigned>::max())
    return make_error(ErrorCode::limit_exceeded, 0, "glTF", std::to_string(bytes.size()) + " bytes exceeds the limit");
  const bool binary = bytes.size() >= 4 && std::memcmp(bytes.data(), "glTF", 4) == 0;
  if (binary) MAB_TRY(check_glb(bytes));
  FsContext ctx;
  ctx.limits = limits;
  if (!resource_dir.empty()) {
    std::error_code ec;
    const auto abs = fs::absolute(resource_dir, ec);
    ctx.root = (ec ? resource_dir : abs).lexically_normal();
  }
  tinygltf::Model model;
  std::string err, warn;
  bool ok = false;
  try {
    tinygltf::TinyGLTF loader;
    loader.SetFsCallbacks({&file_exists, &expand_path, &read_whole_file, &write_whole_file, &ctx});
    loader.SetImageLoader(&skip_image, nullptr);
    // tinygltf takes the resource folder only as a string prefix; relative URIs are joined to it.
    const std::string base = ctx.root.empty() ? std::string() : ctx.root.string();
    const auto size = static_cast<unsigned>(bytes.size());
    if (binary) ok = loader.LoadBinaryFromMemory(&model, &err, &warn, bytes.data(), size, base);
    else ok = loader.LoadASCIIFromString(&model, &err, &warn, reinterpret_cast<const char*>(bytes.data()), size, base);
  } catch (const std::bad_alloc&) {
    return make_error(ErrorCode::limit_exceeded, no_offset, "glTF", "out of memory while parsing");
  } catch (const std::exception& e) {
    return make_error(ErrorCode::parse_error, no_offset, "glTF", one_line(e.what()));
  }
  if (!ok) {
    if (err.empty()) err = warn.empty() ? "tinygltf could not read the file" : warn;
    return make_error(ErrorCode::parse_error, no_offset, binary ? "GLB" : "glTF", one_line(err));
  }
  return model;
}

namespace {

void append_base64(std::string& out, std::span<const std::uint8_t> in) {
  static constexpr char digits[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  const std::size_t at = out.size();
  out.resize(at + (in.size() + 2) / 3 * 4);
  char* o = out.data() + at;
  std::size_t i = 0;
  for (; i + 3 <= in.size(); i += 3) {
    const std::uint32_t v = std::uint32_t{in[i]} << 16 | std::uint32_t{in[i + 1]} << 8 | in[i + 2];
    *o++ = digits[v >> 18];
    *o++ = digits[(v >> 12) & 63];
    *o++ = digits[(v >> 6) & 63];
    *o++ = digits[v & 63];
  }
  if (i < in.size()) {
    const std::uint32_t v = std::uint32_t{in[i]} << 16 | (i + 1 < in.size() ? std::uint32_t{in[i + 1]} << 8 : 0u);
    *o++ = digits[v >> 18];
    *o++ = digits[(v >> 12) & 63];
    *o++ = i + 1 < in.size() ? digits[(v >> 6) & 63] : '=';
    *o++ = '=';
  }
}

Result<std::string> json_text(const tinygltf::Model& model, bool pretty) {
  std::ostringstream out;
  try {
    tinygltf::TinyGLTF writer;
    if (!writer.WriteGltfSceneToStream(&model, out, pretty, false))
      return make_error(ErrorCode::io_error, no_offset, "glTF", "tinygltf could not write the document");
  } catch (const std::exception& e) {
    return make_error(ErrorCode::io_error, no_offset, "glTF", one_line(e.what()));
  }
  return std::move(out).str();
}

}  // namespace

Result<std::vector<std::uint8_t>> serialize(tinygltf::Model model, bool binary) {
  std::vector<unsigned char> bin;
  std::string buffer_name;
  const bool in_memory = model.buffers.size() == 1 && model.buffers[0].uri.empty();
  if (in_memory) {
    bin = std::move(model.buffers[0].data);
    buffer_name = model.buffers[0].name;
    model.buffers.clear();
  }
  MAB_ASSIGN(std::string json, json_text(model, !binary));
  if (in_memory) {
    // tinygltf wrote the document without "buffers"; it is an object, so the member goes
    // before its closing brace.
    const auto close = json.rfind('}');
    if (close == std::string::npos)
      return make_error(ErrorCode::io_error, no_offset, "glTF", "tinygltf wrote no JSON object");
    std::string member = ",\"buffers\":[{\"byteLength\":" + std::to_string(bin.size());
    if (!buffer_name.empty()) {
      nlohmann::json name = buffer_name;
      member += ",\"name\":" + name.dump();
    }
    std::string tail = json.substr(close);
    json.resize(close);
    json.reserve(close + member.size() + (binary ? 0 : 40 + (bin.size() + 2) / 3 * 4) + tail.size() + 4);
    json += member;
    if (!binary) {
      json += ",\"uri\":\"data:application/octet-stream;base64,";
      append_base64(json, bin);
      json += '"';
    }
    json += "}]";
    json += tail;
  }
  if (!binary) return std::vector<std::uint8_t>(json.begin(), json.end());
  // glTF 4.4: 12-byte header, JSON chunk padded with spaces, BIN chunk padded with zeros.
  while (json.size() % 4) json += ' ';
  const std::size_t bin_padded = (bin.size() + 3) / 4 * 4;
  const std::size_t total = 12 + 8 + json.size() + (bin.empty() ? 0 : 8 + bin_padded);
  if (total > std::numeric_limits<std::uint32_t>::max())
    return make_error(ErrorCode::limit_exceeded, no_offset, "GLB", "a GLB holds at most 4 GiB");
  std::vector<std::uint8_t> out;
  out.reserve(total);
  io::ByteWriter w(out);
  w.u32(0x46546C67u);  // "glTF"
  w.u32(2);
  w.u32(static_cast<std::uint32_t>(total));
  w.u32(static_cast<std::uint32_t>(json.size()));
  w.u32(0x4E4F534Au);  // "JSON"
  w.bytes(std::span(reinterpret_cast<const std::uint8_t*>(json.data()), json.size()));
  if (!bin.empty()) {
    w.u32(static_cast<std::uint32_t>(bin_padded));
    w.u32(0x004E4942u);  // "BIN\0"
    w.bytes(bin);
    w.zeros(total - out.size());
  }
  return out;
}

namespace {

unsigned component_size(int type) noexcept {
  switch (type) {
    case TINYGLTF_COMPONENT_TYPE_BYTE:
    case TINYGLTF_COMPONENT_TYPE_UNSIGNED_BYTE: return 1;
    case TINYGLTF_COMPONENT_TYPE_SHORT:
    case TINYGLTF_COMPONENT_TYPE_UNSIGNED_SHORT: return 2;
    case TINYGLTF_COMPONENT_TYPE_FLOAT:
    case TINYGLTF_COMPONENT_TYPE_UNSIGNED_INT: return 4;
    default: return 0;
  }
}

int type_for_width(unsigned width) noexcept {
  switch (width) {
    case 1: return TINYGLTF_TYPE_SCALAR;
    case 3: return TINYGLTF_TYPE_VEC3;
    case 4: return TINYGLTF_TYPE_VEC4;
    default: return -1;
  }
}

// glTF 3.11: normalized integers to floats.
float component_value(const std::uint8_t* p, int type) noexcept {
  switch (type) {
    case TINYGLTF_COMPONENT_TYPE_FLOAT: return io::load_f32({p, 4}, 0);
    case TINYGLTF_COMPONENT_TYPE_BYTE:
      return std::max(static_cast<float>(static_cast<std::int8_t>(p[0])) / 127.0f, -1.0f);
    case TINYGLTF_COMPONENT_TYPE_UNSIGNED_BYTE: return static_cast<float>(p[0]) / 255.0f;
    case TINYGLTF_COMPONENT_TYPE_SHORT: return std::max(static_cast<float>(io::load_i16({p, 2}, 0)) / 32767.0f, -1.0f);
    case TINYGLTF_COMPONENT_TYPE_UNSIGNED_SHORT: return static_cast<float>(io::load_u16({p, 2}, 0)) / 65535.0f;
    default: return 0.0f;
  }
}

}  // namespace

Result<std::vector<float>> read_floats(const tinygltf::Model& m, int index, unsigned width, bool normalized_ok,
                                       const std::string& field) {
  MAB_TRY(check_index(index, m.accessors.size(), field));
  const std::string at = "/accessors/" + std::to_string(index);
  const tinygltf::Accessor& a = m.accessors[static_cast<std::size_t>(index)];
  if (a.type != type_for_width(width))
    return gltf_error(ErrorCode::bad_value, at + "/type",
                      "expected " +
                          std::string(width == 1   ? "SCALAR"
                                      : width == 3 ? "VEC3"
                                                   : "VEC4") +
                          " (for " + field + ")");
  const bool is_float = a.componentType == TINYGLTF_COMPONENT_TYPE_FLOAT;
  const bool is_norm =
      normalized_ok && a.normalized &&
      (a.componentType == TINYGLTF_COMPONENT_TYPE_BYTE || a.componentType == TINYGLTF_COMPONENT_TYPE_UNSIGNED_BYTE ||
       a.componentType == TINYGLTF_COMPONENT_TYPE_SHORT || a.componentType == TINYGLTF_COMPONENT_TYPE_UNSIGNED_SHORT);
  if (!is_float && !is_norm)
    return gltf_error(ErrorCode::bad_value, at + "/componentType",
                      "component type " + std::to_string(a.componentType) + " is not allowed here (" + field + ")");
  if (a.sparse.isSparse)
    return gltf_error(ErrorCode::not_decodable, at + "/sparse", "sparse accessors are not supported");
  const unsigned csize = component_size(a.componentType);
  const std::uint64_t elem = std::uint64_t{csize} * width;
  const std::uint64_t count = a.count;
  if (a.bufferView < 0) {
    // glTF 3.6.2.1: no buffer view and no sparse storage means zeros; the count still
    // has to be plausible, since nothing backs it.
    if (count > (1u << 24)) return gltf_error(ErrorCode::limit_exceeded, at + "/count", "too many elements");
    return std::vector<float>(count * width, 0.0f);
  }
  MAB_TRY(check_index(a.bufferView, m.bufferViews.size(), at + "/bufferView"));
  const std::string vat = "/bufferViews/" + std::to_string(a.bufferView);
  const tinygltf::BufferView& v = m.bufferViews[static_cast<std::size_t>(a.bufferView)];
  MAB_TRY(check_index(v.buffer, m.buffers.size(), vat + "/buffer"));
  const auto& data = m.buffers[static_cast<std::size_t>(v.buffer)].data;
  if (v.byteOffset > data.size() || v.byteLength > data.size() - v.byteOffset)
    return gltf_error(ErrorCode::out_of_bounds, vat,
                      "bytes " + std::to_string(v.byteOffset) + "+" + std::to_string(v.byteLength) +
                          " are outside its buffer of " + std::to_string(data.size()));
  const std::uint64_t stride = v.byteStride ? v.byteStride : elem;
  if (stride < elem) return gltf_error(ErrorCode::bad_value, vat + "/byteStride", "stride smaller than one element");
  if (a.byteOffset % csize != 0)
    return gltf_error(ErrorCode::bad_value, at + "/byteOffset", "not a multiple of the component size");
  if (count > 0) {
    const std::uint64_t span = (count - 1) * stride + elem;
    if (count > v.byteLength || a.byteOffset > v.byteLength || span > v.byteLength - a.byteOffset)
      return gltf_error(ErrorCode::out_of_bounds, at,
                        std::to_string(count) + " elements at offset " + std::to_string(a.byteOffset) +
                            " do not fit in buffer view " + std::to_string(a.bufferView) + " (" +
                            std::to_string(v.byteLength) + " bytes)");
  }
  std::vector<float> out(count * width);
  const std::uint8_t* base = data.data() + v.byteOffset + a.byteOffset;
  if (count == 0) return out;
  if (is_float && stride == elem) {
    std::memcpy(out.data(), base, count * elem);
  } else {
    for (std::uint64_t i = 0; i < count; ++i)
      for (unsigned c = 0; c < width; ++c)
        out[i * width + c] = component_value(base + i * stride + c * csize, a.componentType);
  }
  return out;
}

Trs node_trs(const tinygltf::Node& n) {
  Trs t;
  if (n.matrix.size() == 16) {
    const auto& m = n.matrix;  // column-major
    t.t = {m[12], m[13], m[14]};
    std::array<std::array<double, 3>, 3> c{{{m[0], m[1], m[2]}, {m[4], m[5], m[6]}, {m[8], m[9], m[10]}}};
    unsigned flat = 0, flat_axis = 0;
    for (unsigned i = 0; i < 3; ++i) {
      t.s[i] = std::sqrt(c[i][0] * c[i][0] + c[i][1] * c[i][1] + c[i][2] * c[i][2]);
      if (t.s[i] > 0 && std::isfinite(t.s[i])) {
        for (auto& x : c[i]) x /= t.s[i];
      } else {
        ++flat;
        flat_axis = i;
      }
    }
    // A zero scale leaves its axis without a direction: the other two still fix the rotation
    // (the missing axis is their cross product); with two or three gone nothing does, and the
    // rest rotation stays identity rather than whatever the formula below makes of zeros.
    if (flat > 1) return t;
    if (flat == 1) {
      const auto& a = c[(flat_axis + 1) % 3];
      const auto& b = c[(flat_axis + 2) % 3];
      c[flat_axis] = {a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]};
    }
    const double det = c[0][0] * (c[1][1] * c[2][2] - c[2][1] * c[1][2]) -
                       c[1][0] * (c[0][1] * c[2][2] - c[2][1] * c[0][2]) +
                       c[2][0] * (c[0][1] * c[1][2] - c[1][1] * c[0][2]);
    if (det < 0) {
      t.s[0] = -t.s[0];
      for (auto& x : c[0]) x = -x;
    }
    // Rotation matrix (columns c) to quaternion (Shepperd's method).
    const double r00 = c[0][0], r11 = c[1][1], r22 = c[2][2];
    const double r01 = c[1][0], r10 = c[0][1], r02 = c[2][0], r20 = c[0][2], r12 = c[2][1], r21 = c[1][2];
    double x, y, z, w;
    const double tr = r00 + r11 + r22;
    if (tr > 0) {
      const double s = std::sqrt(tr + 1.0) * 2;
      w = 0.25 * s, x = (r21 - r12) / s, y = (r02 - r20) / s, z = (r10 - r01) / s;
    } else if (r00 > r11 && r00 > r22) {
      const double s = std::sqrt(1.0 + r00 - r11 - r22) * 2;
      w = (r21 - r12) / s, x = 0.25 * s, y = (r01 + r10) / s, z = (r02 + r20) / s;
    } else if (r11 > r22) {
      const double s = std::sqrt(1.0 + r11 - r00 - r22) * 2;
      w = (r02 - r20) / s, x = (r01 + r10) / s, y = 0.25 * s, z = (r12 + r21) / s;
    } else {
      const double s = std::sqrt(1.0 + r22 - r00 - r11) * 2;
      w = (r10 - r01) / s, x = (r02 + r20) / s, y = (r12 + r21) / s, z = 0.25 * s;
    }
    const double len = std::sqrt(x * x + y * y + z * z + w * w);
    if (std::isfinite(len) && len > 0)
      t.r = {static_cast<float>(x / len), static_cast<float>(y / len), static_cast<float>(z / len),
             static_cast<float>(w / len)};
    return t;
  }
  if (n.translation.size() == 3) t.t = {n.translation[0], n.translation[1], n.translation[2]};
  if (n.rotation.size() == 4)
    t.r = {static_cast<float>(n.rotation[0]), static_cast<float>(n.rotation[1]), static_cast<float>(n.rotation[2]),
           static_cast<float>(n.rotation[3])};
  if (n.scale.size() == 3) t.s = {n.scale[0], n.scale[1], n.scale[2]};
  return t;
}

void append_floats(std::vector<unsigned char>& buf, const float* f, std::size_t n) {
  const std::size_t at = buf.size();
  buf.resize(at + n * sizeof(float));
  std::memcpy(buf.data() + at, f, n * sizeof(float));
}

tinygltf::Value object(std::initializer_list<std::pair<const std::string, tinygltf::Value>> kv) {
  return tinygltf::Value(tinygltf::Value::Object(kv));
}

int add_float_accessor(tinygltf::Model& m, std::size_t offset, std::size_t count, int type, int view) {
  tinygltf::Accessor acc;
  acc.bufferView = view;
  acc.byteOffset = offset;
  acc.componentType = TINYGLTF_COMPONENT_TYPE_FLOAT;
  acc.count = count;
  acc.type = type;
  m.accessors.push_back(std::move(acc));
  return static_cast<int>(m.accessors.size() - 1);
}

tinygltf::AnimationChannel& add_linear_channel(tinygltf::Animation& anim, int input, int output, int node,
                                               const char* path) {
  tinygltf::AnimationSampler s;
  s.input = input;
  s.output = output;
  s.interpolation = "LINEAR";
  anim.samplers.push_back(std::move(s));
  tinygltf::AnimationChannel c;
  c.sampler = static_cast<int>(anim.samplers.size() - 1);
  c.target_node = node;
  c.target_path = path;
  anim.channels.push_back(std::move(c));
  return anim.channels.back();
}

void write_continuous_quats(std::span<const Quat> keys, void* out) noexcept {
  auto* dst = static_cast<unsigned char*>(out);
  Quat prev{};
  for (std::size_t k = 0; k < keys.size(); ++k, dst += sizeof(Quat)) {
    Quat q = unit(keys[k]);
    if (k > 0 && double{q.x} * prev.x + double{q.y} * prev.y + double{q.z} * prev.z + double{q.w} * prev.w < 0)
      q = {-q.x, -q.y, -q.z, -q.w};
    std::memcpy(dst, &q, sizeof q);
    prev = q;
  }
}

Quat unit(const Quat& q) noexcept {
  const double n2 = double{q.x} * q.x + double{q.y} * q.y + double{q.z} * q.z + double{q.w} * q.w;
  if (std::abs(n2 - 1.0) <= 1e-6) return q;
  const double n = std::sqrt(n2);
  if (!(n > 0) || !std::isfinite(n)) return Quat{};
  return {static_cast<float>(q.x / n), static_cast<float>(q.y / n), static_cast<float>(q.z / n),
          static_cast<float>(q.w / n)};
}

}  // namespace mab::gltf
