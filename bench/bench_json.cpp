// "mabkit-clip" JSON export and import throughput on the bench clip (bench_clip.hpp) as a
// Watch Dogs .mab. Bytes are bytes of the JSON document (its output size for export, its
// input size for import), with a copy and an FNV-1a hash of the document as references.
#include <mab/decode_clip.hpp>
#include <mab/json.hpp>

#include <benchmark/benchmark.h>

#include "bench_clip.hpp"

#include <string>
#include <vector>

namespace {

using bench::fastest;
using bench::must;

// The exports run on one thread and on all (threads = 0), timed by the wall clock.
void on_one_thread_and_all(benchmark::internal::Benchmark* b) {
  b->ArgName("threads")
      ->Arg(1)
      ->Arg(0)
      ->Unit(benchmark::kMillisecond)
      ->UseRealTime()
      ->ComputeStatistics("min", fastest);
}

struct Fixture {
  std::vector<std::uint8_t> mab;
  mab::Container container;
  std::string text;     // version 2, what `mab export` writes
  std::string text_v1;  // version 1 (with the codes)
  std::vector<std::uint8_t> text_bytes;
};

mab::JsonExportOptions version_1() {
  mab::JsonExportOptions o;
  o.version = 1;
  return o;
}

const Fixture& fixture() {
  static const Fixture f = [] {
    Fixture out;
    out.mab = bench::wd1_bench_mab();
    out.container = must(mab::read_container(out.mab));
    out.text = must(mab::export_block_json(out.container, 0));
    out.text_v1 = must(mab::export_block_json(out.container, 0, version_1()));
    out.text_bytes.assign(out.text.begin(), out.text.end());
    return out;
  }();
  return f;
}

void bytes_per_iteration(benchmark::State& state, std::size_t bytes) {
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) * static_cast<std::int64_t>(bytes));
}

void BM_ReferenceCopyJson(benchmark::State& state) {
  bench::reference_copy(state, fixture().text_bytes);
  bytes_per_iteration(state, fixture().text.size());
}
BENCHMARK(BM_ReferenceCopyJson)->Unit(benchmark::kMicrosecond)->ComputeStatistics("min", fastest);

void BM_ReferenceHashJson(benchmark::State& state) {
  bench::reference_hash(state, fixture().text_bytes);
  bytes_per_iteration(state, fixture().text.size());
}
BENCHMARK(BM_ReferenceHashJson)->Unit(benchmark::kMicrosecond)->ComputeStatistics("min", fastest);

// `mab export -o clip.json` after reading the file: parse, decode, write the version 2
// document (export_block_json, the command's path). threads:1 is one core (the per-core
// target); threads:0 is what `mab export` uses.
void BM_ExportJson(benchmark::State& state) {
  const auto& f = fixture();
  mab::JsonExportOptions options;
  options.threads = static_cast<unsigned>(state.range(0));
  for (auto _ : state) {
    auto c = mab::read_container(f.mab);
    auto text = mab::export_block_json(*c, 0, options);
    benchmark::DoNotOptimize(text->data());
  }
  bytes_per_iteration(state, f.text.size());
}
BENCHMARK(BM_ExportJson)->Apply(on_one_thread_and_all);

// The version 1 document (codes included) from a decoded clip, as `mab export` wrote it before
// version 2: decode_clip, then export_json (which decodes the container again for the codes).
void BM_ExportJsonV1FromDecodedClip(benchmark::State& state) {
  const auto& f = fixture();
  mab::JsonExportOptions options = version_1();
  options.threads = static_cast<unsigned>(state.range(0));
  for (auto _ : state) {
    auto c = mab::read_container(f.mab);
    auto d = mab::decode_clip(std::move(c).value());
    auto text = mab::export_json(*d, options);
    benchmark::DoNotOptimize(text->data());
  }
  bytes_per_iteration(state, f.text_v1.size());
}
BENCHMARK(BM_ExportJsonV1FromDecodedClip)->Apply(on_one_thread_and_all);

// `mab import clip.json` before writing: parse, rebuild, decode, encode (every chunk reused).
void import_benchmark(benchmark::State& state, const std::string& text) {
  for (auto _ : state) {
    auto r = mab::import_json_bytes(text);
    if (!r) {
      state.SkipWithError(r.error().message().c_str());
      break;
    }
    benchmark::DoNotOptimize(r->bytes.data());
  }
  bytes_per_iteration(state, text.size());
}

void BM_ImportJson(benchmark::State& state) { import_benchmark(state, fixture().text); }
BENCHMARK(BM_ImportJson)->Unit(benchmark::kMillisecond)->ComputeStatistics("min", fastest);

void BM_ImportJsonV1(benchmark::State& state) { import_benchmark(state, fixture().text_v1); }
BENCHMARK(BM_ImportJsonV1)->Unit(benchmark::kMillisecond)->ComputeStatistics("min", fastest);

}  // namespace

BENCHMARK_MAIN();
