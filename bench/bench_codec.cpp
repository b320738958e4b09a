// Rotation codec throughput: a clip of 100 animated bones x 1000 keys at mixed bit depths.
// Bytes are bytes of JointRotations section; items are quaternions.
#include <mab/quat.hpp>
#include <mab/requantise.hpp>
#include <mab/rotation_codec.hpp>

#include <benchmark/benchmark.h>

#include "bench_clip.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

namespace {

using bench::bone_count;
using bench::fastest;
using bench::key_count;
using bench::make_track;
using bench::must;

struct Clip {
  std::vector<std::vector<mab::Quat>> tracks;
  std::vector<std::uint8_t> depths;
  mab::RotationStream stream;
  std::vector<std::uint8_t> bytes;
};

const Clip& clip() {
  static const Clip c = [] {
    Clip out;
    std::mt19937_64 rng(2024);
    std::vector<mab::QuantisedTrack> quantised;
    for (std::uint32_t b = 0; b < bone_count; ++b) {
      out.tracks.push_back(make_track(rng));
      const auto nbits = bench::depth_of(b);
      out.depths.push_back(nbits);
      quantised.push_back(must(mab::quantise_track(out.tracks.back(), nbits)));
    }
    out.stream = must(mab::build_rotation_stream(quantised, key_count));
    out.bytes = must(mab::encode_rotation_stream(out.stream, key_count, out.depths));
    return out;
  }();
  return c;
}

void set_counters(benchmark::State& state, std::size_t bytes_per_iter, std::size_t quats_per_iter) {
  const auto iterations = static_cast<std::int64_t>(state.iterations());
  state.SetBytesProcessed(iterations * static_cast<std::int64_t>(bytes_per_iter));
  state.SetItemsProcessed(iterations * static_cast<std::int64_t>(quats_per_iter));
}

// Reference for ratios (the machine's speed cancels out): copying the stream's bytes.
void BM_ReferenceCopyStream(benchmark::State& state) {
  bench::reference_copy(state, clip().bytes);
  set_counters(state, clip().bytes.size(), std::size_t{bone_count} * key_count);
}
BENCHMARK(BM_ReferenceCopyStream)->Unit(benchmark::kMicrosecond)->ComputeStatistics("min", fastest);

void BM_ReferenceHashStream(benchmark::State& state) {
  bench::reference_hash(state, clip().bytes);
  set_counters(state, clip().bytes.size(), std::size_t{bone_count} * key_count);
}
BENCHMARK(BM_ReferenceHashStream)->Unit(benchmark::kMicrosecond)->ComputeStatistics("min", fastest);

void BM_DecodeStreamCodes(benchmark::State& state) {
  const Clip& c = clip();
  for (auto _ : state) {
    auto s = mab::decode_rotation_stream(c.bytes, key_count, c.depths, 0);
    benchmark::DoNotOptimize(s);
  }
  set_counters(state, c.bytes.size(), std::size_t{bone_count} * key_count);
  state.counters["stream_bytes"] = static_cast<double>(c.bytes.size());
}
BENCHMARK(BM_DecodeStreamCodes)->Unit(benchmark::kMicrosecond)->ComputeStatistics("min", fastest);

void BM_DecodeStreamToQuats(benchmark::State& state) {
  const Clip& c = clip();
  for (auto _ : state) {
    auto s = mab::decode_rotation_stream(c.bytes, key_count, c.depths, 0);
    auto q = mab::decode_rotations(*s, key_count, c.depths);
    benchmark::DoNotOptimize(q);
  }
  set_counters(state, c.bytes.size(), std::size_t{bone_count} * key_count);
}
BENCHMARK(BM_DecodeStreamToQuats)->Unit(benchmark::kMicrosecond)->ComputeStatistics("min", fastest);

void BM_EncodeStreamFromCodes(benchmark::State& state) {
  const Clip& c = clip();
  for (auto _ : state) {
    auto bytes = mab::encode_rotation_stream(c.stream, key_count, c.depths);
    benchmark::DoNotOptimize(bytes);
  }
  set_counters(state, c.bytes.size(), std::size_t{bone_count} * key_count);
}
BENCHMARK(BM_EncodeStreamFromCodes)->Unit(benchmark::kMicrosecond)->ComputeStatistics("min", fastest);

// Quaternions to bytes at the fixed depths: re-quantise every track, then pack.
void BM_EncodeQuatsAtFixedDepth(benchmark::State& state) {
  const Clip& c = clip();
  for (auto _ : state) {
    std::vector<mab::QuantisedTrack> q;
    q.reserve(bone_count);
    for (std::uint32_t b = 0; b < bone_count; ++b) q.push_back(*mab::quantise_track(c.tracks[b], c.depths[b]));
    auto s = mab::build_rotation_stream(q, key_count);
    auto bytes = mab::encode_rotation_stream(*s, key_count, c.depths);
    benchmark::DoNotOptimize(bytes);
  }
  set_counters(state, c.bytes.size(), std::size_t{bone_count} * key_count);
}
BENCHMARK(BM_EncodeQuatsAtFixedDepth)->Unit(benchmark::kMillisecond)->ComputeStatistics("min", fastest);

// Depth search to 0.01 degrees for 10 of the bones (items: quaternions searched).
void BM_ChooseBitDepth(benchmark::State& state) {
  const Clip& c = clip();
  for (auto _ : state) {
    for (std::uint32_t b = 0; b < 10; ++b) {
      auto t = mab::choose_bit_depth(c.tracks[b]);
      benchmark::DoNotOptimize(t);
    }
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * 10 * key_count));
}
BENCHMARK(BM_ChooseBitDepth)->Unit(benchmark::kMillisecond)->ComputeStatistics("min", fastest);

std::vector<mab::Quat48> quat48_words() {
  std::mt19937_64 rng(48);
  std::vector<mab::Quat48> out(4096);
  for (auto& w : out) {
    const std::uint64_t r = rng();
    w = {static_cast<std::uint16_t>(r), static_cast<std::uint16_t>(r >> 16),
         static_cast<std::uint16_t>((r >> 32) & 0x7FFF)};
  }
  return out;
}

void BM_Quat48Decode(benchmark::State& state) {
  const auto words = quat48_words();
  std::vector<mab::Quat> out(words.size());
  for (auto _ : state) {
    for (std::size_t i = 0; i < words.size(); ++i) out[i] = mab::decode_quat48(words[i]);
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  set_counters(state, words.size() * 6, words.size());
}
BENCHMARK(BM_Quat48Decode)->ComputeStatistics("min", fastest);

void BM_Quat48Encode(benchmark::State& state) {
  const auto words = quat48_words();
  std::vector<mab::Quat> quats;
  for (const auto& w : words) quats.push_back(mab::decode_quat48(w));
  std::vector<mab::Quat48> out(quats.size());
  for (auto _ : state) {
    for (std::size_t i = 0; i < quats.size(); ++i) out[i] = mab::encode_quat48(quats[i]);
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  set_counters(state, quats.size() * 6, quats.size());
}
BENCHMARK(BM_Quat48Encode)->ComputeStatistics("min", fastest);

}  // namespace

BENCHMARK_MAIN();
