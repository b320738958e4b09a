// Checksum spec texts as users type them for `mab crc-apply --algo` (checksum.hpp): every
// alias and spelling the parser takes reads to the format reference it names and prints back to a text
// that reads the same; every malformed one is refused naming its key.
#include <mab/checksum.hpp>

#include <gtest/gtest.h>

#include <vector>

namespace {

using namespace mab::checksum;

TEST(ChecksumSpecInputs, AliasesAndSpellings) {
  struct Case {
    const char* text;
    const char* same_as;
  };
  const std::vector<Case> cases{
      {"algo=fnv-1a", "algo=fnv1a-32"},
      {"algo=FNV1A", "algo=fnv1a32"},
      {"algo=fnv-1", "algo=fnv1-32"},
      {"algo=fnv1", "algo=fnv132"},
      {"algo=Adler-32", "algo=adler32"},
      {"algo=fletcher-32", "algo=fletcher32"},
      {"CRC-32/ISO-HDLC range=0x8..eof", "algo=CRC-32/ISO-HDLC range=0x8..eof"},  // a bare name first
      {"name=\"CRC-32/ISO-HDLC\"", "algo=CRC-32/ISO-HDLC"},
      {"algo=crc width=16 poly=0x1021 refin=yes refout=1", "algo=crc width=16 poly=0x1021 refin=true refout=true"},
      {"algo=crc width=16 poly=0x1021 refin=no refout=0", "algo=crc width=16 poly=0x1021 refin=false refout=false"},
      {"algo=crc width=16 poly=4129 init=0XFFFF", "algo=crc width=16 poly=0x1021 init=0xffff"},
      {"algo=CRC-64/XZ part=whole", "algo=CRC-64/XZ"},
      {"algo=CRC-64/XZ part=LOW", "algo=CRC-64/XZ part=low"},
      {"algo=sum32 range=0x0..eof,skip", "algo=sum32 range=0x0..eof,skipped"},
      {"algo=sum32 range=0x0..eof,zero", "algo=sum32 range=0x0..eof,zeroed"},
      {"algo=xor32 range=ANI..SIZE", "algo=xor32 range=ani..size"},
      {"algo=xor32 range=ani+16..size-0x4", "algo=xor32 range=ani+0x10..size-4"},
      {"algo=sum32-words field=8:2", "algo=sum32-words field=0x8:2:le"},
      {"algo=sum32-words field=0x8:2:BE", "algo=sum32-words field=8:2:be"},
      {"  algo=sum32   check=0x1234 residue=7  ", "algo=sum32"},
  };
  for (const auto& c : cases) {
    auto a = parse_spec(c.text);
    auto b = parse_spec(c.same_as);
    ASSERT_TRUE(a.ok()) << c.text << ": " << a.error().message();
    ASSERT_TRUE(b.ok()) << c.same_as << ": " << b.error().message();
    EXPECT_EQ(*a, *b) << c.text;
    auto again = parse_spec(to_string(*a));
    ASSERT_TRUE(again.ok()) << to_string(*a);
    EXPECT_EQ(*again, *a) << to_string(*a);
  }
  // A custom CRC has no catalogue name.
  auto custom = parse_spec("algo=crc width=13 poly=0x1ca7");
  ASSERT_TRUE(custom.ok());
  EXPECT_EQ(custom->algo.name(), "CRC-13 (custom)");
  EXPECT_EQ(parse_spec("algo=adler-32")->algo.name(), "adler32");
}

TEST(ChecksumSpecInputs, MalformedTextsNameTheirKey) {
  struct Case {
    const char* text;
    const char* field;
  };
  const std::vector<Case> cases{
      {"algo=CRC-32 extra", "spec"},
      {"algo=crc width=x poly=1", "width"},
      {"algo=crc width=16 poly=", "poly"},
      {"algo=crc width=16 poly=0x1021 init=0xZZ", "init"},
      {"algo=crc width=16 poly=0x1021 xorout=-1", "xorout"},
      {"algo=crc width=16 poly=0x1021 refout=perhaps", "refout"},
      {"algo=CRC-64/XZ part=middle", "part"},
      {"algo=CRC-32 range=0x0..eof,sideways", "range"},
      {"algo=CRC-32 range=ani-4..eof", "range"},
      {"algo=CRC-32 range=ani+..eof", "range"},
      {"algo=CRC-32 range=start..eof", "range"},
      {"algo=CRC-32 range=0..eof+4", "range"},
      {"algo=CRC-32 range=0..size-x", "range"},
      {"algo=CRC-32 field=0x4:0", "field"},
      {"algo=CRC-32 field=x:4", "field"},
      {"algo=CRC-32 field=0x4:4:middle", "field"},
      {"algo=fnv1a width=32", "algo"},
      {"algo=crc width=16", "algo"},
      {"algo=crc width=0 poly=1", "algo"},
  };
  for (const auto& c : cases) {
    auto s = parse_spec(c.text);
    ASSERT_FALSE(s.ok()) << c.text;
    EXPECT_EQ(s.error().field, c.field) << c.text << ": " << s.error().message();
  }
}

TEST(ChecksumSpecInputs, FieldsOutsideTheFileAreRefusedNotWritten) {
  std::vector<std::uint8_t> file(32, 0xAB);
  auto spec = parse_spec("algo=sum32 field=0x1e:4:le");
  ASSERT_TRUE(spec.ok());
  auto v = compute_field(*spec, file);
  ASSERT_FALSE(v.ok());
  EXPECT_EQ(v.error().code, mab::ErrorCode::truncated);
  const auto before = file;
  EXPECT_FALSE(recompute(*spec, file).ok());
  EXPECT_EQ(file, before);
  spec = parse_spec("algo=sum32 field=0x1c:4:be range=0x0..eof,skipped");
  ASSERT_TRUE(spec.ok());
  ASSERT_TRUE(recompute(*spec, file).ok());
  // The sum of 28 bytes of 0xAB, big-endian in the last four.
  const std::uint32_t sum = 28 * 0xAB;
  EXPECT_EQ(file[28], sum >> 24);
  EXPECT_EQ(file[31], sum & 0xFF);
  FieldSpec bad;
  bad.length = 9;
  EXPECT_EQ(read_field(file, bad).error().code, mab::ErrorCode::invalid_argument);
  bad.length = 0;
  EXPECT_FALSE(store_field(file, bad, 1).ok());
}

}  // namespace
