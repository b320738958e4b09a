// Every example of every `--help` runs as written (CONTRIBUTING.md, "Examples in --help"):
// from a folder holding a copy of corpus/, as a user in the source folder would type it.
#include "support/cli_run.hpp"
#include "support/corpus.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace {

namespace fs = std::filesystem;

struct Example {
  std::string line;  // as printed, without the two leading spaces
  int expected = 0;  // "# exit N" at its end, else 0
};

// The convention: a footer line that starts with "Example" opens a block; each following
// line indented by two spaces whose text starts with "mab " is a command; the first line
// that is not indented closes the block.
std::vector<Example> examples_in(const std::string& help) {
  std::vector<Example> out;
  std::istringstream in(help);
  std::string line;
  bool in_block = false;
  while (std::getline(in, line)) {
    if (line.rfind("Example", 0) == 0) {
      in_block = true;
      continue;
    }
    if (line.rfind("  ", 0) != 0) {
      in_block = false;
      continue;
    }
    if (!in_block || line.rfind("  mab ", 0) != 0) continue;
    Example e{line.substr(2), 0};
    if (const auto at = line.find("# exit "); at != std::string::npos) e.expected = std::stoi(line.substr(at + 7));
    out.push_back(e);
  }
  return out;
}

// The commands `mab help` lists (the "Subcommands:" section).
std::vector<std::string> commands() {
  const auto r = mab::test::run_mab("help", "2>&1");
  std::vector<std::string> out;
  std::istringstream in(r.out);
  std::string line;
  bool listing = false;
  while (std::getline(in, line)) {
    if (line == "Subcommands:") {
      listing = true;
      continue;
    }
    if (!listing) continue;
    if (line.empty()) break;
    std::istringstream words(line);
    std::string name;
    words >> name;
    out.push_back(name);
  }
  return out;
}

// `line` through sh in `dir`, with `mab` on the PATH naming the binary under test.
mab::test::CliRun run_in(const fs::path& dir, const std::string& line) {
  std::ofstream(dir / "example.sh") << line << "\n";
  return mab::test::run_shell("cd '" + dir.string() + "' && PATH='" + (dir / "bin").string() +
                              "':\"$PATH\" sh example.sh 2>&1");
}

TEST(HelpExamples, ExtractionFollowsTheConvention) {
  const std::string help =
      "Options:\n  --x  mab is not an example here\n"
      "Examples (from the source folder):\n"
      "  mab info a.mab\n"
      "  (prose inside the block)\n"
      "  mab diff a b    # exit 1: they differ\n"
      "Exit status:\n  mab not in a block\n";
  const auto e = examples_in(help);
  ASSERT_EQ(e.size(), 2u);
  EXPECT_EQ(e[0].line, "mab info a.mab");
  EXPECT_EQ(e[0].expected, 0);
  EXPECT_EQ(e[1].expected, 1);
}

TEST(HelpExamples, EveryCommandHasOneAndEachRunsAsWritten) {
  const auto names = commands();
  ASSERT_GE(names.size(), 12u) << "mab help lists no commands";
  std::vector<std::string> all{""};  // `mab --help` first
  all.insert(all.end(), names.begin(), names.end());
  std::size_t ran = 0;
  for (const std::string& name : all) {
    const auto help = mab::test::run_mab(name + " --help", "2>&1");
    ASSERT_EQ(help.status, 0) << "mab " << name << " --help";
    const auto examples = examples_in(help.out);
    EXPECT_FALSE(examples.empty()) << "mab " << name << " --help shows no example";
    if (examples.empty()) continue;
    // A fresh folder per command: its examples run in order (one may use what another wrote).
    const auto dir = mab::test::test_temp_dir("mab_help_" + (name.empty() ? std::string("mab") : name));
    fs::copy(mab::test::corpus_dir(), dir / "corpus", fs::copy_options::recursive);
    fs::create_directories(dir / "bin");
    fs::create_symlink(MAB_CLI_PATH, dir / "bin" / "mab");
    for (const auto& e : examples) {
      const auto r = run_in(dir, e.line);
      EXPECT_EQ(r.status, e.expected) << "mab " << name << " --help: " << e.line << "\n" << r.out;
      ++ran;
    }
    fs::remove_all(dir);
  }
  EXPECT_GE(ran, names.size());
}

}  // namespace
