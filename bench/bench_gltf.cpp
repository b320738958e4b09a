// glTF export and import throughput on the bench clip: 100 animated bones x 1000 keys at mixed
// bit depths (the rotation codec benchmark's clip, bench_codec.cpp), as a Watch Dogs .mab.
// Bytes are bytes of the .mab: its input size for export, its output size for import.
//   bench_gltf [benchmark flags]              the benchmarks
//   bench_gltf --write-clip=PATH [--glb=PATH] the bench clip as a .mab (and its GLB export),
//                                             for the process-level timings of scripts/bench_gltf
#include <mab/codec_file.hpp>
#include <mab/file_io.hpp>
#include <mab/gltf.hpp>

#include <benchmark/benchmark.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

namespace {

constexpr std::uint32_t bone_count = 100;
constexpr std::uint32_t key_count = 1000;

template <class T>
T must(mab::Result<T> r) {
  if (!r.ok()) {
    std::fprintf(stderr, "bench setup failed: %s\n", r.error().message().c_str());
    std::exit(1);
  }
  return std::move(r).value();
}

mab::Quat normalised(double x, double y, double z, double w) {
  const double n = std::sqrt(x * x + y * y + z * z + w * w);
  return {static_cast<float>(x / n), static_cast<float>(y / n), static_cast<float>(z / n), static_cast<float>(w / n)};
}

// As bench_codec.cpp: a bone turning smoothly about a wandering axis.
std::vector<mab::Quat> make_track(std::mt19937_64& rng) {
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

struct Fixture {
  std::vector<std::uint8_t> mab;   // the .mab
  mab::Container container;
  std::vector<std::uint8_t> glb, gltf, glb_edited;
};

const Fixture& fixture() {
  static const Fixture f = [] {
    Fixture out;
    const auto empty = must(mab::new_container(mab::Game::watch_dogs));
    const auto d = must(mab::decode_clip(empty));
    mab::Clip clip = d.clip;
    clip.key_times.clear();
    for (std::uint32_t k = 0; k < key_count; ++k) clip.key_times.push_back(4 * k);  // 30 keys/s at 120 ticks/s
    clip.duration = static_cast<float>(clip.key_times.back() / 120.0);
    std::mt19937_64 rng(2024);
    for (std::uint32_t b = 0; b < bone_count; ++b) {
      mab::ClipBone bone;
      bone.hash = mab::bone_hash("bone_" + std::to_string(b));
      bone.set_kind(mab::BoneKind::animated);
      bone.set_bit_depth(4 + (b * 7) % 13);  // 4..16, as bench_codec
      bone.keys = make_track(rng);
      clip.bones.push_back(std::move(bone));
    }
    out.mab = must(mab::encode_clip(d, clip));
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

double fastest(const std::vector<double>& v) { return *std::min_element(v.begin(), v.end()); }

void bytes_per_iteration(benchmark::State& state, std::size_t bytes) {
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) * static_cast<std::int64_t>(bytes));
}

// References in the same process, as in bench_codec: a copy and an FNV-1a hash of the .mab.
void BM_ReferenceCopyMab(benchmark::State& state) {
  const auto& f = fixture();
  std::vector<std::uint8_t> out(f.mab.size());
  for (auto _ : state) {
    std::copy(f.mab.begin(), f.mab.end(), out.begin());
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  bytes_per_iteration(state, f.mab.size());
}
BENCHMARK(BM_ReferenceCopyMab)->Unit(benchmark::kMicrosecond)->ComputeStatistics("min", fastest);

void BM_ReferenceHashMab(benchmark::State& state) {
  const auto& f = fixture();
  for (auto _ : state) {
    std::uint64_t h = 14695981039346656037ull;
    for (const std::uint8_t b : f.mab) h = (h ^ b) * 1099511628211ull;
    benchmark::DoNotOptimize(h);
  }
  bytes_per_iteration(state, f.mab.size());
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
    if (a.rfind("--write-clip=", 0) == 0)
      clip_path = a.substr(13);
    else if (a.rfind("--glb=", 0) == 0)
      glb_path = a.substr(6);
    else
      rest.push_back(argv[i]);
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
