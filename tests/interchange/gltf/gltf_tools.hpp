// Test helpers: glTF files changed the way a modder and Blender change them (a key set on a new
// frame, a whole animation resampled on a frame grid as "Always Sample Animations" does, the
// extras a tool drops), written back with the library's own serializer.
#pragma once

#include <mab/gltf.hpp>

#include "interchange/gltf/gltf_document.hpp"
#include "interchange/gltf/gltf_rig.hpp"
#include "interchange/gltf/gltf_sample.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

namespace mab::test {

inline tinygltf::Model parse_gltf(const std::vector<std::uint8_t>& bytes) {
  auto m = mab::gltf::parse(bytes, {}, mab::default_limits);
  EXPECT_TRUE(m.ok()) << (m ? "" : m.error().message());
  return m ? std::move(m).value() : tinygltf::Model{};
}

inline std::vector<std::uint8_t> write_gltf(const tinygltf::Model& m, bool binary = true) {
  auto b = mab::gltf::serialize(m, binary);
  EXPECT_TRUE(b.ok());
  return b ? std::move(b).value() : std::vector<std::uint8_t>{};
}

inline int node_named(const tinygltf::Model& m, const std::string& name) {
  for (std::size_t i = 0; i < m.nodes.size(); ++i)
    if (m.nodes[i].name == name) return static_cast<int>(i);
  return -1;
}

// A node's rest translation (glTF: absent is 0, 0, 0).
inline std::vector<float> rest_translation(const tinygltf::Node& n) {
  std::vector<float> rest{0, 0, 0};
  for (std::size_t i = 0; i < n.translation.size() && i < 3; ++i) rest[i] = static_cast<float>(n.translation[i]);
  return rest;
}

// A sampler's keys: times and `width` floats per key.
struct SamplerKeys {
  std::vector<float> t, v;
  unsigned width = 4;
};

inline SamplerKeys read_sampler(const tinygltf::Model& m, const tinygltf::Animation& a, int sampler, unsigned width) {
  SamplerKeys k;
  k.width = width;
  auto c = mab::gltf::read_curve(m, a, sampler, width, "test");
  EXPECT_TRUE(c.ok()) << (c ? "" : c.error().message());
  if (c) k.t = c->times, k.v = c->values;
  return k;
}

// Points `sampler` at new LINEAR accessors holding `k`, appended to buffer 0.
inline void write_sampler(tinygltf::Model& m, tinygltf::Animation& a, int sampler, const SamplerKeys& k) {
  auto& data = m.buffers.at(0).data;
  auto append = [&](const std::vector<float>& f, int type) {
    tinygltf::BufferView view;
    view.buffer = 0;
    view.byteOffset = data.size();
    view.byteLength = f.size() * sizeof(float);
    const std::size_t at = data.size();
    data.resize(at + view.byteLength);
    std::memcpy(data.data() + at, f.data(), view.byteLength);
    m.bufferViews.push_back(view);
    tinygltf::Accessor acc;
    acc.bufferView = static_cast<int>(m.bufferViews.size() - 1);
    acc.componentType = TINYGLTF_COMPONENT_TYPE_FLOAT;
    acc.type = type;
    acc.count = type == TINYGLTF_TYPE_SCALAR ? f.size() : f.size() / (type == TINYGLTF_TYPE_VEC3 ? 3 : 4);
    if (type == TINYGLTF_TYPE_SCALAR) acc.minValues = {f.front()}, acc.maxValues = {f.back()};
    m.accessors.push_back(acc);
    return static_cast<int>(m.accessors.size() - 1);
  };
  auto& s = a.samplers.at(static_cast<std::size_t>(sampler));
  s.input = append(k.t, TINYGLTF_TYPE_SCALAR);
  s.output = append(k.v, k.width == 3 ? TINYGLTF_TYPE_VEC3 : TINYGLTF_TYPE_VEC4);
  s.interpolation = "LINEAR";
}

// The sampler of `path` on `node` in animation `anim`, or -1.
// A new channel of `path` on `node`, keys `k`, in animation `anim`.
inline void add_channel(tinygltf::Model& m, std::size_t anim, int node, const std::string& path, const SamplerKeys& k) {
  auto& a = m.animations.at(anim);
  a.samplers.emplace_back();
  tinygltf::AnimationChannel ch;
  ch.sampler = static_cast<int>(a.samplers.size() - 1);
  ch.target_node = node;
  ch.target_path = path;
  a.channels.push_back(ch);
  write_sampler(m, a, ch.sampler, k);
}

inline int sampler_of(const tinygltf::Model& m, std::size_t anim, int node, const std::string& path) {
  for (const auto& ch : m.animations.at(anim).channels)
    if (ch.target_node == node && ch.target_path == path) return ch.sampler;
  return -1;
}

// What a tool evaluating linear keys component by component gives at time s (Blender's
// LINEAR F-curves, the quaternion normalised afterwards: nlerp); held outside the keys.
inline std::vector<float> lerp_at(const SamplerKeys& k, double s) {
  const unsigned w = k.width;
  std::size_t i = 0;
  while (i + 1 < k.t.size() && k.t[i + 1] <= s) ++i;
  std::vector<double> v(w);
  if (i + 1 >= k.t.size() || s <= k.t.front()) {
    const std::size_t at = s <= k.t.front() ? 0 : i;
    for (unsigned c = 0; c < w; ++c) v[c] = k.v[at * w + c];
  } else {
    const double u = (s - k.t[i]) / (double{k.t[i + 1]} - k.t[i]);
    for (unsigned c = 0; c < w; ++c) v[c] = k.v[i * w + c] + (k.v[(i + 1) * w + c] - k.v[i * w + c]) * u;
  }
  if (w == 4) {
    const double n = std::sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2] + v[3] * v[3]);
    for (auto& x : v) x /= n;
  }
  return {v.begin(), v.end()};
}

// Blender's "Always Sample Animations": every channel of every animation sampled at each whole
// frame of a `fps` scene from 0 to the animation's last key (the last whole frame before it).
inline void resample_like_blender(tinygltf::Model& m, double fps) {
  for (auto& a : m.animations) {
    std::vector<SamplerKeys> keys;
    double end = 0;
    for (const auto& ch : a.channels) {
      keys.push_back(read_sampler(m, a, ch.sampler, ch.target_path == "rotation" ? 4 : 3));
      end = std::max(end, double{keys.back().t.back()});
    }
    for (std::size_t c = 0; c < a.channels.size(); ++c) {
      SamplerKeys s;
      s.width = keys[c].width;
      // Frames are times x fps in float: 100/30 s is frame 99.99999, which Blender samples.
      for (int f = 0; f <= static_cast<int>(std::floor(end * fps + 1e-4)); ++f) {
        s.t.push_back(static_cast<float>(f / fps));
        const auto v = lerp_at(keys[c], s.t.back());
        s.v.insert(s.v.end(), v.begin(), v.end());
      }
      write_sampler(m, a, a.channels[c].sampler, s);
    }
  }
}

// `q` turned by `deg` degrees about z (q * turn), as four floats.
inline std::vector<float> turned(const float* q, double deg) {
  const double h = deg * 3.14159265358979323846 / 360.0;
  const mab::Quat r = mab::quat_mul({q[0], q[1], q[2], q[3]},
                                    {0.0f, 0.0f, static_cast<float>(std::sin(h)), static_cast<float>(std::cos(h))});
  return {r.x, r.y, r.z, r.w};
}

// A key inserted at time s into a rotation sampler: the sampler's own value there turned by `deg`.
inline std::vector<float> insert_key(SamplerKeys& k, float s, double deg) {
  const auto here = lerp_at(k, s);
  const auto v = turned(here.data(), deg);
  std::size_t i = 0;
  while (i < k.t.size() && k.t[i] < s) ++i;
  k.t.insert(k.t.begin() + static_cast<std::ptrdiff_t>(i), s);
  k.v.insert(k.v.begin() + static_cast<std::ptrdiff_t>(4 * i), v.begin(), v.end());
  return v;
}

// What Blender's exporter leaves out with its default settings: every extras object.
inline void drop_extras(tinygltf::Model& m) {
  for (auto& n : m.nodes) n.extras = tinygltf::Value();
  for (auto& a : m.animations) {
    a.extras = tinygltf::Value();
    for (auto& c : a.channels) c.extras = tinygltf::Value();
  }
  for (auto& s : m.scenes) s.extras = tinygltf::Value();
  m.asset.extras = tinygltf::Value();
}

}  // namespace mab::test
