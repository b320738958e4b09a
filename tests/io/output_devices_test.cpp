// Reads and writes when the file system says no (file_io.hpp): a full disk (a 64 KiB tmpfs,
// mounted where the test may, skipped where it may not), a target that is a folder, a pipe that
// delivers more than the limit, a directory given as input. Every failure is an io_error or
// limit_exceeded naming the path; the target keeps its old contents and no temporary file is
// left behind.
#include <mab/decode_clip.hpp>
#include <mab/file_io.hpp>
#include <mab/json.hpp>
#include <mab/legacy.hpp>

#include "support/cli_run.hpp"
#include "support/corpus.hpp"

#include <gtest/gtest.h>

#include <cerrno>
#include <csignal>
#include <functional>
#include <cstring>
#include <fcntl.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/stat.h>
#include <thread>
#include <unistd.h>

namespace {

namespace fs = std::filesystem;

std::vector<std::uint8_t> bytes_of(std::size_t n, std::uint8_t v) { return std::vector<std::uint8_t>(n, v); }

// Files in `dir` whose name marks them as one of AtomicFile's temporaries.
std::size_t temporaries(const fs::path& dir) {
  std::size_t n = 0;
  for (const auto& e : fs::directory_iterator(dir)) n += e.path().filename().string().find(".tmp") != std::string::npos;
  return n;
}

class FullDisk : public ::testing::Test {
 protected:
  fs::path dir;
  bool mounted = false;
  void SetUp() override {
    dir = mab::test::test_temp_dir("mab_full_disk");
    if (::mount("tmpfs", dir.c_str(), "tmpfs", MS_NOSUID | MS_NODEV, "size=64k") != 0)
      GTEST_SKIP() << "cannot mount a tmpfs here (" << std::strerror(errno) << "): the full-disk case is not run";
    mounted = true;
  }
  void TearDown() override {
    if (mounted) ::umount2(dir.c_str(), MNT_DETACH);
    fs::remove_all(dir);
  }
};

TEST_F(FullDisk, AWriteThatDoesNotFitLeavesTheOldFileAndNoTemporary) {
  const auto target = dir / "clip.mab";
  ASSERT_TRUE(mab::write_file_atomic(target, bytes_of(1000, 1)).ok());
  auto st = mab::write_file_atomic(target, bytes_of(256 * 1024, 2));
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().code, mab::ErrorCode::io_error);
  EXPECT_NE(st.error().message().find("write failed"), std::string::npos) << st.error().message();
  EXPECT_NE(st.error().message().find(target.string()), std::string::npos) << st.error().message();
  auto back = mab::read_file(target);
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(*back, bytes_of(1000, 1));
  EXPECT_EQ(temporaries(dir), 0u);
  // Streamed pieces: the piece that does not fit fails, and the file object is closed.
  auto f = mab::AtomicFile::open(dir / "streamed.json");
  ASSERT_TRUE(f.ok());
  ASSERT_TRUE(f->write(std::string_view("{\"a\":")).ok());
  std::string big(200 * 1024, ' ');
  EXPECT_FALSE(f->write(big).ok());
  EXPECT_FALSE(f->write(std::string_view("1}")).ok());
  EXPECT_FALSE(f->commit().ok());
  EXPECT_FALSE(fs::exists(dir / "streamed.json"));
  EXPECT_EQ(temporaries(dir), 0u);
}

// The CLI on a full disk: an I/O error (exit 2, docs/cli.md), one line, the old output intact.
TEST_F(FullDisk, TheCliSaysSoAndKeepsTheOldOutput) {
  const auto out = dir / "out.json";
  ASSERT_TRUE(mab::write_file_atomic(out, bytes_of(10, '{')).ok());
  // The disk nearly full: 56 KiB of the 64 taken, so the export (some 37 KiB) cannot fit.
  ASSERT_TRUE(mab::write_file_atomic(dir / "filler", bytes_of(56 * 1024, 0)).ok());
  std::string err;
  const auto src = fs::path(MAB_SOURCE_DIR) / "corpus" / "wd2" / "many_bones_200.mab";
  const auto r = mab::test::run_mab_split("export " + src.string() + " -o " + out.string(), &err);
  EXPECT_EQ(r.status, 2) << r.out << err;
  EXPECT_NE(err.find(out.string()), std::string::npos) << err;
  EXPECT_EQ(*mab::read_file(out), bytes_of(10, '{'));
  EXPECT_EQ(temporaries(dir), 0u);
}

class OutputPaths : public ::testing::Test {
 protected:
  fs::path dir;
  void SetUp() override { dir = mab::test::test_temp_dir("mab_output_paths"); }
  void TearDown() override { fs::remove_all(dir); }
};

TEST_F(OutputPaths, ATargetThatIsAFolderIsNotReplaced) {
  fs::create_directories(dir / "target" / "inside");
  auto st = mab::write_file_atomic(dir / "target", bytes_of(16, 3));
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().code, mab::ErrorCode::io_error);
  EXPECT_NE(st.error().message().find("is a directory"), std::string::npos) << st.error().message();
  EXPECT_TRUE(fs::is_directory(dir / "target" / "inside"));
  EXPECT_EQ(temporaries(dir), 0u);
}

TEST_F(OutputPaths, AFileCommittedOnceIsClosed) {
  auto f = mab::AtomicFile::open(dir / "a.bin");
  ASSERT_TRUE(f.ok());
  ASSERT_TRUE(f->write(bytes_of(4, 7)).ok());
  ASSERT_TRUE(f->commit().ok());
  EXPECT_FALSE(f->commit().ok());
  auto w = f->write(bytes_of(1, 1));
  ASSERT_FALSE(w.ok());
  EXPECT_NE(w.error().message().find("not open"), std::string::npos);
  EXPECT_EQ(*mab::read_file(dir / "a.bin"), bytes_of(4, 7));
}

// Move assignment discards what the assigned-to file held and takes the other one over.
TEST_F(OutputPaths, MoveAssignmentDiscardsTheOverwrittenFile) {
  auto a = mab::AtomicFile::open(dir / "a.bin");
  auto b = mab::AtomicFile::open(dir / "b.bin");
  ASSERT_TRUE(a.ok() && b.ok());
  ASSERT_TRUE(a->write(bytes_of(3, 1)).ok());
  ASSERT_TRUE(b->write(bytes_of(5, 2)).ok());
  EXPECT_EQ(temporaries(dir), 2u);
  *a = std::move(*b);
  EXPECT_EQ(temporaries(dir), 1u);
  auto& self = *a;
  *a = std::move(self);  // self-assignment keeps it
  ASSERT_TRUE(a->commit().ok());
  EXPECT_FALSE(fs::exists(dir / "a.bin"));
  EXPECT_EQ(*mab::read_file(dir / "b.bin"), bytes_of(5, 2));
  EXPECT_EQ(temporaries(dir), 0u);
}

TEST_F(OutputPaths, InputsThatAreFoldersOrEndlessPipes) {
  auto d = mab::read_file(dir);
  ASSERT_FALSE(d.ok());
  EXPECT_EQ(d.error().code, mab::ErrorCode::io_error);
  EXPECT_NE(d.error().message().find("is a directory"), std::string::npos);
  // A pipe says no size: it is read up to the limit and refused past it; the writer, cut off,
  // gets EPIPE (SIGPIPE ignored here), not a hang.
  const auto fifo = dir / "pipe";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  std::signal(SIGPIPE, SIG_IGN);
  std::thread writer([&] {
    const int fd = ::open(fifo.c_str(), O_WRONLY);
    if (fd < 0) return;
    const auto chunk = bytes_of(64 * 1024, 9);
    for (int i = 0; i < 64; ++i)
      if (::write(fd, chunk.data(), chunk.size()) < 0) break;
    ::close(fd);
  });
  mab::Limits small;
  small.max_file_size = 300 * 1024;
  auto p = mab::read_file(fifo, small);
  writer.join();
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.error().code, mab::ErrorCode::limit_exceeded) << p.error().message();
  std::signal(SIGPIPE, SIG_DFL);
}

// A streamed export whose output stops taking pieces (a closed pipe, a full device behind the
// sink): the export stops with io_error at that piece, for every kind of document, and
// nothing after the refusal is offered.
TEST(StreamedExport, AnOutputThatStopsTakingPiecesEndsTheExport) {
  const auto root = mab::test::corpus_dir();
  const mab::Container clip = mab::test::load_container(root / "wd2" / "many_bones_200.mab");
  const mab::Container legacy = mab::test::load_container(root / "fc2" / "many_tracks.mab");
  const mab::Container fc4 = mab::test::load_container(root / "fc4" / "mixed_k17_opaque_translations.mab");
  const auto decoded = mab::decode_clip(clip);
  ASSERT_TRUE(decoded.ok());
  const auto tracks = mab::decode_legacy_clip(legacy, 0);
  ASSERT_TRUE(tracks.ok());
  mab::JsonExportOptions small;
  small.piece_size = 256;  // several pieces even for a small document
  using Export = std::function<mab::Status(const mab::JsonSink&)>;
  const std::vector<std::pair<const char*, Export>> exports{
      {"clip", [&](const mab::JsonSink& s) { return mab::export_json(*decoded, s, small); }},
      {"block", [&](const mab::JsonSink& s) { return mab::export_block_json(clip, 0, s, small); }},
      {"container", [&](const mab::JsonSink& s) { return mab::export_json(fc4, "kept", s, small); }},
      {"legacy", [&](const mab::JsonSink& s) { return mab::export_json(legacy, *tracks, s, small); }},
  };
  for (const auto& [what, run] : exports) {
    std::size_t whole = 0;
    ASSERT_TRUE(run([&](std::string_view p) { return whole += p.size(), true; }).ok()) << what;
    for (const std::size_t stop_after : {std::size_t{0}, std::size_t{1}, std::size_t{3}}) {
      std::size_t pieces = 0, taken = 0;
      bool after_refusal = false;
      const auto st = run([&](std::string_view p) {
        if (pieces > stop_after) after_refusal = true;
        if (pieces++ == stop_after) return false;
        taken += p.size();
        return true;
      });
      ASSERT_FALSE(st.ok()) << what << " stop after " << stop_after;
      EXPECT_EQ(st.error().code, mab::ErrorCode::io_error) << st.error().message();
      EXPECT_FALSE(after_refusal) << what;
      EXPECT_LT(taken, whole) << what;
    }
  }
}

// A read-only file system (a tmpfs remounted read-only; skipped where mount is not allowed):
// even root may not write there, so a new output is refused naming the folder and an existing
// one naming the file, each before anything is written.
class ReadOnlyDisk : public ::testing::Test {
 protected:
  fs::path dir;
  bool mounted = false;
  void SetUp() override {
    dir = mab::test::test_temp_dir("mab_read_only_disk");
    if (::mount("tmpfs", dir.c_str(), "tmpfs", MS_NOSUID | MS_NODEV, "size=64k") != 0)
      GTEST_SKIP() << "cannot mount a tmpfs here (" << std::strerror(errno) << ")";
    mounted = true;
    ASSERT_TRUE(mab::write_file_atomic(dir / "old.json", bytes_of(10, '{')).ok());
    if (::mount(nullptr, dir.c_str(), nullptr, MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV, nullptr) != 0)
      GTEST_SKIP() << "cannot remount it read-only (" << std::strerror(errno) << ")";
  }
  void TearDown() override {
    if (mounted) ::umount2(dir.c_str(), MNT_DETACH);
    fs::remove_all(dir);
  }
};

TEST_F(ReadOnlyDisk, NewAndExistingOutputsAreRefusedByName) {
  const auto src = fs::path(MAB_SOURCE_DIR) / "corpus" / "wd1" / "long_k100.mab";
  std::string err;
  auto r = mab::test::run_mab_split("export " + src.string() + " -o " + (dir / "new.json").string(), &err);
  EXPECT_EQ(r.status, 2) << r.out << err;
  EXPECT_NE(err.find("cannot write in folder " + dir.string()), std::string::npos) << err;
  r = mab::test::run_mab_split("export " + src.string() + " -o " + (dir / "old.json").string(), &err);
  EXPECT_EQ(r.status, 2) << r.out << err;
  EXPECT_NE(err.find("is not writable"), std::string::npos) << err;
  EXPECT_EQ(*mab::read_file(dir / "old.json"), bytes_of(10, '{'));
  EXPECT_FALSE(fs::exists(dir / "new.json"));
}

// Targets that are no file to write: a socket, and a path under a regular file.
TEST_F(OutputPaths, ASocketOrAPathUnderAFileIsRefused) {
  const auto sock = dir / "sock";
  const int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
  ASSERT_GE(fd, 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  ASSERT_LT(sock.string().size(), sizeof addr.sun_path);
  std::strncpy(addr.sun_path, sock.c_str(), sizeof addr.sun_path - 1);
  ASSERT_EQ(::bind(fd, reinterpret_cast<const sockaddr*>(&addr), sizeof addr), 0) << std::strerror(errno);
  auto st = mab::write_file_atomic(sock, bytes_of(16, 3));
  ::close(fd);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().code, mab::ErrorCode::io_error);
  EXPECT_NE(st.error().message().find("is a socket"), std::string::npos) << st.error().message();
  ASSERT_TRUE(mab::write_file_atomic(dir / "plain", bytes_of(4, 1)).ok());
  st = mab::write_file_atomic(dir / "plain" / "out.mab", bytes_of(16, 3));
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.error().message().find(std::strerror(ENOTDIR)), std::string::npos) << st.error().message();
  EXPECT_EQ(*mab::read_file(dir / "plain"), bytes_of(4, 1));
  EXPECT_EQ(temporaries(dir), 0u);
}

}  // namespace
