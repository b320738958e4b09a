// `mab info` reports translations, root motion and part clips per block with their evidence
// (docs/motion.md), and --strict-layout keeps every hypothesis's section opaque.
#include "support/cli_run.hpp"
#include "support/corpus.hpp"

#include <gtest/gtest.h>

namespace {

mab::test::CliRun run(const std::string& args) { return mab::test::run_mab(args, "2>&1"); }

std::string corpus(const char* rel) { return (mab::test::corpus_dir() / rel).string(); }

TEST(CliInfoMotion, TextNamesTheEvidenceOfEverySection) {
  auto r = run("info " + corpus("fc5/parts_nested.mab"));
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("translations: decoded (format 10.1"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("part clips: hypothesis 1 accepted"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("type 7 (Anchor)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("nested block 2 (1 bone(s), 18 keys)"), std::string::npos) << r.out;
  auto o = run("info " + corpus("wd1/translations_inconsistent.mab"));
  ASSERT_EQ(o.status, 0) << o.out;
  EXPECT_NE(o.out.find("translations: opaque: no reading fits: hypothesis 1"), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("JointTranslations.chunk[0]"), std::string::npos) << o.out;
}

TEST(CliInfoMotion, JsonCarriesLevelsAndStrictLayoutRefusesHypotheses) {
  auto r = run("info --json " + corpus("wd2/translations_all_bones_root_motion.mab"));
  ASSERT_EQ(r.status, 0) << r.out;
  const auto m = nlohmann::json::parse(r.out)[0]["blocks"][0]["motion"];
  EXPECT_EQ(m["translations"]["level"], "hypothesis");
  EXPECT_EQ(m["translations"]["hypothesis"], 3);
  EXPECT_EQ(m["root_rotations"]["hypothesis"], 1);
  EXPECT_EQ(m["root_translations"]["hypothesis"], 1);
  EXPECT_EQ(m["parts"]["level"], "absent");
  EXPECT_EQ(m["translated_bones"].size(), 3u);
  auto s = run("info --json --strict-layout " + corpus("wd2/translations_all_bones_root_motion.mab"));
  ASSERT_EQ(s.status, 0) << s.out;
  const auto sm = nlohmann::json::parse(s.out)[0]["blocks"][0]["motion"];
  for (const char* k : {"translations", "root_rotations", "root_translations"}) {
    EXPECT_EQ(sm[k]["level"], "opaque") << k;
    EXPECT_NE(sm[k]["text"].get<std::string>().find("--strict-layout"), std::string::npos) << k;
  }
  EXPECT_TRUE(sm["translated_bones"].empty());
}

}  // namespace
