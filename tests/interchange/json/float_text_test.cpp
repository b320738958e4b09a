// float_text must write what std::to_chars writes, character for character: the JSON
// documents are pinned byte for byte (docs/json-format.md). scripts/bench/check_float_text
// compares every finite float; this runs a sample of each region on every ctest.
#include "interchange/json/float_text.hpp"

#include <gtest/gtest.h>

#include <bit>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>

namespace {

using mab::json_out::shortest_float;
using mab::json_out::shortest_float_max;

std::string reference(float f, bool point_zero) {
  char buf[64];
  auto r = std::to_chars(buf, buf + sizeof buf, f);
  std::string s(buf, r.ptr);
  if (point_zero && s.find_first_of(".e") == std::string::npos) s += ".0";
  return s;
}

std::string ours(float f, bool point_zero) {
  char buf[shortest_float_max + 8];
  char* end = shortest_float(buf, f, point_zero);
  return {buf, end};
}

// Returns the number of mismatches; reports the first few.
int compare(float f) {
  int bad = 0;
  for (bool pz : {false, true}) {
    const auto want = reference(f, pz);
    const auto got = ours(f, pz);
    if (want != got) {
      ++bad;
      ADD_FAILURE() << "bits 0x" << std::hex << std::bit_cast<std::uint32_t>(f) << ": to_chars \"" << want
                    << "\", ours \"" << got << "\" (point_zero " << pz << ")";
    }
  }
  return bad;
}

TEST(FloatText, StridedSampleOfEveryBitPattern) {
  int bad = 0;
  // A prime stride visits every exponent and a spread of significands.
  for (std::uint64_t bits = 0; bits <= 0xFFFFFFFFull && bad < 10; bits += 65521) {
    const float f = std::bit_cast<float>(static_cast<std::uint32_t>(bits));
    if (std::isfinite(f)) bad += compare(f);
  }
  EXPECT_EQ(bad, 0);
}

TEST(FloatText, EveryExponentBoundaryAndItsNeighbours) {
  int bad = 0;
  for (std::uint32_t sign : {0u, 0x80000000u}) {
    for (std::uint32_t e = 0; e < 255 && bad < 10; ++e) {
      const std::uint32_t base = sign | (e << 23);
      for (std::uint32_t m : {0u, 1u, 2u, 3u, 0x3FFFFFu, 0x400000u, 0x400001u, 0x7FFFFDu, 0x7FFFFEu, 0x7FFFFFu})
        bad += compare(std::bit_cast<float>(base | m));
    }
  }
  EXPECT_EQ(bad, 0);
}

TEST(FloatText, DecimalLandmarks) {
  int bad = 0;
  // Powers of ten and the integers where fixed and scientific notation trade places.
  for (int p = -45; p <= 38; ++p) {
    const float f = std::pow(10.0f, static_cast<float>(p));
    for (float g : {f, std::nextafter(f, 0.0f), std::nextafter(f, std::numeric_limits<float>::infinity()), -f})
      if (std::isfinite(g)) bad += compare(g);
  }
  for (float f = 1.0f; f < 3.0e7f; f = f * 1.37f + 1.0f) bad += compare(std::round(f));
  for (float f : {0.0f, -0.0f, 1.0f, -1.0f, 0.5f, 0.1f, 1e7f, 1.5e7f, 16777216.0f, 1e16f, 1.234567e-5f,
                  std::numeric_limits<float>::min(), std::numeric_limits<float>::denorm_min(),
                  std::numeric_limits<float>::max(), std::numeric_limits<float>::lowest()})
    bad += compare(f);
  EXPECT_EQ(bad, 0);
}

TEST(FloatText, UnitQuaternionComponentsDenseSample) {
  // The values a clip is made of: [-1, 1], every 997th pattern.
  int bad = 0;
  for (std::uint32_t bits = 0; bits <= 0x3F800000u && bad < 10; bits += 997) {
    bad += compare(std::bit_cast<float>(bits));
    bad += compare(-std::bit_cast<float>(bits));
  }
  EXPECT_EQ(bad, 0);
}

TEST(FloatText, PutDecimalMatchesToChars) {
  for (std::uint64_t v : {0ull, 9ull, 10ull, 99ull, 100ull, 999ull, 1000ull, 9999ull, 10000ull, 65535ull, 4294967295ull,
                          4294967296ull, 18446744073709551615ull}) {
    char want[32], got[32];
    auto r = std::to_chars(want, want + sizeof want, v);
    char* end = mab::json_out::put_decimal(got, v);
    EXPECT_EQ(std::string(got, end), std::string(want, r.ptr));
  }
  for (std::uint64_t v = 1; v < 18446744073709551615ull / 3; v = v * 3 + 1) {
    char want[32], got[32];
    auto r = std::to_chars(want, want + sizeof want, v);
    char* end = mab::json_out::put_decimal(got, v);
    ASSERT_EQ(std::string(got, end), std::string(want, r.ptr));
  }
}

}  // namespace
