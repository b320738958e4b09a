// JointTranslations codec (format 10.1): exact codes round trip, the stream is refused when it
// does not end where its table says, and the re-quantiser stays within the bound its bit count
// gives, decode -> encode -> decode included.
#include <mab/translation_codec.hpp>

#include "codec/translation_chunk.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <random>

namespace {

// One bit at a time, LSB first (format 9.2 "Bit reading"): shares no code with lib/src/bits.
struct NaiveReader {
  std::span<const std::uint8_t> bytes;
  std::uint64_t pos = 0;
  std::uint32_t get(unsigned nbits) {
    std::uint32_t v = 0;
    for (unsigned i = 0; i < nbits; ++i, ++pos) v |= ((unsigned{bytes[pos / 8]} >> (pos % 8)) & 1u) << i;
    return v;
  }
};

// A varying component spans at most 2 + 2/127.5 (range byte 255) in 2^n - 1 steps: half a
// step of error, in units of the scale; a constant is within half of 1/32767.5. Plus float
// rounding of the decode (a few ulps of 3).
double bound(mab::TranslationEntry e) {
  const double steps = static_cast<double>((1u << e.bit_depth()) - 1u);
  return e.scale() * (std::max((2.0 + 2.0 / 127.5) / steps / 2, 0.5 / 32767.5) + 1e-6);
}

mab::TranslationStream random_stream(std::mt19937& rng, std::uint32_t keys,
                                     std::span<const mab::TranslationEntry> entries) {
  mab::TranslationStream s;
  s.chunks.resize(mab::chunk_count(keys));
  for (std::size_t c = 0; c < s.chunks.size(); ++c)
    for (const auto& e : entries) {
      mab::TranslationChunkCodes k;
      k.cflags = static_cast<std::uint8_t>(rng() & 7u);
      for (unsigned j = 0; j < 3; ++j) {
        k.headers[j] = static_cast<std::uint16_t>(rng());
        if (!k.is_constant(j))
          for (unsigned f = 0; f < mab::chunk_key_count(keys, c); ++f)
            k.raw[j][f] = static_cast<std::uint16_t>(rng() & ((1u << e.bit_depth()) - 1u));
      }
      s.chunks[c].push_back(k);
    }
  return s;
}

TEST(TranslationCodec, EntryFields) {
  const auto e = mab::TranslationEntry::make(12, 0x123456);
  EXPECT_EQ(e.raw, 0x1234560Cu);
  EXPECT_EQ(e.bit_depth(), 12u);
  EXPECT_EQ(e.scale_code(), 0x123456u);
  EXPECT_FLOAT_EQ(e.scale(), 0x123456 * 0.00029802325f);
  // 10000 / 2^25 per step: the largest 24-bit code reaches about 5000 units (format 10.1).
  EXPECT_NEAR(mab::TranslationEntry::make(16, 0xFFFFFF).scale(), 5000.0, 0.01);
}

TEST(TranslationCodec, CodesRoundTripExactly) {
  std::mt19937 rng(16);
  for (std::uint32_t keys : {1u, 7u, 8u, 9u, 17u, 64u}) {
    std::vector<mab::TranslationEntry> entries;
    for (unsigned n : {1u, 4u, 9u, 16u}) entries.push_back(mab::TranslationEntry::make(n, 1000 + n));
    auto s = random_stream(rng, keys, entries);
    s.tail = {0, 0, 0};
    auto bytes = mab::encode_translation_stream(s, keys, entries);
    ASSERT_TRUE(bytes.ok()) << bytes.error().message();
    auto back = mab::decode_translation_stream(*bytes, keys, entries, 0x100);
    ASSERT_TRUE(back.ok()) << back.error().message();
    EXPECT_EQ(back->chunks, s.chunks);
    EXPECT_EQ(back->tail, s.tail);
    auto again = mab::encode_translation_stream(*back, keys, entries);
    ASSERT_TRUE(again.ok());
    EXPECT_EQ(*again, *bytes);
  }
}

// Format 10.1 block: 3 flag bits, then 16 bits per component and n bits per key of a varying
// one, LSB first; the stream is read with an independent bit reader.
TEST(TranslationCodec, LayoutMatchesTheSpec) {
  const std::vector<mab::TranslationEntry> entries{mab::TranslationEntry::make(5, 4000)};
  mab::TranslationStream s;
  mab::TranslationChunkCodes k;
  k.cflags = 0b010;  // y constant
  k.headers = {0x1234, 0xBEEF, 0x4321};
  k.raw[0] = {1, 2, 3, 4, 5, 6, 7, 8};
  k.raw[2] = {31, 0, 17, 0, 0, 0, 0, 0};
  k.raw[2][7] = 9;
  s.chunks = {{k}};
  auto bytes = mab::encode_translation_stream(s, 8, entries);
  ASSERT_TRUE(bytes.ok());
  ASSERT_EQ((*bytes)[0], 8);  // table size 4 * (1 + 1)
  NaiveReader r{std::span<const std::uint8_t>(*bytes).subspan(8)};
  EXPECT_EQ(r.get(3), 0b010u);
  EXPECT_EQ(r.get(16), 0x1234u);
  for (unsigned f = 0; f < 8; ++f) EXPECT_EQ(r.get(5), k.raw[0][f]);
  EXPECT_EQ(r.get(16), 0xBEEFu);
  EXPECT_EQ(r.get(16), 0x4321u);
  for (unsigned f = 0; f < 8; ++f) EXPECT_EQ(r.get(5), k.raw[2][f]);
  EXPECT_EQ(bytes->size(), 8 + (3 + 16 + 40 + 16 + 16 + 40 + 7) / 8);
  // Values: the rotation formulas times the scale.
  const float scale = entries[0].scale();
  const mab::Vec3 v = mab::decode_translation_key(k, 2, entries[0]);
  EXPECT_EQ(v[1], mab::rotation_constant_value(0xBEEF) * scale);
  EXPECT_EQ(v[0], mab::rotation_varying_value(mab::rotation_base(0x1234), mab::rotation_slope(0x1234, 5), 3) * scale);
}

TEST(TranslationCodec, StreamsThatDoNotEndAtTheirTableAreRefused) {
  const std::vector<mab::TranslationEntry> entries{mab::TranslationEntry::make(8, 500),
                                                   mab::TranslationEntry::make(3, 9)};
  std::mt19937 rng(3);
  auto s = random_stream(rng, 12, entries);
  auto bytes = mab::encode_translation_stream(s, 12, entries);
  ASSERT_TRUE(bytes.ok());
  // One bone fewer: the chunks are not consumed exactly.
  auto one = mab::decode_translation_stream(*bytes, 12, std::span(entries).first(1), 0);
  ASSERT_FALSE(one.ok());
  EXPECT_EQ(one.error().code, mab::ErrorCode::trailing_data);
  // Another key count: the table size disagrees.
  auto k = mab::decode_translation_stream(*bytes, 17, entries, 0);
  ASSERT_FALSE(k.ok());
  EXPECT_EQ(k.error().code, mab::ErrorCode::bad_chunk_table);
  // n = 0 in an entry.
  const std::vector<mab::TranslationEntry> zero{mab::TranslationEntry::make(0, 5)};
  EXPECT_FALSE(mab::decode_translation_stream(*bytes, 12, zero, 0).ok());
  // A set pad bit (decision 6).
  auto padded = *bytes;
  const std::uint32_t end0 = std::uint32_t{padded[4]} | (std::uint32_t{padded[5]} << 8);
  padded[end0 - 1] |= 0x80;
  auto pad = mab::decode_translation_stream(padded, 12, entries, 0);
  if (pad.ok()) {
    // The last byte happened to be full: the set bit is data, and decoding must differ.
    EXPECT_NE(pad->chunks, s.chunks);
  } else {
    EXPECT_EQ(pad.error().code, mab::ErrorCode::trailing_data);
  }
  // Truncated.
  auto cut = std::vector<std::uint8_t>(bytes->begin(), bytes->end() - 1);
  EXPECT_FALSE(mab::decode_translation_stream(cut, 12, entries, 0).ok());
}

TEST(TranslationCodec, RequantiserStaysWithinItsBound) {
  std::mt19937 rng(1600);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  for (unsigned n : {1u, 2u, 5u, 8u, 12u, 16u}) {
    for (int trial = 0; trial < 200; ++trial) {
      const unsigned keys = 1 + rng() % 8;
      const float amp = std::pow(10.0f, u(rng) * 3.0f);
      std::vector<mab::Vec3> v(keys);
      for (auto& x : v) x = {amp * u(rng), amp * u(rng), trial % 5 == 0 ? 0.25f * amp : amp * u(rng)};
      auto e = mab::translation_entry_for(v, n);
      ASSERT_TRUE(e.ok()) << e.error().message();
      ASSERT_TRUE(mab::translation_chunk_fits(v, *e));
      auto q = mab::quantise_translation_chunk(v, *e);
      ASSERT_TRUE(q.ok()) << q.error().message();
      // n = 1 stores one level per chunk (slope 0): the error is half the spread.
      double half_spread = 0;
      for (unsigned j = 0; j < 3; ++j) {
        double lo = 1e30, hi = -1e30;
        for (const auto& x : v) lo = std::min(lo, double{x[j]}), hi = std::max(hi, double{x[j]});
        half_spread = std::max(half_spread, (hi - lo) / 2);
      }
      const double b = n == 1 ? half_spread + bound(*e) : bound(*e);
      EXPECT_LE(q->max_error, b) << "n " << n << " amp " << amp;
      for (unsigned f = 0; f < keys; ++f) {
        const mab::Vec3 d = mab::decode_translation_key(q->codes, f, *e);
        for (unsigned j = 0; j < 3; ++j) EXPECT_LE(std::fabs(double{d[j]} - double{v[f][j]}), q->max_error);
      }
      // Decode, re-quantise, decode: within the same bound of the first decode.
      std::vector<mab::Vec3> dec(keys);
      for (unsigned f = 0; f < keys; ++f) dec[f] = mab::decode_translation_key(q->codes, f, *e);
      auto q2 = mab::quantise_translation_chunk(dec, *e);
      ASSERT_TRUE(q2.ok()) << q2.error().message() << " n " << n << " amp " << amp << " " << dec[0][0] << " "
                           << dec[0][1] << " " << dec[0][2] << " scale " << e->scale();
      for (unsigned f = 0; f < keys; ++f) {
        const mab::Vec3 d2 = mab::decode_translation_key(q2->codes, f, *e);
        for (unsigned j = 0; j < 3; ++j) EXPECT_LE(std::fabs(double{d2[j]} - double{dec[f][j]}), bound(*e));
      }
    }
  }
}

TEST(TranslationCodec, EntryForRefusesWhatNoScaleHolds) {
  const std::vector<mab::Vec3> big{{6000.0f, 0.0f, 0.0f}};
  auto e = mab::translation_entry_for(big, 16);
  ASSERT_FALSE(e.ok());
  EXPECT_EQ(e.error().code, mab::ErrorCode::bad_value);
  const std::vector<mab::Vec3> nan{{std::nanf(""), 0.0f, 0.0f}};
  EXPECT_FALSE(mab::translation_entry_for(nan, 16).ok());
  EXPECT_FALSE(mab::translation_entry_for(std::vector<mab::Vec3>{{1, 2, 3}}, 17).ok());
  const std::vector<mab::Vec3> zero{{0.0f, 0.0f, 0.0f}};
  auto z = mab::translation_entry_for(zero, 16);
  ASSERT_TRUE(z.ok());
  EXPECT_EQ(z->scale_code(), 1u);
  // A value at the scale's edge fits, one step further does not.
  const auto e100 = mab::TranslationEntry::make(16, 100);
  EXPECT_TRUE(mab::translation_chunk_fits(std::vector<mab::Vec3>{{e100.scale(), -e100.scale(), 0}}, e100));
  EXPECT_FALSE(mab::translation_chunk_fits(std::vector<mab::Vec3>{{0, -1.01f * e100.scale(), 0}}, e100));
  EXPECT_FALSE(mab::quantise_translation_chunk(std::vector<mab::Vec3>{{0, -1.01f * e100.scale(), 0}}, e100).ok());
}

}  // namespace

// Keys that stay put on a wide track (the last chunk of wdl/translations_flag80_constants40's
// bone 0x1630ABF4 after a key time is added: two equal keys, its scale 453 units). The rotation
// re-quantiser's rule stores 16-bit constants within half their step (0.0069 units here) at
// every depth; the encoder's, holding half of a 0.001-unit bound, finds a varying header within
// it at the bone's own 6 bits as at 16.
TEST(TranslationCodec, AStillComponentIsHeldWithinTheToleranceAtEveryDepth) {
  const std::vector<mab::Vec3> still(2, mab::Vec3{-160.1549f, 86.09669f, -40.854565f});
  const std::vector<mab::Vec3> track{{0.0f, 453.3534f, 0.0f}};
  for (const unsigned n : {6u, 13u, 16u}) {
    SCOPED_TRACE(n);
    auto e = mab::translation_entry_for(track, n);
    ASSERT_TRUE(e.ok()) << e.error().message();
    auto constants = mab::quantise_translation_chunk(still, *e);
    auto within = mab::detail::quantise_translation_chunk_within(still, *e, 0.0005);
    auto loose = mab::detail::quantise_translation_chunk_within(still, *e, 1.0);
    ASSERT_TRUE(constants.ok() && within.ok() && loose.ok());
    EXPECT_EQ(constants->codes.cflags, 7u);
    EXPECT_GT(constants->max_error, 0.001);     // the same at every depth
    EXPECT_EQ(loose->codes, constants->codes);  // a tolerance past half a step is half a step
    EXPECT_LE(within->max_error, 0.0005);
    for (unsigned f = 0; f < 2; ++f) {
      const mab::Vec3 d = mab::decode_translation_key(within->codes, f, *e);
      for (unsigned j = 0; j < 3; ++j) EXPECT_LE(std::fabs(double{d[j]} - double{still[f][j]}), within->max_error);
    }
    std::printf("      n %u: constants %.6f units, within %.6f\n", n, constants->max_error, within->max_error);
  }
}
