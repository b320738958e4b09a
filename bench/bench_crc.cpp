// Micro-benchmarks of the checksum engine and crc-search stages (Google Benchmark).
// End-to-end timings of `mab crc-search` are in scripts/bench/crc_search.
#include <mab/checksum.hpp>
#include <mab/crc.hpp>
#include <mab/crc_search.hpp>

#include <benchmark/benchmark.h>

#include <random>
#include <vector>

namespace {

std::vector<std::uint8_t> random_bytes(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<std::uint8_t> v(n);
  for (auto& b : v) b = static_cast<std::uint8_t>(rng());
  return v;
}

void crc_throughput(benchmark::State& state, const char* name) {
  const auto data = random_bytes(65536, 1);
  auto engine = mab::crc::CrcEngine::make(mab::crc::find_catalogue(name)->params);
  for (auto _ : state) benchmark::DoNotOptimize(engine->compute(data));
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) * 65536);
}
BENCHMARK_CAPTURE(crc_throughput, iso_hdlc_zlib, "CRC-32/ISO-HDLC");
BENCHMARK_CAPTURE(crc_throughput, bzip2_table, "CRC-32/BZIP2");
BENCHMARK_CAPTURE(crc_throughput, iscsi_table, "CRC-32/ISCSI");
BENCHMARK_CAPTURE(crc_throughput, xz64_table, "CRC-64/XZ");

void mulmod32(benchmark::State& state) {
  std::uint64_t a = 0x12345678, b = 0x9abcdef0;
  for (auto _ : state) {
    a = mab::crc::mulmod(a, b, 0x04C11DB7, 32);
    benchmark::DoNotOptimize(a);
  }
}
BENCHMARK(mulmod32);

// Files in the WDL layout with a shared header and random bodies, planted with `spec`.
std::vector<mab::checksum::InputFile> planted(std::vector<std::size_t> sizes, const char* spec) {
  std::vector<mab::checksum::InputFile> files;
  const auto header = random_bytes(0x40, 99);
  std::uint64_t seed = 2;
  for (const auto n : sizes) {
    auto b = random_bytes(n, seed++);
    std::copy(header.begin(), header.begin() + 0x20, b.begin());
    files.push_back({"f", std::move(b)});
  }
  if (spec) {
    const auto s = mab::checksum::parse_spec(spec);
    for (auto& f : files) (void)mab::checksum::recompute(*s, f.bytes);
  }
  return files;
}

void search_catalogue_12x64k(benchmark::State& state) {
  const auto files = planted({65536, 65536, 65472, 65472, 65408, 65408, 65344, 65344, 65280, 65280, 65216, 65216},
                             "algo=CRC-32/BZIP2 range=0x10..eof");
  mab::checksum::SearchOptions o;
  o.solver = false;
  for (auto _ : state) benchmark::DoNotOptimize(mab::checksum::search(files, o));
}
BENCHMARK(search_catalogue_12x64k)->Unit(benchmark::kMillisecond);

void search_solver(benchmark::State& state) {
  const auto n = static_cast<std::size_t>(state.range(0));
  const auto pairs = static_cast<std::size_t>(state.range(1));
  std::vector<std::size_t> sizes;
  for (std::size_t i = 0; i < pairs; ++i) sizes.insert(sizes.end(), {n - 64 * i, n - 64 * i});
  if (pairs == 1) sizes.push_back(n - 4000);
  const auto files = planted(sizes,
                             "width=32 poly=0x1f3a5cad init=0x89abcdef refin=true refout=true xorout=0 "
                             "range=0x0..eof,zeroed");
  mab::checksum::SearchOptions o;
  o.catalogue = false;
  o.free_init = false;
  for (auto _ : state) benchmark::DoNotOptimize(mab::checksum::search(files, o));
}
BENCHMARK(search_solver)
    ->Args({4096, 3})
    ->Args({65536, 6})
    ->Args({65536, 1})
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1);

}  // namespace

BENCHMARK_MAIN();
