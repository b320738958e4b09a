#include <mab/file_io.hpp>

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <unistd.h>

namespace {

namespace fs = std::filesystem;

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

struct TempDir {
  fs::path path = fs::temp_directory_path() / ("mab_file_io_" + std::to_string(::getpid()) + "_" +
                                               ::testing::UnitTest::GetInstance()->current_test_info()->name());
  TempDir() { fs::remove_all(path); fs::create_directories(path); }
  ~TempDir() { fs::remove_all(path); }
  std::size_t entries() const { return static_cast<std::size_t>(std::distance(fs::directory_iterator(path), {})); }
};

TEST(AtomicFile, CommitWritesAllPiecesInOrder) {
  TempDir dir;
  const auto target = dir.path / "out.json";
  auto f = mab::AtomicFile::open(target);
  ASSERT_TRUE(f.ok());
  ASSERT_TRUE(f->write(std::string_view("{\"a\":")).ok());
  ASSERT_TRUE(f->write(std::string_view("1}")).ok());
  EXPECT_FALSE(fs::exists(target)) << "the target must not appear before commit";
  ASSERT_TRUE(f->commit().ok());
  EXPECT_EQ(slurp(target), "{\"a\":1}");
  EXPECT_EQ(dir.entries(), 1u) << "no temporary file may be left behind";
  EXPECT_FALSE(f->write(std::string_view("x")).ok()) << "a committed file takes no more writes";
}

TEST(AtomicFile, DestroyedWithoutCommitKeepsOldTargetAndLeavesNoTemporary) {
  TempDir dir;
  const auto target = dir.path / "out.json";
  { std::ofstream(target) << "old"; }
  {
    auto f = mab::AtomicFile::open(target);
    ASSERT_TRUE(f.ok());
    ASSERT_TRUE(f->write(std::string_view("half a document")).ok());
    EXPECT_EQ(dir.entries(), 2u);
  }
  EXPECT_EQ(slurp(target), "old");
  EXPECT_EQ(dir.entries(), 1u);
}

TEST(AtomicFile, MovedFromFileDoesNotDiscardTheMovedTo) {
  TempDir dir;
  const auto target = dir.path / "out.bin";
  auto f = mab::AtomicFile::open(target);
  ASSERT_TRUE(f.ok());
  mab::AtomicFile g = std::move(*f);
  ASSERT_TRUE(g.write(std::string_view("abc")).ok());
  ASSERT_TRUE(g.commit().ok());
  EXPECT_EQ(slurp(target), "abc");
}

TEST(AtomicFile, MissingFolderIsAnIoErrorNamingThePath) {
  TempDir dir;
  const auto target = dir.path / "no" / "such" / "out.json";
  auto f = mab::AtomicFile::open(target);
  ASSERT_FALSE(f.ok());
  EXPECT_EQ(f.error().code, mab::ErrorCode::io_error);
  EXPECT_NE(f.error().field.find("out.json"), std::string::npos);
}

TEST(WriteFileAtomic, ReplacesTheTarget) {
  TempDir dir;
  const auto target = dir.path / "clip.mab";
  { std::ofstream(target) << "previous contents, longer than the new ones"; }
  const std::uint8_t bytes[] = {1, 2, 3, 0, 255};
  ASSERT_TRUE(mab::write_file_atomic(target, bytes).ok());
  EXPECT_EQ(slurp(target), std::string("\x01\x02\x03\x00\xff", 5));
  EXPECT_EQ(dir.entries(), 1u);
}

}  // namespace

namespace {

TEST(ReadFile, ZeroPaddingFollowsTheBytesAndTheLimitIsOnTheFileAlone) {
  TempDir dir;
  const auto p = dir.path / "doc.json";
  std::ofstream(p, std::ios::binary) << "{\"a\": 1}";
  auto padded = mab::read_file(p, mab::default_limits, 64);
  ASSERT_TRUE(padded.ok());
  ASSERT_EQ(padded->size(), 8u + 64u);
  EXPECT_EQ(std::string(padded->begin(), padded->begin() + 8), "{\"a\": 1}");
  for (std::size_t i = 8; i < padded->size(); ++i) EXPECT_EQ((*padded)[i], 0) << i;
  mab::Limits eight;
  eight.max_file_size = 8;
  EXPECT_TRUE(mab::read_file(p, eight, 64).ok());
  eight.max_file_size = 7;
  EXPECT_FALSE(mab::read_file(p, eight, 64).ok());
}

}  // namespace
