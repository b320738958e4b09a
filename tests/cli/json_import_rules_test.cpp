// `mab import` of a JSON document: where it may write (onto the file the document came from
// only with --in-place) and what text it reads (a byte order mark).
#include "support/cli_run.hpp"
#include "support/corpus.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <utility>

namespace {

namespace fs = std::filesystem;

mab::test::CliRun run(const std::string& args, std::string* err = nullptr) {
  return mab::test::run_mab_split(args, err);
}

using mab::test::read_text;
using mab::test::write_text;

// The first value of the first array of arrays named `key` (by default the first animated bone's
// rotations), changed: an edit the output must carry.
std::string edited(std::string doc, const std::string& key = "\"keys\"") {
  const auto keys = doc.find(key);
  const auto num = doc.find_first_of("-0123456789", doc.find('[', doc.find('[', keys) + 1));
  const auto end = doc.find_first_of(",]", num);
  doc.replace(num, end - num, "0.7");
  return doc;
}

// The README's route: export walk.mab, edit, import onto walk.mab. Without --in-place that
// would replace the only copy of the original clip.
TEST(JsonImportRules, OntoTheDocumentsOriginalNeedsInPlaceAndKeepsABackup) {
  const auto dir = mab::test::test_temp_dir("mab_json_import_rules");
  const auto src = mab::test::corpus_dir() / "wd2" / "mixed_k8.mab";
  const auto walk = dir / "walk.mab", json = dir / "walk.json";
  fs::copy_file(src, walk);
  ASSERT_EQ(run("export " + walk.string() + " -o " + json.string()).status, 0);
  write_text(json, edited(read_text(json)));
  const std::string original = read_text(walk);

  std::string err;
  auto r = run("import " + json.string() + " -o " + walk.string(), &err);
  EXPECT_EQ(r.status, 2) << r.out << err;
  EXPECT_NE(err.find("holds the document's original clip"), std::string::npos) << err;
  EXPECT_NE(err.find("--in-place"), std::string::npos) << err;
  EXPECT_EQ(read_text(walk), original) << "refused, yet written";
  EXPECT_FALSE(fs::exists(dir / "walk.mab.bak"));

  // Found by content, under any name: a copy of the original is the original too.
  fs::copy_file(src, dir / "copy.mab");
  EXPECT_EQ(run("import " + json.string() + " -o " + (dir / "copy.mab").string(), &err).status, 2) << err;

  r = run("import " + json.string() + " -o " + walk.string() + " --in-place", &err);
  ASSERT_EQ(r.status, 0) << r.out << err;
  EXPECT_NE(r.out.find("kept " + walk.string() + " as " + walk.string() + ".bak"), std::string::npos) << r.out;
  EXPECT_EQ(read_text(dir / "walk.mab.bak"), original);
  EXPECT_NE(read_text(walk), original) << "the edit did not land";

  // walk.mab now holds the edit, which the document also carries: writing it again loses nothing.
  EXPECT_EQ(run("import " + json.string() + " -o " + walk.string(), &err).status, 0) << err;
  // Any other file, and a new one, are written as before.
  EXPECT_EQ(run("import " + json.string() + " -o " + (dir / "new.mab").string(), &err).status, 0) << err;
  fs::remove_all(dir);
}

// Windows Notepad saves UTF-8 with a byte order mark; it was refused as "missing or
// superfluous commas" with no position.
TEST(JsonImportRules, AByteOrderMarkIsSkipped) {
  const auto dir = mab::test::test_temp_dir("mab_json_import_rules");
  const std::pair<fs::path, std::string> cases[] = {
      {mab::test::corpus_dir() / "wd2" / "mixed_k8.mab", "\"keys\""},
      {mab::test::corpus_dir() / "fc2" / "chain_3.mab", "\"root_motion\""}};
  for (const auto& [src, key] : cases) {
    const auto json = dir / "x.json", bom = dir / "bom.json";
    ASSERT_EQ(run("export " + src.string() + " -o " + json.string()).status, 0);
    write_text(bom, "\xEF\xBB\xBF" + edited(read_text(json), key));
    write_text(json, edited(read_text(json), key));
    std::string err;
    auto r = run("import " + bom.string() + " -o " + (dir / "bom.mab").string(), &err);
    ASSERT_EQ(r.status, 0) << src << r.out << err;
    ASSERT_EQ(run("import " + json.string() + " -o " + (dir / "plain.mab").string(), &err).status, 0) << err;
    EXPECT_EQ(read_text(dir / "bom.mab"), read_text(dir / "plain.mab")) << src;
    EXPECT_NE(read_text(dir / "bom.mab"), read_text(src)) << src << ": the edit did not land";
  }
  // UTF-16 (Notepad's "Unicode") is refused by name, not as a comma.
  write_text(dir / "utf16.json", std::string("\xFF\xFE{\0}\0", 6));
  std::string err;
  EXPECT_EQ(run("import " + (dir / "utf16.json").string() + " -o " + (dir / "u.mab").string(), &err).status, 1);
  EXPECT_NE(err.find("UTF-16"), std::string::npos) << err;
  fs::remove_all(dir);
}

}  // namespace
