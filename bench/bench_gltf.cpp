// glTF export and import throughput on the bench clip: 100 animated bones x 1000 keys at mixed
// bit depths (the rotation codec benchmark's clip, bench_codec.cpp), as a Watch Dogs .mab.
// Bytes are bytes of the .mab: its input size for export, its output size for import.
//   bench_gltf [benchmark flags]              the benchmarks
//   bench_gltf --write-clip=PATH [--glb=PATH] the bench clip as a .mab (and its GLB export),
//                                             for the process-level timings of scripts/bench/gltf
#include <mab/decode_clip.hpp>
#include <mab/encode_clip.hpp>
#include <mab/file_io.hpp>
#include <mab/gltf.hpp>

#include <benchmark/benchmark.h>

#include "bench_clip.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

namespace {

using bench::fastest;
using bench::must;
using bench::normalised;

struct Fixture {
  std::vector<std::uint8_t> mab;  // the .mab
  mab::Container container;
  std::vector<std::uint8_t> glb, gltf, glb_edited;
};

const Fixture& fixture() {
  static const Fixture f = [] {
    Fixture out;
    out.mab = bench::wd1_bench_mab();
    out.container = must(mab::read_container(out.mab));
    mab::GltfExportOptions o;
    o.binary = true;
    out.glb = must(mab::export_gltf(out.container, o));
    o.binary = false;
    out.gltf = must(mab::export_gltf(out.container, o));
    // One key of one bone turned: what a small edit in Blender gives.
    const auto back = must(mab::decode_clip(out.container));
    mab::Clip edited = back.clip;
    edited.bones[10].keys[500] = normalised(0.1, 0.2, 0.3, 0.9);
    const auto edited_mab = must(mab::encode_clip(back, edited));
    o.binary = true;
    out.glb_edited = must(mab::export_gltf(must(mab::read_container(edited_mab)), o));
    return out;
  }();
  return f;
}

void bytes_per_iteration(benchmark::State& state, std::size_t bytes) {
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) * static_cast<std::int64_t>(bytes));
}

// References in the same process, as in bench_codec: a copy and an FNV-1a hash of the .mab.
void BM_ReferenceCopyMab(benchmark::State& state) {
  bench::reference_copy(state, fixture().mab);
  bytes_per_iteration(state, fixture().mab.size());
}
BENCHMARK(BM_ReferenceCopyMab)->Unit(benchmark::kMicrosecond)->ComputeStatistics("min", fastest);

void BM_ReferenceHashMab(benchmark::State& state) {
  bench::reference_hash(state, fixture().mab);
  bytes_per_iteration(state, fixture().mab.size());
}
BENCHMARK(BM_ReferenceHashMab)->Unit(benchmark::kMicrosecond)->ComputeStatistics("min", fastest);

// `mab export`'s work after reading the file: parse, decode every block, build, serialise.
void export_bench(benchmark::State& state, bool binary) {
  const auto& f = fixture();
  mab::GltfExportOptions o;
  o.binary = binary;
  for (auto _ : state) {
    auto c = mab::read_container(f.mab);
    auto g = mab::export_gltf(*c, o);
    benchmark::DoNotOptimize(g->data());
  }
  bytes_per_iteration(state, f.mab.size());
}
void BM_ExportGlb(benchmark::State& state) { export_bench(state, true); }
void BM_ExportGltfText(benchmark::State& state) { export_bench(state, false); }
BENCHMARK(BM_ExportGlb)->Unit(benchmark::kMillisecond)->ComputeStatistics("min", fastest);
BENCHMARK(BM_ExportGltfText)->Unit(benchmark::kMillisecond)->ComputeStatistics("min", fastest);

// `mab import --template`'s work after reading the files.
void import_bench(benchmark::State& state, const std::vector<std::uint8_t>& g) {
  const auto& f = fixture();
  std::size_t out = 0;
  for (auto _ : state) {
    auto c = mab::read_container(f.mab);
    auto r = mab::import_gltf(g, &*c);
    if (!r) {
      state.SkipWithError(r.error().message().c_str());
      break;
    }
    out = r->bytes.size();
    benchmark::DoNotOptimize(r->bytes.data());
  }
  bytes_per_iteration(state, out);
}
void BM_ImportGlbUnedited(benchmark::State& state) { import_bench(state, fixture().glb); }
void BM_ImportGltfTextUnedited(benchmark::State& state) { import_bench(state, fixture().gltf); }
void BM_ImportGlbOneKeyEdited(benchmark::State& state) { import_bench(state, fixture().glb_edited); }
BENCHMARK(BM_ImportGlbUnedited)->Unit(benchmark::kMillisecond)->ComputeStatistics("min", fastest);
BENCHMARK(BM_ImportGltfTextUnedited)->Unit(benchmark::kMillisecond)->ComputeStatistics("min", fastest);
BENCHMARK(BM_ImportGlbOneKeyEdited)->Unit(benchmark::kMillisecond)->ComputeStatistics("min", fastest);

// A new clip from the GLB (`--game wd1`): every chunk re-quantised at a chosen depth.
void BM_ImportGlbNewClip(benchmark::State& state) {
  const auto& f = fixture();
  mab::GltfImportOptions o;
  o.game = mab::Game::watch_dogs;
  std::size_t out = 0;
  for (auto _ : state) {
    auto r = mab::import_gltf(f.glb, nullptr, o);
    out = r->bytes.size();
    benchmark::DoNotOptimize(r->bytes.data());
  }
  bytes_per_iteration(state, out);
}
BENCHMARK(BM_ImportGlbNewClip)->Unit(benchmark::kMillisecond)->ComputeStatistics("min", fastest);

}  // namespace

int main(int argc, char** argv) {
  std::string clip_path, glb_path;
  std::vector<char*> rest{argv[0]};
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a.rfind("--write-clip=", 0) == 0) clip_path = a.substr(13);
    else if (a.rfind("--glb=", 0) == 0) glb_path = a.substr(6);
    else rest.push_back(argv[i]);
  }
  if (!clip_path.empty()) {
    const auto& f = fixture();
    if (auto st = mab::write_file_atomic(clip_path, f.mab); !st) {
      std::fprintf(stderr, "%s\n", st.error().message().c_str());
      return 1;
    }
    if (!glb_path.empty())
      if (auto st = mab::write_file_atomic(glb_path, f.glb); !st) return 1;
    std::printf("wrote %s (%zu bytes)\n", clip_path.c_str(), f.mab.size());
    return 0;
  }
  int n = static_cast<int>(rest.size());
  benchmark::Initialize(&n, rest.data());
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
