// Far Cry 2 clip decoding (format 13) on a synthetic 100-track, 1,000-frame clip built here
// byte by byte: 100 keyed rotation tracks (about 3 keys in 8 frames, as the corpus
// generator's 0.4 presence rate), 100 constant rotations, 20 dense translation tracks and
// root motion. Bytes are the clip's file size; a copy of the file is the reference.
#include <mab/legacy.hpp>

#include <benchmark/benchmark.h>

#include "bench_clip.hpp"

#include <bit>
#include <cstring>
#include <random>
#include <vector>

namespace {

using bench::fastest;
using bench::must;
using Bytes = std::vector<std::uint8_t>;

constexpr std::uint32_t tracks = 100, const_rotations = 40, translated = 20, last = 999;

void put16(Bytes& b, std::uint32_t v) {
  b.push_back(static_cast<std::uint8_t>(v));
  b.push_back(static_cast<std::uint8_t>(v >> 8));
}
void put32(Bytes& b, std::uint32_t v) { put16(b, v & 0xFFFF), put16(b, v >> 16); }
void putf(Bytes& b, float f) { put32(b, std::bit_cast<std::uint32_t>(f)); }
void pad16(Bytes& b) {
  while (b.size() % 16 != 0) b.push_back(0);
}
Bytes array_header(std::uint32_t count) {
  Bytes b;
  put16(b, count), put16(b, last), put16(b, 30), put16(b, 0);
  return b;
}

Bytes fc2_file() {
  std::mt19937 rng(7);
  auto code = [&](Bytes& b) {
    const mab::Quat q = mab::quat_normalised({static_cast<float>(rng() % 2001) / 1000.0f - 1.0f,
                                              static_cast<float>(rng() % 2001) / 1000.0f - 1.0f,
                                              static_cast<float>(rng() % 2001) / 1000.0f - 1.0f, 1.0f});
    for (auto w : mab::encode_quat48(q)) put16(b, w);
  };
  std::vector<Bytes> sections(6);
  sections[0] = array_header(last + 1);
  sections[1] = array_header(last + 1);
  for (std::uint32_t f = 0; f <= last; ++f) {
    for (int i = 0; i < 3; ++i) putf(sections[0], static_cast<float>(f) * 0.01f);
    code(sections[1]);
  }
  sections[2] = array_header(const_rotations);
  for (std::uint32_t i = 0; i < const_rotations; ++i) code(sections[2]);
  Bytes& k = sections[3] = array_header(tracks);
  const std::uint32_t groups = (last >> 3) + 1;
  const std::size_t table = k.size();
  k.resize(table + 4 * groups);
  for (std::uint32_t g = 0; g < groups; ++g) {
    const auto off = static_cast<std::uint32_t>(k.size());
    std::memcpy(k.data() + table + 4 * g, &off, 4);
    for (std::uint32_t t = 0; t < tracks; ++t) code(k);
    std::vector<std::uint8_t> presence(tracks, 0x80);
    for (auto& p : presence)
      for (unsigned i = 0; i < 7; ++i)
        if (8 * g + i + 1 <= last && rng() % 10 < 4) p = static_cast<std::uint8_t>(p | 1u << i);
    k.insert(k.end(), presence.begin(), presence.end());
    for (auto p : presence)
      for (int i = 0; i < std::popcount(static_cast<unsigned>(p & 0x7F)); ++i) code(k);
  }
  sections[4] = array_header(0);
  sections[5] = array_header(translated);
  for (std::uint32_t f = 0; f <= last; ++f)
    for (std::uint32_t t = 0; t < translated * 3; ++t) putf(sections[5], static_cast<float>(t + f));
  for (auto& s : sections) pad16(s);

  Bytes file = {0x4C, 0, 1, 0};
  put32(file, 0);
  file.resize(16, 0);
  // Masks (format 13): constant rotations on bones 0-39, keyed 40-139, translations 140-159.
  std::uint32_t masks[4][5] = {};
  for (std::uint32_t b = 0; b < const_rotations; ++b) masks[0][b / 32] |= 1u << (b % 32);
  for (std::uint32_t b = 40; b < 40 + tracks; ++b) masks[1][b / 32] |= 1u << (b % 32);
  for (std::uint32_t b = 140; b < 140 + translated; ++b) masks[3][b / 32] |= 1u << (b % 32);
  for (auto& m : masks)
    for (auto w : m) put32(file, w);
  for (int i = 0; i < 8; ++i) putf(file, i % 4 == 3 ? 1.0f : 0.0f);
  file.insert(file.end(), {'A', 'n', 'D', 0x1A});
  putf(file, static_cast<float>(last) / 30.0f);
  std::uint32_t pos = 0xA0;
  for (std::size_t s = 0; s < 9; ++s) {
    // Slot 4 (constant translations) is absent: no bone has one.
    const bool present = s < 6 && s != 4;
    put32(file, present ? pos : 0);
    if (present) pos += static_cast<std::uint32_t>(sections[s].size());
  }
  put32(file, 0);
  for (std::size_t s = 0; s < 6; ++s)
    if (s != 4) file.insert(file.end(), sections[s].begin(), sections[s].end());
  return file;
}

struct Fixture {
  Bytes file;
  mab::Container container;
};

const Fixture& fixture() {
  static const Fixture f = [] {
    Fixture out;
    out.file = fc2_file();
    out.container = must(mab::read_container(out.file));
    must(mab::decode_legacy_clip(out.container, 0));
    return out;
  }();
  return f;
}

void BM_ReferenceCopyFile(benchmark::State& state) {
  bench::reference_copy(state, fixture().file);
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * fixture().file.size()));
}
BENCHMARK(BM_ReferenceCopyFile)->Unit(benchmark::kMicrosecond)->ComputeStatistics("min", fastest);

// The sections into tracks (the container already parsed), as `mab info` and an edit use it.
void BM_DecodeLegacyClip(benchmark::State& state) {
  const auto& f = fixture();
  std::size_t keys = 0;
  for (auto _ : state) {
    auto d = mab::decode_legacy_clip(f.container, 0);
    keys = d->rotations.size();
    benchmark::DoNotOptimize(d);
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * f.file.size()));
  state.counters["tracks"] = static_cast<double>(keys);
}
BENCHMARK(BM_DecodeLegacyClip)->Unit(benchmark::kMicrosecond)->ComputeStatistics("min", fastest);

// From the file's bytes: parse the container, then decode.
void BM_ReadAndDecodeLegacyFile(benchmark::State& state) {
  const auto& f = fixture();
  for (auto _ : state) {
    auto c = mab::read_container(f.file);
    auto d = mab::decode_legacy_clip(*c, 0);
    benchmark::DoNotOptimize(d);
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * f.file.size()));
}
BENCHMARK(BM_ReadAndDecodeLegacyFile)->Unit(benchmark::kMicrosecond)->ComputeStatistics("min", fastest);

}  // namespace

BENCHMARK_MAIN();
