// The "container" part of hand-edited mabkit-clip documents (docs/json-format.md): blocks the
// variant cannot hold, links between chained clips that do not add up, numbers outside their
// field, fields given twice, the codes view disagreeing with the bytes. Each is a parse_error
// naming the JSON path; nothing is written.
#include <mab/json.hpp>
#include <mab/legacy.hpp>

#include "support/corpus.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <functional>

namespace {

using Json = nlohmann::json;

std::string exported_text(const char* rel, bool codes = false) {
  const auto c = mab::test::load_container(mab::test::corpus_dir() / rel);
  mab::JsonExportOptions o;
  o.codes = codes;
  auto text = mab::export_block_json(c, 0, o);
  EXPECT_TRUE(text.ok()) << rel;
  return text ? *text : std::string();
}

struct Case {
  const char* file;
  std::function<void(Json&)> edit;
  std::string field;
};

void expect_refused(const std::string& text, const std::string& field, const std::string& what) {
  auto r = mab::import_json_bytes(text);
  ASSERT_FALSE(r.ok()) << what;
  EXPECT_EQ(r.error().code, mab::ErrorCode::parse_error) << what << ": " << r.error().message();
  EXPECT_EQ(r.error().field, field) << what << ": " << r.error().message();
}

TEST(JsonContainerInputs, ContainersTheVariantCannotHoldAreRefusedAtTheirPath) {
  constexpr const char* wd1 = "wd1/long_k100.mab";
  constexpr const char* fc2 = "fc2/chain_2.mab";
  constexpr const char* fc4 = "fc4/long_k45.mab";
  const std::vector<Case> cases{
      {wd1, [](Json& d) { d["container"]["variant"] = "ps9"; }, "/container/variant"},
      {wd1, [](Json& d) { d["container"]["opaque_reason"] = "why not"; }, "/container/opaque_reason"},
      {wd1, [](Json& d) { d["container"]["opaque_body"] = "00"; }, "/container"},
      {wd1, [](Json& d) { d["container"]["blocks"] = Json::array(); }, "/container/blocks"},
      {wd1, [](Json& d) { d["container"]["blocks"][0]["layout"] = "fc4"; }, "/container/blocks/0/layout"},
      {wd1, [](Json& d) { d["container"]["blocks"][0]["size_rule"] = "whatever"; }, "/container/blocks/0/size_rule"},
      {wd1, [](Json& d) { d["container"]["blocks"][0]["header"]["skeleton_bone_crc"] = "0x0000000100000000"; },
       "/container/blocks/0/header/skeleton_bone_crc"},
      {wd1, [](Json& d) { d["container"]["blocks"][0]["bones"][1]["flags"] = 18446744073709551615ull; },
       "/container/blocks/0/bones/1/flags"},
      {wd1, [](Json& d) { d["container"]["blocks"][0]["bones"][1]["flags"] = -1; },
       "/container/blocks/0/bones/1/flags"},
      {wd1, [](Json& d) { d["container"]["header"]["magic_word"] = -5; }, "/container/header/magic_word"},
      {wd1, [](Json& d) { d["container"]["header"]["reserved"] = "e298"; }, "/container/header/reserved"},
      {wd1, [](Json& d) { d["container"]["blocks"][0]["header"]["signature"] = "614e"; },
       "/container/blocks/0/header/signature"},
      // Several 'aNi' blocks are Far Cry 5's alone; chained blocks are legacy clips'.
      {wd1, [](Json& d) { d["container"]["blocks"].push_back(d["container"]["blocks"][0]); },
       "/container/blocks/1/parent"},
      {wd1,
       [](Json& d) {
         d["container"]["blocks"].push_back(d["container"]["blocks"][0]);
         d["container"]["blocks"][1]["parent"] = 0;
       },
       "/container/blocks/1/parent"},
      {fc4, [](Json& d) { d["container"]["blocks"].push_back(d["container"]["blocks"][0]); }, "/container/blocks"},
      {fc2, [](Json& d) { d["container"]["blocks"][0]["header"]["mask_words"] = 4; },
       "/container/blocks/0/header/mask_words"},
      {fc2, [](Json& d) { d["container"]["blocks"][1]["parent"] = -1; }, "/container/blocks/1/parent"},
  };
  for (const auto& c : cases) {
    Json doc = Json::parse(exported_text(c.file));
    c.edit(doc);
    expect_refused(doc.dump(), c.field, std::string(c.file) + " " + c.field);
  }
}

// Legacy chains: a segment links its chained clip; the links must name later blocks that
// name it back.
TEST(JsonContainerInputs, ChainedClipLinksMustAddUp) {
  const Json base = Json::parse(exported_text("fc2/chain_2.mab"));
  std::size_t seg = 0;
  const auto& segs = base["container"]["blocks"][0]["segments"];
  while (seg < segs.size() && !segs[seg].contains("child_block")) ++seg;
  ASSERT_LT(seg, segs.size()) << "chain_2 links its chained clip from a segment";
  const std::string p = "/container/blocks/0/segments/" + std::to_string(seg) + "/child_block";
  for (const int child : {0, 5}) {
    Json doc = base;
    doc["container"]["blocks"][0]["segments"][seg]["child_block"] = child;
    expect_refused(doc.dump(), p, "child " + std::to_string(child));
  }
  // Block 1 named by a link but naming no parent.
  Json doc = base;
  doc["container"]["blocks"][1].erase("parent");
  auto r = mab::import_json_bytes(doc.dump());
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, mab::ErrorCode::parse_error) << r.error().message();
}

// A field given twice is refused rather than one of the two silently winning.
TEST(JsonContainerInputs, AFieldGivenTwiceIsRefused) {
  std::string text = exported_text("wd1/long_k100.mab");
  const std::string key = "\"original_size\": ";
  const auto at = text.find(key);
  ASSERT_NE(at, std::string::npos);
  text.insert(at, "\"original_size\": 0, ");
  expect_refused(text, "/container/original_size", "twice");
}

// The "codes" view, when a document carries one, must agree with the bytes.
TEST(JsonContainerInputs, CodesThatDisagreeWithTheBytesAreRefused) {
  const Json base = Json::parse(exported_text("wd1/long_k100.mab", true));
  ASSERT_TRUE(base.contains("codes"));
  ASSERT_TRUE(mab::import_json_bytes(base.dump()).ok());
  // codes: {"constant_codes": [...], "rotations": {"chunks": [[{cflags, signs?, headers, raw}]]}}
  const auto& chunk0 = base["codes"]["rotations"]["chunks"][0];
  std::size_t with_signs = chunk0.size(), without = chunk0.size();
  for (std::size_t b = 0; b < chunk0.size(); ++b) (chunk0[b].contains("signs") ? with_signs : without) = b;
  ASSERT_LT(with_signs, chunk0.size());
  ASSERT_LT(without, chunk0.size());
  const std::string cp = "/codes/rotations/chunks/0/";
  struct Edit {
    std::function<void(Json&)> edit;
    std::string field;
  };
  const std::vector<Edit> edits{
      {[](Json& c) { c["constant_codes"].push_back("000000000000"); }, "/codes/constant_codes"},
      {[](Json& c) { c["rotations"]["chunks"].erase(c["rotations"]["chunks"].size() - 1); }, "/codes/rotations/chunks"},
      {[](Json& c) { c["rotations"]["chunks"][0].erase(0); }, "/codes/rotations/chunks/0"},
      {[&](Json& c) { c["rotations"]["chunks"][0][with_signs].erase("signs"); },
       cp + std::to_string(with_signs) + "/signs"},
      {[&](Json& c) {
         c["rotations"]["chunks"][0][with_signs]["signs"] =
             c["rotations"]["chunks"][0][with_signs]["signs"].get<int>() ^ 1;
       },
       cp + std::to_string(with_signs) + "/signs"},
      {[&](Json& c) { c["rotations"]["chunks"][0][without]["signs"] = 1; }, cp + std::to_string(without) + "/signs"},
      {[&](Json& c) {
         c["rotations"]["chunks"][0][with_signs]["raw"][2][7] =
             c["rotations"]["chunks"][0][with_signs]["raw"][2][7].get<int>() ^ 1;
       },
       cp + std::to_string(with_signs) + "/raw/2/7"},
  };
  for (const auto& e : edits) {
    Json doc = base;
    e.edit(doc["codes"]);
    expect_refused(doc.dump(), e.field, e.field);
  }
}

// Each reader takes its own kind of document.
TEST(JsonContainerInputs, ClipAndLegacyReadersRefuseEachOthersDocuments) {
  auto legacy_as_clip = mab::import_json(exported_text("fc2/all_arrays.mab"));
  ASSERT_FALSE(legacy_as_clip.ok());
  EXPECT_EQ(legacy_as_clip.error().code, mab::ErrorCode::not_decodable);
  EXPECT_EQ(legacy_as_clip.error().field, "/clip");  // version 3: Far Cry 2/3 tracks in "clip"
  auto clip_as_legacy = mab::import_legacy_json(exported_text("wd1/long_k100.mab"));
  ASSERT_FALSE(clip_as_legacy.ok());
  EXPECT_EQ(clip_as_legacy.error().code, mab::ErrorCode::not_decodable);
}

}  // namespace
