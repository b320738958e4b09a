// What `mab` says and does where its help and docs misled (issue 31, item 7): the export help's
// Blender step, --speed's report, the translation bound of every edit, crc-search's inputs and
// examples.
#include "support/cli_run.hpp"
#include "support/corpus.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace {

namespace fs = std::filesystem;

mab::test::CliRun run(const std::string& args, std::string* err = nullptr) {
  return mab::test::run_mab_split(args, err);
}

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

// The lines of the block of examples in `help` (CONTRIBUTING.md, "Examples in --help").
std::vector<std::string> example_block(const std::string& help) {
  std::vector<std::string> out;
  std::istringstream in(help);
  std::string line;
  bool in_block = false;
  while (std::getline(in, line)) {
    if (line.rfind("Example", 0) == 0) in_block = true;
    else if (line.rfind("  ", 0) != 0) in_block = false;
    else if (in_block) out.push_back(line.substr(2));
  }
  return out;
}

// A prose step among the examples ("export it as walk_edit.glb") names a file the next
// examples then use: `mab export --help` had the user write walk_edit.glb and import walk.glb.
TEST(CliMessages, FilesNamedBetweenExamplesAreTheOnesTheExamplesUse) {
  const std::regex file(R"([A-Za-z0-9_./-]+\.(glb|gltf|json|mab))");
  for (const char* cmd : {"export", "import", "edit", "diff", "dump"}) {
    const auto block = example_block(run(std::string(cmd) + " --help").out);
    for (std::size_t i = 0; i < block.size(); ++i) {
      if (block[i].rfind("mab ", 0) == 0) continue;
      for (std::sregex_iterator m(block[i].begin(), block[i].end(), file), end; m != end; ++m) {
        bool used = false;
        for (std::size_t j = i + 1; j < block.size(); ++j)
          used = used || (block[j].rfind("mab ", 0) == 0 && block[j].find(m->str()) != std::string::npos);
        EXPECT_TRUE(used) << "mab " << cmd << " --help: \"" << block[i] << "\" names " << m->str()
                          << ", which no later example uses";
      }
    }
  }
}

using mab::test::read_text;

// The README's `--speed 1.5` on long_k40: keys that round onto one time are merged, and the report
// counts them; a speed that keeps every key apart keeps every code. docs/edit.md said "Rotations
// and their codes stay"; its --speed row now quotes the report line, which must be mab's.
TEST(CliMessages, SpeedReportsTheKeysMergedAtOneTimeAsDocsEditSays) {
  const std::string doc = read_text(mab::test::source_dir() / "docs" / "edit.md");
  const auto row = doc.substr(doc.find("| `--speed F` |"),
                              doc.find('\n', doc.find("| `--speed F` |")) - doc.find("| `--speed F` |"));
  EXPECT_EQ(row.find("codes stay"), std::string::npos) << row;
  const auto quote_at = row.find("(`--speed: ");
  ASSERT_NE(quote_at, std::string::npos) << "docs/edit.md's --speed row quotes no report line: " << row;
  const std::string quoted = row.substr(quote_at + 2, row.find('`', quote_at + 2) - quote_at - 2);
  const auto dir = mab::test::test_temp_dir("mab_cli_messages");
  const auto src = (mab::test::corpus_dir() / "wd2" / "long_k40.mab").string();
  std::string err;
  auto r = run("edit " + src + " -o " + (dir / "fast.mab").string() + " --speed 1.5", &err);
  ASSERT_EQ(r.status, 0) << r.out << err;
  EXPECT_NE(r.out.find(quoted), std::string::npos) << quoted << "\n" << r.out;
  EXPECT_EQ(r.out.find("{opt:"), std::string::npos) << "a library option name not spelled as a flag: " << r.out;
  EXPECT_NE(r.out.find("40 -> 35"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("0 reused, 15 re-quantised"), std::string::npos) << r.out;
  r = run("edit " + src + " -o " + (dir / "slow.mab").string() + " --speed 0.5", &err);
  ASSERT_EQ(r.status, 0) << r.out << err;
  EXPECT_EQ(r.out.find("fell on the time"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("15 reused, 0 re-quantised"), std::string::npos) << r.out;
  fs::remove_all(dir);
}

// `--reverse` regroups the translation chunks; on a 440-unit track 16 bits miss the default
// 0.001 units. That was written with exit 0; the bound applies to every edit.
TEST(CliMessages, TheTranslationBoundIsRefusedByDefault) {
  const auto dir = mab::test::test_temp_dir("mab_cli_messages");
  const auto src = (mab::test::corpus_dir() / "wd1" / "translations_flag40.mab").string();
  const auto out = dir / "rev.mab";
  std::string err;
  auto r = run("edit " + src + " -o " + out.string() + " --reverse", &err);
  EXPECT_EQ(r.status, 1) << r.out << err;
  EXPECT_NE(err.find("above --max-translation-error 0.001; nothing written"), std::string::npos) << err;
  EXPECT_EQ(err.find("{opt:"), std::string::npos) << err;
  EXPECT_FALSE(fs::exists(out));
  // The bound the message names writes the file.
  const std::string named = "(--max-translation-error ";
  const auto at = err.find(named);
  ASSERT_NE(at, std::string::npos) << err;
  const auto end = err.find(" accepts it)", at);
  ASSERT_NE(end, std::string::npos) << err;
  const std::string bound = err.substr(at + named.size(), end - at - named.size());
  r = run("edit " + src + " -o " + out.string() + " --reverse --max-translation-error " + bound, &err);
  ASSERT_EQ(r.status, 0) << bound << r.out << err;
  EXPECT_NE(r.out.find("translation chunks"), std::string::npos) << r.out;
  EXPECT_TRUE(fs::exists(out));
  fs::remove_all(dir);
}

// README: "Untouched bones keep their exact bytes" holds only while no key time is added (decision
// 22); the claim says so where it is made.
TEST(CliMessages, TheReadmeQualifiesExactBytesOfUntouchedBones) {
  const std::string readme = read_text(mab::test::source_dir() / "README.md");
  const auto at = readme.find("Untouched bones keep their exact bytes");
  ASSERT_NE(at, std::string::npos);
  const std::string paragraph = readme.substr(at, readme.find("\n\n", at) - at);
  EXPECT_NE(paragraph.find("as long as no key time"), std::string::npos) << paragraph;
  EXPECT_NE(paragraph.find("re-quantised"), std::string::npos) << paragraph;
  EXPECT_NE(paragraph.find("decision 22"), std::string::npos) << paragraph;
}

// One file given three times adds no checksum equation: refused, by path or by content.
TEST(CliMessages, CrcSearchRefusesTheSameFileTwice) {
  const auto dir = mab::test::test_temp_dir("mab_cli_messages");
  const auto a = (mab::test::corpus_dir() / "wd1" / "long_k100.mab").string();
  const auto b = (mab::test::corpus_dir() / "wd1" / "bit15_k7.mab").string();
  fs::copy_file(a, dir / "copy.mab");
  std::string err;
  auto r = run("crc-search -q " + a + " " + a + " " + a, &err);
  EXPECT_EQ(r.status, 2) << r.out << err;
  EXPECT_NE(err.find("are the same file"), std::string::npos) << err;
  EXPECT_EQ(count(err, "mab: crc-search:"), 1u) << err;
  r = run("crc-search -q " + a + " " + b + " " + (dir / "copy.mab").string(), &err);
  EXPECT_EQ(r.status, 2) << r.out << err;
  EXPECT_NE(err.find("have the same bytes"), std::string::npos) << err;
  fs::remove_all(dir);
}

// The examples write their three files to the temporary folder, not where they run (the
// source tree, for a user following "from the source folder").
TEST(CliMessages, CrcSearchExamplesWriteNothingWhereTheyRun) {
  const auto dir = mab::test::test_temp_dir("mab_cli_messages");
  const auto tmp = dir / "tmp";
  fs::create_directories(dir / "src" / "bin");
  fs::create_directories(tmp);
  fs::copy(mab::test::corpus_dir(), dir / "src" / "corpus", fs::copy_options::recursive);
  fs::create_symlink(MAB_CLI_PATH, dir / "src" / "bin" / "mab");
  std::size_t ran = 0;
  for (const auto& line : example_block(run("crc-search --help").out)) {
    if (line.rfind("mab ", 0) != 0) continue;
    const auto r = mab::test::run_shell("cd '" + (dir / "src").string() + "' && TMPDIR='" + tmp.string() +
                                        "' PATH=\"$PWD/bin:$PATH\" sh -c '" +
                                        std::regex_replace(line, std::regex("'"), "'\\''") + "' 2>&1");
    EXPECT_EQ(r.status, 0) << line << "\n" << r.out;
    ++ran;
  }
  EXPECT_EQ(ran, 4u);
  std::set<std::string> left;
  for (const auto& e : fs::directory_iterator(dir / "src")) left.insert(e.path().filename().string());
  EXPECT_EQ(left, (std::set<std::string>{"bin", "corpus"}));
  EXPECT_TRUE(fs::exists(tmp / "mab_crc_a.mab"));
  fs::remove_all(dir);
}

}  // namespace
