// End-to-end tests of the `mab` command line.
#include <mab/clip.hpp>
#include <mab/variant.hpp>

#include "support/cli_run.hpp"
#include "support/corpus.hpp"

#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstdio>
#include <fstream>
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
      if (bytes.size() > 0x60) {
        file = p;
        break;
      }
    }
  ASSERT_FALSE(file.empty());
  auto bytes = mab::test::load(file);
  // m_offsets[6] (JointRotations) of WD1 is at 0x48 (format 4.2); flip its high byte.
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
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.out.find("0 passed, 1 failed"), std::string::npos) << r.out;
}

TEST(Cli, HelpTeaches) {
  auto r = run("verify --help");
  EXPECT_EQ(r.status, 0);
  EXPECT_NE(r.out.find("Example"), std::string::npos);
}

}  // namespace

namespace {

// Runs `mab ARGS` with MAB_HUGE_PAGES=`choice` and GLIBC_TUNABLES unset; stderr is returned
// with the loader's statistics (LD_DEBUG=statistics prints them once per program start) cut
// out and counted in *starts.
Run run_huge(const std::string& choice, const std::string& args, int* starts) {
  const std::string cmd = "env -u GLIBC_TUNABLES MAB_HUGE_PAGES=" + choice + " LD_DEBUG=statistics " +
                          std::string(MAB_CLI_PATH) + " " + args + " 2>&1";
  Run out;
  std::FILE* p = popen(cmd.c_str(), "r");
  if (p == nullptr) return out;
  char buf[4096];
  std::size_t n;
  std::string all;
  while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) all.append(buf, n);
  const int st = pclose(p);
  out.status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  *starts = 0;
  std::size_t pos = 0;
  while (pos < all.size()) {
    const std::size_t end = std::min(all.find('\n', pos), all.size());
    const std::string line = all.substr(pos, end - pos);
    // The loader's lines: spaces, its pid, a colon and a tab.
    const std::size_t digits = line.find_first_not_of(' ');
    const std::size_t colon = line.find(":\t");
    const bool loader = colon != std::string::npos && digits != std::string::npos && colon > digits &&
                        line.find_first_not_of("0123456789", digits) == colon;
    if (line.find("total startup time in dynamic loader") != std::string::npos) ++*starts;
    if (!loader) out.out += line + "\n";
    pos = end + 1;
  }
  return out;
}

}  // namespace

// The huge-page re-exec (cli/huge_pages.hpp) starts the program a second time for convert,
// diff, edit and import: same arguments, same output files, same report and errors; other
// commands, MAB_HUGE_PAGES=0 and a GLIBC_TUNABLES the user set start once.
TEST(Cli, HugePageRestartKeepsArgumentsOutputsAndErrors) {
  const auto dir = temp_dir();
  const auto src = mab::test::corpus_dir() / "wd1" / "long_k100.mab";
  const auto doc = dir / "clip.json";
  ASSERT_EQ(run("export " + src.string() + " -o " + doc.string()).status, 0);
  const std::string edited = (dir / "edited.mab").string();
  ASSERT_EQ(run("edit " + src.string() + " -o " + edited + " --speed 2").status, 0);
  struct Case {
    std::string args;  // OUT stands for the output file
    int status;
  };
  const std::vector<Case> cases = {
      {"import " + doc.string() + " -o OUT", 0},
      {"edit " + src.string() + " -o OUT --speed 1.5 --reverse", 0},
      {"convert " + src.string() + " --to wdl -o OUT", 0},
      {"diff " + src.string() + " " + edited, 1},
      {"edit " + src.string() + " -o OUT --rotate-bone NoSuchBone 0,0,1@10", 1},
      {"import " + (dir / "missing.json").string() + " -o OUT", 2},
  };
  for (const auto& c : cases) {
    std::string outputs[2];
    mab::test::CliRun runs[2];
    for (int on = 0; on < 2; ++on) {
      const auto out_path = dir / ("out" + std::to_string(on) + ".mab");
      std::filesystem::remove(out_path);
      std::string args = c.args;
      if (const auto at = args.find("OUT"); at != std::string::npos) args.replace(at, 3, out_path.string());
      int starts = 0;
      runs[on] = run_huge(on ? "1" : "0", args, &starts);
      EXPECT_EQ(starts, on ? 2 : 1) << args;
      EXPECT_EQ(runs[on].status, c.status) << args << "\n" << runs[on].out;
      if (std::filesystem::exists(out_path)) {
        const auto bytes = mab::test::load(out_path);
        outputs[on].assign(bytes.begin(), bytes.end());
      }
      // Reports name the output file: compare them with the file's name as in the other run.
      const auto name_at = runs[on].out.find(out_path.string());
      if (name_at != std::string::npos) runs[on].out.replace(name_at, out_path.string().size(), "OUT");
    }
    EXPECT_EQ(runs[1].out, runs[0].out) << c.args;
    EXPECT_EQ(outputs[1], outputs[0]) << c.args;
    EXPECT_EQ(outputs[0].empty(), c.status != 0 || c.args.rfind("diff", 0) == 0) << c.args;
  }
  // Not restarted: a command outside the four, and a user's own GLIBC_TUNABLES.
  int starts = 0;
  EXPECT_EQ(run_huge("1", "verify -q " + src.string(), &starts).status, 0);
  EXPECT_EQ(starts, 1);
  std::FILE* p =
      popen(("GLIBC_TUNABLES=glibc.malloc.check=0 MAB_HUGE_PAGES=1 LD_DEBUG=statistics " + std::string(MAB_CLI_PATH) +
             " import " + doc.string() + " -o " + (dir / "own2.mab").string() + " 2>&1 | grep -c 'total startup time'")
                .c_str(),
            "r");
  ASSERT_NE(p, nullptr);
  char count[16] = {};
  EXPECT_NE(std::fgets(count, sizeof count, p), nullptr);
  pclose(p);
  EXPECT_EQ(std::string(count), "1\n");
  std::filesystem::remove_all(dir);
}

// `mab dump` formats its table itself (cli/fixed_text.hpp) rather than through printf: every
// value must still read as printf's "%10.6f" of it, the ties (odd multiples of 1/128, exactly
// half a millionth apart), signed zeros, values that round to zero and those past its fast path
// included.
TEST(Cli, DumpWritesEachValueAsPrintfWould) {
  const auto dir = temp_dir();
  const auto doc = dir / "clip.json";
  ASSERT_EQ(
      run("export " + (mab::test::corpus_dir() / "wd1" / "long_k100.mab").string() + " -o " + doc.string()).status, 0);
  auto j = mab::test::load_json(doc);
  auto& bone = j["clip"]["bones"][0];
  ASSERT_TRUE(bone.contains("keys"));
  const std::vector<std::array<float, 4>> values = {
      {0.0078125f, -0.0f, -1e-9f, 1234567890.0f},
      {-0.0234375f, 0.5f / 1e6f, 3.0e38f, -7.8125e-3f},
      {0.1f, -0.999999f, 123456.789f, 1.0f / 3.0f},
  };
  for (std::size_t k = 0; k < values.size(); ++k)
    bone["keys"][k] = {values[k][0], values[k][1], values[k][2], values[k][3]};
  { std::ofstream(doc) << j.dump(); }
  const auto r = run("dump " + doc.string() + " --keys 0:2");
  ASSERT_EQ(r.status, 0) << r.out;
  const auto name = bone["hash"].get<std::string>();
  const auto times = j["clip"]["key_times"].get<std::vector<std::uint32_t>>();
  const double rate = j["clip"]["key_rate"].get<double>(), fps = mab::whole_frame_rate(times, rate);
  for (std::size_t k = 0; k < values.size(); ++k) {
    char row[256];
    int n = std::snprintf(row, sizeof row, "  %5zu %6lld %10.6f  %-*s", k, std::llround(times[k] * fps / rate),
                          times[k] / rate, 10, name.c_str());
    for (float v : values[k])
      n += std::snprintf(row + n, sizeof row - static_cast<std::size_t>(n), " %10.6f", double{v});
    EXPECT_NE(r.out.find(std::string(row) + "\n"), std::string::npos) << row << "\n" << r.out;
  }
  std::filesystem::remove_all(dir);
}
