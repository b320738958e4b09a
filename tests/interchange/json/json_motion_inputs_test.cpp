// "motion" members of hand-edited mabkit-clip documents (docs/json-format.md, docs/motion.md): every
// malformed value is a parse_error naming its JSON path, and every value the file's section
// cannot hold is refused by the encoder naming the field; values it can hold come back.
#include <mab/clip.hpp>
#include <mab/decode_clip.hpp>
#include <mab/encode_clip.hpp>
#include <mab/json.hpp>

#include "support/corpus.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cctype>
#include <cmath>
#include <functional>

namespace {

using Json = nlohmann::json;

Json exported(const char* rel) {
  const auto c = mab::test::load_container(mab::test::corpus_dir() / rel);
  auto d = mab::decode_clip(c);
  EXPECT_TRUE(d.ok()) << rel;
  auto text = mab::export_json(*d);
  EXPECT_TRUE(text.ok()) << rel;
  return Json::parse(*text);
}

mab::Result<mab::JsonImport> import(const Json& doc, const mab::Limits& limits = mab::default_limits) {
  return mab::import_json_bytes(doc.dump(), limits);
}

struct Case {
  const char* file;
  std::function<void(Json&)> edit;
  mab::ErrorCode code;
  std::string field;  // the error's field, exactly
};

constexpr const char* kTranslations = "wd1/translations_flag40.mab";
constexpr const char* kRoot = "wd1/root_motion_f32x4_constants80.mab";
constexpr const char* kParts = "wd1/parts_no_nested.mab";

TEST(JsonMotionInputs, MalformedValuesAreParseErrorsAtTheirPath) {
  using mab::ErrorCode;
  const auto pe = ErrorCode::parse_error;
  const std::vector<Case> cases{
      {kTranslations, [](Json& d) { d["motion"] = 5; }, pe, "/motion"},
      {kTranslations, [](Json& d) { d["motion"]["evidence"] = "read it"; }, pe, "/motion/evidence"},
      {kTranslations, [](Json& d) { d["motion"]["translations"] = Json::object(); }, pe, "/motion/translations"},
      {kTranslations, [](Json& d) { d["motion"]["translations"][0] = 1; }, pe, "/motion/translations/0"},
      {kTranslations, [](Json& d) { d["motion"]["translations"][0].erase("bone"); }, pe, "/motion/translations/0/bone"},
      {kTranslations, [](Json& d) { d["motion"]["translations"][0]["bone"] = -1; }, pe, "/motion/translations/0/bone"},
      {kTranslations, [](Json& d) { d["motion"]["translations"][0]["bone"] = 1.5; }, pe, "/motion/translations/0/bone"},
      {kTranslations, [](Json& d) { d["motion"]["translations"][0]["bone"] = 5000; }, pe,
       "/motion/translations/0/bone"},
      {kTranslations, [](Json& d) { d["motion"]["translations"][0]["hash"] = "0x"; }, pe,
       "/motion/translations/0/hash"},
      {kTranslations, [](Json& d) { d["motion"]["translations"][0]["hash"] = "12345678"; }, pe,
       "/motion/translations/0/hash"},
      {kTranslations, [](Json& d) { d["motion"]["translations"][0]["hash"] = "0y12"; }, pe,
       "/motion/translations/0/hash"},
      {kTranslations, [](Json& d) { d["motion"]["translations"][0]["hash"] = "0x12G4"; }, pe,
       "/motion/translations/0/hash"},
      {kTranslations, [](Json& d) { d["motion"]["translations"][0]["hash"] = "0x1FFFFFFFF"; }, pe,
       "/motion/translations/0/hash"},
      {kTranslations, [](Json& d) { d["motion"]["translations"][0]["hash"] = "0x00000000000000001"; }, pe,
       "/motion/translations/0/hash"},
      {kTranslations, [](Json& d) { d["motion"]["translations"][0]["hash"] = true; }, pe,
       "/motion/translations/0/hash"},
      {kTranslations, [](Json& d) { d["motion"]["translations"][0]["keys"] = 3; }, pe, "/motion/translations/0/keys"},
      {kTranslations,
       [](Json& d) {
         d["motion"]["translations"][0]["keys"][2] = {1, 2};
       },
       pe, "/motion/translations/0/keys/2"},
      {kTranslations, [](Json& d) { d["motion"]["translations"][0]["keys"][2] = "x"; }, pe,
       "/motion/translations/0/keys/2"},
      {kTranslations, [](Json& d) { d["motion"]["translations"][0]["keys"][2][1] = 1e39; }, pe,
       "/motion/translations/0/keys/2/1"},
      {kTranslations, [](Json& d) { d["motion"]["translations"][0]["keys"][2][1] = -1e300; }, pe,
       "/motion/translations/0/keys/2/1"},
      {kTranslations, [](Json& d) { d["motion"]["translations"].push_back(d["motion"]["translations"][0]); }, pe,
       "/motion/translations/3/bone"},
      {kRoot,
       [](Json& d) {
         d["motion"]["constant_translations"][0]["translation"] = {1, 2, 3, 4};
       },
       pe, "/motion/constant_translations/0/translation"},
      {kRoot, [](Json& d) { d["motion"]["constant_translations"][0].erase("translation"); }, pe,
       "/motion/constant_translations/0/translation"},
      {kRoot, [](Json& d) { d["motion"]["constant_translations"][0]["unit"] = "m"; }, pe,
       "/motion/constant_translations/0/unit"},
      {kRoot, [](Json& d) { d["motion"]["constant_translations"].push_back(d["motion"]["constant_translations"][0]); },
       pe, "/motion/constant_translations/2/bone"},
      {kRoot, [](Json& d) { d["motion"]["constant_translations"][0]["hash"] = "0x00000001"; }, pe,
       "/motion/constant_translations/0/hash"},
      {kRoot,
       [](Json& d) {
         d["motion"]["root_motion"] = {1, 2};
       },
       pe, "/motion/root_motion"},
      {kRoot, [](Json& d) { d["motion"]["root_motion"]["scale"] = Json::array(); }, pe, "/motion/root_motion/scale"},
      {kRoot, [](Json& d) { d["motion"]["root_motion"]["rotations"] = 1; }, pe, "/motion/root_motion/rotations"},
      {kRoot, [](Json& d) { d["motion"]["root_motion"]["rotations"][1][3] = "w"; }, pe,
       "/motion/root_motion/rotations/1/3"},
      {kRoot,
       [](Json& d) {
         d["motion"]["root_motion"]["translations"][1] = {1, 2, 3, 4, 5};
       },
       pe, "/motion/root_motion/translations/1"},
      {kParts, [](Json& d) { d["motion"]["parts"] = "none"; }, pe, "/motion/parts"},
      {kParts, [](Json& d) { d["motion"]["parts"][0]["colour"] = 1; }, pe, "/motion/parts/0/colour"},
      {kParts, [](Json& d) { d["motion"]["parts"][0]["start"] = "0"; }, pe, "/motion/parts/0/start"},
      {kParts, [](Json& d) { d["motion"]["parts"][0].erase("parent"); }, pe, "/motion/parts/0/parent"},
      {kParts, [](Json& d) { d["motion"]["parts"][0]["attachment"] = -5; }, pe, "/motion/parts/0/attachment"},
      {kParts, [](Json& d) { d["motion"]["parts"][0]["type"] = 256; }, pe, "/motion/parts/0/type"},
      {kParts, [](Json& d) { d["motion"]["parts"][0]["nested_block"] = 100000; }, pe, "/motion/parts/0/nested_block"},
      {kParts, [](Json& d) { d["motion"]["parts"][0]["nested_block"] = "one"; }, pe, "/motion/parts/0/nested_block"},
  };
  for (const auto& c : cases) {
    Json doc = exported(c.file);
    c.edit(doc);
    auto r = import(doc);
    ASSERT_FALSE(r.ok()) << c.file << " " << c.field;
    EXPECT_EQ(r.error().code, c.code) << r.error().message();
    EXPECT_EQ(r.error().field, c.field) << r.error().message();
    EXPECT_EQ(r.error().message().find('\n'), std::string::npos);
  }
}

TEST(JsonMotionInputs, ListsLongerThanTheLimitsAreRefusedBeforeReading) {
  mab::Limits small = mab::default_limits;
  small.max_blocks = 1;  // parts: at most 64 a block
  Json doc = exported(kParts);
  while (doc["motion"]["parts"].size() <= 64) doc["motion"]["parts"].push_back(doc["motion"]["parts"][0]);
  auto r = import(doc, small);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, mab::ErrorCode::limit_exceeded) << r.error().message();
  EXPECT_EQ(r.error().field, "/motion/parts");
}

// Values the document can state but the file's sections cannot hold: the encoder names them.
TEST(JsonMotionInputs, ValuesTheSectionCannotHoldAreRefusedByName) {
  using mab::ErrorCode;
  const std::vector<Case> cases{
      // 1e4 units is the plausibility bound a decoder proves a reading with (format 10.1).
      {kRoot, [](Json& d) { d["motion"]["constant_translations"][0]["translation"][0] = 2e4; }, ErrorCode::bad_value,
       "bones[1].constant_translation"},
      // Plausible, but past the largest TranslationTable scale (2^24 - 1 steps, about 5000 units).
      {kTranslations, [](Json& d) { d["motion"]["translations"][0]["keys"][4][0] = 6000.0; }, ErrorCode::bad_value,
       "bones[0].translations"},
      {kTranslations, [](Json& d) { d["motion"]["translations"][0]["keys"][4][0] = 2e4; }, ErrorCode::bad_value,
       "bones[0].translations"},
      {kRoot, [](Json& d) { d["motion"]["root_motion"]["translations"][3][2] = -3e38; }, ErrorCode::bad_value,
       "root_motion.translations[3]"},
      // The float maximum itself parses (a value just above it rounds down to it), and is refused.
      {kRoot, [](Json& d) { d["motion"]["root_motion"]["translations"][3][2] = 3.4028235e38; }, ErrorCode::bad_value,
       "root_motion.translations[3]"},
      {kRoot, [](Json& d) { d["motion"]["root_motion"]["translations"] = Json::array(); }, ErrorCode::invalid_argument,
       "root_motion.translations"},
      {kRoot, [](Json& d) { d["motion"]["root_motion"]["rotations"] = Json::array(); }, ErrorCode::invalid_argument,
       "root_motion.rotations"},
      // Bone 0 has no flag bit 0x80, which the accepted reading gives each constant translation.
      {kRoot,
       [](Json& d) {
         d["motion"]["constant_translations"][0]["bone"] = 0;
         d["motion"]["constant_translations"][0]["hash"] = d["clip"]["bones"][0]["hash"];
       },
       ErrorCode::invalid_argument, "bones[0].constant_translation"},
      {kParts, [](Json& d) { d["motion"]["parts"][1]["start"] = -0.5; }, ErrorCode::bad_value, "parts[1]"},
      {kParts, [](Json& d) { d["motion"]["parts"][1]["end"] = 0.0; }, ErrorCode::bad_value, "parts[1]"},
      {kParts, [](Json& d) { d["motion"]["parts"][0]["nested_block"] = 0; }, ErrorCode::invalid_argument,
       "parts[0].nested_block"},
      // Sections the file does not have (or keeps opaque) cannot take values.
      {kTranslations,
       [](Json& d) {
         d["motion"]["constant_translations"] = {
             {{"bone", 0}, {"hash", d["clip"]["bones"][0]["hash"]}, {"translation", {1, 2, 3}}}};
       },
       ErrorCode::invalid_argument, "bones[0].constant_translation"},
      {kParts,
       [](Json& d) {
         d["motion"]["root_motion"] = {{"rotations", Json::array()}};
         for (std::size_t k = 0; k < d["clip"]["key_times"].size(); ++k)
           d["motion"]["root_motion"]["rotations"].push_back({0, 0, 0, 1});
       },
       ErrorCode::invalid_argument, "root_motion.rotations"},
      // Regression: a part entry the decoder would not read back (a time past the clip, a type
      // outside 1..8) was written, and the file's parts were opaque from then on.
      {kParts, [](Json& d) { d["motion"]["parts"][0]["end"] = 100.0; }, ErrorCode::bad_value, "parts[0]"},
      {kParts, [](Json& d) { d["motion"]["parts"][1]["type"] = 9; }, ErrorCode::bad_value, "parts[1]"},
      {kParts, [](Json& d) { d["motion"]["parts"][1]["type"] = 0; }, ErrorCode::bad_value, "parts[1]"},
      // The clip cut to its first keys: its duration follows the last key, and an unedited
      // part that lasts longer no longer fits.
      {kParts,
       [](Json& d) {
         auto& c = d["clip"];
         c["key_times"] = Json::array({c["key_times"][0], c["key_times"][1]});
         for (auto& b : c["bones"])
           if (b.contains("keys")) b["keys"] = Json::array({b["keys"][0], b["keys"][1]});
       },
       ErrorCode::bad_value, "parts[0]"},
      {kTranslations,
       [](Json& d) {
         d["motion"]["parts"] = d["motion"]["translations"].size() ? Json::array({{{"start", 0},
                                                                                   {"end", 0.1},
                                                                                   {"parent", 1},
                                                                                   {"attachment", 2},
                                                                                   {"type", 1},
                                                                                   {"nested_block", nullptr}}})
                                                                   : Json();
       },
       ErrorCode::invalid_argument, "parts"},
  };
  for (const auto& c : cases) {
    Json doc = exported(c.file);
    c.edit(doc);
    doc.erase("codes");
    auto r = import(doc);
    ASSERT_FALSE(r.ok()) << c.file << " " << c.field;
    EXPECT_EQ(r.error().code, c.code) << r.error().message();
    EXPECT_EQ(r.error().field, c.field) << r.error().message();
  }
}

// A root rotation given off unit length is stored normalised; a float just above the maximum
// rounds to it (as any JSON number rounds to the nearest float); a part edited inside the clip
// reads back.
TEST(JsonMotionInputs, RootRotationsAreNormalisedWhenStored) {
  Json doc = exported(kRoot);
  doc["motion"]["root_motion"]["rotations"][2] = {0.0, 0.0, 0.0, 2.0};
  auto r = import(doc);
  ASSERT_TRUE(r.ok()) << r.error().message();
  auto d = mab::decode_clip(*mab::read_container(r->bytes));
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(d->clip.root_motion.rotations[2], (mab::Quat{0, 0, 0, 1}));
  doc = exported(kParts);
  doc["motion"]["parts"][0]["start"] = 3.40282356e38;  // below the midpoint to the next power of two
  doc["motion"]["parts"][0]["end"] = 3.40282356e38;
  r = import(doc);
  ASSERT_FALSE(r.ok());  // read as the float maximum, then refused: past the clip
  EXPECT_EQ(r.error().field, "parts[0]") << r.error().message();
  EXPECT_NE(r.error().message().find("340282346638528859811704183484516925440"), std::string::npos)
      << r.error().message();
  // Hashes in lower case, and a value far outside the clip shown cut short in the message.
  doc = exported(kRoot);
  for (auto& c : doc["motion"]["constant_translations"]) {
    std::string h = c["hash"].get<std::string>();
    for (auto& ch : h) ch = static_cast<char>(std::tolower(ch));
    c["hash"] = h;
  }
  EXPECT_TRUE(import(doc).ok());
  doc["motion"]["constant_translations"][0]["translation"] = std::string(100, 'x');
  r = import(doc);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message().find("xxx..."), std::string::npos) << r.error().message();
  EXPECT_LT(r.error().message().size(), 200u);
  doc = exported(kRoot);
  doc["motion"]["root_motion"]["translations"][0][0] = -3.40282356e38;  // rounds to -FLT_MAX, then refused
  r = import(doc);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().field, "root_motion.translations[0]");
  // An edit inside the clip lands and reads back.
  doc = exported(kParts);
  doc["motion"]["parts"][1]["end"] = doc["clip"]["duration"];
  doc["motion"]["parts"][1]["type"] = 7;
  r = import(doc);
  ASSERT_TRUE(r.ok()) << r.error().message();
  d = mab::decode_clip(*mab::read_container(r->bytes));
  ASSERT_TRUE(d.ok());
  ASSERT_TRUE(d->evidence.parts.accepted()) << d->evidence.parts.text();
  EXPECT_EQ(d->clip.parts[1].type, 7);
  EXPECT_EQ(d->clip.parts[1].end, doc["clip"]["duration"].get<float>());
}

// Through the library's own edit call: values no document can state (not finite) are refused
// by name too.
TEST(JsonMotionInputs, NonFiniteRootMotionGivenThroughTheApiIsRefused) {
  auto d = mab::decode_clip(mab::test::load_container(mab::test::corpus_dir() / kRoot));
  ASSERT_TRUE(d.ok());
  for (unsigned c = 0; c < 4; ++c) {
    mab::Clip edited = d->clip;
    edited.root_motion.rotations[1][c] = std::nanf("");
    auto r = mab::encode_clip(*d, edited);
    ASSERT_FALSE(r.ok()) << c;
    EXPECT_EQ(r.error().code, mab::ErrorCode::bad_value);
    EXPECT_EQ(r.error().field, "root_motion.rotations[1]");
  }
}

}  // namespace
