// The four-component lockstep quantiser against the one-component reference, field by field:
// the re-quantiser's fixed-point reasoning is written for quantise_component, so the fast path
// must give exactly its result, never merely a close one.
#include "codec/component_quantiser.hpp"

#include <mab/rotation_codec.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <random>
#include <string>

namespace {

using mab::detail::Component;

// Rows of 8 keys by 4 components, padded as the re-quantiser pads: copies of the last key.
struct Rows {
  double v[8][4];
  void pad(unsigned keys) {
    for (unsigned f = keys; f < 8; ++f) std::memcpy(v[f], v[keys - 1], sizeof v[f]);
  }
};

std::string describe(const Component& c) {
  std::string s = (c.constant ? "constant " : "varying ") + std::to_string(c.header) +
                  (c.reproduces ? " reproduces" : "") + " err " + std::to_string(c.err) + " raw";
  for (auto r : c.raw) s += " " + std::to_string(r);
  return s;
}

// Every component of `rows`, through both paths, compared bit for bit.
void expect_same(const Rows& rows, unsigned keys, unsigned nbits, const std::string& what) {
  Component fast[4];
  mab::detail::quantise_components(rows.v, keys, nbits, fast);
  for (unsigned s = 0; s < 4; ++s) {
    double column[8];
    for (unsigned f = 0; f < 8; ++f) column[f] = rows.v[f][s];
    const Component ref = mab::detail::quantise_component(column, keys, nbits);
    const bool same_err = std::memcmp(&ref.err, &fast[s].err, sizeof ref.err) == 0;
    const bool same_values = std::memcmp(ref.value.data(), fast[s].value.data(), sizeof ref.value) == 0;
    ASSERT_TRUE(ref == fast[s] && same_err && same_values)
        << what << " component " << s << " nbits " << nbits << " keys " << keys << "\n  reference " << describe(ref)
        << "\n  lockstep  " << describe(fast[s]);
  }
}

TEST(ComponentQuantiser, LockstepMatchesReferenceOnSmoothKeys) {
  std::mt19937_64 rng(11);
  std::uniform_real_distribution<double> start(-1.0, 1.0), step(-0.05, 0.05);
  for (int trial = 0; trial < 3000; ++trial) {
    const unsigned keys = 1 + static_cast<unsigned>(rng() % 8);
    const unsigned nbits = 1 + static_cast<unsigned>(rng() % 16);
    Rows rows;
    for (unsigned s = 0; s < 4; ++s) {
      double x = start(rng);
      for (unsigned f = 0; f < keys; ++f) {
        rows.v[f][s] = std::clamp(x, -1.0, 1.0);
        x += step(rng);
      }
    }
    rows.pad(keys);
    expect_same(rows, keys, nbits, "smooth trial " + std::to_string(trial));
  }
}

// Spreads around the constant/varying boundary (half a constant step, 1/65535) and far below
// float resolution of a slope, where the reference's slower paths decide.
TEST(ComponentQuantiser, LockstepMatchesReferenceNearConstants) {
  std::mt19937_64 rng(12);
  std::uniform_real_distribution<double> centre(-1.0, 1.0), unit(0.0, 1.0);
  const double spreads[] = {0.0, 1e-9, 1e-6, 0.5 / 65535, 1.0 / 65535, 2.0 / 65535, 4.0 / 65535, 1e-3};
  for (int trial = 0; trial < 4000; ++trial) {
    const unsigned keys = 1 + static_cast<unsigned>(rng() % 8);
    const unsigned nbits = 1 + static_cast<unsigned>(rng() % 16);
    Rows rows;
    for (unsigned s = 0; s < 4; ++s) {
      const double c = centre(rng), spread = spreads[rng() % std::size(spreads)];
      for (unsigned f = 0; f < keys; ++f) rows.v[f][s] = c + spread * unit(rng);
    }
    rows.pad(keys);
    expect_same(rows, keys, nbits, "near-constant trial " + std::to_string(trial));
  }
}

// Values that are decoded values of random codes (what re-quantising a decoded clip sees),
// including the extremes -1 and 3 of the varying range and codes 0 and 65535.
TEST(ComponentQuantiser, LockstepMatchesReferenceOnDecodedValues) {
  std::mt19937_64 rng(13);
  for (int trial = 0; trial < 4000; ++trial) {
    const unsigned keys = 1 + static_cast<unsigned>(rng() % 8);
    const unsigned nbits = 1 + static_cast<unsigned>(rng() % 16);
    const unsigned top = (1u << nbits) - 1u;
    Rows rows;
    for (unsigned s = 0; s < 4; ++s) {
      const auto h = static_cast<std::uint16_t>(rng());
      const bool constant = rng() % 4 == 0;
      for (unsigned f = 0; f < keys; ++f) {
        const auto raw = static_cast<std::uint16_t>(trial % 5 == 0 ? (f % 2 ? top : 0) : rng() % (top + 1));
        rows.v[f][s] = constant
                           ? mab::rotation_constant_value(h)
                           : mab::rotation_varying_value(mab::rotation_base(h), mab::rotation_slope(h, nbits), raw);
      }
    }
    rows.pad(keys);
    expect_same(rows, keys, nbits, "decoded trial " + std::to_string(trial));
  }
}

// stored_exactly's shortcut against the full answer, on inputs where it is true (decoded
// values, constants) and false (smooth keys), and on the near-constant boundary.
TEST(ComponentQuantiser, StoredExactlyMatchesReference) {
  std::mt19937_64 rng(14);
  std::uniform_real_distribution<double> unit(-1.0, 1.0);
  int exact = 0, inexact = 0;
  for (int trial = 0; trial < 6000; ++trial) {
    const unsigned keys = 1 + static_cast<unsigned>(rng() % 8);
    const unsigned nbits = 1 + static_cast<unsigned>(rng() % 16);
    const auto h = static_cast<std::uint16_t>(rng());
    double v[8];
    const double c = unit(rng), spread = trial % 3 == 0 ? 1e-5 * unit(rng) : 0.1 * unit(rng);
    for (unsigned f = 0; f < keys; ++f) {
      switch (trial % 4) {
        case 0:  // decoded varying values
          v[f] = mab::rotation_varying_value(mab::rotation_base(h), mab::rotation_slope(h, nbits),
                                             static_cast<std::uint16_t>(rng() % (1u << nbits)));
          break;
        case 1:  // a decoded constant
          v[f] = mab::rotation_constant_value(h);
          break;
        default: v[f] = c + spread * unit(rng) * f;
      }
    }
    for (unsigned f = keys; f < 8; ++f) v[f] = v[keys - 1];
    const bool expected = mab::detail::quantise_component(v, keys, nbits).err == 0;
    ASSERT_EQ(mab::detail::stored_exactly(v, keys, nbits), expected)
        << "trial " << trial << " nbits " << nbits << " keys " << keys;
    (expected ? exact : inexact)++;
  }
  // Both answers occur, so the comparison tests something.
  EXPECT_GT(exact, 1000);
  EXPECT_GT(inexact, 1000);
}

// The same inputs give different results at different depths and key counts: a lockstep path
// that ignored either would be caught above, and this checks the comparison itself can fail.
TEST(ComponentQuantiser, ResultsDependOnDepth) {
  Rows rows;
  for (unsigned f = 0; f < 8; ++f)
    for (unsigned s = 0; s < 4; ++s) rows.v[f][s] = 0.1 * f - 0.3 * s;
  Component a[4], b[4];
  mab::detail::quantise_components(rows.v, 8, 4, a);
  mab::detail::quantise_components(rows.v, 8, 9, b);
  for (unsigned s = 0; s < 4; ++s) EXPECT_FALSE(a[s] == b[s]) << s;
}

}  // namespace
