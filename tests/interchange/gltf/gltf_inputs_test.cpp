// glTF files as other tools write them, and as a damaged or hostile file arrives: every
// interpolation, normalized integer and interleaved outputs, external buffers, node matrices,
// names, and each way an accessor, a buffer view, a GLB header or a skeleton can be wrong.
// Every input is the bytes of a glTF or GLB file (an export edited, or one written from
// scratch by tests/support/gltf_builder.hpp), fed to the public readers.
#include <mab/text.hpp>
#include <mab/clip.hpp>
#include <mab/gltf.hpp>
#include <mab/json.hpp>
#include <mab/legacy.hpp>

#include "interchange/gltf/gltf_document.hpp"
#include "interchange/gltf/gltf_names.hpp"
#include "support/flags.hpp"
#include "support/cli_run.hpp"
#include "support/corpus.hpp"
#include "support/gltf_builder.hpp"
#include "support/json_edit.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <fstream>
#include <functional>

namespace {

using mab::test::GltfBuilder;
using mab::test::load;

constexpr int kFloat = 5126, kByte = 5120, kUByte = 5121, kShort = 5122, kUShort = 5123, kUInt = 5125;

mab::Container container_of(const char* rel) {
  auto c = mab::read_container(load(mab::test::corpus_dir() / rel));
  EXPECT_TRUE(c.ok()) << rel;
  return c ? std::move(c).value() : mab::Container{};
}

tinygltf::Model parse(const std::vector<std::uint8_t>& bytes) {
  auto m = mab::gltf::parse(bytes, {}, mab::default_limits);
  EXPECT_TRUE(m.ok()) << (m ? "" : m.error().message());
  return m ? std::move(m).value() : tinygltf::Model{};
}

std::vector<std::uint8_t> serialize(const tinygltf::Model& m, bool binary) {
  auto b = mab::gltf::serialize(m, binary);
  EXPECT_TRUE(b.ok());
  return b ? std::move(b).value() : std::vector<std::uint8_t>{};
}

// The VEC4 floats of accessor `a` of an export (tightly packed FLOAT).
std::vector<float> floats_of(const tinygltf::Model& m, int a) {
  const auto& acc = m.accessors[static_cast<std::size_t>(a)];
  const auto& view = m.bufferViews[static_cast<std::size_t>(acc.bufferView)];
  const auto& data = m.buffers[static_cast<std::size_t>(view.buffer)].data;
  const std::size_t width = acc.type == TINYGLTF_TYPE_SCALAR ? 1 : acc.type == TINYGLTF_TYPE_VEC3 ? 3 : 4;
  std::vector<float> out(acc.count * width);
  std::memcpy(out.data(), data.data() + view.byteOffset + acc.byteOffset, out.size() * sizeof(float));
  return out;
}

// Appends `bytes` to buffer 0 as a new view; its index.
int append_view(tinygltf::Model& m, const std::vector<std::uint8_t>& bytes, int stride = 0) {
  auto& data = m.buffers[0].data;
  while (data.size() % 4) data.push_back(0);
  tinygltf::BufferView v;
  v.buffer = 0;
  v.byteOffset = data.size();
  v.byteLength = bytes.size();
  v.byteStride = static_cast<std::size_t>(stride);
  data.insert(data.end(), bytes.begin(), bytes.end());
  m.bufferViews.push_back(v);
  return static_cast<int>(m.bufferViews.size() - 1);
}

int append_accessor(tinygltf::Model& m, int view, int component_type, int type, std::size_t count,
                    bool normalized = false) {
  tinygltf::Accessor a;
  a.bufferView = view;
  a.componentType = component_type;
  a.type = type;
  a.count = count;
  a.normalized = normalized;
  m.accessors.push_back(a);
  return static_cast<int>(m.accessors.size() - 1);
}

void expect_error(const mab::Result<mab::GltfImport>& r, mab::ErrorCode code, const std::string& field) {
  ASSERT_FALSE(r.ok()) << "accepted; expected " << mab::to_string(code) << " naming " << field;
  EXPECT_EQ(r.error().code, code) << r.error().message();
  EXPECT_NE(r.error().message().find(field), std::string::npos) << r.error().message();
  EXPECT_EQ(r.error().message().find('\n'), std::string::npos) << r.error().message();
}

// The clip of an import, decoded.
mab::Clip decoded(const std::vector<std::uint8_t>& mab_bytes, std::size_t block = 0) {
  auto c = mab::read_container(mab_bytes);
  EXPECT_TRUE(c.ok());
  if (!c) return {};
  auto d = mab::decode_clip(*c, block);
  EXPECT_TRUE(d.ok()) << (d ? "" : d.error().message());
  return d ? std::move(d)->clip : mab::Clip{};
}

struct Template {
  std::vector<std::uint8_t> bytes;
  mab::Container c;
  mab::Clip clip;
  tinygltf::Model model;  // its export
};

Template template_of(const char* rel) {
  Template t;
  t.bytes = load(mab::test::corpus_dir() / rel);
  t.c = container_of(rel);
  t.clip = decoded(t.bytes);
  auto g = mab::export_gltf(t.c);
  EXPECT_TRUE(g.ok());
  if (g) t.model = parse(*g);
  return t;
}

// --- Interpolation: STEP, LINEAR and CUBICSPLINE samplers, as other tools write them ---

// CUBICSPLINE outputs are (in-tangent, value, out-tangent) per key (glTF appendix C); zero
// tangents keep each value.
void make_cubic(tinygltf::Model& m) {
  for (auto& a : m.animations)
    for (auto& s : a.samplers) {
      const auto v = floats_of(m, s.output);
      std::vector<float> out;
      for (std::size_t k = 0; k < v.size() / 4; ++k) {
        out.insert(out.end(), {0, 0, 0, 0});
        out.insert(out.end(), v.begin() + static_cast<std::ptrdiff_t>(4 * k),
                   v.begin() + static_cast<std::ptrdiff_t>(4 * k + 4));
        out.insert(out.end(), {0, 0, 0, 0});
      }
      s.output =
          append_accessor(m, append_view(m, GltfBuilder::bytes_of(out)), kFloat, TINYGLTF_TYPE_VEC4, v.size() / 4 * 3);
      s.interpolation = "CUBICSPLINE";
    }
}

TEST(GltfInputs, StepAndCubicSamplersAtTheTemplateTimesGiveTheTemplateBytes) {
  const Template t = template_of("wd1/long_k100.mab");
  for (const char* interpolation : {"STEP", "CUBICSPLINE"}) {
    tinygltf::Model m = t.model;
    if (std::string(interpolation) == "STEP") {
      for (auto& a : m.animations)
        for (auto& s : a.samplers) s.interpolation = "STEP";
    } else {
      make_cubic(m);
    }
    // A STEP curve holds each key up to the next, which the template's slerp does not:
    // between keys (docs/gltf.md, "Which keys are edits") it needs key times of its own, so
    // it gives the template's bytes at the template's times only.
    const bool step = std::string(interpolation) == "STEP";
    mab::GltfImportOptions o;
    o.template_times = step;
    for (const bool binary : {false, true}) {
      auto r = mab::import_gltf(serialize(m, binary), &t.c, o);
      ASSERT_TRUE(r.ok()) << interpolation << ": " << r.error().message();
      EXPECT_EQ(r->bytes, t.bytes) << interpolation;
      EXPECT_EQ(r->report.animations.at(0).keys_changed, 0u) << interpolation;
      EXPECT_EQ(r->report.animations.at(0).dropped.empty(), !step) << interpolation;
    }
    if (!step) continue;
    auto r = mab::import_gltf(serialize(m, true), &t.c);
    ASSERT_TRUE(r.ok()) << r.error().message();
    EXPECT_GT(decoded(r->bytes).key_count(), t.clip.key_count()) << "the steps get key times of their own";
  }
}

// Every other key removed from the glTF: the template's key times between them are sampled.
// STEP holds the earlier key; LINEAR and CUBICSPLINE with zero tangents stay on the arc
// between the two neighbours (a weighted sum of two unit quaternions, normalised).
TEST(GltfInputs, KeysBetweenTheFilesKeysAreInterpolatedAsTheSamplerSays) {
  const Template t = template_of("wd1/long_k100.mab");
  const std::size_t keys = t.clip.key_count();
  ASSERT_GE(keys, 8u);
  for (const char* interpolation : {"LINEAR", "STEP", "CUBICSPLINE"}) {
    tinygltf::Model m = t.model;
    for (auto& a : m.animations)
      for (auto& s : a.samplers) {
        const auto times = floats_of(m, s.input);
        if (times.size() < 2) continue;  // a constant bone: one key
        const auto v = floats_of(m, s.output);
        std::vector<float> nt, nv;
        for (std::size_t k = 0; k < times.size(); k += 2) {
          nt.push_back(times[k]);
          // Kept keys on one hemisphere, as exporters write them: CUBICSPLINE interpolates
          // components as they are (LINEAR takes the shortest arc either way).
          float sign = 1.0f;
          if (nv.size() >= 4) {
            const float* p = nv.data() + nv.size() - 4;
            if (p[0] * v[4 * k] + p[1] * v[4 * k + 1] + p[2] * v[4 * k + 2] + p[3] * v[4 * k + 3] < 0) sign = -1.0f;
          }
          for (std::size_t c = 0; c < 4; ++c) nv.push_back(sign * v[4 * k + c]);
        }
        s.input =
            append_accessor(m, append_view(m, GltfBuilder::bytes_of(nt)), kFloat, TINYGLTF_TYPE_SCALAR, nt.size());
        s.output = append_accessor(m, append_view(m, GltfBuilder::bytes_of(nv)), kFloat, TINYGLTF_TYPE_VEC4, nt.size());
        s.interpolation = "LINEAR";
      }
    if (std::string(interpolation) == "CUBICSPLINE") make_cubic(m);
    if (std::string(interpolation) == "STEP")
      for (auto& a : m.animations)
        for (auto& s : a.samplers) s.interpolation = "STEP";
    // STEP and CUBICSPLINE curves leave the template's slerp between their keys, which would
    // get key times of their own (above): sampled at the template's times only.
    mab::GltfImportOptions o;
    o.template_times = std::string(interpolation) != "LINEAR";
    auto r = mab::import_gltf(serialize(m, true), &t.c, o);
    ASSERT_TRUE(r.ok()) << interpolation << ": " << r.error().message();
    EXPECT_GT(r->report.animations.at(0).keys_changed, 0u) << interpolation;
    const mab::Clip back = decoded(r->bytes);
    ASSERT_EQ(back.bones.size(), t.clip.bones.size());
    const double bound = r->report.max_error_deg + 1e-4;
    for (std::size_t b = 0; b < back.bones.size(); ++b) {
      const auto& orig = t.clip.bones[b].keys;
      const auto& got = back.bones[b].keys;
      if (t.clip.bones[b].kind() != mab::BoneKind::animated) continue;
      ASSERT_EQ(got.size(), keys);
      for (std::size_t k = 0; k < keys; ++k) {
        const std::string what =
            std::string(interpolation) + " bone " + std::to_string(b) + " key " + std::to_string(k);
        if (k % 2 == 0 || k + 1 == keys || std::string(interpolation) == "STEP") {
          // A kept key (or, past the last kept key and for STEP, the one held).
          const std::size_t held = k % 2 == 0 ? k : k - 1;
          EXPECT_LE(mab::angular_error_deg(got[k], orig[held]), bound) << what;
        } else {
          const double ab = mab::angular_error_deg(orig[k - 1], orig[k + 1]);
          const double via = mab::angular_error_deg(orig[k - 1], got[k]) + mab::angular_error_deg(got[k], orig[k + 1]);
          EXPECT_LE(via, ab + 3 * bound) << what;
        }
      }
    }
  }
}

// glTF 3.11: rotation outputs may be normalized signed bytes or shorts (c = max(v / 127, -1),
// max(v / 32767, -1)). They read back within the precision of the type.
TEST(GltfInputs, NormalizedIntegerRotationsReadBackWithinTheirPrecision) {
  const Template t = template_of("wd1/long_k100.mab");
  for (const int type : {kShort, kByte}) {
    tinygltf::Model m = t.model;
    const double scale = type == kShort ? 32767.0 : 127.0;
    for (auto& a : m.animations)
      for (auto& s : a.samplers) {
        const auto v = floats_of(m, s.output);
        std::vector<std::uint8_t> bytes;
        for (const float f : v) {
          const long q = std::lround(f * scale);
          if (type == kShort) {
            const auto s16 = static_cast<std::int16_t>(q);
            bytes.push_back(static_cast<std::uint8_t>(s16 & 0xFF));
            bytes.push_back(static_cast<std::uint8_t>((s16 >> 8) & 0xFF));
          } else {
            bytes.push_back(static_cast<std::uint8_t>(static_cast<std::int8_t>(q)));
          }
        }
        s.output = append_accessor(m, append_view(m, bytes), type, TINYGLTF_TYPE_VEC4, v.size() / 4, true);
      }
    auto r = mab::import_gltf(serialize(m, true), &t.c);
    ASSERT_TRUE(r.ok()) << type << ": " << r.error().message();
    const mab::Clip back = decoded(r->bytes);
    // Half a step per component on a unit quaternion: at most 2 asin(sqrt(4) / (2 scale)).
    const double precision = 2.0 * std::asin(1.0 / scale) * 180.0 / 3.14159265358979323846;
    const double bound = r->report.max_error_deg + precision;
    double worst = 0;
    for (std::size_t b = 0; b < back.bones.size(); ++b)
      for (std::size_t k = 0; k < back.bones[b].keys.size(); ++k)
        worst = std::max(worst, mab::angular_error_deg(back.bones[b].keys[k], t.clip.bones[b].keys[k]));
    EXPECT_LE(worst, bound) << type;
    EXPECT_GT(worst, 0.0) << "integer outputs cannot be exact";
  }
  // Integers that are not normalized are not rotations, and times are always FLOAT.
  tinygltf::Model m = t.model;
  m.accessors[static_cast<std::size_t>(m.animations[0].samplers[0].output)].componentType = kUInt;
  expect_error(mab::import_gltf(serialize(m, true), &t.c), mab::ErrorCode::bad_value, "/componentType");
  m = t.model;
  auto& out = m.accessors[static_cast<std::size_t>(m.animations[0].samplers[0].output)];
  out.componentType = kShort;  // normalized is false
  expect_error(mab::import_gltf(serialize(m, true), &t.c), mab::ErrorCode::bad_value, "/componentType");
  m = t.model;
  auto& in = m.accessors[static_cast<std::size_t>(m.animations[0].samplers[0].input)];
  in.componentType = kUShort;
  in.normalized = true;
  expect_error(mab::import_gltf(serialize(m, true), &t.c), mab::ErrorCode::bad_value, "/input");
}

// Unsigned normalized outputs in a new clip: (0.6, 0, 0, 0.8) as bytes and shorts.
TEST(GltfInputs, UnsignedNormalizedRotationsMakeANewClip) {
  for (const int type : {kUByte, kUShort}) {
    GltfBuilder g;
    const auto nodes = g.flat_rig({"Spine"});
    const int times = g.add_floats({0.0f, 0.5f}, "SCALAR");
    std::vector<std::uint8_t> bytes;
    const double scale = type == kUByte ? 255.0 : 65535.0;
    for (const double c : {0.0, 0.0, 0.0, 1.0, 0.6, 0.0, 0.0, 0.8}) {
      const auto q = static_cast<std::uint32_t>(std::lround(c * scale));
      bytes.push_back(static_cast<std::uint8_t>(q & 0xFF));
      if (type == kUShort) bytes.push_back(static_cast<std::uint8_t>(q >> 8));
    }
    const int out = g.add_accessor(g.add_view(bytes), type, "VEC4", 2, true);
    g.add_channel(0, times, out, nodes[0], "rotation");
    mab::GltfImportOptions o;
    o.game = mab::Game::watch_dogs_2;
    auto r = mab::import_gltf(g.text(), nullptr, o);
    ASSERT_TRUE(r.ok()) << r.error().message();
    const mab::Clip clip = decoded(r->bytes);
    ASSERT_EQ(clip.bones.size(), 1u);
    EXPECT_EQ(clip.bones[0].hash, mab::bone_hash("Spine"));
    ASSERT_EQ(clip.bones[0].keys.size(), 2u);
    const double precision = type == kUByte ? 0.5 : 0.01;
    EXPECT_LE(mab::angular_error_deg(clip.bones[0].keys[0], mab::Quat{0, 0, 0, 1}), precision);
    EXPECT_LE(mab::angular_error_deg(clip.bones[0].keys[1], mab::Quat{0.6f, 0, 0, 0.8f}), precision);
  }
}

// Outputs interleaved with other data (byteStride larger than an element) read the same.
TEST(GltfInputs, InterleavedOutputsReadWithTheirStride) {
  const Template t = template_of("wd1/long_k100.mab");
  tinygltf::Model m = t.model;
  for (auto& a : m.animations)
    for (auto& s : a.samplers) {
      const auto v = floats_of(m, s.output);
      std::vector<float> interleaved;
      for (std::size_t k = 0; k < v.size() / 4; ++k) {
        interleaved.insert(interleaved.end(), v.begin() + static_cast<std::ptrdiff_t>(4 * k),
                           v.begin() + static_cast<std::ptrdiff_t>(4 * k + 4));
        interleaved.insert(interleaved.end(), {9e9f, -1.0f, 123.0f, 0.5f});  // another attribute
      }
      s.output = append_accessor(m, append_view(m, GltfBuilder::bytes_of(interleaved), 32), kFloat, TINYGLTF_TYPE_VEC4,
                                 v.size() / 4);
    }
  auto r = mab::import_gltf(serialize(m, false), &t.c);
  ASSERT_TRUE(r.ok()) << r.error().message();
  EXPECT_EQ(r->bytes, t.bytes);
}

// --- Accessors, buffer views and samplers that do not add up ---

// A one-bone animation written from scratch, for the error cases below.
struct OneBone {
  GltfBuilder g;
  int times = -1, values = -1, node = -1;
  OneBone() {
    node = g.flat_rig({"Spine"})[0];
    times = g.add_floats({0.0f, 0.25f, 0.5f}, "SCALAR");
    values = g.add_floats({0, 0, 0, 1, 0, 0, 0.38268343f, 0.9238795f, 0, 0, 0.70710677f, 0.70710677f}, "VEC4");
    g.add_channel(0, times, values, node, "rotation");
  }
  nlohmann::json& accessor(int i) { return g.j["accessors"][static_cast<std::size_t>(i)]; }
  nlohmann::json& sampler() { return g.j["animations"][0]["samplers"][0]; }
  mab::Result<mab::GltfImport> import() const {
    mab::GltfImportOptions o;
    o.game = mab::Game::watch_dogs;
    return mab::import_gltf(g.text(), nullptr, o);
  }
};

TEST(GltfInputs, TheOneBoneDocumentImports) {
  OneBone d;
  auto r = d.import();
  ASSERT_TRUE(r.ok()) << r.error().message();
  const mab::Clip clip = decoded(r->bytes);
  ASSERT_EQ(clip.bones.size(), 1u);
  ASSERT_EQ(clip.key_count(), 3u);
  EXPECT_EQ(clip.key_times, (std::vector<std::uint32_t>{0, 30, 60}));  // 120 ticks/s (decision 7)
  EXPECT_LE(mab::angular_error_deg(clip.bones[0].keys[2], {0, 0, 0.70710677f, 0.70710677f}), 0.01);
  // The same document as GLB.
  mab::GltfImportOptions o;
  o.game = mab::Game::watch_dogs;
  auto glb = mab::import_gltf(d.g.glb(), nullptr, o);
  ASSERT_TRUE(glb.ok()) << glb.error().message();
  EXPECT_EQ(glb->bytes, r->bytes);
}

TEST(GltfInputs, AccessorsThatDoNotFitTheirDataAreRefused) {
  using mab::ErrorCode;
  {
    OneBone d;
    d.accessor(d.values)["type"] = "VEC3";
    expect_error(d.import(), ErrorCode::bad_value, "/accessors/1/type");
  }
  {
    OneBone d;
    d.accessor(d.times)["type"] = "VEC2";
    expect_error(d.import(), ErrorCode::bad_value, "/accessors/0/type");
  }
  {
    OneBone d;  // sparse storage (glTF 3.6.2.3) is not read
    const int idx = d.g.add_view(GltfBuilder::bytes_of(std::vector<std::uint16_t>{1, 0}));
    const int val = d.g.add_view(GltfBuilder::bytes_of(std::vector<float>{0, 0, 0, 1}));
    d.accessor(d.values)["sparse"] = {{"count", 1},
                                      {"indices", {{"bufferView", idx}, {"componentType", kUShort}}},
                                      {"values", {{"bufferView", val}}}};
    expect_error(d.import(), ErrorCode::not_decodable, "/accessors/1/sparse");
  }
  {
    OneBone d;
    d.accessor(d.values)["bufferView"] = 7;
    expect_error(d.import(), ErrorCode::out_of_bounds, "/accessors/1/bufferView");
  }
  {
    OneBone d;
    d.g.j["bufferViews"][1]["buffer"] = 3;
    expect_error(d.import(), ErrorCode::out_of_bounds, "/bufferViews/1/buffer");
  }
  {
    OneBone d;  // a view past the end of its buffer
    d.g.j["bufferViews"][1]["byteLength"] = 4096;
    auto r = d.import();
    ASSERT_FALSE(r.ok());
    EXPECT_TRUE(r.error().code == ErrorCode::out_of_bounds || r.error().code == ErrorCode::parse_error)
        << r.error().message();
  }
  {
    OneBone d;
    d.g.j["bufferViews"][1]["byteStride"] = 8;  // a VEC4 of floats is 16 bytes
    auto r = d.import();
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.error().message().find("byteStride"), std::string::npos) << r.error().message();
  }
  {
    OneBone d;
    d.accessor(d.values)["byteOffset"] = 2;
    d.accessor(d.values)["count"] = 2;
    expect_error(d.import(), ErrorCode::bad_value, "/accessors/1/byteOffset");
  }
  {
    OneBone d;
    d.accessor(d.values)["count"] = 4;
    expect_error(d.import(), ErrorCode::out_of_bounds, "/accessors/1");
  }
  {
    OneBone d;
    d.accessor(d.values)["byteOffset"] = 16;
    expect_error(d.import(), ErrorCode::out_of_bounds, "/accessors/1");
  }
  {
    OneBone d;  // outputs for two keys, three times
    d.accessor(d.values)["count"] = 2;
    expect_error(d.import(), ErrorCode::count_mismatch, "/output");
  }
  {
    OneBone d;  // CUBICSPLINE needs three outputs a key
    d.sampler()["interpolation"] = "CUBICSPLINE";
    auto r = d.import();
    expect_error(r, ErrorCode::count_mismatch, "/output");
    EXPECT_NE(r.error().message().find("CUBICSPLINE"), std::string::npos);
  }
  {
    OneBone d;
    d.accessor(d.times)["count"] = 0;
    d.accessor(d.values)["count"] = 0;
    expect_error(d.import(), ErrorCode::bad_value, "/input");
  }
}

TEST(GltfInputs, TimesAndValuesThatAreNotNumbersAreRefused) {
  using mab::ErrorCode;
  for (const float bad_time : {std::nanf(""), -0.5f, INFINITY}) {
    OneBone d;
    d.g.bin.clear();
    d.g.j.erase("bufferViews");
    d.g.j.erase("accessors");
    const int times = d.g.add_floats({0.0f, bad_time, 0.5f}, "SCALAR");
    const int values = d.g.add_floats({0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1}, "VEC4");
    d.sampler()["input"] = times;
    d.sampler()["output"] = values;
    expect_error(d.import(), ErrorCode::bad_value, "/input");
  }
  OneBone d;
  d.g.bin.clear();
  d.g.j.erase("bufferViews");
  d.g.j.erase("accessors");
  d.sampler()["input"] = d.g.add_floats({0.0f, 0.25f, 0.5f}, "SCALAR");
  d.sampler()["output"] = d.g.add_floats({0, 0, 0, 1, 0, 0, std::nanf(""), 1, 0, 0, 0, 1}, "VEC4");
  auto r = d.import();
  expect_error(r, ErrorCode::bad_value, "/output");
  EXPECT_NE(r.error().message().find("not finite"), std::string::npos);
}

// glTF 3.6.2.1: an accessor without a buffer view is zeros. Times of zeros are one key; a
// count nothing backs is capped.
TEST(GltfInputs, AccessorsWithoutABufferViewAreZeros) {
  OneBone d;
  d.accessor(d.times).erase("bufferView");
  d.accessor(d.times)["count"] = 1;
  d.accessor(d.values)["count"] = 1;
  auto r = d.import();
  ASSERT_TRUE(r.ok()) << r.error().message();
  const mab::Clip clip = decoded(r->bytes);
  ASSERT_EQ(clip.key_count(), 1u);
  EXPECT_EQ(clip.key_times[0], 0u);
  OneBone big;
  big.accessor(big.times).erase("bufferView");
  big.accessor(big.times)["count"] = (1 << 24) + 1;
  expect_error(big.import(), mab::ErrorCode::limit_exceeded, "/count");
}

// --- Channels, animations and options ---

TEST(GltfInputs, ChannelsOtherThanRotationAreCountedOrRefused) {
  OneBone d;
  const int w = d.g.add_floats({0.5f, 0.5f, 0.5f}, "SCALAR");
  d.g.add_channel(0, d.times, w, d.node, "weights");
  auto r = d.import();
  ASSERT_TRUE(r.ok()) << r.error().message();
  ASSERT_EQ(r->report.ignored_channels.size(), 1u);
  EXPECT_NE(r->report.ignored_channels[0].find("morph weight"), std::string::npos) << r->report.ignored_channels[0];
  OneBone bad;
  bad.g.add_channel(0, bad.times, bad.values, bad.node, "colour");
  auto e = bad.import();
  ASSERT_FALSE(e.ok());
  EXPECT_NE(e.error().message().find("colour"), std::string::npos) << e.error().message();
}

TEST(GltfInputs, AnimationsArePickedByNameOrRefusedWithTheNamesThereAre) {
  OneBone d;
  d.g.j["animations"][0]["name"] = "walk";
  d.g.add_channel(1, d.times, d.values, d.node, "rotation");
  d.g.j["animations"][1]["name"] = "run";
  mab::GltfImportOptions o;
  o.game = mab::Game::watch_dogs;
  o.animation_name = "run";
  auto r = mab::import_gltf(d.g.text(), nullptr, o);
  ASSERT_TRUE(r.ok()) << r.error().message();
  ASSERT_EQ(r->report.animations.size(), 1u);
  EXPECT_EQ(r->report.animations[0].animation, 1u);
  o.animation_name = "jump";
  r = mab::import_gltf(d.g.text(), nullptr, o);
  expect_error(r, mab::ErrorCode::not_found, "/animations");
  EXPECT_NE(r.error().message().find("\"walk\", \"run\""), std::string::npos) << r.error().message();
  // Tolerances must be positive.
  o.animation_name.clear();
  o.max_error_deg = 0;
  expect_error(mab::import_gltf(d.g.text(), nullptr, o), mab::ErrorCode::invalid_argument, "tolerance");
  o.max_error_deg = 0.01;
  o.match_tolerance_deg = std::nan("");
  expect_error(mab::import_gltf(d.g.text(), nullptr, o), mab::ErrorCode::invalid_argument, "tolerance");
}

TEST(GltfInputs, ANewClipNeedsRotationsThatFitTheFormat) {
  {
    OneBone d;  // a translation channel only
    d.g.j["animations"][0]["channels"][0]["target"]["path"] = "translation";
    d.g.j["accessors"][1]["type"] = "VEC3";
    d.g.j["accessors"][1]["count"] = 3;
    expect_error(d.import(), mab::ErrorCode::not_found, "/animations/0");
  }
  {
    OneBone d;  // 1000 s at 120 ticks a second is past the u16 key times (format 9.4)
    d.g.bin.clear();
    d.g.j.erase("bufferViews");
    d.g.j.erase("accessors");
    d.sampler()["input"] = d.g.add_floats({0.0f, 1000.0f}, "SCALAR");
    d.sampler()["output"] = d.g.add_floats({0, 0, 0, 1, 0, 0, 0, 1}, "VEC4");
    expect_error(d.import(), mab::ErrorCode::limit_exceeded, "key_times");
  }
  {
    OneBone d;  // more rotated nodes than the bone limit
    mab::GltfImportOptions o;
    o.game = mab::Game::watch_dogs;
    o.limits.max_bones = 2;
    for (const char* name : {"Neck", "Head"}) {
      const int n = d.g.add_node(name);
      d.g.j["nodes"][0]["children"].push_back(n);
      d.g.add_channel(0, d.times, d.values, n, "rotation");
    }
    expect_error(mab::import_gltf(d.g.text(), nullptr, o), mab::ErrorCode::limit_exceeded, "bones");
    o.limits.max_bones = 4095;
    o.limits.max_keys = 2;
    expect_error(mab::import_gltf(d.g.text(), nullptr, o), mab::ErrorCode::limit_exceeded, "key_times");
  }
}

// --- GLB headers (glTF 4.4) ---

TEST(GltfInputs, BrokenGlbHeadersAreRefusedWithTheirField) {
  using mab::ErrorCode;
  const OneBone d;
  const auto glb = d.g.glb();
  mab::GltfImportOptions o;
  o.game = mab::Game::watch_dogs;
  auto set32 = [](std::vector<std::uint8_t>& b, std::size_t at, std::uint32_t v) {
    for (int i = 0; i < 4; ++i) b[at + static_cast<std::size_t>(i)] = static_cast<std::uint8_t>(v >> (8 * i));
  };
  const std::uint32_t json_len = std::uint32_t{glb[12]} | std::uint32_t{glb[13]} << 8 | std::uint32_t{glb[14]} << 16 |
                                 std::uint32_t{glb[15]} << 24;
  const std::size_t bin_at = 20 + json_len;
  struct Case {
    const char* what;
    std::vector<std::uint8_t> bytes;
    ErrorCode code;
    const char* field;
  };
  std::vector<Case> cases;
  cases.push_back({"16 bytes", {glb.begin(), glb.begin() + 16}, ErrorCode::truncated, "GLB header"});
  auto b = glb;
  set32(b, 16, 0x12345678u);
  cases.push_back({"chunk 0 not JSON", b, ErrorCode::bad_value, "GLB chunk 0 type"});
  b = glb;
  set32(b, 12, 0);
  cases.push_back({"empty JSON chunk", b, ErrorCode::out_of_bounds, "GLB chunk 0 length"});
  b = glb;
  set32(b, 12, static_cast<std::uint32_t>(glb.size()));
  cases.push_back({"JSON chunk past the end", b, ErrorCode::out_of_bounds, "GLB chunk 0 length"});
  b = {glb.begin(), glb.begin() + static_cast<std::ptrdiff_t>(bin_at + 4)};
  set32(b, 8, static_cast<std::uint32_t>(b.size()));
  cases.push_back({"BIN header cut", b, ErrorCode::truncated, "GLB chunk 1"});
  b = glb;
  set32(b, bin_at + 4, 0x4E4F534Au);
  cases.push_back({"chunk 1 not BIN", b, ErrorCode::bad_value, "GLB chunk 1 type"});
  b = glb;
  set32(b, bin_at, static_cast<std::uint32_t>(glb.size()));
  cases.push_back({"BIN past the end", b, ErrorCode::out_of_bounds, "GLB chunk 1 length"});
  for (const auto& c : cases) {
    SCOPED_TRACE(c.what);
    expect_error(mab::import_gltf(c.bytes, nullptr, o), c.code, c.field);
    auto sk = mab::read_gltf_skeleton(c.bytes);
    ASSERT_FALSE(sk.ok());
    EXPECT_EQ(sk.error().code, c.code);
  }
  // Above the caller's file size limit, before anything is parsed.
  o.limits.max_file_size = glb.size() - 1;
  expect_error(mab::import_gltf(glb, nullptr, o), ErrorCode::limit_exceeded, "glTF");
  // A GLB whose JSON is not JSON.
  o.limits = mab::default_limits;
  b = glb;
  b[20] = '[';
  auto r = mab::import_gltf(b, nullptr, o);
  expect_error(r, ErrorCode::parse_error, "GLB");
}

// --- External buffers: read from the resource folder only ---

class GltfExternalBuffers : public ::testing::Test {
 protected:
  std::filesystem::path dir;
  void SetUp() override { dir = mab::test::test_temp_dir("mab_gltf_ext"); }
  void TearDown() override { std::filesystem::remove_all(dir); }
  void write(const std::filesystem::path& p, const std::vector<std::uint8_t>& b) {
    std::filesystem::create_directories(p.parent_path());
    std::ofstream(p, std::ios::binary)
        .write(reinterpret_cast<const char*>(b.data()), static_cast<std::streamsize>(b.size()));
  }
};

TEST_F(GltfExternalBuffers, ARelativeBufferInTheFolderIsRead) {
  const OneBone d;
  write(dir / "rig" / "anim.bin", d.g.bin);
  const auto text = d.g.text("anim.bin");
  write(dir / "rig" / "anim.gltf", text);
  mab::GltfImportOptions o;
  o.game = mab::Game::watch_dogs;
  o.resource_dir = dir / "rig";
  auto r = mab::import_gltf(text, nullptr, o);
  ASSERT_TRUE(r.ok()) << r.error().message();
  auto embedded = d.import();
  ASSERT_TRUE(embedded.ok());
  EXPECT_EQ(r->bytes, embedded->bytes);
  auto sk = mab::read_gltf_skeleton(text, dir / "rig");
  ASSERT_TRUE(sk.ok()) << sk.error().message();
  EXPECT_EQ(sk->nodes.size(), 2u);
  // The CLI passes the file's folder.
  const auto out = dir / "out.mab";
  const auto run =
      mab::test::run_mab("import " + (dir / "rig" / "anim.gltf").string() + " --game wd1 -o " + out.string(), "2>&1");
  EXPECT_EQ(run.status, 0) << run.out;
  EXPECT_EQ(load(out), embedded->bytes);
}

TEST_F(GltfExternalBuffers, BuffersOutsideTheFolderOrMissingAreRefused) {
  const OneBone d;
  write(dir / "secret.bin", d.g.bin);
  write(dir / "rig" / "big.bin", std::vector<std::uint8_t>(4096, 0));
  mab::GltfImportOptions o;
  o.game = mab::Game::watch_dogs;
  o.resource_dir = dir / "rig";
  for (const std::string& uri : std::vector<std::string>{"../secret.bin", (dir / "secret.bin").string(),
                                                         "sub/../../secret.bin", "missing.bin", "."}) {
    SCOPED_TRACE(uri);
    auto r = mab::import_gltf(d.g.text(uri), nullptr, o);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().code, mab::ErrorCode::parse_error) << r.error().message();
  }
  // Without a resource folder no file is opened at all.
  o.resource_dir.clear();
  write(dir / "anim.bin", d.g.bin);
  EXPECT_FALSE(mab::import_gltf(d.g.text("anim.bin"), nullptr, o).ok());
  // A buffer file above the size limit is refused by the reader's cap.
  o.resource_dir = dir / "rig";
  o.limits.max_file_size = 1024;
  auto r = mab::import_gltf(d.g.text("big.bin"), nullptr, o);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message().find("limit"), std::string::npos) << r.error().message();
}

// Images are never decoded: a document with one imports as without it.
TEST(GltfInputs, ImagesAreLeftUndecoded) {
  OneBone d;
  d.g.j["images"] = {{{"uri", "data:image/png;base64,iVBORw0KGgo="}}};
  auto with = d.import();
  ASSERT_TRUE(with.ok()) << with.error().message();
  auto without = OneBone().import();
  ASSERT_TRUE(without.ok());
  EXPECT_EQ(with->bytes, without->bytes);
}

// --- Skeletons: node matrices and broken trees ---

// A skeleton file of a root and one child given by a column-major `matrix`.
std::vector<std::uint8_t> matrix_rig(const std::vector<double>& matrix) {
  GltfBuilder g;
  const int child = g.flat_rig({"Bone"})[0];
  g.j["nodes"][static_cast<std::size_t>(child)]["matrix"] = matrix;
  return g.text();
}

// Shepperd's method picks the largest of w, x, y, z: a half turn about each axis reaches
// each of its branches; a mirror (negative determinant) becomes a negative x scale.
TEST(GltfInputs, NodeMatricesDecomposeIntoTheirRotationAndScale) {
  struct Case {
    std::vector<double> m;
    mab::Quat r;
    std::array<double, 3> s;
  };
  const std::vector<Case> cases = {
      {{1, 0, 0, 0, 0, -1, 0, 0, 0, 0, -1, 0, 1, 2, 3, 1}, {1, 0, 0, 0}, {1, 1, 1}},
      {{-1, 0, 0, 0, 0, 1, 0, 0, 0, 0, -1, 0, 0, 0, 0, 1}, {0, 1, 0, 0}, {1, 1, 1}},
      {{-2, 0, 0, 0, 0, -2, 0, 0, 0, 0, 2, 0, 0, 0, 0, 1}, {0, 0, 1, 0}, {2, 2, 2}},
      {{-1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1}, {0, 0, 0, 1}, {-1, 1, 1}},
      {{0, 1, 0, 0, -1, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1}, {0, 0, 0.70710677f, 0.70710677f}, {1, 1, 1}},
  };
  for (const auto& c : cases) {
    auto sk = mab::read_gltf_skeleton(matrix_rig(c.m));
    ASSERT_TRUE(sk.ok()) << sk.error().message();
    ASSERT_EQ(sk->nodes.size(), 2u);
    const auto& n = sk->nodes[1];
    EXPECT_TRUE(n.has_matrix);
    EXPECT_LE(mab::angular_error_deg(n.rotation, c.r), 1e-4)
        << n.rotation.x << " " << n.rotation.y << " " << n.rotation.z << " " << n.rotation.w;
    for (std::size_t i = 0; i < 3; ++i) EXPECT_NEAR(n.scale[i], c.s[i], 1e-9) << i;
    EXPECT_EQ(n.parent, 0);
  }
  auto sk = mab::read_gltf_skeleton(matrix_rig({1, 0, 0, 0, 0, -1, 0, 0, 0, 0, -1, 0, 1, 2, 3, 1}));
  ASSERT_TRUE(sk.ok());
  EXPECT_EQ(sk->nodes[1].translation, (std::array<double, 3>{1, 2, 3}));
  // A zero scale on one axis: the other two axes still give the rotation (a quarter turn
  // about Z here). Regression: the zero column made Shepperd's formula invent a half turn.
  sk = mab::read_gltf_skeleton(matrix_rig({0, 0, 0, 0, -1, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1}));
  ASSERT_TRUE(sk.ok());
  EXPECT_LE(mab::angular_error_deg(sk->nodes[1].rotation, {0, 0, 0.70710677f, 0.70710677f}), 1e-4);
  EXPECT_EQ(sk->nodes[1].scale, (std::array<double, 3>{0, 1, 1}));
  // A zero matrix has no rotation at all: identity, not a half turn about Z.
  sk = mab::read_gltf_skeleton(matrix_rig(std::vector<double>(16, 0.0)));
  ASSERT_TRUE(sk.ok());
  EXPECT_EQ(sk->nodes[1].rotation, (mab::Quat{}));
}

TEST(GltfInputs, SkeletonsThatAreNotTreesOrIndexNothingAreRefused) {
  using mab::ErrorCode;
  auto expect_sk_error = [](const GltfBuilder& g, ErrorCode code, const std::string& field) {
    auto sk = mab::read_gltf_skeleton(g.text());
    ASSERT_FALSE(sk.ok()) << field;
    EXPECT_EQ(sk.error().code, code) << sk.error().message();
    EXPECT_NE(sk.error().message().find(field), std::string::npos) << sk.error().message();
  };
  {
    GltfBuilder g;  // a cycle: Bone's child is the root
    const int b = g.flat_rig({"Bone"})[0];
    g.j["nodes"][static_cast<std::size_t>(b)]["children"] = {0};
    expect_sk_error(g, ErrorCode::bad_value, "/nodes");
  }
  {
    GltfBuilder g;  // two parents
    const auto n = g.flat_rig({"A", "B"});
    g.j["nodes"][static_cast<std::size_t>(n[0])]["children"] = {n[1]};
    expect_sk_error(g, ErrorCode::bad_value, "/nodes");
  }
  for (const int child : {9, 1, -2}) {
    GltfBuilder g;  // a child that does not exist, the node itself, a negative index
    const int b = g.flat_rig({"Bone"})[0];
    g.j["nodes"][static_cast<std::size_t>(b)]["children"] = {child};
    auto sk = mab::read_gltf_skeleton(g.text());
    ASSERT_FALSE(sk.ok()) << child;
  }
  {
    GltfBuilder g;
    g.flat_rig({"A"});
    g.j["skins"] = {{{"joints", {1, 9}}}};
    expect_sk_error(g, ErrorCode::out_of_bounds, "/skins/0/joints");
  }
  {
    GltfBuilder g;
    g.flat_rig({"A"});
    g.j["skins"] = {{{"joints", {1}}, {"skeleton", 5}}};
    expect_sk_error(g, ErrorCode::out_of_bounds, "/skins/0/skeleton");
  }
  {
    GltfBuilder g;
    g.flat_rig({"A"});
    g.j["scenes"][0]["nodes"] = {0, 4};
    expect_sk_error(g, ErrorCode::out_of_bounds, "/scenes/0/nodes");
  }
  {
    GltfBuilder g;  // more nodes than a skeleton may have
    g.j["nodes"] = nlohmann::json::array();
    for (int i = 0; i <= (1 << 16); ++i) g.j["nodes"].push_back(nlohmann::json::object());
    expect_sk_error(g, ErrorCode::limit_exceeded, "/nodes");
  }
  // No scene: every parentless node is a root; the skin's joints and root are read.
  GltfBuilder g;
  g.flat_rig({"A", "B"});
  g.add_node("Loose");
  g.j.erase("scenes");
  g.j.erase("scene");
  g.j["skins"] = {{{"joints", {1, 2}}, {"skeleton", 0}}};
  auto sk = mab::read_gltf_skeleton(g.text());
  ASSERT_TRUE(sk.ok()) << sk.error().message();
  EXPECT_EQ(sk->roots, (std::vector<int>{0, 3}));
  EXPECT_EQ(sk->skin_root, 0);
  EXPECT_TRUE(sk->nodes[1].joint);
  EXPECT_FALSE(sk->nodes[3].joint);
  // A scene listing a child node: only parentless nodes are roots.
  g.j["scenes"] = {{{"nodes", {1}}}};
  sk = mab::read_gltf_skeleton(g.text());
  ASSERT_TRUE(sk.ok());
  EXPECT_EQ(sk->roots, (std::vector<int>{0, 3}));
}

// --- Names: how nodes find their bones (docs/gltf.md, "Names") ---

// Bones names of wd1/long_k100.mab (scripts/gen_corpus.py BASE_NAMES).
const std::vector<std::string> kNames = {"Root", "Pelvis", "Spine"};

// The export's bone nodes (those with a mabkit hash), with `rename` applied and the hash
// removed unless `keep_hash`.
std::vector<std::uint8_t> renamed(const Template& t, const std::function<std::string(const std::string&)>& rename,
                                  bool keep_hash = false, bool named = false) {
  mab::GltfExportOptions o;
  if (named) o.names = kNames;
  tinygltf::Model m = parse(*mab::export_gltf(t.c, o));
  for (auto& n : m.nodes) {
    if (!n.extras.IsObject() || !n.extras.Has("mabkit")) continue;
    n.name = rename(n.name);
    if (!keep_hash) n.extras = tinygltf::Value();
  }
  return serialize(m, true);
}

TEST(GltfInputs, NodesFindTheirBonesByHashNameGeneratedNameOrSuffixedName) {
  const Template t = template_of("wd1/long_k100.mab");
  auto same = [](const std::string& s) { return s; };
  struct Case {
    const char* what;
    std::vector<std::uint8_t> bytes;
  };
  const std::vector<Case> matching = {
      {"bone names", renamed(t, same, false, true)},
      {"Blender's .001 suffix on names", renamed(
                                             t, [](const std::string& s) { return s + ".001"; }, false, true)},
      {"generated names", renamed(t, same)},
      {"generated names, lower case", renamed(t,
                                              [](const std::string& s) {
                                                std::string l = s;
                                                for (std::size_t i = 7; i < l.size(); ++i)
                                                  l[i] = static_cast<char>(std::tolower(l[i]));
                                                return l;
                                              })},
      {"generated names, 0X", renamed(t, [](const std::string& s) { return "bone_0X" + s.substr(7); })},
      {"hash kept, names gone", renamed(
                                    t, [](const std::string&) { return std::string("x"); }, true)},
  };
  for (const auto& c : matching) {
    auto r = mab::import_gltf(c.bytes, &t.c);
    ASSERT_TRUE(r.ok()) << c.what << ": " << r.error().message();
    EXPECT_EQ(r->bytes, t.bytes) << c.what;
    EXPECT_TRUE(r->report.animations.at(0).nodes_unmatched.empty()) << c.what;
    EXPECT_TRUE(r->report.animations.at(0).bones_kept.empty()) << c.what;
  }
  // Names that identify nothing: their nodes are listed, their bones kept as they were
  // (allow_no_op: an animation that moves no bone is refused otherwise, as below).
  for (const auto& rename : std::vector<std::function<std::string(const std::string&)>>{
           [](const std::string& s) { return s.substr(0, s.size() - 1); },    // 7 hex digits
           [](const std::string& s) { return s.substr(0, 7) + "ZZZZZZZZ"; },  // not hex
           [](const std::string& s) { return "bona" + s.substr(4); },         // not the prefix
           [](const std::string& s) { return s + ".001"; },                   // a generated name's copy
           [](const std::string& s) { return s + ".00a"; },
           [](const std::string& s) { return s + ".dup"; },  // no occurrence
           [](const std::string& s) { return s + ".dup0"; }, [](const std::string& s) { return s + ".dupx"; },
           [](const std::string& s) { return s + ".dup1x"; }}) {
    auto refused = mab::import_gltf(renamed(t, rename), &t.c);
    ASSERT_FALSE(refused.ok());
    EXPECT_EQ(refused.error().code, mab::ErrorCode::not_found) << refused.error().message();
    mab::GltfImportOptions o;
    o.allow_no_op = true;
    auto r = mab::import_gltf(renamed(t, rename), &t.c, o);
    ASSERT_TRUE(r.ok()) << r.error().message();
    EXPECT_EQ(r->bytes, t.bytes);
    EXPECT_EQ(r->report.animations.at(0).nodes_unmatched.size(), 3u) << rename("bone_0x12345678");
  }
}

// The hash in extras may be text or a number; anything else is no hash, and the name decides.
TEST(GltfInputs, ExtrasHashesAsTextOrNumber) {
  const Template t = template_of("wd1/long_k100.mab");
  for (const int form : {0, 1, 2, 3, 4, 5, 6, 7, 8, 9}) {
    tinygltf::Model m = t.model;
    for (auto& n : m.nodes) {
      if (!n.extras.IsObject() || !n.extras.Has("mabkit")) continue;
      const auto h = *mab::gltf::hash_from_value(n.extras.Get("mabkit").Get("hash"));
      tinygltf::Value::Object o;
      if (form == 0) o["hash"] = tinygltf::Value(static_cast<double>(h));
      if (form == 1) o["hash"] = tinygltf::Value(std::string("0x") + "ZZ");
      if (form == 2) o["hash"] = tinygltf::Value(std::string("12"));
      if (form == 3) o["hash"] = tinygltf::Value(-1.5);
      if (form == 4) o["hash"] = tinygltf::Value(true);
      if (form == 5) o["hash"] = tinygltf::Value(4294967296.0);
      if (form == 6) o["hash"] = tinygltf::Value(std::string("1x12"));
      if (form == 7) o["hash"] = tinygltf::Value(std::string("0y12"));
      if (form == 8) o["hash"] = tinygltf::Value(std::string("0x12 "));
      if (form == 9) o["hash"] = tinygltf::Value(std::string("0X") + mab::hex(h, 8).substr(2));
      tinygltf::Value::Object ex;
      ex["mabkit"] = tinygltf::Value(o);
      n.extras = tinygltf::Value(ex);
      if (form != 0 && form != 9) n.name = "renamed";  // the hash is all that could match
    }
    mab::GltfImportOptions o;
    o.allow_no_op = true;  // forms that match no bone: the template as it is, bones listed
    auto r = mab::import_gltf(serialize(m, false), &t.c, o);
    ASSERT_TRUE(r.ok()) << form << ": " << r.error().message();
    EXPECT_EQ(r->bytes, t.bytes) << form;
    EXPECT_EQ(r->report.animations.at(0).nodes_unmatched.empty(), form == 0 || form == 9) << form;
  }
}

// Two bones with one hash (a validate warning, kept as the file has them): export names the
// second ".dup1", and import puts each node back on its own bone.
TEST(GltfInputs, BonesSharingAHashComeBackToTheirOwnPlaces) {
  const auto dup = mab::test::with_hash_shared("wd1/long_k100.mab", 1, 2);
  const mab::Container dc = *mab::read_container(dup);
  ASSERT_EQ(dc.blocks[0].bones[1].hash, dc.blocks[0].bones[2].hash);
  for (const bool named : {false, true}) {
    mab::GltfExportOptions o;
    if (named) o.names = kNames;
    auto g = mab::export_gltf(dc, o);
    ASSERT_TRUE(g.ok()) << g.error().message();
    const tinygltf::Model m = parse(*g);
    int dups = 0;
    for (const auto& n : m.nodes) dups += n.name.size() > 5 && n.name.substr(n.name.size() - 5) == ".dup1";
    EXPECT_EQ(dups, 1);
    auto r = mab::import_gltf(*g, &dc);
    ASSERT_TRUE(r.ok()) << r.error().message();
    EXPECT_EQ(r->bytes, dup);
    // Without the hashes in extras, the names alone place them.
    tinygltf::Model bare = m;
    for (auto& n : bare.nodes) n.extras = tinygltf::Value();
    r = mab::import_gltf(serialize(bare, true), &dc);
    ASSERT_TRUE(r.ok()) << r.error().message();
    EXPECT_EQ(r->bytes, dup) << (named ? "named" : "generated names");
  }
}

// --- Far Cry 2/3: every frame sampled from what the file keys ---

int node_named(const tinygltf::Model& m, const std::string& name) {
  for (std::size_t i = 0; i < m.nodes.size(); ++i)
    if (m.nodes[i].name == name) return static_cast<int>(i);
  return -1;
}

tinygltf::AnimationSampler* sampler_of(tinygltf::Model& m, int node, const std::string& path) {
  for (auto& ch : m.animations[0].channels)
    if (ch.target_node == node && ch.target_path == path)
      return &m.animations[0].samplers[static_cast<std::size_t>(ch.sampler)];
  return nullptr;
}

// Every other frame of each translation channel removed and the kept ones moved by one unit in
// x: an edit on a grid that misses half the clip's frames (docs/gltf.md, "Which keys are
// edits"). The frames between cannot be told from the samples: refused (they were kept as
// the template's, the edit lost there, exit 0); with accept_resample they are interpolated as
// the sampler says (LINEAR and CUBICSPLINE with zero tangents: the midpoint; STEP: held).
TEST(GltfInputs, FarCryTranslationsBetweenTheFilesKeysFollowTheSampler) {
  const auto path = mab::test::corpus_dir() / "fc2" / "all_arrays.mab";
  const mab::Container c = container_of("fc2/all_arrays.mab");
  const auto orig = mab::decode_legacy_clip(c, 0);
  ASSERT_TRUE(orig.ok());
  ASSERT_FALSE(orig->translations.empty());
  const tinygltf::Model exported = parse(*mab::export_gltf(c));
  for (const std::string interpolation : {"LINEAR", "STEP", "CUBICSPLINE"}) {
    tinygltf::Model m = exported;
    for (const auto& t : orig->translations) {
      auto* s = sampler_of(m, node_named(m, "bone_" + std::to_string(t.bone)), "translation");
      ASSERT_NE(s, nullptr);
      const auto times = floats_of(m, s->input);
      const auto v = floats_of(m, s->output);
      std::vector<float> nt, nv;
      for (std::size_t k = 0; k < times.size(); k += 2) {
        nt.push_back(times[k]);
        if (interpolation == "CUBICSPLINE") nv.insert(nv.end(), {0, 0, 0});
        nv.insert(nv.end(), {v[3 * k] + 1.0f, v[3 * k + 1], v[3 * k + 2]});
        if (interpolation == "CUBICSPLINE") nv.insert(nv.end(), {0, 0, 0});
      }
      s->input = append_accessor(m, append_view(m, GltfBuilder::bytes_of(nt)), kFloat, TINYGLTF_TYPE_SCALAR, nt.size());
      s->output =
          append_accessor(m, append_view(m, GltfBuilder::bytes_of(nv)), kFloat, TINYGLTF_TYPE_VEC3, nv.size() / 3);
      s->interpolation = interpolation;
    }
    auto refused = mab::import_gltf(serialize(m, true), &c);
    ASSERT_FALSE(refused.ok()) << interpolation;
    EXPECT_EQ(refused.error().code, mab::ErrorCode::not_decodable) << refused.error().message();
    EXPECT_NE(refused.error().message(mab::test::as_flag).find("--accept-resample"), std::string::npos)
        << refused.error().message();
    mab::GltfImportOptions o;
    o.accept_resample = true;
    auto r = mab::import_gltf(serialize(m, true), &c, o);
    ASSERT_TRUE(r.ok()) << interpolation << ": " << r.error().message();
    const auto back = mab::decode_legacy_clip(*mab::read_container(r->bytes), 0);
    ASSERT_TRUE(back.ok());
    ASSERT_EQ(back->translations.size(), orig->translations.size());
    for (std::size_t i = 0; i < orig->translations.size(); ++i) {
      const auto& a = orig->translations[i].frames;
      const auto& b = back->translations[i].frames;
      ASSERT_EQ(a.size(), b.size());
      for (std::size_t f = 0; f < a.size(); ++f)
        for (std::size_t x = 0; x < 3; ++x) {
          double expected = a[f][x];
          if (f % 2 == 1 && interpolation == "STEP") expected = a[f - 1][x];
          else if (f % 2 == 1 && f + 1 < a.size()) expected = 0.5 * (double{a[f - 1][x]} + a[f + 1][x]);
          else if (f % 2 == 1) expected = a[f - 1][x];  // past the last key: held
          if (x == 0) expected += 1.0;
          EXPECT_NEAR(b[f][x], expected, 1e-4 * std::max(1.0, std::abs(expected)))
              << interpolation << " track " << i << " frame " << f << " axis " << x;
        }
    }
  }
}

// The bytes of `c` with a constant translation (1, 2, 3) added, through the JSON document as a
// user would, on `keyed`, a bone that already has a translation track; empty if refused.
std::vector<std::uint8_t> with_constant_on_translated_bone(const mab::Container& c, const mab::LegacyClip& orig,
                                                           std::uint32_t keyed) {
  auto doc = nlohmann::json::parse(*mab::export_json(c, orig, mab::JsonExportOptions{2}));  // "legacy_clip"
  doc["legacy_clip"]["constant_translations"].push_back({{"bone", keyed}, {"translation", {1, 2, 3}}});
  auto& list = doc["legacy_clip"]["constant_translations"];
  std::sort(list.begin(), list.end(), [](const auto& a, const auto& b) { return a["bone"] < b["bone"]; });
  auto both = mab::import_json_bytes(doc.dump());
  EXPECT_TRUE(both.ok()) << both.error().message();
  return both.ok() ? both->bytes : std::vector<std::uint8_t>{};
}

// A constant value that now varies becomes a track; one on a bone that also has a track of
// the same kind (its own "_constant" node) cannot vary and is refused by name.
TEST(GltfInputs, FarCryConstantsThatNowVaryBecomeTracks) {
  const mab::Container c = container_of("fc2/all_arrays.mab");
  const auto orig = *mab::decode_legacy_clip(c, 0);
  const tinygltf::Model exported = parse(*mab::export_gltf(c));
  const std::size_t frames = std::size_t{orig.last_frame} + 1;
  std::vector<float> times(frames);
  for (std::size_t f = 0; f < frames; ++f) times[f] = static_cast<float>(static_cast<double>(f) / orig.frame_rate);
  auto vary = [&](tinygltf::Model& m, const std::string& node, const std::string& path) {
    auto* s = sampler_of(m, node_named(m, node), path);
    ASSERT_NE(s, nullptr) << node;
    std::vector<float> v;
    for (std::size_t f = 0; f < frames; ++f) {
      const double a = 0.05 * static_cast<double>(f);
      if (path == "rotation")
        v.insert(v.end(), {0, static_cast<float>(std::sin(a)), 0, static_cast<float>(std::cos(a))});
      else v.insert(v.end(), {static_cast<float>(f), 1.0f, 2.0f});
    }
    s->input = append_accessor(m, append_view(m, GltfBuilder::bytes_of(times)), kFloat, TINYGLTF_TYPE_SCALAR, frames);
    s->output = append_accessor(m, append_view(m, GltfBuilder::bytes_of(v)), kFloat,
                                path == "rotation" ? TINYGLTF_TYPE_VEC4 : TINYGLTF_TYPE_VEC3, frames);
  };
  auto doubled = [](const auto& constants, const auto& tracks, std::uint32_t bone) {
    for (const auto& t : tracks)
      if (t.bone == bone) return true;
    (void)constants;
    return false;
  };
  // A constant rotation and a constant translation of bones without a track of that kind.
  std::uint32_t rot_bone = 0xFFFFFFFF, tr_bone = 0xFFFFFFFF;
  for (const auto& r : orig.constant_rotations)
    if (!doubled(orig.constant_rotations, orig.rotations, r.bone)) rot_bone = r.bone;
  for (const auto& t : orig.constant_translations)
    if (!doubled(orig.constant_translations, orig.translations, t.bone)) tr_bone = t.bone;
  ASSERT_NE(rot_bone, 0xFFFFFFFFu);
  ASSERT_NE(tr_bone, 0xFFFFFFFFu);
  tinygltf::Model m = exported;
  vary(m, "bone_" + std::to_string(rot_bone), "rotation");
  vary(m, "bone_" + std::to_string(tr_bone), "translation");
  auto r = mab::import_gltf(serialize(m, true), &c);
  ASSERT_TRUE(r.ok()) << r.error().message();
  const auto back = *mab::decode_legacy_clip(*mab::read_container(r->bytes), 0);
  EXPECT_EQ(back.constant_rotations.size() + 1, orig.constant_rotations.size());
  EXPECT_EQ(back.rotations.size(), orig.rotations.size() + 1);
  EXPECT_EQ(back.constant_translations.size() + 1, orig.constant_translations.size());
  ASSERT_EQ(back.translations.size(), orig.translations.size() + 1);
  for (const auto& t : back.translations) {
    if (t.bone != tr_bone) continue;
    for (std::size_t f = 0; f < frames; ++f) EXPECT_EQ(t.frames[f], (mab::Vec3{static_cast<float>(f), 1.0f, 2.0f}));
  }
  for (const auto& t : back.rotations)
    if (t.bone == rot_bone)
      for (std::size_t f = 0; f < frames; ++f) {
        const double a = 0.05 * static_cast<double>(f);
        EXPECT_LE(mab::angular_error_deg(mab::legacy_rotation_at(t, static_cast<std::uint32_t>(f)),
                                         {0, static_cast<float>(std::sin(a)), 0, static_cast<float>(std::cos(a))}),
                  r->report.max_error_deg + 1e-3);
      }
  // The trajectory's rotation edited at every frame.
  m = exported;
  vary(m, "trajectory", "rotation");
  r = mab::import_gltf(serialize(m, true), &c);
  ASSERT_TRUE(r.ok()) << r.error().message();
  const auto traj = *mab::decode_legacy_clip(*mab::read_container(r->bytes), 0);
  for (std::size_t f = 0; f < frames; ++f) {
    const double a = 0.05 * static_cast<double>(f);
    EXPECT_LE(mab::angular_error_deg(traj.trajectory_rotation[f],
                                     {0, static_cast<float>(std::sin(a)), 0, static_cast<float>(std::cos(a))}),
              0.01);
  }
  // A bone with a translation track given a constant translation too (through the JSON
  // document, as a user would): its "_constant" node imports unedited and cannot vary.
  const std::uint32_t keyed = orig.translations.front().bone;
  const std::vector<std::uint8_t> both = with_constant_on_translated_bone(c, orig, keyed);
  ASSERT_FALSE(both.empty());
  const mab::Container bc = *mab::read_container(both);
  const tinygltf::Model bm = parse(*mab::export_gltf(bc));
  const std::string constant_node = "bone_" + std::to_string(keyed) + "_constant";
  ASSERT_GE(node_named(bm, constant_node), 0);
  r = mab::import_gltf(serialize(bm, true), &bc);
  ASSERT_TRUE(r.ok()) << r.error().message();
  EXPECT_EQ(r->bytes, both);
  m = bm;
  vary(m, constant_node, "translation");
  expect_error(mab::import_gltf(serialize(m, true), &bc), mab::ErrorCode::invalid_argument,
               constant_node + " translation");
}

// --- Export with a skeleton file, and values glTF cannot hold ---

// Skeleton files often give nodes as matrices; glTF forbids animating those (3.7.3.1), so an
// animated bone's node is written as the TRS of its matrix, and a node nothing animates keeps it.
TEST(GltfInputs, ExportTurnsTheMatrixOfAnAnimatedSkeletonNodeIntoTrs) {
  const mab::Container c = container_of("wd1/long_k100.mab");
  GltfBuilder g;
  const auto n = g.flat_rig({"Root", "Pelvis", "Spine", "Prop"});
  const std::vector<double> quarter_z{0, 1, 0, 0, -1, 0, 0, 0, 0, 0, 1, 0, 1, 2, 3, 1};
  for (const int i : n) g.j["nodes"][static_cast<std::size_t>(i)]["matrix"] = quarter_z;
  g.j["skins"] = {{{"joints", n}}};
  auto sk = mab::read_gltf_skeleton(g.text());
  ASSERT_TRUE(sk.ok()) << sk.error().message();
  mab::GltfExportOptions o;
  o.skeleton = &*sk;
  auto out = mab::export_gltf(c, o);
  ASSERT_TRUE(out.ok()) << out.error().message();
  const tinygltf::Model m = parse(*out);
  for (const char* name : {"Root", "Pelvis", "Spine"}) {
    const auto& node = m.nodes[static_cast<std::size_t>(node_named(m, name))];
    EXPECT_TRUE(node.matrix.empty()) << name;
    ASSERT_EQ(node.rotation.size(), 4u) << name;
    EXPECT_NEAR(node.rotation[2], 0.70710678, 1e-6) << name;
    EXPECT_EQ(node.translation, (std::vector<double>{1, 2, 3})) << name;
  }
  EXPECT_EQ(m.nodes[static_cast<std::size_t>(node_named(m, "Prop"))].matrix, quarter_z);
  // And it imports back with the same skeleton to the template's bytes.
  mab::GltfImportOptions io;
  io.skeleton = &*sk;
  auto back = mab::import_gltf(*out, &c, io);
  ASSERT_TRUE(back.ok()) << back.error().message();
  EXPECT_EQ(back->bytes, load(mab::test::corpus_dir() / "wd1" / "long_k100.mab"));
}

TEST(GltfInputs, SkeletonsWithoutNodesOrWithSeparateTrees) {
  const mab::Container c = container_of("wd1/long_k100.mab");
  // No nodes at all: the bones hang from a rig node of their own.
  GltfBuilder empty;
  auto sk = mab::read_gltf_skeleton(empty.text());
  ASSERT_TRUE(sk.ok()) << sk.error().message();
  mab::GltfExportOptions o;
  o.skeleton = &*sk;
  mab::GltfExportReport rep;
  auto out = mab::export_gltf(c, o, &rep);
  ASSERT_TRUE(out.ok()) << out.error().message();
  EXPECT_EQ(rep.bones_without_node.size(), 3u);
  const tinygltf::Model m = parse(*out);
  const int rig = node_named(m, "mabkit_rig");
  ASSERT_GE(rig, 0);
  EXPECT_EQ(m.scenes[0].nodes, std::vector<int>{rig});
  EXPECT_EQ(m.nodes[static_cast<std::size_t>(rig)].children.size(), 3u);
  // Two armatures: the skin's joints under one root, the clip's bones under another.
  GltfBuilder two;
  const int a = two.add_node("ArmatureA");
  const int b = two.add_node("ArmatureB");
  const int j = two.add_node("Joint");
  two.j["nodes"][static_cast<std::size_t>(a)]["children"] = {j};
  for (const char* name : {"Root", "Pelvis", "Spine"})
    two.j["nodes"][static_cast<std::size_t>(b)]["children"].push_back(two.add_node(name));
  two.j["scenes"] = {{{"nodes", {a, b}}}};
  two.j["skins"] = {{{"joints", {j}}}};
  sk = mab::read_gltf_skeleton(two.text());
  ASSERT_TRUE(sk.ok()) << sk.error().message();
  o.skeleton = &*sk;
  auto refused = mab::export_gltf(c, o);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().field, "skeleton");
  EXPECT_NE(refused.error().message().find("no common root"), std::string::npos) << refused.error().message();
}

// A Far Cry 2 translation that is not a number (a damaged file): glTF cannot hold it, so the
// export is refused naming the bone and frame; the JSON form keeps it (null), byte for byte.
TEST(GltfInputs, AFarCryValueThatIsNotANumberIsRefusedByGltfAndKeptByJson) {
  mab::Container c = container_of("fc2/all_arrays.mab");
  const auto orig = *mab::decode_legacy_clip(c, 0);
  auto* sec = c.blocks[0].section_mut(5);  // AnimatedTranslations (format 13): 16-byte array header, values
  ASSERT_NE(sec, nullptr);
  ASSERT_GT(sec->size(), 20u);
  const std::uint32_t nan = 0x7FC00000u;
  std::memcpy(sec->data() + 16, &nan, 4);
  const auto bytes = *mab::write_container(c);
  const mab::Container damaged = *mab::read_container(bytes);
  auto g = mab::export_gltf(damaged);
  ASSERT_FALSE(g.ok());
  EXPECT_EQ(g.error().code, mab::ErrorCode::bad_value);
  EXPECT_EQ(g.error().field, "translation of bone " + std::to_string(orig.translations.front().bone));
  EXPECT_NE(g.error().message().find("frame 0 is not finite"), std::string::npos) << g.error().message();
  const auto l = mab::decode_legacy_clip(damaged, 0);
  ASSERT_TRUE(l.ok());
  auto json = mab::export_json(damaged, *l);
  ASSERT_TRUE(json.ok()) << json.error().message();
  auto back = mab::import_json_bytes(*json);
  ASSERT_TRUE(back.ok()) << back.error().message();
  EXPECT_EQ(back->bytes, bytes);
}

// --- Which animation goes into which block ---

// Without the mabkit extras (another tool wrote the file), "block_N" names still place each
// animation of a Far Cry 5 file; names that are not "block_N" go to block 0; --block picks.
TEST(GltfInputs, AnimationsFindTheirBlockByNameWhenExtrasAreGone) {
  const Template t = template_of("fc5/three_blocks.mab");
  ASSERT_GE(t.c.blocks.size(), 3u);
  tinygltf::Model m = t.model;
  ASSERT_EQ(m.animations.size(), t.c.blocks.size());
  for (auto& a : m.animations) a.extras = tinygltf::Value();
  // Blender appends its own suffixes to action names.
  for (auto& a : m.animations) a.name += "_Action";
  auto r = mab::import_gltf(serialize(m, true), &t.c);
  ASSERT_TRUE(r.ok()) << r.error().message();
  EXPECT_EQ(r->bytes, t.bytes);
  ASSERT_EQ(r->report.animations.size(), t.c.blocks.size());
  for (std::size_t i = 0; i < r->report.animations.size(); ++i) EXPECT_EQ(r->report.animations[i].block, i);
  // Names that are not block names: the first animation goes into block 0; the others go
  // nowhere, refused unless dropped on purpose (issue 31).
  for (const std::string name : {"walk", "block_", "block_x", "block_99999"}) {
    tinygltf::Model n = m;
    for (auto& a : n.animations) a.name = name;
    auto refused = mab::import_gltf(serialize(n, true), &t.c);
    ASSERT_FALSE(refused.ok()) << name;
    EXPECT_NE(refused.error().message().find("goes into no block"), std::string::npos) << refused.error().message();
    mab::GltfImportOptions drop;
    drop.ignore_unmatched = true;
    auto one = mab::import_gltf(serialize(n, true), &t.c, drop);
    ASSERT_TRUE(one.ok()) << name << ": " << one.error().message();
    ASSERT_EQ(one->report.animations.size(), 1u) << name;
    EXPECT_EQ(one->report.animations[0].block, 0u) << name;
    EXPECT_EQ(one->report.animations[0].animation, 0u) << name;
  }
  // --block without --animation: the animation named for that block.
  mab::GltfImportOptions o;
  o.block = 2;
  auto two = mab::import_gltf(serialize(m, true), &t.c, o);
  ASSERT_TRUE(two.ok()) << two.error().message();
  ASSERT_EQ(two->report.animations.size(), 1u);
  EXPECT_EQ(two->report.animations[0].animation, 2u);
  EXPECT_EQ(two->bytes, t.bytes);
}

// A node animated by two rotation channels (glTF forbids it, 3.11): refused, naming the channel.
// Regression: the second channel was counted and silently ignored, with whatever edit it held.
TEST(GltfInputs, ASecondRotationChannelOfANodeIsRefused) {
  const Template t = template_of("wd1/long_k100.mab");
  tinygltf::Model m = t.model;
  auto dup = m.animations[0].channels[0];
  m.animations[0].samplers.push_back(m.animations[0].samplers[static_cast<std::size_t>(dup.sampler)]);
  dup.sampler = static_cast<int>(m.animations[0].samplers.size() - 1);
  m.animations[0].channels.push_back(dup);
  const std::string field = "/animations/0/channels/" + std::to_string(m.animations[0].channels.size() - 1) + "/target";
  expect_error(mab::import_gltf(serialize(m, true), &t.c), mab::ErrorCode::bad_value, field);
}

// --rotations local: each node's rotation as the file writes it. On the export's own flat rig
// (identity rests) that is the same clip.
TEST(GltfInputs, LocalRotationsReadTheNodesAsWritten) {
  const Template t = template_of("wd1/long_k100.mab");
  mab::GltfImportOptions o;
  o.rotations = mab::GltfRotations::local;
  auto r = mab::import_gltf(serialize(t.model, true), &t.c, o);
  ASSERT_TRUE(r.ok()) << r.error().message();
  EXPECT_EQ(r->bytes, t.bytes);
}

// --keep-times puts the glTF's own times on the template's bones, which needs a template whose
// times increase (a damaged file may repeat them).
TEST(GltfInputs, KeepTimesNeedsATemplateWithIncreasingTimes) {
  const auto repeat =
      mab::test::with_key_times("wd1/long_k100.mab", [](std::vector<std::uint32_t>& t) { t[5] = t[4]; });
  const mab::Container rc = *mab::read_container(repeat);
  // The export refuses times that do not increase; the glTF of the original serves.
  const Template t = template_of("wd1/long_k100.mab");
  mab::GltfImportOptions o;
  o.keep_times = true;
  auto r = mab::import_gltf(serialize(t.model, true), &rc, o);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().field, "KeyTimes");
  EXPECT_NE(r.error().message().find("JSON"), std::string::npos) << r.error().message();
  // At the template's times too: keys between repeated times have no place.
  r = mab::import_gltf(serialize(t.model, true), &rc);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, mab::ErrorCode::bad_value);
  EXPECT_EQ(r.error().field, "KeyTimes");
  EXPECT_NE(r.error().message().find("JSON"), std::string::npos) << r.error().message();
}

// --keep-times on a glTF that keys one animated bone a step past the template's last time and
// leaves another without a channel: the block takes the new time, the bone without a channel
// is resampled onto it from its template keys (held past its last), the constant bones
// without one are kept; a constant bone given two different keys becomes animated.
TEST(GltfInputs, KeepTimesResamplesBonesWithoutAChannelAndAnimatesAMovedConstant) {
  const Template t = template_of("wd2/mixed_k8.mab");
  std::vector<std::size_t> animated, constant;
  for (std::size_t i = 0; i < t.clip.bones.size(); ++i) {
    if (t.clip.bones[i].kind() == mab::BoneKind::animated) animated.push_back(i);
    if (t.clip.bones[i].kind() == mab::BoneKind::constant) constant.push_back(i);
  }
  ASSERT_GE(animated.size(), 2u);
  ASSERT_GE(constant.size(), 2u);
  const auto node_of_bone = [&](const tinygltf::Model& m, std::size_t i) {
    for (std::size_t n = 0; n < m.nodes.size(); ++n) {
      const auto& ex = m.nodes[n].extras;
      if (ex.IsObject() && ex.Has("mabkit") &&
          mab::gltf::hash_from_value(ex.Get("mabkit").Get("hash")) == t.clip.bones[i].hash)
        return static_cast<int>(n);
    }
    return -1;
  };
  tinygltf::Model m = t.model;
  auto& a = m.animations.at(0);
  // The first animated bone: its last key again, one step later.
  const int keyed = node_of_bone(m, animated[0]);
  tinygltf::AnimationSampler* s = nullptr;
  for (auto& ch : a.channels)
    if (ch.target_node == keyed && ch.target_path == "rotation") s = &a.samplers[static_cast<std::size_t>(ch.sampler)];
  ASSERT_NE(s, nullptr);
  auto times = floats_of(m, s->input);
  auto values = floats_of(m, s->output);
  ASSERT_GE(times.size(), 2u);
  times.push_back(times.back() + (times.back() - times[times.size() - 2]));
  values.insert(values.end(), values.end() - 4, values.end());
  s->input =
      append_accessor(m, append_view(m, GltfBuilder::bytes_of(times)), kFloat, TINYGLTF_TYPE_SCALAR, times.size());
  s->output =
      append_accessor(m, append_view(m, GltfBuilder::bytes_of(values)), kFloat, TINYGLTF_TYPE_VEC4, times.size());
  // The second animated bone and the first constant one lose their channels.
  const int dropped = node_of_bone(m, animated[1]), kept_constant = node_of_bone(m, constant[0]);
  std::vector<tinygltf::AnimationChannel> channels;
  for (const auto& ch : a.channels)
    if (ch.target_node != dropped && ch.target_node != kept_constant) channels.push_back(ch);
  a.channels = channels;
  // The second constant bone: two keys a quarter turn apart.
  const int moved = node_of_bone(m, constant[1]);
  tinygltf::AnimationSampler ms;
  const std::vector<float> mt = {times.front(), times.back()};
  const std::vector<float> mv = {0, 0, 0, 1, 0, 0, 0.70710678f, 0.70710678f};
  ms.input = append_accessor(m, append_view(m, GltfBuilder::bytes_of(mt)), kFloat, TINYGLTF_TYPE_SCALAR, 2);
  ms.output = append_accessor(m, append_view(m, GltfBuilder::bytes_of(mv)), kFloat, TINYGLTF_TYPE_VEC4, 2);
  ms.interpolation = "LINEAR";
  a.samplers.push_back(ms);
  for (auto& ch : a.channels)
    if (ch.target_node == moved && ch.target_path == "rotation") ch.sampler = static_cast<int>(a.samplers.size() - 1);
  mab::GltfImportOptions o;
  o.keep_times = true;
  auto r = mab::import_gltf(serialize(m, true), &t.c, o);
  ASSERT_TRUE(r.ok()) << r.error().message();
  const auto& rep = r->report.animations.at(0);
  EXPECT_FALSE(rep.times_from_template);
  EXPECT_EQ(rep.bones_resampled, std::vector<std::uint32_t>{t.clip.bones[animated[1]].hash});
  EXPECT_NE(std::find(rep.bones_kept.begin(), rep.bones_kept.end(), t.clip.bones[constant[0]].hash),
            rep.bones_kept.end());
  EXPECT_EQ(rep.constant_to_animated, std::vector<std::uint32_t>{t.clip.bones[constant[1]].hash});
  const mab::Clip back = decoded(r->bytes);
  ASSERT_EQ(back.key_count(), t.clip.key_count() + 1);
  // The resampled bone plays its template keys, and holds the last at the new time.
  const auto& rb = back.bones[animated[1]].keys;
  const auto& ob = t.clip.bones[animated[1]].keys;
  const double bound = r->report.max_error_deg + 1e-3;
  for (std::size_t k = 0; k < ob.size(); ++k) EXPECT_LE(mab::angular_error_deg(rb[k], ob[k]), bound) << k;
  EXPECT_LE(mab::angular_error_deg(rb.back(), ob.back()), bound);
  EXPECT_EQ(back.bones[constant[1]].kind(), mab::BoneKind::animated);
  EXPECT_EQ(back.bones[constant[0]].kind(), mab::BoneKind::constant);
}

// Far Cry 2/3 glTF edits a clip cannot hold or that touch the trajectory and constants.
struct LegacyGltf {
  mab::Container c;
  mab::LegacyClip clip;
  tinygltf::Model m;
};

LegacyGltf legacy_gltf(const char* rel) {
  LegacyGltf g;
  g.c = container_of(rel);
  g.clip = *mab::decode_legacy_clip(g.c, 0);
  g.m = parse(*mab::export_gltf(g.c));
  return g;
}

// The sampler of `path` on the node named `name` in the first animation.
tinygltf::AnimationSampler* legacy_sampler(tinygltf::Model& m, const std::string& name, const std::string& path) {
  return sampler_of(m, node_named(m, name), path);
}

void set_curve(tinygltf::Model& m, tinygltf::AnimationSampler& s, const std::vector<float>& t,
               const std::vector<float>& v, int type) {
  s.input = append_accessor(m, append_view(m, GltfBuilder::bytes_of(t)), kFloat, TINYGLTF_TYPE_SCALAR, t.size());
  s.output = append_accessor(m, append_view(m, GltfBuilder::bytes_of(v)), kFloat, type, t.size());
}

// A key between two frames, or after the last, that the frames cannot reproduce: refused,
// naming the track, the time and the fix (the scene at the clip's frame rate).
TEST(GltfInputs, FarCryKeysBetweenOrAfterTheFramesAreRefused) {
  for (const bool after : {false, true}) {
    LegacyGltf g = legacy_gltf("fc2/all_arrays.mab");
    const auto& tr = g.clip.rotations.at(0);
    auto* s = legacy_sampler(g.m, "bone_" + std::to_string(tr.bone), "rotation");
    ASSERT_NE(s, nullptr);
    auto t = floats_of(g.m, s->input);
    auto v = floats_of(g.m, s->output);
    ASSERT_GE(t.size(), 2u);
    const std::vector<float> turned = {0.0f, 0.0f, 0.70710678f, 0.70710678f};
    if (after) {
      t.push_back(t.back() + 2.5f / g.clip.frame_rate);
      v.insert(v.end(), turned.begin(), turned.end());
    } else {
      t.insert(t.begin() + 1, 0.5f * (t[0] + t[1]));
      v.insert(v.begin() + 4, turned.begin(), turned.end());
    }
    set_curve(g.m, *s, t, v, TINYGLTF_TYPE_VEC4);
    auto r = mab::import_gltf(serialize(g.m, true), &g.c);
    ASSERT_FALSE(r.ok()) << after;
    EXPECT_EQ(r.error().code, mab::ErrorCode::not_decodable) << r.error().message();
    EXPECT_NE(r.error().message().find(after ? "after the clip's last frame" : "between its frames"), std::string::npos)
        << r.error().message();
    EXPECT_NE(r.error().message().find("Set the scene frame rate"), std::string::npos) << r.error().message();
  }
}

// A bone holding a translation track and a constant translation at once (its "_constant"
// node): an edit of the track lands and keeps the constant's bits; a translation key between
// two frames is refused as a rotation's is (the frames cannot hold it).
TEST(GltfInputs, FarCryTranslationEditsOfABoneWithTwoValues) {
  const mab::Container c = container_of("fc2/all_arrays.mab");
  const auto orig = *mab::decode_legacy_clip(c, 0);
  const std::uint32_t keyed = orig.translations.front().bone;
  const std::vector<std::uint8_t> both = with_constant_on_translated_bone(c, orig, keyed);
  ASSERT_FALSE(both.empty());
  const mab::Container bc = *mab::read_container(both);
  const auto before = *mab::decode_legacy_clip(bc, 0);
  const tinygltf::Model bm = parse(*mab::export_gltf(bc));
  const std::string node = "bone_" + std::to_string(keyed);

  tinygltf::Model m = bm;
  auto* s = sampler_of(m, node_named(m, node), "translation");
  ASSERT_NE(s, nullptr);
  auto t = floats_of(m, s->input);
  auto v = floats_of(m, s->output);
  ASSERT_GE(t.size(), 3u);
  v[3 * 2] += 0.5f;  // frame 2, x
  set_curve(m, *s, t, v, TINYGLTF_TYPE_VEC3);
  auto r = mab::import_gltf(serialize(m, true), &bc);
  ASSERT_TRUE(r.ok()) << r.error().message();
  EXPECT_EQ(r->report.animations.at(0).tracks_changed, std::vector<std::string>{node + " translation"});
  const auto after = *mab::decode_legacy_clip(*mab::read_container(r->bytes), 0);
  ASSERT_EQ(after.constant_translations.size(), before.constant_translations.size());
  for (std::size_t i = 0; i < before.constant_translations.size(); ++i) {
    EXPECT_EQ(after.constant_translations[i].bone, before.constant_translations[i].bone);
    EXPECT_EQ(after.constant_translations[i].translation, before.constant_translations[i].translation) << i;
  }
  ASSERT_EQ(after.translations.size(), before.translations.size());
  for (std::size_t f = 0; f < before.translations[0].frames.size(); ++f) {
    mab::Vec3 expected = before.translations[0].frames[f];
    if (f == 2) expected[0] = v[3 * 2];
    EXPECT_EQ(after.translations[0].frames[f], expected) << f;
  }

  m = bm;
  s = sampler_of(m, node_named(m, node), "translation");
  t = floats_of(m, s->input);
  v = floats_of(m, s->output);
  t.insert(t.begin() + 1, 0.5f * (t[0] + t[1]));
  v.insert(v.begin() + 3, {v[0] + 4.0f, v[1], v[2]});
  set_curve(m, *s, t, v, TINYGLTF_TYPE_VEC3);
  r = mab::import_gltf(serialize(m, true), &bc);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, mab::ErrorCode::not_decodable) << r.error().message();
  EXPECT_NE(r.error().message().find(node + " translation"), std::string::npos) << r.error().message();
  EXPECT_NE(r.error().message().find("between its frames"), std::string::npos) << r.error().message();
}

// The frame grid gains no key times (the shared import's fixed grid, judge_on_fixed_grid): a
// key within 5% of a frame is that frame's (a tool's float noise in times), and its edit lands
// there exactly, the other frames kept; a fifth of a frame away it sits between frames, which
// cannot reproduce it, and is refused.
TEST(GltfInputs, FarCryKeyNearAFrameIsThatFrame) {
  const LegacyGltf g = legacy_gltf("fc2/all_arrays.mab");
  const auto& tr = g.clip.translations.at(0);
  const std::string node = "bone_" + std::to_string(tr.bone);
  for (const double off : {0.02, 0.2}) {
    tinygltf::Model m = g.m;
    auto* s = legacy_sampler(m, node, "translation");
    ASSERT_NE(s, nullptr);
    auto t = floats_of(m, s->input);
    auto v = floats_of(m, s->output);
    ASSERT_GE(t.size(), 4u);
    t[2] += static_cast<float>(off / g.clip.frame_rate);
    v[3 * 2] += 0.5f;  // frame 2, x
    set_curve(m, *s, t, v, TINYGLTF_TYPE_VEC3);
    const auto r = mab::import_gltf(serialize(m, true), &g.c);
    if (off > 0.05) {
      ASSERT_FALSE(r.ok());
      EXPECT_EQ(r.error().code, mab::ErrorCode::not_decodable) << r.error().message();
      EXPECT_NE(r.error().message().find(node + " translation"), std::string::npos) << r.error().message();
      EXPECT_NE(r.error().message().find("between its frames"), std::string::npos) << r.error().message();
      continue;
    }
    ASSERT_TRUE(r.ok()) << r.error().message();
    EXPECT_EQ(r->report.animations.at(0).tracks_changed, std::vector<std::string>{node + " translation"});
    const auto after = *mab::decode_legacy_clip(*mab::read_container(r->bytes), 0);
    ASSERT_EQ(after.translations.size(), g.clip.translations.size());
    ASSERT_EQ(after.translations[0].frames.size(), tr.frames.size());
    for (std::size_t f = 0; f < tr.frames.size(); ++f) {
      mab::Vec3 expected = tr.frames[f];
      if (f == 2) expected[0] = v[3 * 2];
      EXPECT_EQ(after.translations[0].frames[f], expected) << f;
    }
  }
}

// A node no track of the clip has, moving, is refused by name (issue 31: it may hold an edit);
// with ignore_unmatched it is listed as dropped and its bone kept; a glTF whose nodes match
// nothing is refused, or written as the template is with allow_no_op; --reduce does not apply.
TEST(GltfInputs, FarCryNodesThatMatchNothing) {
  LegacyGltf g = legacy_gltf("fc2/all_arrays.mab");
  const std::string name = "bone_" + std::to_string(g.clip.rotations.at(0).bone);
  tinygltf::Model one = g.m;
  auto& renamed_node = one.nodes[static_cast<std::size_t>(node_named(one, name))];
  renamed_node.name = "not_a_bone";
  renamed_node.extras = tinygltf::Value();  // the export's mabkit id would still find the bone
  auto r = mab::import_gltf(serialize(one, true), &g.c);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, mab::ErrorCode::invalid_argument) << r.error().message();
  EXPECT_NE(r.error().message().find("not_a_bone (matches no bone of the block)"), std::string::npos)
      << r.error().message();
  mab::GltfImportOptions drop;
  drop.ignore_unmatched = true;
  r = mab::import_gltf(serialize(one, true), &g.c, drop);
  ASSERT_TRUE(r.ok()) << r.error().message();
  EXPECT_EQ(r->report.animations.at(0).dropped_channels.size(), 1u);
  EXPECT_EQ(r->bytes, load(mab::test::corpus_dir() / "fc2" / "all_arrays.mab"));
  const auto& a = r->report.animations.at(0);
  EXPECT_NE(std::find(a.nodes_unmatched.begin(), a.nodes_unmatched.end(), "not_a_bone (rotation)"),
            a.nodes_unmatched.end());
  EXPECT_FALSE(a.bones_kept.empty());
  tinygltf::Model none = g.m;
  for (auto& n : none.nodes) n.name = "x" + n.name, n.extras = tinygltf::Value();
  r = mab::import_gltf(serialize(none, true), &g.c);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, mab::ErrorCode::not_found) << r.error().message();
  mab::GltfImportOptions o;
  o.allow_no_op = true;
  r = mab::import_gltf(serialize(none, true), &g.c, o);
  ASSERT_TRUE(r.ok()) << r.error().message();
  EXPECT_EQ(r->bytes, load(mab::test::corpus_dir() / "fc2" / "all_arrays.mab"));
  mab::GltfImportOptions reduce;
  reduce.reduce_deg = 0.1;
  r = mab::import_gltf(serialize(g.m, true), &g.c, reduce);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().field, "reduce") << r.error().message();
}

// The trajectory's translation and a constant translation moved to another constant value land
// (the constant stays a constant); everything else keeps its bytes.
TEST(GltfInputs, FarCryTrajectoryAndConstantTranslationsLand) {
  LegacyGltf g = legacy_gltf("fc2/all_arrays.mab");
  ASSERT_TRUE(g.clip.present[0]) << "all_arrays holds a trajectory translation";
  ASSERT_FALSE(g.clip.constant_translations.empty());
  auto* traj = legacy_sampler(g.m, "trajectory", "translation");  // gltf_names.hpp
  ASSERT_NE(traj, nullptr);
  auto tv = floats_of(g.m, traj->output);
  for (std::size_t i = 0; i < tv.size(); i += 3) tv[i] += 2.0f;
  set_curve(g.m, *traj, floats_of(g.m, traj->input), tv, TINYGLTF_TYPE_VEC3);
  const auto& ct = g.clip.constant_translations.front();
  auto* cs = legacy_sampler(g.m, "bone_" + std::to_string(ct.bone), "translation");
  ASSERT_NE(cs, nullptr);
  auto cv = floats_of(g.m, cs->output);
  for (std::size_t i = 0; i < cv.size(); i += 3) cv[i + 1] += 3.0f;
  set_curve(g.m, *cs, floats_of(g.m, cs->input), cv, TINYGLTF_TYPE_VEC3);
  auto r = mab::import_gltf(serialize(g.m, true), &g.c);
  ASSERT_TRUE(r.ok()) << r.error().message();
  const auto back = *mab::decode_legacy_clip(*mab::read_container(r->bytes), 0);
  ASSERT_EQ(back.trajectory_translation.size(), g.clip.trajectory_translation.size());
  for (std::size_t f = 0; f < back.trajectory_translation.size(); ++f)
    EXPECT_NEAR(back.trajectory_translation[f][0], g.clip.trajectory_translation[f][0] + 2.0f, 1e-3) << f;
  ASSERT_EQ(back.constant_translations.size(), g.clip.constant_translations.size());
  EXPECT_NEAR(back.constant_translations.front().translation[1], ct.translation[1] + 3.0f, 1e-4);
  EXPECT_EQ(back.rotations.size(), g.clip.rotations.size());
}

// A file without mab export's rig record (a tool dropped the extras) whose bone sits away from
// its parent is no flat rig: refused, saying it was exported with --skeleton.
TEST(GltfInputs, ABoneAwayFromItsParentWithoutARecordIsNoFlatRig) {
  const Template t = template_of("wd1/long_k100.mab");
  tinygltf::Model m = t.model;
  for (auto& n : m.nodes) n.extras = tinygltf::Value();
  for (auto& sc : m.scenes) sc.extras = tinygltf::Value();
  auto same = mab::import_gltf(serialize(m, true), &t.c);
  ASSERT_TRUE(same.ok()) << same.error().message();
  EXPECT_EQ(same->bytes, t.bytes);
  const int n = node_named(m, mab::hex(t.clip.bones[1].hash, 8).replace(0, 2, "bone_0x"));
  ASSERT_GE(n, 0);
  m.nodes[static_cast<std::size_t>(n)].translation = {0.5, 0, 0};
  auto r = mab::import_gltf(serialize(m, true), &t.c);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().field, "skeleton");
  EXPECT_NE(r.error().message().find("sits away from its parent"), std::string::npos) << r.error().message();
}

// Import with a skeleton that lacks some template bones (they hang from its skin root) or has
// no roots at all.
TEST(GltfInputs, ImportWithASkeletonThatLacksBones) {
  const Template t = template_of("wd1/long_k100.mab");
  GltfBuilder g;
  const auto n = g.flat_rig({"Root", "Other"});  // Pelvis and Spine are not in it
  g.j["skins"] = {{{"joints", n}, {"skeleton", 0}}};
  auto sk = mab::read_gltf_skeleton(g.text());
  ASSERT_TRUE(sk.ok());
  mab::GltfExportOptions eo;
  eo.skeleton = &*sk;
  auto out = mab::export_gltf(t.c, eo);
  ASSERT_TRUE(out.ok()) << out.error().message();
  mab::GltfImportOptions io;
  io.skeleton = &*sk;
  auto back = mab::import_gltf(*out, &t.c, io);
  ASSERT_TRUE(back.ok()) << back.error().message();
  EXPECT_EQ(back->bytes, t.bytes);
  GltfBuilder none;
  auto empty = mab::read_gltf_skeleton(none.text());
  ASSERT_TRUE(empty.ok());
  eo.skeleton = &*empty;
  io.skeleton = &*empty;
  out = mab::export_gltf(t.c, eo);
  ASSERT_TRUE(out.ok());
  back = mab::import_gltf(*out, &t.c, io);
  ASSERT_TRUE(back.ok()) << back.error().message();
  EXPECT_EQ(back->bytes, t.bytes);
}

// A constant whose stored code is not a unit quaternion (decision 3: components near their maximum,
// the implicit one clamped to 0): glTF rotations must be unit quaternions, so the export writes
// it normalised, and the import of that export keeps the stored code as it was.
TEST(GltfInputs, ANonUnitStoredRotationIsExportedNormalisedAndImportedUnchanged) {
  mab::Container c = container_of("wd1/const_only_k9.mab");
  auto* constants = c.blocks[0].section_mut(4);
  ASSERT_NE(constants, nullptr);
  std::fill(constants->begin(), constants->begin() + 6, 0xFF);
  (*constants)[5] = 0x7F;
  const auto bytes = *mab::write_container(c);
  const mab::Container damaged = *mab::read_container(bytes);
  ASSERT_FALSE(mab::quat48_valid(mab::quat48_from_bytes(std::span<const std::uint8_t, 6>(constants->data(), 6))))
      << "the damaged code should hold no valid quaternion (decoded renormalised, docs/format 9.1)";
  auto g = mab::export_gltf(damaged);
  ASSERT_TRUE(g.ok()) << g.error().message();
  const tinygltf::Model m = parse(*g);
  for (const auto& a : m.animations)
    for (const auto& s : a.samplers) {
      const auto v = floats_of(m, s.output);
      for (std::size_t k = 0; k + 3 < v.size(); k += 4) {
        const double len = double{v[k]} * v[k] + double{v[k + 1]} * v[k + 1] + double{v[k + 2]} * v[k + 2] +
                           double{v[k + 3]} * v[k + 3];
        EXPECT_NEAR(len, 1.0, 1e-5);
      }
    }
  auto back = mab::import_gltf(*g, &damaged);
  ASSERT_TRUE(back.ok()) << back.error().message();
  EXPECT_EQ(back->bytes, bytes);
}

// A matrix with an infinite entry gives no direction on that axis.
TEST(GltfInputs, AMatrixWithAnInfiniteScaleKeepsAFiniteRotation) {
  auto sk = mab::read_gltf_skeleton(matrix_rig({1e308, 0, 0, 0, 0, 1e308, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1}));
  ASSERT_TRUE(sk.ok()) << sk.error().message();
  const auto& r = sk->nodes[1].rotation;
  EXPECT_TRUE(std::isfinite(r.x) && std::isfinite(r.y) && std::isfinite(r.z) && std::isfinite(r.w));
}

}  // namespace
