// Checksum spec text form, field I/O and the crc-search / crc-apply commands.
#include "checksum/plant.hpp"
#include "support/cli_run.hpp"

#include <mab/checksum.hpp>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

namespace {

using namespace mab::checksum;

TEST(ChecksumSpec, RoundTripsThroughText) {
  for (const char* text : {"algo=CRC-32/ISO-HDLC range=0x8..eof field=0x4:4:le",
                           "algo=crc width=32 poly=0x1edc6f41 init=0x12345678 refin=true refout=true "
                           "xorout=0x00000000 range=0x0..eof,skipped field=0x4:4:be",
                           "algo=CRC-64/DUNIA part=high range=ani+0x4..size-0x2 field=0x10:4:le",
                           "algo=adler32 range=0x10..eof-0x3 field=0x4:4:le"}) {
    auto s = parse_spec(text);
    ASSERT_TRUE(s) << text << ": " << s.error().message();
    EXPECT_EQ(to_string(*s), text);
    auto again = parse_spec(to_string(*s));
    ASSERT_TRUE(again);
    EXPECT_EQ(*again, *s);
  }
}

TEST(ChecksumSpec, AcceptsRevEngStyleAndDefaults) {
  auto s = parse_spec(
      R"(width=32 poly=0x04c11db7 init=0xffffffff refin=true refout=true xorout=0xffffffff check=0xcbf43926 residue=0xdebb20e3 name="CRC-32/ISO-HDLC")");
  ASSERT_TRUE(s) << s.error().message();
  EXPECT_EQ(s->algo.name(), "CRC-32/ISO-HDLC");
  EXPECT_EQ(s->field, FieldSpec{});
  EXPECT_EQ(s->range, RangeSpec{});
}

TEST(ChecksumSpec, RejectsNonsense) {
  for (const char* text : {"", "algo=nope", "algo=crc", "width=70 poly=1", "width=8 poly=0x1ff", "algo=adler32 poly=3",
                           "algo=CRC-32 range=5", "algo=CRC-32 range=0x8..middle", "algo=CRC-32 field=4",
                           "algo=CRC-32 field=4:9", "algo=CRC-32 colour=blue", "algo=CRC-32 refin=maybe"}) {
    EXPECT_FALSE(parse_spec(text)) << text;
  }
}

TEST(ChecksumSpec, ResolvesLandmarks) {
  auto files = mab::test::generate({});
  const auto& f = files[0].bytes;
  auto r = resolve(*parse_range("ani..size"), f, FieldSpec{});
  ASSERT_TRUE(r);
  EXPECT_EQ(r->begin, 0x20u);
  EXPECT_EQ(r->end, f.size());
  EXPECT_FALSE(resolve(*parse_range("0x10..eof-0x100000"), f, FieldSpec{}));
  std::vector<std::uint8_t> no_ani(64, 0);
  EXPECT_FALSE(resolve(*parse_range("ani..eof"), no_ani, FieldSpec{}));
}

TEST(ChecksumSpec, ZeroedAndSkippedFieldDiffer) {
  const std::vector<std::uint8_t> file{1, 2, 3, 4, 0xAA, 0xBB, 0xCC, 0xDD, 9, 10};
  const FieldSpec field{};
  const std::vector<std::uint8_t> zeroed{1, 2, 3, 4, 0, 0, 0, 0, 9, 10};
  const std::vector<std::uint8_t> skipped{1, 2, 3, 4, 9, 10};
  EXPECT_TRUE(covered_bytes(file, ResolvedRange{0, 10, false}, field) == zeroed);
  EXPECT_TRUE(covered_bytes(file, ResolvedRange{0, 10, true}, field) == skipped);
}

TEST(ChecksumSpec, ApplyStoresAndIsStable) {
  auto files = mab::test::generate({});
  auto spec = *parse_spec("algo=CRC-32/ISO-HDLC range=0x0..eof,zeroed field=0x4:4:be");
  auto& bytes = files[0].bytes;
  ASSERT_TRUE(recompute(spec, bytes));
  const auto stored = *read_field(bytes, spec.field);
  EXPECT_EQ(*compute_field(spec, bytes), stored);
  // The field is zeroed before hashing, so applying again changes nothing.
  ASSERT_TRUE(recompute(spec, bytes));
  EXPECT_EQ(*read_field(bytes, spec.field), stored);
  EXPECT_EQ(bytes[4], static_cast<std::uint8_t>(stored >> 24));
}

// ---- CLI

struct TempDir {
  std::filesystem::path path;
  TempDir() {
    path = std::filesystem::temp_directory_path() /
           ("mab_crc_test_" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(path);
    std::filesystem::create_directories(path);
  }
  ~TempDir() { std::filesystem::remove_all(path); }
};

int run(const std::string& args, std::string& out) {
  auto r = mab::test::run_mab(args, "2>/dev/null");
  out = std::move(r.out);
  return r.status;
}

std::string write_files(const TempDir& dir, const std::vector<InputFile>& files) {
  std::string list;
  for (const auto& f : files) {
    const auto path = dir.path / f.name;
    std::ofstream(path, std::ios::binary)
        .write(reinterpret_cast<const char*>(f.bytes.data()), static_cast<std::streamsize>(f.bytes.size()));
    list += " '" + path.string() + "'";
  }
  return list;
}

TEST(CrcCli, ApplyThenSearchFindsIt) {
  TempDir dir;
  const auto list = write_files(dir, mab::test::generate({}));
  std::string out;
  const std::string spec = "algo=CRC-32/ISCSI range=0x10..eof field=0x4:4:le";
  ASSERT_EQ(run("crc-apply --in-place --algo '" + spec + "'" + list, out), 0) << out;
  EXPECT_NE(out.find("->"), std::string::npos);
  ASSERT_EQ(run("crc-apply --check --algo '" + spec + "'" + list, out), 0) << out;
  ASSERT_EQ(run("crc-search --json --max-ranges 256" + list, out), 0) << out;
  const auto j = nlohmann::json::parse(out);
  ASSERT_FALSE(j["matches"].empty());
  EXPECT_EQ(j["matches"][0]["spec"], spec);
  EXPECT_EQ(j["matches"][0]["algorithm"], "CRC-32/ISCSI");
  // Human output names the algorithm and prints a spec crc-apply accepts.
  ASSERT_EQ(run("crc-search -q --max-ranges 256" + list, out), 0);
  EXPECT_NE(out.find("spec: " + spec), std::string::npos) << out;
}

TEST(CrcCli, NoMatchExitsOneAndSaysWhatWasTried) {
  TempDir dir;
  const auto list = write_files(dir, mab::test::generate({}));
  std::string out;
  EXPECT_EQ(run("crc-search -q --max-ranges 64" + list, out), 1);
  EXPECT_NE(out.find("no match"), std::string::npos) << out;
  EXPECT_NE(out.find("candidates"), std::string::npos) << out;
}

TEST(CrcCli, ErrorsAreOneLineAndNonZero) {
  TempDir dir;
  const auto files = mab::test::generate({});
  const auto list = write_files(dir, files);
  std::string out;
  EXPECT_EQ(run("crc-search '" + (dir.path / files[0].name).string() + "'", out), 2);
  EXPECT_EQ(run("crc-apply --in-place --algo 'algo=bogus'" + list, out), 2);
  EXPECT_EQ(run("crc-apply --in-place --algo 'algo=CRC-32' '" + (dir.path / "missing.mab").string() + "'", out), 2);
  // A failed check leaves the file as it was.
  EXPECT_EQ(run("crc-apply --check --algo 'algo=CRC-32'" + list, out), 1);
}

}  // namespace
