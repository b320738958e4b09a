// The bench clip shared by the benchmarks: 100 animated bones x 1000 keys, each bone turning
// smoothly about a wandering axis (seeded, so every run and every benchmark sees the same
// rotations), plus the helpers both benchmark programs use.
#pragma once

#include <mab/decode_clip.hpp>
#include <mab/encode_clip.hpp>
#include <mab/quat.hpp>
#include <mab/result.hpp>

#include <benchmark/benchmark.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

namespace bench {

inline constexpr std::uint32_t bone_count = 100;
inline constexpr std::uint32_t key_count = 1000;

template <class T>
T must(mab::Result<T> r) {
  if (!r.ok()) {
    std::fprintf(stderr, "bench setup failed: %s\n", r.error().message().c_str());
    std::exit(1);
  }
  return std::move(r).value();
}

inline mab::Quat normalised(double x, double y, double z, double w) {
  const double n = std::sqrt(x * x + y * y + z * z + w * w);
  return {static_cast<float>(x / n), static_cast<float>(y / n), static_cast<float>(z / n), static_cast<float>(w / n)};
}

// A bone turning smoothly: random axis and speed per bone, a little jitter per key.
inline std::vector<mab::Quat> make_track(std::mt19937_64& rng) {
  std::normal_distribution<double> g(0.0, 1.0);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  std::vector<mab::Quat> out;
  double q[4] = {g(rng), g(rng), g(rng), g(rng)};
  const double speed = u(rng) * 4.0 * 3.14159265358979 / 360.0;
  double axis[3] = {g(rng), g(rng), g(rng)};
  for (std::uint32_t k = 0; k < key_count; ++k) {
    const mab::Quat n = normalised(q[0], q[1], q[2], q[3]);
    out.push_back(n);
    for (double& a : axis) a += 0.05 * g(rng);
    const double len = std::sqrt(axis[0] * axis[0] + axis[1] * axis[1] + axis[2] * axis[2]);
    const double s = std::sin(speed) / len, c = std::cos(speed);
    const double r[4] = {axis[0] * s, axis[1] * s, axis[2] * s, c};
    const double p[4] = {n.x, n.y, n.z, n.w};
    q[0] = r[3] * p[0] + r[0] * p[3] + r[1] * p[2] - r[2] * p[1];
    q[1] = r[3] * p[1] - r[0] * p[2] + r[1] * p[3] + r[2] * p[0];
    q[2] = r[3] * p[2] + r[0] * p[1] - r[1] * p[0] + r[2] * p[3];
    q[3] = r[3] * p[3] - r[0] * p[0] - r[1] * p[1] - r[2] * p[2];
  }
  return out;
}

// Bit depth of bone b: 4..16, mixed.
inline std::uint8_t depth_of(std::uint32_t b) { return static_cast<std::uint8_t>(4 + (b * 7) % 13); }

// The bench clip as a Watch Dogs .mab: 100 bones, 1000 keys 4 ticks apart (30 keys/s at 120
// ticks/s, decision 7), depths 4..16. 464,520 bytes.
inline std::vector<std::uint8_t> wd1_bench_mab() {
  const auto empty = must(mab::new_container(mab::Game::watch_dogs));
  const auto d = must(mab::decode_clip(empty));
  mab::Clip clip = d.clip;
  clip.key_times.clear();
  for (std::uint32_t k = 0; k < key_count; ++k) clip.key_times.push_back(4 * k);
  clip.duration = static_cast<float>(clip.key_times.back() / 120.0);
  std::mt19937_64 rng(2024);
  for (std::uint32_t b = 0; b < bone_count; ++b) {
    mab::ClipBone bone;
    bone.hash = mab::bone_hash("bone_" + std::to_string(b));
    bone.set_kind(mab::BoneKind::animated);
    bone.set_bit_depth(depth_of(b));
    bone.keys = make_track(rng);
    clip.bones.push_back(std::move(bone));
  }
  return must(mab::encode_clip(d, clip));
}

// Best of the repetitions, reported next to the median: other load on the machine only ever
// slows a run down, so the fastest run is the closest to the code's own speed.
inline double fastest(const std::vector<double>& v) { return *std::min_element(v.begin(), v.end()); }

// In-process references for ratios (the machine's speed cancels out), run on the bytes a
// benchmark measures: a plain copy (bound by memory) and FNV-1a (one dependent multiply per
// byte, bound by the clock, which on this machine varies between runs more than memory does).
inline void reference_copy(benchmark::State& state, const std::vector<std::uint8_t>& bytes) {
  std::vector<std::uint8_t> out(bytes.size());
  for (auto _ : state) {
    std::copy(bytes.begin(), bytes.end(), out.begin());
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
}

inline void reference_hash(benchmark::State& state, const std::vector<std::uint8_t>& bytes) {
  for (auto _ : state) {
    std::uint64_t h = 14695981039346656037ull;
    for (const std::uint8_t b : bytes) h = (h ^ b) * 1099511628211ull;
    benchmark::DoNotOptimize(h);
  }
}

}  // namespace bench
