#include <mab/file_io.hpp>

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <thread>
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
  TempDir() {
    fs::remove_all(path);
    fs::create_directories(path);
  }
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

// Where an output goes, by what is at its path (docs/cli.md).
namespace {

TEST(ResolveOutput, KindsByWhatIsThere) {
  TempDir dir;
  const auto file = dir.path / "clip.mab";
  auto t = mab::resolve_output(file);
  ASSERT_TRUE(t.ok()) << t.error().message();
  EXPECT_EQ(t->kind, mab::OutputKind::new_file);
  { std::ofstream(file) << "x"; }
  t = mab::resolve_output(file);
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(t->kind, mab::OutputKind::replace_file);
  EXPECT_FALSE(t->through_link);
  EXPECT_EQ(t->hard_links, 1u);
  fs::create_hard_link(file, dir.path / "other_name.mab");
  EXPECT_EQ(mab::resolve_output(file)->hard_links, 2u);
  const auto fifo = dir.path / "fifo";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  EXPECT_EQ(mab::resolve_output(fifo)->kind, mab::OutputKind::stream);
  EXPECT_EQ(mab::resolve_output("/dev/null")->kind, mab::OutputKind::stream);
  for (const fs::path& refused : {dir.path, dir.path / "missing_folder" / "x.mab", fs::path()}) {
    auto r = mab::resolve_output(refused);
    ASSERT_FALSE(r.ok()) << refused;
    EXPECT_EQ(r.error().code, mab::ErrorCode::io_error);
  }
}

TEST(ResolveOutput, LinksLeadToTheirLastTargetAndAreKept) {
  TempDir dir;
  fs::create_directories(dir.path / "a" / "b");
  fs::create_symlink("b/clip.mab", dir.path / "a" / "first");        // relative to a/
  fs::create_symlink(dir.path / "a" / "first", dir.path / "start");  // absolute
  auto t = mab::resolve_output(dir.path / "start");
  ASSERT_TRUE(t.ok()) << t.error().message();
  EXPECT_TRUE(t->through_link);
  EXPECT_EQ(t->kind, mab::OutputKind::new_file);  // dangling: the target is created
  EXPECT_EQ(t->file, dir.path / "a" / "b" / "clip.mab");
  ASSERT_TRUE(mab::write_file_atomic(dir.path / "start", std::vector<std::uint8_t>{'o', 'k'}).ok());
  EXPECT_TRUE(fs::is_symlink(dir.path / "start"));
  EXPECT_EQ(slurp(dir.path / "a" / "b" / "clip.mab"), "ok");
  // A loop is refused, never followed for ever.
  fs::create_symlink("loop2", dir.path / "loop1");
  fs::create_symlink("loop1", dir.path / "loop2");
  auto loop = mab::resolve_output(dir.path / "loop1");
  ASSERT_FALSE(loop.ok());
  EXPECT_NE(loop.error().detail.find("40"), std::string::npos) << loop.error().message();
  // /dev/stdout leads through /proc: it is streamed to, whatever is open there.
  auto out = mab::resolve_output("/dev/stdout");
  ASSERT_TRUE(out.ok()) << out.error().message();
  EXPECT_EQ(out->kind, mab::OutputKind::stream);
}

TEST(ResolveOutput, ASocketIsRefused) {
  TempDir dir;
  const auto path = dir.path / "sock";
  const int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
  ASSERT_GE(fd, 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::snprintf(addr.sun_path, sizeof addr.sun_path, "%s", path.c_str());
  ASSERT_EQ(::bind(fd, reinterpret_cast<const sockaddr*>(&addr), sizeof addr), 0);
  auto r = mab::resolve_output(path);
  ::close(fd);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().detail.find("socket"), std::string::npos);
  EXPECT_FALSE(mab::write_file_atomic(path, std::vector<std::uint8_t>{1}).ok());
  EXPECT_TRUE(fs::is_socket(path));
}

TEST(WriteFileAtomic, KeepsTheModeOfAReplacedFileAndStreamsToAFifo) {
  TempDir dir;
  const auto file = dir.path / "clip.mab";
  { std::ofstream(file) << "old"; }
  fs::permissions(file, fs::perms::owner_read | fs::perms::owner_write | fs::perms::others_read);
  ASSERT_TRUE(mab::write_file_atomic(file, std::vector<std::uint8_t>{'n', 'e', 'w'}).ok());
  EXPECT_EQ(slurp(file), "new");
  EXPECT_EQ(fs::status(file).permissions() & fs::perms::all,
            fs::perms::owner_read | fs::perms::owner_write | fs::perms::others_read);

  const auto fifo = dir.path / "fifo";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  std::string got;
  std::thread reader([&] { got = slurp(fifo); });
  ASSERT_TRUE(mab::write_file_atomic(fifo, std::vector<std::uint8_t>{'a', 'b'}).ok());
  reader.join();
  EXPECT_EQ(got, "ab");
  EXPECT_TRUE(fs::is_fifo(fifo));
}

TEST(KeepBackup, NeverOverwritesAnEarlierBackup) {
  TempDir dir;
  const auto file = dir.path / "clip.mab";
  { std::ofstream(file) << "first"; }
  auto a = mab::keep_backup(file);
  ASSERT_TRUE(a.ok()) << a.error().message();
  EXPECT_EQ(*a, dir.path / "clip.mab.bak");
  { std::ofstream(file) << "second"; }
  auto b = mab::keep_backup(file);
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(*b, dir.path / "clip.mab.bak.1");
  EXPECT_EQ(slurp(dir.path / "clip.mab.bak"), "first");
  EXPECT_EQ(slurp(dir.path / "clip.mab.bak.1"), "second");
  // A link (even a dangling one) or a FIFO at a backup's name is taken, never written through.
  fs::create_symlink(dir.path / "elsewhere", dir.path / "clip.mab.bak.2");
  ASSERT_EQ(::mkfifo((dir.path / "clip.mab.bak.3").c_str(), 0600), 0);
  auto c = mab::keep_backup(file);
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(*c, dir.path / "clip.mab.bak.4");
  EXPECT_FALSE(fs::exists(dir.path / "elsewhere"));
}

}  // namespace
