// What `mab verify --strict` must not pass in a Far Cry 2 bank (format 13): a tag record that
// reaches no clip start, a pointer slot that is not 0 on disk, a version field whose high byte is
// not 0, a tag table that does not decode. Each is a warning with its file offset.
#include <mab/container.hpp>
#include <mab/validate.hpp>

#include "support/cli_run.hpp"
#include "support/corpus.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <utility>

namespace {

using mab::test::corpus_dir;
using mab::test::load_container;

std::vector<mab::Finding> warnings_of(const mab::Container& c) {
  std::vector<mab::Finding> out;
  for (auto& f : mab::validate(c))
    if (f.severity == mab::Severity::warning) out.push_back(f);
  for (auto& f : mab::validate_decode(c))
    if (f.severity == mab::Severity::warning) out.push_back(f);
  return out;
}

std::string text_of(const std::vector<mab::Finding>& fs) {
  std::string s;
  for (const auto& f : fs) s += "[" + f.field + " @" + std::to_string(f.offset) + "] " + f.message + "\n";
  return s;
}

// The file offset of byte `at` of block k's section `slot`.
std::uint64_t section_at(const mab::Container& c, std::size_t k, std::size_t slot, std::size_t at) {
  const auto pl = mab::place(c);
  EXPECT_TRUE(pl.ok());
  const int seg = c.blocks[k].slot_segment[slot];
  return pl->blocks[k].base + pl->blocks[k].segments[static_cast<std::size_t>(seg)].offset + at;
}

void put_u32(std::vector<std::uint8_t>& s, std::size_t at, std::uint32_t v) {
  for (int i = 0; i < 4; ++i) s[at + static_cast<std::size_t>(i)] = static_cast<std::uint8_t>(v >> (8 * i));
}

const auto retail = corpus_dir() / "fc2" / "retail_bank.mab";  // clip 0's records reach clips 1 and 2

TEST(LegacyBankFindings, ATagRecordThatReachesNoClipStartIsAWarningAtItsOffset) {
  auto c = load_container(retail);
  ASSERT_TRUE(warnings_of(c).empty()) << text_of(warnings_of(c));
  auto& s = *c.blocks[0].section_mut(6);
  const std::size_t record1 = 4 + 172;
  put_u32(s, record1 + 0x0C,
          static_cast<std::uint32_t>(s[record1 + 0x0C] | s[record1 + 0x0D] << 8 | s[record1 + 0x0E] << 16 |
                                     s[record1 + 0x0F] << 24) +
              16);
  const auto w = warnings_of(c);
  ASSERT_EQ(w.size(), 1u) << text_of(w);
  EXPECT_EQ(w[0].block, 0);
  EXPECT_EQ(w[0].field, "sections[6]");
  EXPECT_EQ(w[0].offset, section_at(c, 0, 6, record1 + 0x0C));
  EXPECT_NE(w[0].message.find("tag record 1: clip offset"), std::string::npos) << w[0].message;
  EXPECT_NE(w[0].message.find("reaches no clip start"), std::string::npos) << w[0].message;
}

TEST(LegacyBankFindings, PointerSlotsThatAreNotZeroAreWarningsAtTheirOffsets) {
  auto c = load_container(retail);
  put_u32(*c.blocks[0].section_mut(6), 4 + 0xA8, 0x12345678);  // record 0
  std::get<mab::LegacyHeader>(c.blocks[1].header).pointer_slot = 0x40;
  auto w = warnings_of(c);
  ASSERT_EQ(w.size(), 2u) << text_of(w);
  std::sort(w.begin(), w.end(), [](const auto& a, const auto& b) { return a.offset < b.offset; });
  const auto pl = mab::place(c);
  ASSERT_TRUE(pl.ok());
  EXPECT_EQ(w[0].offset, section_at(c, 0, 6, 4 + 0xA8)) << text_of(w);
  EXPECT_NE(w[0].message.find("tag record 0: pointer slot 0x12345678"), std::string::npos) << w[0].message;
  EXPECT_EQ(w[1].block, 1);
  EXPECT_EQ(w[1].field, "pointer_slot");
  EXPECT_EQ(w[1].offset, pl->blocks[1].base + 0x9C) << text_of(w);  // format 13.2
  EXPECT_NE(w[1].message.find("pointer slot 0x40"), std::string::npos) << w[1].message;
}

TEST(LegacyBankFindings, AVersionFieldWithAHighByteIsAWarningAtByteOne) {
  auto bytes = mab::test::load(retail);
  bytes[1] = 0x01;  // 0x014C: byte 0 still says Far Cry 2
  auto c = mab::read_container(bytes);
  ASSERT_TRUE(c.ok()) << c.error().message();
  const auto w = warnings_of(*c);
  ASSERT_EQ(w.size(), 1u) << text_of(w);
  EXPECT_EQ(w[0].offset, 1u);
  EXPECT_EQ(w[0].block, -1);
  EXPECT_NE(w[0].message.find("version field 0x14c"), std::string::npos) << w[0].message;
}

// chain_3's middle clip holds 172 bytes that are no tag table: it was information, which
// --strict passed.
TEST(LegacyBankFindings, ATagTableThatDoesNotDecodeIsAWarning) {
  for (const char* v : {"fc2", "fc3"}) {
    const auto c = load_container(corpus_dir() / v / "chain_3.mab");
    const auto w = warnings_of(c);
    ASSERT_EQ(w.size(), 1u) << v << "\n" << text_of(w);
    EXPECT_EQ(w[0].block, 1);
    EXPECT_EQ(w[0].field, "sections[6]");
    EXPECT_EQ(w[0].offset, section_at(c, 1, 6, 0));
    EXPECT_NE(w[0].message.find("tag table does not decode"), std::string::npos) << w[0].message;
  }
}

// The CLI: each is a warning line with its offset; --strict fails on it; codes with no valid
// quaternion stay flagged.
TEST(LegacyBankFindings, VerifyStrictFailsOnEachWithTheOffset) {
  const auto dir = mab::test::test_temp_dir("mab_legacy_bank_findings");
  auto bytes = mab::test::load(retail);
  bytes[1] = 0x01;
  {
    std::ofstream(dir / "high.mab", std::ios::binary)
        .write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  }
  const std::pair<std::string, std::string> cases[] = {
      {(dir / "high.mab").string(), "at 0x1 (magic): version field 0x14c"},
      {(corpus_dir() / "fc2" / "chain_3.mab").string(), "at 0x300 (sections[6]): tag table does not decode"},
      {(corpus_dir() / "fc2" / "invalid_quaternion.mab").string(), "holds no valid quaternion"}};
  for (const auto& [file, line] : cases) {
    auto r = mab::test::run_mab("verify " + file, "2>&1");
    EXPECT_EQ(r.status, 0) << r.out;
    EXPECT_NE(r.out.find(line), std::string::npos) << r.out;
    r = mab::test::run_mab("verify --strict " + file, "2>&1");
    EXPECT_EQ(r.status, 1) << r.out;
    EXPECT_NE(r.out.find("FAIL"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find(line), std::string::npos) << r.out;
  }
  std::filesystem::remove_all(dir);
}

}  // namespace
