// Bit I/O (format 9.2 "Bit reading"): LSB-first packing, every width at every alignment,
// sticky overrun, exact end (decision 6).
#include <mab/bits.hpp>

#include "support/naive_bits.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <vector>

namespace {

using mab::test::NaiveBits;

std::uint32_t mask_of(unsigned nbits) { return nbits == 32 ? 0xFFFFFFFFu : (1u << nbits) - 1u; }

TEST(BitIo, SpecExampleLsbFirst) {
  mab::BitWriter w;
  w.write(0b101, 3);
  w.write(0x1F, 5);
  w.write(0xABC, 12);
  const auto bytes = w.finish();
  // 3 bits 101, then 11111 above them: 0xFD. Then 0xABC little-end first, padded.
  ASSERT_EQ(bytes.size(), 3u);
  EXPECT_EQ(bytes[0], 0xFD);
  EXPECT_EQ(bytes[1], 0xBC);
  EXPECT_EQ(bytes[2], 0x0A);

  // Format 9.2: a 16-bit read at p is (le24(bytes[p>>3..]) >> (p & 7)) & 0xFFFF.
  const std::vector<std::uint8_t> data{0x12, 0x34, 0x56, 0x78};
  mab::BitReader r(data);
  EXPECT_EQ(r.read(4), 0x2u);
  EXPECT_EQ(r.read(16), ((0x563412u >> 4) & 0xFFFFu));
  EXPECT_EQ(r.bit_position(), 20u);
}

TEST(BitIo, EveryWidthAtEveryAlignment) {
  std::mt19937_64 rng(0xB175);
  for (unsigned align = 0; align < 8; ++align) {
    for (unsigned width = 1; width <= 32; ++width) {
      // Several values so each width is also read at the buffer tail (slow path).
      NaiveBits ref;
      mab::BitWriter w;
      std::vector<std::uint32_t> values;
      ref.put(0x55u & mask_of(align), align);
      if (align) w.write(0x55u & mask_of(align), align);
      for (int i = 0; i < 5; ++i) {
        const auto v = static_cast<std::uint32_t>(rng()) & mask_of(width);
        values.push_back(v);
        ref.put(v, width);
        w.write(v | ~mask_of(width), width);  // bits above the width must be ignored
      }
      const auto bytes = w.finish();
      ASSERT_EQ(bytes, ref.bytes) << "align " << align << " width " << width;

      mab::BitReader r(bytes);
      if (align) {
        EXPECT_EQ(r.read(align), 0x55u & mask_of(align));
      }
      for (std::uint32_t v : values) EXPECT_EQ(r.read(width), v) << "align " << align << " width " << width;
      EXPECT_TRUE(r.ok());
      EXPECT_TRUE(r.finish_exact("test").ok());
    }
  }
}

TEST(BitIo, RandomStreamsMatchReference) {
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    std::mt19937_64 rng(seed);
    NaiveBits ref;
    mab::BitWriter w;
    std::vector<std::pair<std::uint32_t, unsigned>> items;
    const int count = static_cast<int>(rng() % 300);
    for (int i = 0; i < count; ++i) {
      const unsigned width = static_cast<unsigned>(rng() % 33);
      const auto v = static_cast<std::uint32_t>(rng()) & (width ? mask_of(width) : 0u);
      items.emplace_back(v, width);
      ref.put(v, width);
      w.write(v, width);
      ASSERT_EQ(w.bit_position(), ref.pos);
    }
    const auto bytes = w.finish();
    ASSERT_EQ(bytes, ref.bytes);
    mab::BitReader r(bytes);
    for (auto [v, width] : items) ASSERT_EQ(r.read(width), v);
    EXPECT_EQ(r.bit_position(), ref.pos);
    EXPECT_TRUE(r.finish_exact("test").ok());
  }
}

// read_many against the same number of read() calls: values, positions and failures, at
// every alignment, widths 0..16 and counts 0..8, in the fast region, across its end and past
// the end of the buffer, and after a failure.
TEST(BitIo, ReadManyIsRepeatedRead) {
  std::mt19937_64 rng(31);
  int fast = 0, tail = 0, failed = 0;
  for (int trial = 0; trial < 20000; ++trial) {
    std::vector<std::uint8_t> data(rng() % 40);
    for (auto& b : data) b = static_cast<std::uint8_t>(rng());
    mab::BitReader a(data), b(data);
    const auto lead = static_cast<unsigned>(rng() % 24);
    a.read(lead);
    b.read(lead);
    for (int run = 0; run < 4; ++run) {
      const auto nbits = static_cast<unsigned>(rng() % 17), count = static_cast<unsigned>(rng() % 9);
      const bool in_fast = (a.bit_position() + std::uint64_t{nbits} * count) / 8 + 8 <= data.size();
      std::uint16_t got[8] = {};
      a.read_many(nbits, count, got);
      for (unsigned i = 0; i < count; ++i)
        ASSERT_EQ(got[i], b.read(nbits)) << "trial " << trial << " run " << run << " value " << i;
      ASSERT_EQ(a.bit_position(), b.bit_position()) << "trial " << trial;
      ASSERT_EQ(a.ok(), b.ok()) << "trial " << trial;
      if (!a.ok()) {
        ASSERT_EQ(a.overrun_bit(), b.overrun_bit()) << "trial " << trial;
      }
      (!b.ok() ? failed : in_fast ? fast : tail)++;
    }
  }
  // Every path was taken many times.
  EXPECT_GT(fast, 5000);
  EXPECT_GT(tail, 5000);
  EXPECT_GT(failed, 5000);
}

TEST(BitIo, ZeroWidthIsANoOp) {
  const std::vector<std::uint8_t> data{0xFF};
  mab::BitReader r(data);
  EXPECT_EQ(r.read(0), 0u);
  EXPECT_EQ(r.bit_position(), 0u);
  mab::BitWriter w;
  w.write(0xFFFF, 0);
  EXPECT_EQ(w.bit_position(), 0u);
  EXPECT_TRUE(w.finish().empty());
}

TEST(BitIo, OverrunIsStickyAndKeepsFirstOffset) {
  const std::vector<std::uint8_t> data{0xFF, 0xFF, 0xFF};
  mab::BitReader r(data, 0x100);
  EXPECT_EQ(r.read(20), 0xFFFFFu);
  EXPECT_EQ(r.read(8), 0u);  // 4 bits left
  EXPECT_FALSE(r.ok());
  EXPECT_EQ(r.overrun_bit(), 20u);
  EXPECT_EQ(r.read(1), 0u);  // would fit, but the reader has failed
  EXPECT_EQ(r.read(3), 0u);
  EXPECT_EQ(r.overrun_bit(), 20u);
  const auto st = r.status("field");
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().code, mab::ErrorCode::bit_overrun);
  EXPECT_EQ(st.error().offset, 0x100u + 2);
  ASSERT_TRUE(st.error().bit.has_value());
  EXPECT_EQ(*st.error().bit, 20u);
  EXPECT_EQ(st.error().field, "field");
  EXPECT_EQ(r.finish_exact("f").error().code, mab::ErrorCode::bit_overrun);
}

TEST(BitIo, OverrunStaysStickyInsideTheFastRegion) {
  const std::vector<std::uint8_t> data(64, 0xFF);
  mab::BitReader r(data);
  EXPECT_EQ(r.read(7), 0x7Fu);
  EXPECT_EQ(r.read(33), 0u);  // wider than 32: refused like an overrun
  EXPECT_FALSE(r.ok());
  EXPECT_EQ(r.overrun_bit(), 7u);
  EXPECT_EQ(r.read(8), 0u);
  r.skip(1);
  EXPECT_EQ(r.bit_position(), 7u);
}

TEST(BitIo, EmptyAndTinyBuffers) {
  mab::BitReader empty;
  EXPECT_EQ(empty.read(1), 0u);
  EXPECT_FALSE(empty.ok());
  EXPECT_EQ(empty.status("x").error().offset, mab::no_offset);

  const std::vector<std::uint8_t> one{0xA5};
  mab::BitReader r(one);
  EXPECT_EQ(r.read(8), 0xA5u);
  EXPECT_TRUE(r.ok());
  EXPECT_EQ(r.read(1), 0u);
  EXPECT_FALSE(r.ok());
}

TEST(BitIo, SkipPastEndFails) {
  const std::vector<std::uint8_t> data(10, 0);
  mab::BitReader r(data);
  r.skip(75);
  EXPECT_TRUE(r.ok());
  r.skip(6);
  EXPECT_FALSE(r.ok());
  EXPECT_EQ(r.overrun_bit(), 75u);
}

TEST(BitIo, FinishExactAcceptsZeroPadding) {
  const std::vector<std::uint8_t> data{0xFF, 0x1F};  // 13 bits set, 3 zero pad bits
  mab::BitReader r(data, 40);
  r.read(13);
  EXPECT_TRUE(r.finish_exact("chunk").ok());
}

TEST(BitIo, FinishExactRejectsSetPaddingBit) {
  const std::vector<std::uint8_t> data{0xFF, 0x5F};  // bit 14 set after 13 data bits
  mab::BitReader r(data, 40);
  r.read(13);
  const auto st = r.finish_exact("chunk");
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().code, mab::ErrorCode::trailing_data);
  EXPECT_EQ(*st.error().bit, 14u);
  EXPECT_EQ(st.error().offset, 41u);
}

TEST(BitIo, FinishExactRejectsUnusedBytes) {
  const std::vector<std::uint8_t> data{0xFF, 0x00, 0x00};
  mab::BitReader r(data, 40);
  r.read(8);
  const auto st = r.finish_exact("chunk");
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().code, mab::ErrorCode::trailing_data);
  EXPECT_EQ(*st.error().bit, 8u);
  EXPECT_EQ(st.error().offset, 41u);
}

TEST(BitIo, ExpectEnd) {
  const std::vector<std::uint8_t> data(4, 0);
  mab::BitReader r(data);
  r.read(20);
  EXPECT_TRUE(r.expect_end(20, "f").ok());
  EXPECT_EQ(r.expect_end(21, "f").error().code, mab::ErrorCode::trailing_data);
  EXPECT_EQ(*r.expect_end(21, "f").error().bit, 20u);
  EXPECT_EQ(r.expect_end(19, "f").error().code, mab::ErrorCode::bit_overrun);
}

TEST(BitIo, WriterAlignPadsWithZeroAndAppends) {
  mab::BitWriter w;
  w.write(0x7, 3);
  w.align_to_byte();
  EXPECT_EQ(w.bit_position(), 8u);
  w.align_to_byte();
  EXPECT_EQ(w.bit_position(), 8u);
  w.write(0x1, 1);
  const std::vector<std::uint8_t> tail{0xAA, 0xBB};
  w.append_bytes(tail);
  EXPECT_EQ(w.bit_position(), 32u);
  // Alignment that lands exactly on a 32-bit boundary of the accumulator.
  w.write(0x1FFFFFF, 25);
  w.align_to_byte();
  w.write(0xCD, 8);
  const auto bytes = w.finish();
  const std::vector<std::uint8_t> expect{0x07, 0x01, 0xAA, 0xBB, 0xFF, 0xFF, 0xFF, 0x01, 0xCD};
  EXPECT_EQ(bytes, expect);
}

TEST(BitIo, WriterAppendsAfterExistingBytes) {
  mab::BitWriter w(std::vector<std::uint8_t>{0x01, 0x02});
  EXPECT_EQ(w.bit_position(), 16u);
  w.write(0x3, 2);
  const auto bytes = w.finish();
  const std::vector<std::uint8_t> expect{0x01, 0x02, 0x03};
  EXPECT_EQ(bytes, expect);
}

}  // namespace
