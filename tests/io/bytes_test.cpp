#include "io/bytes.hpp"

#include <gtest/gtest.h>

namespace {

TEST(ByteReader, ReadsLittleEndianAndTracksFileOffset) {
  const std::uint8_t data[] = {0x9B, 0x32, 0, 0, 0x78, 0x56, 0x34, 0x12, 1, 2, 3, 4, 5, 6, 7, 8};
  mab::io::ByteReader r(data, 0x100);
  EXPECT_EQ(*r.u32("magic"), 0x329Bu);
  EXPECT_EQ(r.file_offset(), 0x104u);
  EXPECT_EQ(*r.u16("lo"), 0x5678u);
  EXPECT_EQ(*r.u16("hi"), 0x1234u);
  EXPECT_EQ(*r.u64("eight"), 0x0807060504030201ull);
  EXPECT_EQ(r.remaining(), 0u);
}

TEST(ByteReader, ShortReadNamesFieldAndOffset) {
  const std::uint8_t data[] = {1, 2, 3};
  mab::io::ByteReader r(data, 0x20);
  ASSERT_TRUE(r.u16("first").ok());
  auto e = r.u32("m_duration");
  ASSERT_FALSE(e.ok());
  EXPECT_EQ(e.error().code, mab::ErrorCode::truncated);
  EXPECT_EQ(e.error().offset, 0x22u);
  EXPECT_EQ(e.error().field, "m_duration");
  // A failed read does not advance.
  EXPECT_EQ(r.pos(), 2u);
  EXPECT_EQ(*r.u8("last"), 3u);
}

TEST(ByteReader, BytesAndSeekAreBoundsChecked) {
  const std::uint8_t data[8] = {};
  mab::io::ByteReader r(data);
  EXPECT_FALSE(r.bytes(9, "blob").ok());
  EXPECT_TRUE(r.bytes(8, "blob").ok());
  EXPECT_FALSE(r.seek(9, "seek").ok());
  EXPECT_TRUE(r.seek(8, "seek").ok());
  EXPECT_FALSE(r.bytes(static_cast<std::size_t>(-1), "huge").ok());
}

TEST(ByteWriter, WritesLittleEndian) {
  std::vector<std::uint8_t> out;
  mab::io::ByteWriter w(out);
  w.u32(0x46B4);
  w.u16(0xBFFF);
  w.i32(-1);
  EXPECT_EQ(out, (std::vector<std::uint8_t>{0xB4, 0x46, 0, 0, 0xFF, 0xBF, 0xFF, 0xFF, 0xFF, 0xFF}));
}

TEST(Fits, IsOverflowSafe) {
  EXPECT_TRUE(mab::io::fits(2, 3, 5));
  EXPECT_FALSE(mab::io::fits(2, 4, 5));
  EXPECT_FALSE(mab::io::fits(~0ull, 2, ~0ull));
  EXPECT_FALSE(mab::io::fits(6, 0, 5));
}

}  // namespace
