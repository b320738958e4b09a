// JointRotations chunk codec (format 9.2; decisions 1, 2, 6).
#include <mab/rotation_codec.hpp>

#include "support/naive_bits.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

namespace {

using mab::test::NaiveBits;

void put_u32(std::vector<std::uint8_t>& out, std::size_t at, std::uint32_t v) {
  for (unsigned i = 0; i < 4; ++i) out[at + i] = static_cast<std::uint8_t>(v >> (8 * i));
}

// Builds a section the way format 9.2 describes it, without the library's encoder.
std::vector<std::uint8_t> assemble(const std::vector<std::vector<mab::BoneChunkCodes>>& chunks, std::uint32_t key_count,
                                   const std::vector<std::uint8_t>& depths,
                                   const std::vector<std::uint8_t>& tail = {}) {
  const std::size_t n = chunks.size();
  std::vector<std::uint8_t> out(4 * (n + 1));
  put_u32(out, 0, static_cast<std::uint32_t>(out.size()));
  for (std::size_t c = 0; c < n; ++c) {
    const unsigned keys = std::min<unsigned>(8, key_count - static_cast<unsigned>(8 * c));
    NaiveBits b;
    for (std::size_t bone = 0; bone < depths.size(); ++bone) {
      const auto& k = chunks[c][bone];
      b.put(k.cflags, 6);
      if (k.cflags & 8) b.put(k.signs, keys);
      for (unsigned j = 0; j < 3; ++j) {
        b.put(k.headers[j], 16);
        if (!((k.cflags >> j) & 1))
          for (unsigned f = 0; f < keys; ++f) b.put(k.raw[j][f], depths[bone]);
      }
    }
    out.insert(out.end(), b.bytes.begin(), b.bytes.end());
    put_u32(out, 4 * (c + 1), static_cast<std::uint32_t>(out.size()));
  }
  out.insert(out.end(), tail.begin(), tail.end());
  return out;
}

// Random codes in the form decode produces (unused fields zero).
mab::BoneChunkCodes random_codes(std::mt19937_64& rng, unsigned keys, unsigned nbits, int cflags = -1) {
  mab::BoneChunkCodes k;
  k.cflags = static_cast<std::uint8_t>(cflags >= 0 ? cflags : static_cast<int>(rng() % 64));
  if (k.has_signs()) k.signs = static_cast<std::uint8_t>(rng() & ((1u << keys) - 1u));
  for (unsigned j = 0; j < 3; ++j) {
    k.headers[j] = static_cast<std::uint16_t>(rng());
    if (!k.is_constant(j))
      for (unsigned f = 0; f < keys; ++f) k.raw[j][f] = static_cast<std::uint16_t>(rng() & ((1u << nbits) - 1u));
  }
  return k;
}

struct Clip {
  std::uint32_t key_count;
  std::vector<std::uint8_t> depths;
  std::vector<std::vector<mab::BoneChunkCodes>> chunks;
};

Clip random_clip(std::mt19937_64& rng, std::uint32_t key_count, std::size_t bones) {
  Clip clip{key_count, {}, {}};
  for (std::size_t b = 0; b < bones; ++b) clip.depths.push_back(static_cast<std::uint8_t>(1 + rng() % 16));
  clip.chunks.resize(mab::chunk_count(key_count));
  for (std::size_t c = 0; c < clip.chunks.size(); ++c)
    for (std::size_t b = 0; b < bones; ++b)
      clip.chunks[c].push_back(random_codes(rng, mab::chunk_key_count(key_count, c), clip.depths[b]));
  return clip;
}

// Format 9.2 pseudo-code in double precision, as an independent reference.
void reference_key(const mab::BoneChunkCodes& k, unsigned f, unsigned n, double out[4]) {
  const double scale = n < 2 ? 0.0 : 1.0 / static_cast<double>((1u << n) - 1u);
  double v[3];
  for (unsigned j = 0; j < 3; ++j) {
    const unsigned h = k.headers[j];
    if ((k.cflags >> j) & 1) v[j] = h / 32767.5 - 1.0;
    else v[j] = ((h & 255) / 127.0 - 1.0) + k.raw[j][f] * ((h >> 8) / 127.5 * scale);
  }
  const unsigned w = (k.cflags >> 4) & 3;
  const double s = v[0] * v[0] + v[1] * v[1] + v[2] * v[2];
  double d = 0;
  if (s <= 1) d = std::sqrt(1 - s);
  else
    for (double& x : v) x /= std::sqrt(s);
  if ((k.cflags & 8) && ((k.signs >> f) & 1)) d = -d;
  unsigned j = 0;
  for (unsigned i = 0; i < 4; ++i) out[i] = (i == w) ? d : v[j++];
}

void expect_matches_reference(const mab::BoneChunkCodes& k, unsigned f, unsigned n) {
  double ref[4];
  reference_key(k, f, n, ref);
  const mab::Quat q = mab::decode_key(k, f, n);
  for (unsigned i = 0; i < 4; ++i) {
    // Float evaluation of values within [-1, 2]: a few ulps, except near s = 1 where the
    // square root magnifies them.
    EXPECT_NEAR(q[i], ref[i], 2e-6 + (i == k.omitted() ? 2e-3 : 0.0))
        << "cflags " << int(k.cflags) << " key " << f << " slot " << i;
  }
}

TEST(RotationChunk, HandAssembledChunk) {
  // One bone, two keys, n = 4. cflags: component 0 constant, signs present, wInd = 3 (w).
  NaiveBits b;
  b.put(0x39, 6);
  b.put(0b10, 2);               // key 1 negates w
  b.put(49152, 16);             // x = 49152 / 32767.5 - 1
  b.put((51u << 8) | 100, 16);  // y: base 100/127 - 1, slope 51/127.5/15
  b.put(3, 4);
  b.put(10, 4);
  b.put((0u << 8) | 127, 16);  // z: base 0, slope 0; raws still stored
  b.put(5, 4);
  b.put(7, 4);
  ASSERT_EQ(b.pos, 72u);  // 6 + 2 + 16 + 2 * (16 + 2 * 4): no pad bits
  ASSERT_EQ(b.bytes.size(), 9u);
  std::vector<std::uint8_t> section(8);
  put_u32(section, 0, 8);
  put_u32(section, 4, 17);
  section.insert(section.end(), b.bytes.begin(), b.bytes.end());

  const std::vector<std::uint8_t> depths{4};
  auto r = mab::decode_rotation_stream(section, 2, depths, 0x1000);
  ASSERT_TRUE(r.ok()) << r.error().message();
  const mab::RotationStream& s = *r;
  ASSERT_EQ(s.chunk_table, (std::vector<std::uint32_t>{8, 17}));
  ASSERT_EQ(s.chunks.size(), 1u);
  const mab::BoneChunkCodes& k = s.chunks[0][0];
  EXPECT_EQ(k.cflags, 0x39);
  EXPECT_EQ(k.signs, 0b10);
  EXPECT_EQ(k.headers[0], 49152);
  EXPECT_EQ(k.raw[1][0], 3);
  EXPECT_EQ(k.raw[1][1], 10);
  EXPECT_EQ(k.raw[2][1], 7);
  EXPECT_TRUE(s.tail.empty());

  const double x = 49152 / 32767.5 - 1;  // 0.500008 (decision 1)
  const double y0 = (100 / 127.0 - 1) + 3 * (51 / 127.5 / 15);
  const double y1 = (100 / 127.0 - 1) + 10 * (51 / 127.5 / 15);
  const mab::Quat q0 = mab::decode_key(k, 0, 4);
  const mab::Quat q1 = mab::decode_key(k, 1, 4);
  EXPECT_NEAR(q0.x, x, 1e-6);
  EXPECT_NEAR(q0.y, y0, 1e-6);
  EXPECT_NEAR(q0.z, 0.0, 1e-6);
  EXPECT_NEAR(q0.w, std::sqrt(1 - x * x - y0 * y0), 1e-6);
  EXPECT_NEAR(q1.y, y1, 1e-6);
  EXPECT_NEAR(q1.w, -std::sqrt(1 - x * x - y1 * y1), 1e-6);

  auto tracks = mab::decode_rotations(s, 2, depths);
  ASSERT_TRUE(tracks.ok());
  EXPECT_EQ(tracks->track(0)[0], q0);
  EXPECT_EQ(tracks->track(0)[1], q1);

  auto bytes = mab::encode_rotation_stream(s, 2, depths);
  ASSERT_TRUE(bytes.ok()) << bytes.error().message();
  EXPECT_EQ(*bytes, section);
}

TEST(RotationChunk, BlockSizes) {
  // Format 9.2 step 5 table.
  EXPECT_EQ(mab::bone_block_bits(0x00, 8, 5), 6u + 3 * (16 + 40));
  EXPECT_EQ(mab::bone_block_bits(0x01, 8, 5), 6u + 2 * (16 + 40) + 16);
  EXPECT_EQ(mab::bone_block_bits(0x06, 8, 5), 6u + (16 + 40) + 32);
  EXPECT_EQ(mab::bone_block_bits(0x07, 8, 5), 6u + 48);
  EXPECT_EQ(mab::bone_block_bits(0x0F, 3, 5), 6u + 3 + 48);
  EXPECT_EQ(mab::bone_block_bits(0x08, 1, 1), 6u + 1 + 3 * 17);
}

TEST(RotationChunk, InterpolantScaleTable) {
  EXPECT_EQ(mab::interpolant_scale(0), 0.0f);
  EXPECT_EQ(mab::interpolant_scale(1), 0.0f);
  EXPECT_FLOAT_EQ(mab::interpolant_scale(2), 1.0f / 3);
  EXPECT_FLOAT_EQ(mab::interpolant_scale(8), 1.0f / 255);
  EXPECT_FLOAT_EQ(mab::interpolant_scale(16), 1.0f / 65535);
  EXPECT_EQ(mab::interpolant_scale(17), 0.0f);
}

TEST(RotationChunk, All64Cflags) {
  std::mt19937_64 rng(64);
  for (unsigned cf = 0; cf < 64; ++cf) {
    for (unsigned keys : {1u, 3u, 8u}) {
      const std::vector<std::uint8_t> depths{5, 11};
      std::vector<std::vector<mab::BoneChunkCodes>> chunks{
          {random_codes(rng, keys, 5, static_cast<int>(cf)), random_codes(rng, keys, 11, static_cast<int>(cf))}};
      const auto section = assemble(chunks, keys, depths);
      auto r = mab::decode_rotation_stream(section, keys, depths, 0);
      ASSERT_TRUE(r.ok()) << "cflags " << cf << ": " << r.error().message();
      ASSERT_EQ(r->chunks, chunks) << "cflags " << cf;
      for (unsigned f = 0; f < keys; ++f) {
        expect_matches_reference(r->chunks[0][0], f, 5);
        expect_matches_reference(r->chunks[0][1], f, 11);
      }
      auto bytes = mab::encode_rotation_stream(*r, keys, depths);
      ASSERT_TRUE(bytes.ok());
      EXPECT_EQ(*bytes, section) << "cflags " << cf;
    }
  }
}

// decode_block works on all keys of a block at once; every float it gives, signed zeros
// included, must be decode_key's for the same key.
TEST(RotationChunk, BlockDecodeIsKeyDecode) {
  std::mt19937_64 rng(91);
  for (int it = 0; it < 20000; ++it) {
    const unsigned n = 1 + static_cast<unsigned>(rng() % 16);
    const unsigned keys = 1 + static_cast<unsigned>(rng() % 8);
    mab::BoneChunkCodes c;
    c.cflags = static_cast<std::uint8_t>(it % 64);
    c.signs = static_cast<std::uint8_t>(rng());
    for (unsigned j = 0; j < 3; ++j) {
      // Small headers too, so sums of squares fall on both sides of 1 (decision 2).
      c.headers[j] = static_cast<std::uint16_t>(rng() % 3 == 0 ? rng() % 2048 : rng());
      for (auto& r : c.raw[j]) r = static_cast<std::uint16_t>(rng() & ((1u << n) - 1));
    }
    std::vector<mab::Quat> block(keys);
    mab::decode_block(c, n, block);
    for (unsigned f = 0; f < keys; ++f) {
      const mab::Quat one = mab::decode_key(c, f, n);
      for (unsigned i = 0; i < 4; ++i)
        ASSERT_EQ(std::signbit(block[f][i]), std::signbit(one[i])) << "it " << it << " key " << f;
      ASSERT_EQ(block[f], one) << "it " << it << " key " << f;
    }
  }
}

TEST(RotationChunk, SumOfSquaresAboveOneRenormalises) {
  // Decision 2: s > 1 divides the stored three by sqrt(s) and zeroes the omitted one.
  mab::BoneChunkCodes k;
  k.cflags = 0x07 | 0x08 | (2u << 4);  // all constant, signs, wInd = z
  k.signs = 1;
  const auto code = [](double v) { return static_cast<std::uint16_t>(std::lround((v + 1) * 32767.5)); };
  k.headers = {code(0.8), code(0.8), code(0.0)};
  const mab::Quat q = mab::decode_key(k, 0, 8);
  const double x = k.headers[0] / 32767.5 - 1, y = k.headers[1] / 32767.5 - 1, w = k.headers[2] / 32767.5 - 1;
  const double s = std::sqrt(x * x + y * y + w * w);
  EXPECT_NEAR(q.x, x / s, 1e-6);
  EXPECT_NEAR(q.y, y / s, 1e-6);
  EXPECT_NEAR(q.w, w / s, 1e-6);
  EXPECT_EQ(q.z, 0.0f);
  EXPECT_TRUE(std::signbit(q.z));  // the sign bit still applies (to a zero)

  // Exactly at s <= 1 the omitted component is sqrt(1 - s).
  k.headers = {code(0.6), code(0.0), code(0.0)};
  k.signs = 0;
  const mab::Quat p = mab::decode_key(k, 0, 8);
  EXPECT_NEAR(p.z, std::sqrt(1 - p.x * p.x - p.y * p.y - p.w * p.w), 1e-6);
  EXPECT_GT(p.z, 0.7f);
}

TEST(RotationChunk, OneBitDepthHasZeroSlopeButConsumesBits) {
  // Bone 0 at n = 1 with all components varying and raws set; bone 1 must still line up.
  std::vector<std::vector<mab::BoneChunkCodes>> chunks(1);
  mab::BoneChunkCodes a;
  a.cflags = 0x30;
  a.headers = {(200u << 8) | 127, (255u << 8) | 64, (1u << 8) | 190};
  for (unsigned j = 0; j < 3; ++j)
    for (unsigned f = 0; f < 8; ++f) a.raw[j][f] = static_cast<std::uint16_t>((f + j) & 1);
  mab::BoneChunkCodes b;
  b.cflags = 0x07;
  b.headers = {12345, 23456, 34567};
  chunks[0] = {a, b};
  const std::vector<std::uint8_t> depths{1, 16};
  const auto section = assemble(chunks, 8, depths);
  // 6 + 3 * (16 + 8) bits for bone 0, 54 for bone 1.
  EXPECT_EQ(section.size(), 8u + (6 + 72 + 54 + 7) / 8);
  auto r = mab::decode_rotation_stream(section, 8, depths, 0);
  ASSERT_TRUE(r.ok()) << r.error().message();
  EXPECT_EQ(r->chunks, chunks);
  for (unsigned f = 0; f < 8; ++f) {
    const mab::Quat q = mab::decode_key(r->chunks[0][0], f, 1);
    EXPECT_EQ(q.x, mab::rotation_base(a.headers[0]));
    EXPECT_EQ(q.y, mab::rotation_base(a.headers[1]));
    EXPECT_EQ(q.z, mab::rotation_base(a.headers[2]));
    EXPECT_NEAR(mab::decode_key(r->chunks[0][1], f, 16).y, 12345 / 32767.5 - 1, 1e-6);  // wInd 0
  }
}

TEST(RotationChunk, SixteenBitDepth) {
  mab::BoneChunkCodes k;
  k.cflags = 0x06 | (3u << 4);
  k.headers = {(255u << 8) | 0, 32768, 32768};
  k.raw[0][0] = 0;
  k.raw[0][1] = 65535;
  k.raw[0][2] = 32768;
  const std::vector<std::uint8_t> depths{16};
  const auto section = assemble({{k}}, 3, depths);
  auto r = mab::decode_rotation_stream(section, 3, depths, 0);
  ASSERT_TRUE(r.ok()) << r.error().message();
  EXPECT_EQ(r->chunks[0][0], k);
  EXPECT_NEAR(mab::decode_key(k, 0, 16).x, -1.0, 1e-6);
  EXPECT_NEAR(mab::decode_key(k, 1, 16).x, -1.0 + 255 / 127.5, 1e-6);
  EXPECT_NEAR(mab::decode_key(k, 2, 16).x, -1.0 + 32768.0 / 65535 * 2, 1e-6);
}

TEST(RotationChunk, KeyCountsAndLastChunk) {
  std::mt19937_64 rng(17);
  for (std::uint32_t key_count : {1u, 7u, 8u, 9u, 16u, 17u}) {
    const Clip clip = random_clip(rng, key_count, 3);
    ASSERT_EQ(clip.chunks.size(), (key_count + 7) / 8);
    const auto section = assemble(clip.chunks, key_count, clip.depths);
    auto r = mab::decode_rotation_stream(section, key_count, clip.depths, 0);
    ASSERT_TRUE(r.ok()) << key_count << ": " << r.error().message();
    EXPECT_EQ(r->chunks, clip.chunks) << key_count;
    EXPECT_EQ(r->chunk_table.size(), clip.chunks.size() + 1);
    EXPECT_EQ(mab::chunk_key_count(key_count, clip.chunks.size() - 1), key_count - 8 * (clip.chunks.size() - 1));
    auto bytes = mab::encode_rotation_stream(*r, key_count, clip.depths);
    ASSERT_TRUE(bytes.ok());
    EXPECT_EQ(*bytes, section) << key_count;
    auto tracks = mab::decode_rotations(*r, key_count, clip.depths);
    ASSERT_TRUE(tracks.ok());
    for (std::uint32_t b = 0; b < 3; ++b)
      for (std::uint32_t key = 0; key < key_count; ++key)
        ASSERT_EQ(tracks->track(b)[key], mab::decode_key(r->chunks[key / 8][b], key % 8, clip.depths[b]));
  }
}

TEST(RotationChunk, NoKeysNoBones) {
  std::vector<std::uint8_t> section{4, 0, 0, 0, 0xAB};
  auto r = mab::decode_rotation_stream(section, 0, {}, 0);
  ASSERT_TRUE(r.ok()) << r.error().message();
  EXPECT_TRUE(r->chunks.empty());
  EXPECT_EQ(r->tail, std::vector<std::uint8_t>{0xAB});
  EXPECT_EQ(*mab::encode_rotation_stream(*r, 0, {}), section);

  // Keys but no animated bones: every chunk is empty.
  std::vector<std::uint8_t> empty_chunks(12);
  put_u32(empty_chunks, 0, 12);
  put_u32(empty_chunks, 4, 12);
  put_u32(empty_chunks, 8, 12);
  auto e = mab::decode_rotation_stream(empty_chunks, 10, {}, 0);
  ASSERT_TRUE(e.ok()) << e.error().message();
  EXPECT_EQ(e->chunks.size(), 2u);
  EXPECT_EQ(*mab::encode_rotation_stream(*e, 10, {}), empty_chunks);
}

TEST(RotationChunk, RandomStreamsRoundTripByteIdentical) {
  for (std::uint64_t seed = 100; seed < 140; ++seed) {
    std::mt19937_64 rng(seed);
    const auto key_count = static_cast<std::uint32_t>(1 + rng() % 80);
    const Clip clip = random_clip(rng, key_count, rng() % 12);
    std::vector<std::uint8_t> tail(rng() % 20);
    for (auto& t : tail) t = static_cast<std::uint8_t>(rng());
    const auto section = assemble(clip.chunks, key_count, clip.depths, tail);
    auto r = mab::decode_rotation_stream(section, key_count, clip.depths, 0);
    ASSERT_TRUE(r.ok()) << seed << ": " << r.error().message();
    EXPECT_EQ(r->tail, tail);
    auto bytes = mab::encode_rotation_stream(*r, key_count, clip.depths);
    ASSERT_TRUE(bytes.ok());
    ASSERT_EQ(*bytes, section) << "seed " << seed;
  }
}

TEST(RotationChunk, TableErrors) {
  std::mt19937_64 rng(5);
  const Clip clip = random_clip(rng, 20, 2);  // 3 chunks, table of 16 bytes
  const auto good = assemble(clip.chunks, 20, clip.depths);
  ASSERT_TRUE(mab::decode_rotation_stream(good, 20, clip.depths, 0).ok());

  auto code_of = [&](const std::vector<std::uint8_t>& s, std::uint32_t keys = 20) {
    auto r = mab::decode_rotation_stream(s, keys, clip.depths, 0x200);
    return r.ok() ? mab::ErrorCode::ok : r.error().code;
  };
  EXPECT_EQ(code_of({}), mab::ErrorCode::truncated);
  EXPECT_EQ(code_of({16, 0, 0}), mab::ErrorCode::truncated);
  EXPECT_EQ(code_of(std::vector<std::uint8_t>(good.begin(), good.begin() + 10)), mab::ErrorCode::truncated);
  // Table size that does not match ceil(K/8) chunks.
  EXPECT_EQ(code_of(good, 30), mab::ErrorCode::bad_chunk_table);
  auto bad = good;
  put_u32(bad, 0, 12);
  auto r = mab::decode_rotation_stream(bad, 20, clip.depths, 0x200);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, mab::ErrorCode::bad_chunk_table);
  EXPECT_EQ(r.error().offset, 0x200u);
  // Descending entries.
  bad = good;
  put_u32(bad, 8, 10);
  r = mab::decode_rotation_stream(bad, 20, clip.depths, 0x200);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, mab::ErrorCode::bad_chunk_table);
  EXPECT_EQ(r.error().offset, 0x208u);
  EXPECT_EQ(r.error().field, "JointRotations.chunk_table[2]");
  // Past the section.
  bad = good;
  put_u32(bad, 12, static_cast<std::uint32_t>(good.size() + 1));
  EXPECT_EQ(code_of(bad), mab::ErrorCode::out_of_bounds);
}

TEST(RotationChunk, ChunkEndErrors) {
  std::mt19937_64 rng(6);
  Clip clip = random_clip(rng, 16, 2);
  // Make the first chunk's bit count not a multiple of 8 so it has pad bits.
  for (int tries = 0; tries < 1000; ++tries) {
    std::uint64_t bits = 0;
    for (std::size_t b = 0; b < 2; ++b) bits += mab::bone_block_bits(clip.chunks[0][b].cflags, 8, clip.depths[b]);
    if (bits % 8 != 0) break;
    clip.chunks[0][0] = random_codes(rng, 8, clip.depths[0]);
  }
  const auto good = assemble(clip.chunks, 16, clip.depths);
  const std::uint32_t start = 12;
  std::uint32_t end = 0;
  for (unsigned i = 0; i < 4; ++i) end |= std::uint32_t{good[4 + i]} << (8 * i);

  // Chunk 0 one byte short: the last read runs past its end.
  auto bad = good;
  put_u32(bad, 4, end - 1);
  auto r = mab::decode_rotation_stream(bad, 16, clip.depths, 0x1000);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, mab::ErrorCode::bit_overrun);
  ASSERT_TRUE(r.error().bit.has_value());
  EXPECT_EQ(r.error().offset, 0x1000u + start + *r.error().bit / 8);
  EXPECT_NE(r.error().field.find("JointRotations.chunk[0].bone[1]"), std::string::npos) << r.error().field;

  // A stray pad bit (decision 6).
  bad = good;
  bad[end - 1] = static_cast<std::uint8_t>(bad[end - 1] | 0x80);
  r = mab::decode_rotation_stream(bad, 16, clip.depths, 0x1000);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, mab::ErrorCode::trailing_data);
  EXPECT_EQ(*r.error().bit, 8u * (end - start) - 1);
  EXPECT_EQ(r.error().offset, 0x1000u + end - 1);
  EXPECT_EQ(r.error().field, "JointRotations.chunk[0].end");

  // An extra byte inside chunk 0: the table says it ends later than its data.
  bad = good;
  bad.insert(bad.begin() + end, 0x00);
  put_u32(bad, 4, end + 1);
  std::uint32_t end1 = 0;
  for (unsigned i = 0; i < 4; ++i) end1 |= std::uint32_t{good[8 + i]} << (8 * i);
  put_u32(bad, 8, end1 + 1);
  r = mab::decode_rotation_stream(bad, 16, clip.depths, 0x1000);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, mab::ErrorCode::trailing_data);
  EXPECT_EQ(r.error().offset, 0x1000u + end);
}

TEST(RotationChunk, LimitsAndArguments) {
  const std::vector<std::uint8_t> section{4, 0, 0, 0};
  mab::Limits small;
  small.max_keys = 10;
  small.max_bones = 1;
  small.max_chunks = 1;
  EXPECT_EQ(mab::decode_rotation_stream(section, 11, {}, 0, small).error().code, mab::ErrorCode::limit_exceeded);
  const std::vector<std::uint8_t> two{4, 4};
  EXPECT_EQ(mab::decode_rotation_stream(section, 0, two, 0, small).error().code, mab::ErrorCode::limit_exceeded);
  EXPECT_EQ(mab::decode_rotation_stream(section, 9, {}, 0, small).error().code, mab::ErrorCode::limit_exceeded);
  const std::vector<std::uint8_t> zero{0};
  EXPECT_EQ(mab::decode_rotation_stream(section, 0, zero, 0).error().code, mab::ErrorCode::invalid_argument);
  const std::vector<std::uint8_t> seventeen{17};
  EXPECT_EQ(mab::decode_rotation_stream(section, 0, seventeen, 0).error().code, mab::ErrorCode::invalid_argument);
}

TEST(RotationChunk, EncoderRejectsCodesThatDoNotFit) {
  std::mt19937_64 rng(9);
  Clip clip = random_clip(rng, 9, 2);
  mab::RotationStream s;
  s.chunks = clip.chunks;
  ASSERT_TRUE(mab::encode_rotation_stream(s, 9, clip.depths).ok());
  EXPECT_EQ(mab::encode_rotation_stream(s, 17, clip.depths).error().code, mab::ErrorCode::invalid_argument);
  const std::vector<std::uint8_t> one{4};
  EXPECT_EQ(mab::encode_rotation_stream(s, 9, one).error().code, mab::ErrorCode::invalid_argument);

  auto wide = s;
  wide.chunks[0][0].cflags = 0x00;
  wide.chunks[0][0].raw[1][3] = static_cast<std::uint16_t>(1u << clip.depths[0]);
  if (clip.depths[0] < 16) {
    EXPECT_EQ(mab::encode_rotation_stream(wide, 9, clip.depths).error().code, mab::ErrorCode::invalid_argument);
  }
  auto signs = s;
  signs.chunks[1][0].cflags = 0x08;
  signs.chunks[1][0].signs = 0x02;  // chunk 1 holds a single key
  EXPECT_EQ(mab::encode_rotation_stream(signs, 9, clip.depths).error().code, mab::ErrorCode::invalid_argument);
  auto flags = s;
  flags.chunks[0][1].cflags = 64;
  EXPECT_EQ(mab::encode_rotation_stream(flags, 9, clip.depths).error().code, mab::ErrorCode::invalid_argument);

  EXPECT_EQ(mab::decode_rotations(s, 17, clip.depths).error().code, mab::ErrorCode::invalid_argument);
}

TEST(RotationChunk, MutatedSectionsNeverCrash) {
  // Corrupt, truncate and extend valid sections; decode must return, and whatever it accepts
  // must re-encode to the same bytes.
  std::mt19937_64 rng(0xBAD);
  int accepted = 0;
  for (int iter = 0; iter < 3000; ++iter) {
    const auto key_count = static_cast<std::uint32_t>(1 + rng() % 40);
    const Clip clip = random_clip(rng, key_count, 1 + rng() % 4);
    auto section = assemble(clip.chunks, key_count, clip.depths);
    switch (rng() % 4) {
      case 0: section.resize(rng() % (section.size() + 1)); break;
      case 1: section[rng() % section.size()] ^= static_cast<std::uint8_t>(1u << (rng() % 8)); break;
      case 2:
        for (int i = 0; i < 4; ++i) section[rng() % section.size()] = static_cast<std::uint8_t>(rng());
        break;
      default: section.insert(section.begin() + static_cast<std::ptrdiff_t>(rng() % section.size()), 0x5A);
    }
    auto r = mab::decode_rotation_stream(section, key_count, clip.depths, 0);
    if (!r.ok()) continue;
    ++accepted;
    auto bytes = mab::encode_rotation_stream(*r, key_count, clip.depths);
    ASSERT_TRUE(bytes.ok());
    ASSERT_EQ(*bytes, section) << iter;
  }
  EXPECT_GT(accepted, 0);
}

}  // namespace
