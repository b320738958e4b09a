// Exhaustive check of lib/src/interchange/json/float_text.cpp: every finite float, with and
// without point_zero, against std::to_chars. Run by scripts/bench/check_float_text (about 100 s
// on 2 cores); a sample runs in ctest (tests/interchange/json/float_text_test.cpp).
#include "interchange/json/float_text.hpp"

#include <atomic>
#include <bit>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <thread>
#include <vector>

int main() {
  const unsigned n = std::max(1u, std::thread::hardware_concurrency());
  std::atomic<std::uint64_t> checked{0}, mismatches{0};
  std::vector<std::thread> workers;
  for (unsigned t = 0; t < n; ++t) {
    workers.emplace_back([&, t] {
      char want[64], got[mab::json_out::shortest_float_max + 8];
      std::uint64_t local = 0, bad = 0;
      for (std::uint64_t bits = t; bits <= 0xFFFFFFFFull; bits += n) {
        const float f = std::bit_cast<float>(static_cast<std::uint32_t>(bits));
        if (!std::isfinite(f)) continue;
        ++local;
        auto r = std::to_chars(want, want + sizeof want, f);
        std::size_t wn = static_cast<std::size_t>(r.ptr - want);
        char* end = mab::json_out::shortest_float(got, f, false);
        bool same = static_cast<std::size_t>(end - got) == wn && std::memcmp(got, want, wn) == 0;
        if (same && std::memchr(want, '.', wn) == nullptr && std::memchr(want, 'e', wn) == nullptr) {
          std::memcpy(want + wn, ".0", 2);
          wn += 2;
          end = mab::json_out::shortest_float(got, f, true);
          same = static_cast<std::size_t>(end - got) == wn && std::memcmp(got, want, wn) == 0;
        }
        if (!same && ++bad <= 5)
          std::fprintf(stderr, "mismatch at bits 0x%08x: to_chars \"%.*s\", ours \"%.*s\"\n",
                       static_cast<unsigned>(bits), static_cast<int>(wn), want, static_cast<int>(end - got), got);
        if (t == 0 && (bits & 0x0FFFFFFFull) < n)
          std::fprintf(stderr, "\rcheck_float_text: %3.0f%%", 100.0 * static_cast<double>(bits) / 4294967296.0);
      }
      checked += local;
      mismatches += bad;
    });
  }
  for (auto& w : workers) w.join();
  std::fprintf(stderr, "\r");
  std::printf("check_float_text: %llu finite floats, %llu mismatches\n",
              static_cast<unsigned long long>(checked.load()), static_cast<unsigned long long>(mismatches.load()));
  return mismatches == 0 ? 0 : 1;
}
