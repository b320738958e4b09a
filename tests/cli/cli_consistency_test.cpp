// CLI consistency: one exit-status table for every command (docs/cli.md), the command
// list, typed options, case-insensitive game names, --names files from any editor, `mab info`
// on the wrong kind of file, and the size and checksum lines of every command writing a .mab.
#include "support/cli_run.hpp"
#include "support/corpus.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

namespace {

namespace fs = std::filesystem;

using mab::test::run_mab_split;

std::string q(const fs::path& p) { return "'" + p.string() + "'"; }

std::string read_text(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

const fs::path k_clip = mab::test::corpus_dir() / "wd2" / "mixed_k8.mab";
const fs::path k_bad = mab::test::corpus_dir() / "bad" / "wd1_bad_signature.bad";

int status(const std::string& args, std::string* err = nullptr) { return run_mab_split(args, err).status; }

TEST(CliConsistency, MabAloneAndMabHelpListTheCommands) {
  for (const std::string args : {"", "help", "--help"}) {
    std::string err;
    const auto r = run_mab_split(args, &err);
    EXPECT_EQ(r.status, 0) << "mab " << args << ": " << err;
    for (const char* c : {"convert", "crc-apply", "crc-search", "diff", "dump", "edit", "export", "hash", "import",
                          "info", "survey", "verify"})
      EXPECT_NE(r.out.find(std::string("\n  ") + c + " "), std::string::npos) << "mab " << args << ": " << c;
    EXPECT_NE(r.out.find("Exit status"), std::string::npos) << "mab " << args;
  }
  const auto one = run_mab_split("help edit");
  EXPECT_EQ(one.status, 0);
  EXPECT_NE(one.out.find("--speed FLOAT"), std::string::npos) << one.out;
  std::string err;
  EXPECT_EQ(status("help no-such-command", &err), 2);
  EXPECT_NE(err.find("no-such-command"), std::string::npos) << err;
}

TEST(CliConsistency, UsageErrorsExitTwoInOneLineNamingTheCommand) {
  const std::vector<std::string> cases = {
      "no-such-command",
      "info",                                                 // a required argument missing
      "edit " + q(k_clip) + " -o x.mab --speed",              // a value missing
      "export " + q(k_clip) + " -o x.json --bogus",           // an unknown option
      "convert " + q(k_clip) + " --to ps5 -o x.mab",          // a value out of its set
      "edit " + q(k_clip) + " --block x -o x.mab --speed 2",  // a number that is not one
  };
  for (const auto& args : cases) {
    std::string err;
    EXPECT_EQ(status(args, &err), 2) << args << ": " << err;
    EXPECT_EQ(std::count(err.begin(), err.end(), '\n'), 1) << args << ": " << err;
    EXPECT_EQ(err.rfind("mab: ", 0), 0u) << args << ": " << err;
  }
  std::string err;
  status("edit " + q(k_clip) + " -o x.mab --speed", &err);
  EXPECT_NE(err.find("mab: edit: "), std::string::npos) << err;
  EXPECT_EQ(status("edit --help"), 0);
  EXPECT_EQ(status("--version"), 0);
}

TEST(CliConsistency, MissingFilesExitTwoAndRefusedDataExitsOne) {
  const auto dir = mab::test::test_temp_dir("mab_exit_table");
  const auto missing = q(dir / "missing.mab");
  const auto out = q(dir / "out.mab");
  const std::vector<std::string> commands = {
      "info %",
      "verify %",
      "dump %",
      "export % -o " + q(dir / "out.json"),
      "edit % --speed 2 -o " + out,
      "convert % --to wdl -o " + out,
      "diff % %",
      "crc-apply --check --algo 'algo=CRC-32/BZIP2 range=0x10..eof field=0x4:4:le' %",
  };
  for (const auto& c : commands) {
    auto with = [&](const std::string& file) { return std::regex_replace(c, std::regex("%"), file); };
    std::string err;
    EXPECT_EQ(status(with(missing), &err), 2) << with(missing) << ": " << err;
    // diff: every error is 2 (its 1 means "the clips differ").
    const int refused = c.rfind("diff", 0) == 0 ? 2 : 1;
    EXPECT_EQ(status(with(q(k_bad)), &err), refused) << with(q(k_bad)) << ": " << err;
    EXPECT_FALSE(fs::exists(dir / "out.mab")) << c;
  }
  // Checks that fail: 1.
  EXPECT_EQ(status("diff " + q(k_clip) + " " + q(k_clip)), 0);
  ASSERT_EQ(status("edit " + q(k_clip) + " --rotate-bone Root 0,0,1@10 -o " + out), 0);
  EXPECT_EQ(status("diff " + q(k_clip) + " " + out), 1);
  EXPECT_EQ(status("verify " + q(mab::test::corpus_dir() / "bad")), 2) << "no .mab in the folder";
  fs::remove_all(dir);
}

TEST(CliConsistency, GameNamesTakeAnyCase) {
  const auto dir = mab::test::test_temp_dir("mab_game_case");
  std::string err;
  ASSERT_EQ(status("convert " + q(k_clip) + " --to WDL -o " + q(dir / "a.mab"), &err), 0) << err;
  ASSERT_EQ(status("convert " + q(k_clip) + " --to wdl -o " + q(dir / "b.mab"), &err), 0) << err;
  EXPECT_EQ(read_text(dir / "a.mab"), read_text(dir / "b.mab"));
  const auto rig = mab::test::corpus_dir() / "external" / "RiggedSimple.gltf";
  EXPECT_EQ(status("import " + q(rig) + " --game Wd1 -o " + q(dir / "c.mab"), &err), 0) << err;
  EXPECT_EQ(status("export " + q(k_clip) + " --format GLB -o " + q(dir / "d.out"), &err), 0) << err;
  EXPECT_EQ(read_text(dir / "d.out").substr(0, 4), "glTF");
  fs::remove_all(dir);
}

// Numeric options name their type: a user must see --speed FLOAT, not --speed TEXT.
TEST(CliConsistency, NumericOptionsShowTheirType) {
  const std::vector<std::pair<std::string, std::string>> want = {
      {"edit", "--speed FLOAT"},
      {"edit", "--trim START END"},
      {"edit", "--resample FLOAT"},
      {"edit", "--bits BONE INT"},
      {"edit", "--max-error FLOAT"},
      {"edit", "--reduce FLOAT"},
      {"edit", "--block UINT"},
      {"import", "--max-error FLOAT"},
      {"import", "--reduce FLOAT"},
      {"import", "--match-tolerance FLOAT"},
      {"import", "--block UINT"},
      {"export", "--block UINT"},
      {"export", "--json-version UINT"},
      {"convert", "--block UINT"},
      {"diff", "--block UINT"},
      {"dump", "--block UINT"},
      {"survey", "--jobs UINT"},
      {"survey", "--json-check UINT"},
      {"crc-search", "--max-ranges UINT"},
      {"crc-search", "--min-evidence FLOAT"},
  };
  for (const auto& [cmd, text] : want) {
    const auto r = run_mab_split(cmd + " --help");
    EXPECT_NE(r.out.find(text), std::string::npos) << "mab " << cmd << " --help lacks " << text;
  }
}

TEST(CliConsistency, NamesFilesTakeABomCrlfAndTrailingSpacesAndListNamesMatchingNoBone) {
  const auto dir = mab::test::test_temp_dir("mab_names_file");
  const auto names = dir / "names.txt";
  std::ofstream(names, std::ios::binary) << "\xEF\xBB\xBFRoot  \r\nPelvis\t\r\n# a comment\r\n\r\nNo Such Bone \r\n";
  std::string err;
  const auto r = run_mab_split("export " + q(k_clip) + " -o " + q(dir / "a.glb") + " --names " + q(names), &err);
  ASSERT_EQ(r.status, 0) << err;
  EXPECT_NE(r.out.find("named             2 bone(s)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("1 of 3 name(s) match no bone of the file: \"No Such Bone\""), std::string::npos) << r.out;
  // The glb names its nodes without the BOM or the spaces.
  const std::string glb = read_text(dir / "a.glb");
  EXPECT_NE(glb.find("\"name\":\"Root\""), std::string::npos);
  EXPECT_NE(glb.find("\"name\":\"Pelvis\""), std::string::npos);
  EXPECT_EQ(glb.find("\xEF\xBB\xBF"), std::string::npos);
  fs::remove_all(dir);
}

TEST(CliConsistency, InfoSaysWhatAGltfOrJsonFileIs) {
  const auto dir = mab::test::test_temp_dir("mab_info_kind");
  ASSERT_EQ(status("export " + q(k_clip) + " -o " + q(dir / "a.json")), 0);
  ASSERT_EQ(status("export " + q(k_clip) + " -o " + q(dir / "a.glb")), 0);
  const std::vector<std::pair<fs::path, std::string>> cases = {
      {dir / "a.json", "this is a mabkit JSON document (from mab export), not a .mab; "},
      {dir / "a.glb", "this is a binary glTF 2.0 file (.glb), not a .mab; read it with mab import "},
      {mab::test::corpus_dir() / "external" / "RiggedSimple.gltf", "this is a glTF 2.0 file (.gltf), not a .mab"},
  };
  for (const auto& [file, text] : cases) {
    std::string err;
    const auto r = run_mab_split("info " + q(file), &err);
    EXPECT_EQ(r.status, 1) << file;
    EXPECT_NE(err.find(text), std::string::npos) << err;
    EXPECT_EQ(std::count(err.begin(), err.end(), '\n'), 1) << err;
    const auto j = run_mab_split("info --json " + q(file));
    EXPECT_EQ(j.status, 1);
    EXPECT_NE(j.out.find(text), std::string::npos) << j.out;
  }
  fs::remove_all(dir);
}

// Every command that writes a .mab says its size against the file it came from and what became
// of the header checksum at +4: still valid when the bytes are the same, stale when they changed.
TEST(CliConsistency, WritingAMabReportsSizesAndTheChecksum) {
  const auto dir = mab::test::test_temp_dir("mab_write_report");
  const std::string size = std::to_string(fs::file_size(k_clip));
  ASSERT_EQ(status("export " + q(k_clip) + " -o " + q(dir / "a.json")), 0);
  ASSERT_EQ(status("export " + q(k_clip) + " -o " + q(dir / "a.glb")), 0);
  // An edited document: one key of an animated bone turned.
  const auto wd1 = mab::test::corpus_dir() / "wd1" / "bit15_k7.mab";
  ASSERT_EQ(status("export " + q(wd1) + " -o " + q(dir / "e.json")), 0);
  auto doc = nlohmann::json::parse(read_text(dir / "e.json"));
  doc["clip"]["bones"][0]["keys"][3] = {0.5, 0.5, 0.5, 0.5};
  std::ofstream(dir / "e.json") << doc.dump(1);
  struct Case {
    std::string args, origin;
    bool same;
    fs::path from = k_clip;
  };
  const std::vector<Case> cases = {
      {"import " + q(dir / "a.json"), "the document's original: " + size + " bytes", true},
      {"import " + q(dir / "e.json"), "the document's original: " + std::to_string(fs::file_size(wd1)) + " bytes",
       false, wd1},
      {"import " + q(dir / "a.glb") + " --template " + q(k_clip), k_clip.string() + ": " + size + " bytes", true},
      {"edit " + q(k_clip) + " --rotate-bone Root 0,0,1@10", k_clip.string() + ": " + size + " bytes", false},
      {"convert " + q(k_clip) + " --to wdl", k_clip.string() + ": " + size + " bytes", false},
  };
  for (const auto& c : cases) {
    std::string err;
    const auto r = run_mab_split(c.args + " -o " + q(dir / "out.mab"), &err);
    ASSERT_EQ(r.status, 0) << c.args << ": " << err;
    const std::string written = std::to_string(fs::file_size(dir / "out.mab"));
    EXPECT_NE(r.out.find("wrote " + (dir / "out.mab").string() + " (" + written + " bytes; " + c.origin + ")"),
              std::string::npos)
        << c.args << "\n"
        << r.out;
    EXPECT_EQ(read_text(dir / "out.mab") == read_text(c.from), c.same) << c.args;
    EXPECT_NE(r.out.find(c.same ? "at +4 still valid" : "at +4 kept from"), std::string::npos) << c.args << "\n"
                                                                                               << r.out;
    if (!c.same) {
      EXPECT_NE(r.out.find("now stale"), std::string::npos) << r.out;
    }
  }
  const auto fresh = run_mab_split("import " + q(mab::test::corpus_dir() / "external" / "RiggedSimple.gltf") +
                                   " --game wdl -o " + q(dir / "new.mab"));
  EXPECT_NE(fresh.out.find("a new clip"), std::string::npos) << fresh.out;
  EXPECT_NE(fresh.out.find("placeholder"), std::string::npos) << fresh.out;
  fs::remove_all(dir);
}

}  // namespace
