// End-to-end tests of the `mab` command line.
#include <mab/variant.hpp>

#include "support/cli_run.hpp"
#include "support/corpus.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <sys/wait.h>

namespace {

using Run = mab::test::CliRun;

Run run(const std::string& args) { return mab::test::run_mab(args, "2>&1"); }

std::filesystem::path temp_dir() { return mab::test::test_temp_dir("mab_cli_test"); }

TEST(Cli, HashPrintsTheDocumentedRootHash) {
  auto r = run("hash Root");
  EXPECT_EQ(r.status, 0);
  EXPECT_NE(r.out.find("0xB6C65665"), std::string::npos) << r.out;
}

TEST(Cli, VerifyPassesTheWholeCorpus) {
  auto r = run("verify -q " + mab::test::corpus_dir().string());
  EXPECT_EQ(r.status, 0) << r.out;
  const std::string want = std::to_string(mab::test::good_files().size()) + " passed, 0 failed";
  EXPECT_NE(r.out.find(want), std::string::npos) << r.out;
}

TEST(Cli, VerifyReportsAFlippedOffsetByteWithFieldAndOffset) {
  const auto dir = temp_dir();
  const auto src = mab::test::corpus_dir() / "wd1";
  std::filesystem::path file;
  for (const auto& p : mab::test::good_files())
    if (p.parent_path() == src) {
      auto bytes = mab::test::load(p);
      if (bytes.size() > 0x60) { file = p; break; }
    }
  ASSERT_FALSE(file.empty());
  auto bytes = mab::test::load(file);
  // m_offsets[6] (JointRotations) of WD1 is at 0x48 (spec 4.2); flip its high byte.
  bytes[0x48 + 3] ^= 0x40;
  const auto bad = dir / "flipped.mab";
  ASSERT_TRUE(mab::write_file_atomic(bad, bytes).ok());
  // A good file alongside: verify must go on past the bad one.
  std::filesystem::copy_file(file, dir / "good.mab");
  auto r = run("verify " + dir.string());
  EXPECT_EQ(r.status, 1) << r.out;
  EXPECT_NE(r.out.find("FAIL"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("m_offsets[6]"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("0x48"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("1 passed, 1 failed"), std::string::npos) << r.out;
  auto j = run("verify --json " + bad.string());
  EXPECT_EQ(j.status, 1);
  auto doc = nlohmann::json::parse(j.out);
  EXPECT_EQ(doc["files"][0]["error"]["field"], "m_offsets[6]");
  EXPECT_EQ(doc["files"][0]["error"]["offset"], 0x48);
  std::filesystem::remove_all(dir);
}

TEST(Cli, InfoNamesGameAndConfidenceForEveryVariant) {
  for (const auto& v : mab::all_variants()) {
    const auto dir = mab::test::corpus_dir() / std::string(v.short_name);
    ASSERT_TRUE(std::filesystem::exists(dir)) << dir;
    auto r = run("info --json " + dir.string());
    ASSERT_EQ(r.status, 0) << r.out;
    auto doc = nlohmann::json::parse(r.out);
    ASSERT_FALSE(doc.empty());
    for (const auto& f : doc) {
      EXPECT_EQ(f["game"], std::string(v.game_name));
      EXPECT_EQ(f["confidence"], std::string(mab::to_string(v.confidence)));
    }
    auto t = run("info " + dir.string());
    EXPECT_NE(t.out.find(std::string(v.game_name)), std::string::npos);
    EXPECT_NE(t.out.find("layout"), std::string::npos);
  }
}

TEST(Cli, UnknownMagicIsAOneLineError) {
  const auto dir = temp_dir();
  std::vector<std::uint8_t> bytes(32, 0x11);
  ASSERT_TRUE(mab::write_file_atomic(dir / "x.mab", bytes).ok());
  auto r = run("info " + (dir / "x.mab").string());
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.out.find("unsupported_version"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("0x11111111"), std::string::npos) << r.out;
  EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 1) << r.out;
  std::filesystem::remove_all(dir);
}

TEST(Cli, MissingFileIsReportedNotCrashed) {
  auto r = run("verify /nonexistent/file.mab");
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.out.find("0 passed, 1 failed"), std::string::npos) << r.out;
}

TEST(Cli, HelpTeaches) {
  auto r = run("verify --help");
  EXPECT_EQ(r.status, 0);
  EXPECT_NE(r.out.find("Example"), std::string::npos);
}

}  // namespace
