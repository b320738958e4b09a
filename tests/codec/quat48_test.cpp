// 6-byte constant quaternion codec (format 9.1, decision 3).
#include <mab/quat.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>

namespace {

constexpr double pi = 3.14159265358979323846;

// Round-trip bound from the step alone. Each stored component is off by at most step/2, so
// the stored part moves by |ds| <= sqrt(3) * step / 2. The implicit one is the largest, so
// d >= 1/2 and |dd| <= sqrt(1 - d^2) / d * |ds| <= sqrt(3) * |ds| to first order. Hence
// |dq| <= 2 * |ds| = sqrt(3) * step, and the rotation angle is 4 asin(|dq| / 2) ~ 2 |dq|.
// The 1% covers the second-order term and float rounding of the decode (~1e-7 per value).
double round_trip_bound_deg() {
  const double dq = std::sqrt(3.0) * double{mab::quat48_step};
  return 4.0 * std::asin(dq / 2.0) * 1.01 * 180.0 / pi;
}

mab::Quat random_unit(std::mt19937_64& rng) {
  std::normal_distribution<double> n(0.0, 1.0);
  double v[4], len = 0;
  do {
    len = 0;
    for (double& c : v) {
      c = n(rng);
      len += c * c;
    }
  } while (len < 1e-6);
  len = std::sqrt(len);
  return {static_cast<float>(v[0] / len), static_cast<float>(v[1] / len), static_cast<float>(v[2] / len),
          static_cast<float>(v[3] / len)};
}

mab::Quat axis_angle(double ax, double ay, double az, double deg) {
  const double h = deg * pi / 360.0;
  const double s = std::sin(h) / std::sqrt(ax * ax + ay * ay + az * az);
  return {static_cast<float>(ax * s), static_cast<float>(ay * s), static_cast<float>(az * s),
          static_cast<float>(std::cos(h))};
}

TEST(Quat48, IdentityBytes) {
  const auto bytes = mab::encode_quat48_bytes({0, 0, 0, 1});
  const std::array<std::uint8_t, 6> expect{0xFF, 0xBF, 0xFF, 0xBF, 0xFF, 0x3F};
  EXPECT_EQ(bytes, expect);
  // -identity is the same rotation; the implicit component must come out >= 0.
  EXPECT_EQ(mab::encode_quat48_bytes({0, 0, 0, -1}), expect);
  const mab::Quat q = mab::decode_quat48(std::span<const std::uint8_t, 6>(expect));
  EXPECT_NEAR(q.x, 16383 * double{mab::quat48_step} - double{mab::quat48_bias}, 1e-11);
  EXPECT_NEAR(q.w, 1.0f, 1e-7);
  EXPECT_FALSE(mab::quat48_suspicious(mab::quat48_from_bytes(expect)));
}

TEST(Quat48, SlotTable) {
  // Format 9.1: k = (w0 >> 15) | ((w1 >> 15) << 1) is where the implicit d goes.
  const std::uint16_t a = 0x4000 + 1000, b = 0x4000 - 2000, c = 0x4000 + 3000;
  const double step = mab::quat48_step, bias = mab::quat48_bias;
  const double va = (a & 0x7FFF) * step - bias;
  const double vb = (b & 0x7FFF) * step - bias;
  const double vc = c * step - bias;
  const double d = std::sqrt(1.0 - va * va - vb * vb - vc * vc);
  for (unsigned k = 0; k < 4; ++k) {
    const mab::Quat48 w{static_cast<std::uint16_t>(a | ((k & 1u) << 15)),
                        static_cast<std::uint16_t>(b | ((k >> 1) << 15)), c};
    const mab::Quat q = mab::decode_quat48(w);
    double expect[4];
    unsigned j = 0;
    const double stored[3] = {va, vb, vc};
    for (unsigned i = 0; i < 4; ++i) expect[i] = (i == k) ? d : stored[j++];
    // One float rounding of each value.
    for (unsigned i = 0; i < 4; ++i) EXPECT_NEAR(q[i], expect[i], 6e-8) << "k " << k << " slot " << i;
    EXPECT_EQ(mab::encode_quat48(q), w) << "k " << k;
  }
}

TEST(Quat48, ThirdWordReadUnsigned) {
  // Decision 3: bit 15 of w2 is part of the value, and flagged as suspicious.
  const mab::Quat48 w{0x3FFF, 0x3FFF, 0xFFFF};
  EXPECT_TRUE(mab::quat48_suspicious(w));
  const mab::Quat q = mab::decode_quat48(w);
  // c = 2.122 leaves 1 - a^2 - b^2 - c^2 < 0: the stored three, renormalised, and d = 0.
  const double a = 0x3FFF * double{mab::quat48_step} - mab::quat48_bias;
  const double c = 65535 * double{mab::quat48_step} - mab::quat48_bias;
  EXPECT_NEAR(q.w, c / std::sqrt(2 * a * a + c * c), 1e-6);
  EXPECT_EQ(q.x, 0.0f);
  EXPECT_FALSE(mab::quat48_valid(w));
}

// Format 9.1: where 1 - a^2 - b^2 - c^2 < 0 the public FC2 readers return "invalid"; mabkit
// decodes the nearest unit quaternion (a, b, c over their length, the implicit slot 0:
// docs/legacy.md, "Codes with no valid quaternion"), whatever slot k names.
TEST(Quat48, CodesWithNoValidQuaternionDecodeToTheNearestUnitOne) {
  const double step = mab::quat48_step, bias = mab::quat48_bias;
  const std::uint16_t raw[][3] = {{0x7FFF, 0x7FFF, 0x7FFF}, {0x7000, 0x0100, 0x7800}, {0x0000, 0x0000, 0x0400}};
  for (const auto& r : raw) {
    const double v[3] = {r[0] * step - bias, r[1] * step - bias, r[2] * step - bias};
    const double len = std::sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
    ASSERT_GT(len, 1.0);
    for (unsigned k = 0; k < 4; ++k) {
      const mab::Quat48 w{static_cast<std::uint16_t>(r[0] | ((k & 1u) << 15)),
                          static_cast<std::uint16_t>(r[1] | ((k >> 1) << 15)), r[2]};
      EXPECT_FALSE(mab::quat48_valid(w));
      const mab::Quat q = mab::decode_quat48(w);
      unsigned j = 0;
      double norm = 0;
      for (unsigned i = 0; i < 4; ++i) {
        const double want = i == k ? 0.0 : v[j++] / len;
        EXPECT_NEAR(q[i], want, 1e-7) << "k " << k << " slot " << i;
        norm += double{q[i]} * q[i];
      }
      EXPECT_NEAR(norm, 1.0, 1e-6);
      // The clamp of the 'aNi' decoders (a, b, c as stored, d = 0) is the same rotation.
      const mab::Quat clamped = k == 0   ? mab::Quat{0, float(v[0]), float(v[1]), float(v[2])}
                                : k == 1 ? mab::Quat{float(v[0]), 0, float(v[1]), float(v[2])}
                                : k == 2 ? mab::Quat{float(v[0]), float(v[1]), 0, float(v[2])}
                                         : mab::Quat{float(v[0]), float(v[1]), float(v[2]), 0};
      EXPECT_LT(mab::angular_error_deg(q, clamped), 1e-4);
    }
  }
  // Every code the encoder writes is valid: it drops the largest component, so the squares of
  // the stored three sum to at most 3/4 (plus rounding).
  std::mt19937_64 rng(99);
  for (int i = 0; i < 20000; ++i) ASSERT_TRUE(mab::quat48_valid(mab::encode_quat48(random_unit(rng)))) << i;
  EXPECT_TRUE(mab::quat48_valid({0xBFFF, 0xBFFF, 0x3FFF}));
}

TEST(Quat48, RoundTripWithinStepBound) {
  const double bound = round_trip_bound_deg();
  EXPECT_LT(bound, 0.0087);
  std::mt19937_64 rng(48);
  double worst = 0;
  for (int i = 0; i < 200000; ++i) {
    const mab::Quat q = random_unit(rng);
    const double err = mab::angular_error_deg(q, mab::decode_quat48(mab::encode_quat48(q)));
    worst = std::max(worst, err);
    ASSERT_LE(err, bound) << i;
  }
  // The bound is not loose by orders of magnitude.
  EXPECT_GT(worst, bound / 10);
}

TEST(Quat48, EveryInputDecodesAndReencodesStably) {
  const double bound = round_trip_bound_deg();
  std::mt19937_64 rng(0xC0DE48);
  for (int i = 0; i < (1 << 20); ++i) {
    const std::uint64_t bits = rng();
    const mab::Quat48 w{static_cast<std::uint16_t>(bits), static_cast<std::uint16_t>(bits >> 16),
                        static_cast<std::uint16_t>(bits >> 32)};
    const mab::Quat q = mab::decode_quat48(w);
    double len = 0;
    for (unsigned c = 0; c < 4; ++c) {
      ASSERT_TRUE(std::isfinite(q[c])) << i;
      len += double{q[c]} * q[c];
    }
    ASSERT_GT(len, 0.0);
    // encode normalises, so garbage inputs still give the same rotation back.
    const mab::Quat48 again = mab::encode_quat48(q);
    ASSERT_FALSE(mab::quat48_suspicious(again));
    const mab::Quat r = mab::decode_quat48(again);
    ASSERT_LE(mab::angular_error_deg(q, r), bound) << i;
    // A second pass may not drift further.
    ASSERT_LE(mab::angular_error_deg(q, mab::decode_quat48(mab::encode_quat48(r))), 2 * bound) << i;
  }
}

TEST(Quat48, ValidCodesAreFixedPointsAwayFromTies) {
  // Codes from the encoder decode to a point that encodes to the same codes, unless the two
  // largest magnitudes are within a few steps: then the dropped component can decode smaller
  // than a stored one whichever is dropped (format 9.1 encoder note on ties). Even then the
  // rotation is kept.
  std::mt19937_64 rng(7);
  const double bound = round_trip_bound_deg();
  int near_ties = 0;
  for (int i = 0; i < 100000; ++i) {
    const mab::Quat q = random_unit(rng);
    const mab::Quat48 w = mab::encode_quat48(q);
    const mab::Quat d = mab::decode_quat48(w);
    const mab::Quat48 again = mab::encode_quat48(d);
    if (again == w) continue;
    float m[4];
    for (unsigned c = 0; c < 4; ++c) m[c] = std::fabs(q[c]);
    std::sort(m, m + 4);
    EXPECT_LT(m[3] - m[2], 4 * mab::quat48_step) << i;
    EXPECT_LE(mab::angular_error_deg(d, mab::decode_quat48(again)), bound) << i;
    ++near_ties;
  }
  EXPECT_LT(near_ties, 20);
}

TEST(Quat48, DegenerateInputsEncodeIdentity) {
  const mab::Quat48 id{0xBFFF, 0xBFFF, 0x3FFF};
  EXPECT_EQ(mab::encode_quat48({0, 0, 0, 0}), id);
  EXPECT_EQ(mab::encode_quat48({std::nanf(""), 0, 0, 1}), id);
  EXPECT_EQ(mab::encode_quat48({INFINITY, 0, 0, 1}), id);
  // Scale does not matter.
  EXPECT_EQ(mab::encode_quat48({0, 0, 0, 5}), id);
}

TEST(Quat48, AngularError) {
  const mab::Quat id{0, 0, 0, 1};
  EXPECT_DOUBLE_EQ(mab::angular_error_deg(id, id), 0.0);
  EXPECT_NEAR(mab::angular_error_deg(id, {0, 0, 0, -1}), 0.0, 1e-12);
  EXPECT_NEAR(mab::angular_error_deg(id, axis_angle(1, 0, 0, 90)), 90.0, 1e-5);
  EXPECT_NEAR(mab::angular_error_deg(id, axis_angle(0, 1, 1, 180)), 180.0, 1e-5);
  EXPECT_NEAR(mab::angular_error_deg(axis_angle(0, 0, 1, 30), axis_angle(0, 0, 1, -50)), 80.0, 1e-4);
  // Tiny angles keep precision (acos(dot) would round 1e-4 degrees to 0 in float).
  EXPECT_NEAR(mab::angular_error_deg(id, axis_angle(0, 1, 0, 1e-3)), 1e-3, 1e-6);
  EXPECT_DOUBLE_EQ(mab::angular_error_deg(id, {0, 0, 0, 0}), 180.0);
}

}  // namespace
