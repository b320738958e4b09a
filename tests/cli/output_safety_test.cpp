// Outputs (docs/cli.md): no command replaces a device, FIFO, link or backup. Every writing command
// is run with its output at a FIFO (with a reader), a symbolic link, a character device made by
// mknod in a temporary folder (never the system's /dev/null: a regression would replace it), a
// directory, and with --in-place twice.
#include "support/cli_run.hpp"
#include "support/corpus.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>
#include <vector>

namespace {

namespace fs = std::filesystem;

using mab::test::run_mab_split;

std::string read_text(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void write_text(const fs::path& p, const std::string& s) { std::ofstream(p, std::ios::binary) << s; }

std::string q(const fs::path& p) { return "'" + p.string() + "'"; }

const fs::path k_clip = mab::test::corpus_dir() / "wd2" / "mixed_k8.mab";

// One writing command: `args(out)` writes its output at `out`. `deterministic`: two runs give
// the same bytes (a survey report holds its timings).
struct Writer {
  std::string name;
  std::function<std::string(const fs::path& out)> args;
  bool deterministic = true;
};

// Inputs some writers need, made once per test in `dir`.
std::vector<Writer> writers(const fs::path& dir) {
  const auto json = dir / "in.json", glb = dir / "in.glb", tree = dir / "tree";
  if (!fs::exists(json)) {
    EXPECT_EQ(run_mab_split("export " + q(k_clip) + " -o " + q(json)).status, 0);
    EXPECT_EQ(run_mab_split("export " + q(k_clip) + " -o " + q(glb)).status, 0);
    fs::create_directories(tree);
    fs::copy_file(k_clip, tree / "a.mab");
  }
  const std::string clip = q(k_clip);
  const std::string algo = "--algo 'algo=CRC-32/BZIP2 range=0x10..eof field=0x4:4:le' ";
  return {
      {"export json", [=](const fs::path& o) { return "export " + clip + " --format json -o " + q(o); }},
      {"export glb", [=](const fs::path& o) { return "export " + clip + " --format glb -o " + q(o); }},
      {"import json", [=](const fs::path& o) { return "import " + q(json) + " -o " + q(o); }},
      {"import glb", [=](const fs::path& o) { return "import " + q(glb) + " --template " + clip + " -o " + q(o); }},
      {"edit", [=](const fs::path& o) { return "edit " + clip + " --speed 0.5 -o " + q(o); }},
      {"convert", [=](const fs::path& o) { return "convert " + clip + " --to wdl -o " + q(o); }},
      {"crc-apply", [=](const fs::path& o) { return "crc-apply " + algo + clip + " -o " + q(o); }},
      {"survey json", [=](const fs::path& o) { return "survey -q " + q(tree) + " --json " + q(o); }, false},
      {"survey csv", [=](const fs::path& o) { return "survey -q " + q(tree) + " --csv " + q(o); }, false},
      {"survey html", [=](const fs::path& o) { return "survey -q " + q(tree) + " --html " + q(o); }, false},
  };
}

// What the command writes to a plain new file, for comparison.
std::string reference(const Writer& w, const fs::path& dir) {
  const auto out = dir / "reference.out";
  fs::remove(out);
  std::string err;
  EXPECT_EQ(run_mab_split(w.args(out), &err).status, 0) << w.name << ": " << err;
  auto text = read_text(out);
  fs::remove(out);
  EXPECT_FALSE(text.empty()) << w.name;
  return text;
}

std::size_t entries(const fs::path& dir) {
  return static_cast<std::size_t>(std::distance(fs::directory_iterator(dir), {}));
}

TEST(OutputSafety, AFifoStaysAFifoAndItsReaderGetsTheOutput) {
  const auto dir = mab::test::test_temp_dir("mab_out_fifo");
  for (const auto& w : writers(dir)) {
    const std::string want = reference(w, dir);
    const auto fifo = dir / "fifo";
    fs::remove(fifo);
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0644), 0);
    std::string got;
    std::thread reader([&] { got = read_text(fifo); });
    std::string err;
    const auto r = run_mab_split(w.args(fifo), &err);
    reader.join();
    EXPECT_EQ(r.status, 0) << w.name << ": " << err;
    struct stat st {};
    ASSERT_EQ(::lstat(fifo.c_str(), &st), 0);
    EXPECT_TRUE(S_ISFIFO(st.st_mode)) << w.name << ": the FIFO was replaced";
    if (w.deterministic) EXPECT_EQ(got, want) << w.name;
    else EXPECT_FALSE(got.empty()) << w.name;
  }
  fs::remove_all(dir);
}

TEST(OutputSafety, ALinkIsKeptAndTheFileItLeadsToIsReplaced) {
  const auto dir = mab::test::test_temp_dir("mab_out_link");
  for (const auto& w : writers(dir)) {
    const std::string want = reference(w, dir);
    fs::remove_all(dir / "store");
    fs::create_directories(dir / "store");
    const auto target = dir / "store" / "clip.out";
    write_text(target, "old contents");
    ::chmod(target.c_str(), 0640);
    // A chain: link -> link2 -> store/clip.out (relative targets, read from each link's folder).
    const auto link = dir / "link", link2 = dir / "store" / "link2";
    fs::remove(link);
    fs::create_symlink("clip.out", link2);
    fs::create_symlink("store/link2", link);
    std::string err;
    const auto r = run_mab_split(w.args(link), &err);
    EXPECT_EQ(r.status, 0) << w.name << ": " << err;
    EXPECT_TRUE(fs::is_symlink(link)) << w.name << ": the link was replaced";
    EXPECT_EQ(fs::read_symlink(link), "store/link2") << w.name;
    EXPECT_TRUE(fs::is_symlink(link2)) << w.name;
    if (w.deterministic) {
      EXPECT_EQ(read_text(target), want) << w.name;
    }
    EXPECT_NE(read_text(target), "old contents") << w.name;
    EXPECT_EQ(fs::status(target).permissions() & fs::perms::all,
              fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read)
        << w.name << ": the replaced file's mode is kept";
    EXPECT_EQ(entries(dir / "store"), 2u) << w.name << ": a temporary file was left";

    // A dangling link: its target is created (as a shell's `>` does), the link kept.
    fs::remove(target);
    EXPECT_EQ(run_mab_split(w.args(link), &err).status, 0) << w.name << ": " << err;
    EXPECT_TRUE(fs::is_symlink(link)) << w.name;
    EXPECT_TRUE(fs::is_regular_file(target)) << w.name;
  }
  fs::remove_all(dir);
}

TEST(OutputSafety, ACharacterDeviceMadeByMknodIsWrittenToNotReplaced) {
  const auto dir = mab::test::test_temp_dir("mab_out_dev");
  const auto null = dir / "null";
  // A private /dev/null (1, 3): the system's own is never the test's target.
  if (::mknod(null.c_str(), S_IFCHR | 0666, makedev(1, 3)) != 0)
    GTEST_SKIP() << "mknod is not permitted here (" << std::strerror(errno) << "): run as root to test devices";
  for (const auto& w : writers(dir)) {
    std::string err;
    const auto r = run_mab_split(w.args(null), &err);
    EXPECT_EQ(r.status, 0) << w.name << ": " << err;
    struct stat st {};
    ASSERT_EQ(::lstat(null.c_str(), &st), 0);
    EXPECT_TRUE(S_ISCHR(st.st_mode)) << w.name << ": the device was replaced by a regular file";
    EXPECT_EQ(st.st_rdev, makedev(1, 3)) << w.name;
  }
  // /dev/full: a device whose writes fail is a one-line I/O error (exit 2), not a success.
  const auto full = dir / "full";
  ASSERT_EQ(::mknod(full.c_str(), S_IFCHR | 0666, makedev(1, 7)), 0);
  std::string err;
  EXPECT_EQ(run_mab_split("export " + q(k_clip) + " -o " + q(full), &err).status, 2);
  EXPECT_NE(err.find("No space left"), std::string::npos) << err;
  EXPECT_TRUE(fs::is_character_file(full));
  fs::remove_all(dir);
}

TEST(OutputSafety, ADirectoryIsRefusedAndLeftAsItWas) {
  const auto dir = mab::test::test_temp_dir("mab_out_dir");
  for (const auto& w : writers(dir)) {
    const auto target = dir / "folder";
    fs::create_directories(target);
    write_text(target / "keep.txt", "x");
    std::string err;
    const auto r = run_mab_split(w.args(target), &err);
    EXPECT_EQ(r.status, 2) << w.name << ": " << err;
    EXPECT_NE(err.find("is a directory"), std::string::npos) << w.name << ": " << err;
    EXPECT_EQ(std::count(err.begin(), err.end(), '\n'), 1) << w.name << ": " << err;
    EXPECT_TRUE(fs::is_directory(target));
    EXPECT_EQ(entries(target), 1u) << w.name;
  }
  // Nor a folder that does not exist, a socket, or a link loop.
  std::string err;
  EXPECT_EQ(run_mab_split("edit " + q(k_clip) + " --speed 2 -o " + q(dir / "no" / "x.mab"), &err).status, 2);
  EXPECT_NE(err.find("cannot write in folder"), std::string::npos) << err;
  fs::create_symlink("loop_b", dir / "loop_a");
  fs::create_symlink("loop_a", dir / "loop_b");
  EXPECT_EQ(run_mab_split("edit " + q(k_clip) + " --speed 2 -o " + q(dir / "loop_a"), &err).status, 2);
  EXPECT_NE(err.find("40 symbolic links"), std::string::npos) << err;
  EXPECT_TRUE(fs::is_symlink(dir / "loop_a"));
  fs::remove_all(dir);
}

TEST(OutputSafety, InPlaceTwiceKeepsTheFirstBackup) {
  const auto dir = mab::test::test_temp_dir("mab_out_inplace");
  const std::string algo = "--algo 'algo=CRC-32/BZIP2 range=0x10..eof field=0x4:4:le' ";
  // Each command rewrites FILE; the second run must not replace FILE.bak (the original).
  const std::vector<std::pair<std::string, std::function<std::string(const fs::path&)>>> cases = {
      {"edit", [](const fs::path& f) { return "edit " + q(f) + " --speed 0.5 -o " + q(f) + " --in-place"; }},
      {"convert", [](const fs::path& f) { return "convert " + q(f) + " --to wdl -o " + q(f) + " --in-place"; }},
      {"import glb",
       [&](const fs::path& f) {
         return "import " + q(dir / "in.glb") + " --template " + q(f) + " -o " + q(f) + " --in-place";
       }},
      {"export", [](const fs::path& f) { return "export " + q(f) + " -o " + q(f) + " --in-place"; }},
      // crc-apply: the second run finds the field right and writes nothing, so a third algorithm
      // run is needed to write twice; two algorithms alternate.
      {"crc-apply",
       [&](const fs::path& f) {
         static int n = 0;
         const std::string a = (n++ % 2 == 0) ? algo : "--algo 'algo=CRC-32/ISO-HDLC range=0x10..eof field=0x4:4:le' ";
         return "crc-apply " + a + q(f) + " --in-place";
       }},
  };
  ASSERT_EQ(run_mab_split("export " + q(k_clip) + " -o " + q(dir / "in.glb")).status, 0);
  for (const auto& [name, args] : cases) {
    const auto file = dir / (name.substr(0, name.find(' ')) + ".mab");
    fs::copy_file(k_clip, file, fs::copy_options::overwrite_existing);
    const std::string original = read_text(file);
    std::string err;
    ASSERT_EQ(run_mab_split(args(file), &err).status, 0) << name << ": " << err;
    fs::path bak = file;
    bak += ".bak";
    EXPECT_EQ(read_text(bak), original) << name;
    const std::string first = read_text(file);
    // A second --in-place run: FILE.bak stays the original, the first result goes to .bak.1.
    // (export's second run reads its own JSON, which is no .mab: it must fail and keep both.)
    const auto second = run_mab_split(args(file), &err);
    EXPECT_EQ(read_text(bak), original) << name << ": the first backup was overwritten";
    if (name == "export") {
      EXPECT_NE(second.status, 0);
      EXPECT_EQ(read_text(file), first);
      continue;
    }
    ASSERT_EQ(second.status, 0) << name << ": " << err;
    fs::path bak1 = file;
    bak1 += ".bak.1";
    EXPECT_EQ(read_text(bak1), first) << name;
    EXPECT_NE(second.out.find("as " + bak1.string()), std::string::npos) << name << ": " << second.out;
  }
  fs::remove_all(dir);
}

// "crc-apply rewrites its inputs with no .bak" (docs/cli.md): now it needs --in-place (or -o).
TEST(OutputSafety, CrcApplyRewritesNothingUnlessAskedAndKeepsABackup) {
  const auto dir = mab::test::test_temp_dir("mab_out_crc");
  const auto file = dir / "a.mab";
  fs::copy_file(k_clip, file);
  const std::string original = read_text(file);
  const std::string algo = "--algo 'algo=CRC-32/BZIP2 range=0x10..eof field=0x4:4:le' ";
  std::string err;
  auto r = run_mab_split("crc-apply " + algo + q(file), &err);
  EXPECT_EQ(r.status, 2) << err;
  EXPECT_NE(err.find("--in-place"), std::string::npos) << err;
  EXPECT_EQ(read_text(file), original);
  EXPECT_EQ(entries(dir), 1u);
  // -o naming FILE is still FILE: --in-place is needed.
  EXPECT_EQ(run_mab_split("crc-apply " + algo + q(file) + " -o " + q(dir / "." / "a.mab"), &err).status, 2);
  EXPECT_EQ(read_text(file), original);
  r = run_mab_split("crc-apply " + algo + q(file) + " --in-place", &err);
  ASSERT_EQ(r.status, 0) << err;
  EXPECT_EQ(read_text(dir / "a.mab.bak"), original);
  EXPECT_NE(read_text(file), original);
  EXPECT_EQ(run_mab_split("crc-apply --check " + algo + q(file), &err).status, 0) << err;
  EXPECT_EQ(run_mab_split("crc-apply --check " + algo + q(dir / "a.mab.bak"), &err).status, 1) << err;
  fs::remove_all(dir);
}

// A write that fails half-way (here: a file size limit) leaves neither a half-written file
// nor a temporary, and an existing target keeps its contents.
TEST(OutputSafety, AFailedWriteLeavesNoHalfWrittenFile) {
  const auto dir = mab::test::test_temp_dir("mab_out_fail");
  const auto big = mab::test::corpus_dir() / "wd1" / "long_k100.mab";  // a JSON of some 60 KB
  for (const bool existing : {false, true}) {
    const auto out = dir / "clip.json";
    if (existing) write_text(out, "old");
    // ulimit -f counts 512-byte blocks in dash, 1024 in bash: either is far below the document.
    const std::string cmd = "ulimit -f 8; " + std::string(MAB_CLI_PATH) + " export " + q(big) + " -o " + q(out) +
                            " 2>" + q(dir / "err.txt");
    const int st = std::system(cmd.c_str());
    ASSERT_TRUE(WIFEXITED(st));
    EXPECT_EQ(WEXITSTATUS(st), 2) << read_text(dir / "err.txt");
    EXPECT_NE(read_text(dir / "err.txt").find("write failed"), std::string::npos) << read_text(dir / "err.txt");
    if (existing) EXPECT_EQ(read_text(out), "old");
    else EXPECT_FALSE(fs::exists(out));
    EXPECT_EQ(entries(dir), existing ? 2u : 1u) << "a temporary file was left behind";
    fs::remove(dir / "err.txt");
    fs::remove(out);
  }
  fs::remove_all(dir);
}

// `-o -`: the .mab alone goes to standard output; the report that follows goes to stderr.
TEST(OutputSafety, ImportToStandardOutputKeepsTheReportOutOfTheFile) {
  const auto dir = mab::test::test_temp_dir("mab_out_stdout");
  ASSERT_EQ(run_mab_split("export " + q(k_clip) + " -o " + q(dir / "a.json")).status, 0);
  std::string err;
  const auto r = run_mab_split("import " + q(dir / "a.json") + " -o -", &err);
  ASSERT_EQ(r.status, 0) << err;
  EXPECT_EQ(r.out, read_text(k_clip));
  EXPECT_NE(err.find("wrote -"), std::string::npos) << err;
  fs::remove_all(dir);
}

}  // namespace
