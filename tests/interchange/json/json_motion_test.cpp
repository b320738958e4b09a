// "motion" in mabkit-clip documents (docs/motion.md, docs/json-format.md): written where something
// beyond rotations decoded, read back to the same bytes, edits land where they belong,
// documents without it keep the file's, and malformed members are parse errors naming the path.
#include <mab/json.hpp>

#include "support/corpus.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <functional>

namespace {

using mab::test::load;
using Json = nlohmann::ordered_json;

std::vector<std::uint8_t> bytes_of(const char* rel) { return load(mab::test::corpus_dir() / rel); }

Json exported(const char* rel, std::size_t block = 0) {
  auto c = mab::read_container(bytes_of(rel));
  EXPECT_TRUE(c.ok());
  auto d = mab::decode_clip(*c, block);
  EXPECT_TRUE(d.ok());
  auto text = mab::export_json(*d);
  EXPECT_TRUE(text.ok());
  return Json::parse(*text);
}

mab::Result<mab::JsonImport> import(const Json& doc) { return mab::import_json_bytes(doc.dump()); }

TEST(JsonMotion, OnlyBlocksWithDecodedMotionCarryIt) {
  EXPECT_FALSE(exported("wd1/mixed_k16_nonascending.mab").contains("motion"));
  EXPECT_FALSE(exported("fc4/mixed_k17_opaque_translations.mab").contains("motion"));  // opaque: nothing decoded
  EXPECT_FALSE(exported("wd1/translations_inconsistent.mab").contains("motion"));
  const Json d = exported("wd2/translations_all_bones_root_motion.mab");
  ASSERT_TRUE(d.contains("motion"));
  const auto& m = d["motion"];
  EXPECT_EQ(m["translations"].size(), 3u);
  EXPECT_EQ(m["root_motion"]["rotations"].size(), 12u);
  EXPECT_EQ(m["root_motion"]["translations"].size(), 12u);
  EXPECT_FALSE(m.contains("parts"));
  EXPECT_NE(m["evidence"]["translations"].get<std::string>().find("hypothesis 3 accepted"), std::string::npos);
}

TEST(JsonMotion, EditsComeBackWhereTheyBelong) {
  {
    Json doc = exported("wd1/translations_flag40.mab");
    auto& v = doc["motion"]["translations"][1]["keys"][19];
    const double want = v[2].get<double>() * 0.5;
    v[2] = want;
    auto r = import(doc);
    ASSERT_TRUE(r.ok()) << r.error().message();
    // Its chunk at the bone's depth misses 0.001 units (decision 21): the bone gets a finer
    // depth, so its three chunks (20 keys, 8 a chunk) are re-quantised, within the bound.
    EXPECT_EQ(r->report.translation_depths_raised, 1u);
    EXPECT_EQ(r->report.translation_chunks_requantised, 3u);
    EXPECT_LE(r->report.max_translation_error, mab::default_max_translation_error);
    auto c = mab::read_container(r->bytes);
    auto d = mab::decode_clip(*c);
    ASSERT_TRUE(d.ok());
    const std::size_t bone = doc["motion"]["translations"][1]["bone"].get<std::size_t>();
    EXPECT_LE(std::fabs(double{d->clip.bones[bone].translations[19][2]} - double{static_cast<float>(want)}),
              r->report.max_translation_error);
  }
  {
    Json doc = exported("wd2/translations_all_bones_root_motion.mab");
    doc["motion"]["root_motion"]["translations"][4] = {0.5, -0.25, 2.0};
    auto r = import(doc);
    ASSERT_TRUE(r.ok()) << r.error().message();
    auto d = mab::decode_clip(*mab::read_container(r->bytes));
    ASSERT_TRUE(d.ok());
    EXPECT_EQ(d->clip.root_motion.translations[4], (mab::Vec3{0.5f, -0.25f, 2.0f}));
  }
  {
    Json doc = exported("fc5/parts_nested.mab", 1);
    doc["motion"]["parts"][2]["start"] = 0.3;
    doc["motion"]["parts"][2]["type"] = 6;
    auto r = import(doc);
    ASSERT_TRUE(r.ok()) << r.error().message();
    auto d = mab::decode_clip(*mab::read_container(r->bytes), 1);
    ASSERT_TRUE(d.ok());
    EXPECT_EQ(d->clip.parts[2].start, 0.3f);
    EXPECT_EQ(d->clip.parts[2].type, 6);
    EXPECT_EQ(d->clip.parts[1].nested_block, 2);
  }
}

// A version-1 document written before motion decoding has no "motion": the file's are kept.
TEST(JsonMotion, DocumentsWithoutMotionKeepTheFiles) {
  for (const char* rel : {"wd1/translations_flag40.mab", "wdl/translations_flag80_constants40.mab",
                          "wd2/translations_all_bones_root_motion.mab", "wd1/root_motion_f32x4_constants80.mab",
                          "wd1/parts_no_nested.mab"}) {
    SCOPED_TRACE(rel);
    Json doc = exported(rel);
    doc.erase("motion");
    auto r = import(doc);
    ASSERT_TRUE(r.ok()) << r.error().message();
    EXPECT_EQ(r->bytes, bytes_of(rel));
    // Only some members: the others are kept too.
    Json part = exported(rel);
    for (const char* k : {"translations", "root_motion", "parts"}) part["motion"].erase(k);
    auto p = import(part);
    ASSERT_TRUE(p.ok()) << p.error().message();
    EXPECT_EQ(p->bytes, bytes_of(rel));
  }
  // Without "motion", the key count of such a block cannot change.
  Json doc = exported("wd2/translations_all_bones_root_motion.mab");
  doc.erase("motion");
  doc["clip"]["key_times"].push_back(doc["clip"]["key_times"].back().get<int>() + 1);
  for (auto& b : doc["clip"]["bones"])
    if (b.contains("keys")) b["keys"].push_back(b["keys"].back());
  auto r = import(doc);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().field, "/clip/key_times");
}

TEST(JsonMotion, MalformedMotionIsAParseErrorNamingItsPath) {
  const Json base = exported("wd1/translations_flag40.mab");
  struct Case {
    std::function<void(Json&)> edit;
    std::string field;
  };
  const std::vector<Case> cases{
      {[](Json& d) { d["motion"]["translations"][0]["hash"] = "0x12345678"; }, "/motion/translations/0/hash"},
      {[](Json& d) { d["motion"]["translations"][0]["keys"].erase(0); }, "/motion/translations/0/keys"},
      {[](Json& d) { d["motion"]["translations"][0]["keys"][3][1] = "x"; }, "/motion/translations/0/keys/3/1"},
      {[](Json& d) { d["motion"]["translations"][0]["bone"] = 99; }, "/motion/translations/0/bone"},
      {[](Json& d) { d["motion"]["extra"] = 1; }, "/motion/extra"},
      {[](Json& d) { d["motion"]["translations"][1] = d["motion"]["translations"][0]; }, "/motion/translations/1/bone"},
      {[](Json& d) {
         d["motion"]["parts"] = Json::array({{{"start", 0}}});
       },
       "/motion/parts/0/end"},
      {[](Json& d) {
         d["motion"]["root_motion"] = {{"rotations", {{1, 2, 3}}}};
       },
       "/motion/root_motion/rotations/0"},
  };
  for (const auto& c : cases) {
    Json doc = base;
    c.edit(doc);
    auto r = import(doc);
    ASSERT_FALSE(r.ok()) << c.field;
    EXPECT_EQ(r.error().code, mab::ErrorCode::parse_error) << r.error().message();
    EXPECT_EQ(r.error().field, c.field) << r.error().message();
  }
  // Data the file cannot hold is refused by the encoder, naming the section.
  Json doc = base;
  doc["motion"]["root_motion"] = {{"translations", Json::array()}};
  for (int k = 0; k < 20; ++k) doc["motion"]["root_motion"]["translations"].push_back({0.0, 0.0, 0.0});
  auto r = import(doc);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, mab::ErrorCode::invalid_argument) << r.error().message();
  EXPECT_NE(r.error().message().find("DisplacementTranslations"), std::string::npos) << r.error().message();
  // "motion" is read from the document's one parse with the document's helpers (CONTRIBUTING.md): a
  // member given twice is refused as anywhere else in the document (nlohmann kept the last).
  {
    std::string text = base.dump();
    const auto at = text.find("\"motion\":{");
    ASSERT_NE(at, std::string::npos);
    text.insert(at + 10, "\"evidence\":{},");
    const auto twice = mab::import_json_bytes(text);
    ASSERT_FALSE(twice.ok());
    EXPECT_EQ(twice.error().code, mab::ErrorCode::parse_error) << twice.error().message();
    EXPECT_EQ(twice.error().field, "/motion/evidence") << twice.error().message();
    EXPECT_NE(twice.error().detail.find("twice"), std::string::npos) << twice.error().message();
  }
  // And "motion" without "clip".
  Json bare = base;
  bare.erase("clip");
  bare.erase("codes");
  auto b = import(bare);
  ASSERT_FALSE(b.ok());
  EXPECT_EQ(b.error().field, "/motion");
}

}  // namespace
