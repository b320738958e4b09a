// Identity members, numbers and fixed-size bytes of hand-edited mabkit-clip documents
// (docs/json-format.md, "Bone identity"): every malformed "rename_to", "new", hash, number and
// byte string, and a Far Cry frame rate changed, is a parse_error at its JSON path with a
// message that says what was found, and nothing is written.
#include <mab/decode_clip.hpp>
#include <mab/json.hpp>
#include <mab/legacy.hpp>

#include "support/corpus.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <functional>
#include <string>

namespace {

using Json = nlohmann::json;

Json exported(const char* rel) {
  const auto c = mab::test::load_container(mab::test::corpus_dir() / rel);
  if (c.blocks[0].legacy()) {
    auto l = mab::decode_legacy_clip(c, 0);
    EXPECT_TRUE(l.ok()) << rel;
    return Json::parse(*mab::export_json(c, *l, mab::JsonExportOptions{2}));
  }
  auto d = mab::decode_clip(c);
  EXPECT_TRUE(d.ok()) << rel;
  return Json::parse(*mab::export_json(*d));
}

struct Case {
  const char* file;
  std::function<void(Json&)> edit;
  std::string field;   // the error's field, exactly
  std::string phrase;  // in its message
};

TEST(JsonIdentityInputs, EachMalformedMemberIsRefusedAtItsPath) {
  const std::string long_text(60, 'x');
  const std::vector<Case> cases = {
      {"wd1/long_k100.mab", [](Json& d) { d["clip"]["bones"][0]["rename_to"] = "0xZZ"; }, "/clip/bones/0/rename_to",
       "not a hash"},
      {"wd1/long_k100.mab", [](Json& d) { d["clip"]["bones"][0]["rename_to"] = true; }, "/clip/bones/0/rename_to",
       "expected a bone name or a hash, found"},
      {"wd1/long_k100.mab", [](Json& d) { d["clip"]["bones"][0]["rename_to"] = d["clip"]["bones"][0]["hash"]; },
       "/clip/bones/0/rename_to", "already has hash"},
      {"wd1/long_k100.mab", [](Json& d) { d["clip"]["bones"][0]["new"] = 1; }, "/clip/bones/0/new",
       "expected true or false"},
      {"wd1/long_k100.mab",
       [](Json& d) {
         d["clip"]["bones"][0]["new"] = true;
         d["clip"]["bones"][0]["rename_to"] = "Other";
       },
       "/clip/bones/0/rename_to", "a new bone has no old hash"},
      {"wd1/long_k100.mab", [](Json& d) { d["clip"]["bones"][0]["hash"] = "0x11111111111111111"; },
       "/clip/bones/0/hash", ""},
      {"wd1/long_k100.mab", [](Json& d) { d["clip"]["bones"][0]["hash"] = 18446744073709551615ull; },
       "/clip/bones/0/hash", ""},
      {"wd1/long_k100.mab", [](Json& d) { d["clip"]["key_times"][0] = -1; }, "/clip/key_times/0", ""},
      {"wd1/long_k100.mab", [](Json& d) { d["clip"]["duration"] = 1e39; }, "/clip/duration", "outside the float range"},
      {"wd1/long_k100.mab", [&](Json& d) { d["clip"]["key_rate"] = long_text; }, "/clip/key_rate", "..."},
      {"wd1/long_k100.mab", [](Json& d) { d["clip"]["bones"][0]["flags"] = 18446744073709551615ull; },
       "/clip/bones/0/flags", "above the maximum 255"},
      {"wd1/long_k100.mab", [](Json& d) { d["clip"]["bones"][0]["flags"] = 300; }, "/clip/bones/0/flags",
       "above the maximum 255"},
      {"wd1/long_k100.mab", [](Json& d) { d["clip"]["bones"][0]["keys"][0][0] = 1e39; }, "/clip/bones/0/keys/0/0",
       "outside the float range"},
      {"wd1/long_k100.mab", [](Json& d) { d["block"] = 18446744073709551615ull; }, "/block", "above the maximum"},
      {"fc2/all_arrays.mab", [](Json& d) { d["container"]["header"]["reserved"] = "1c15"; },
       "/container/header/reserved", "expected 8 bytes (16 hex digits), found 2"},
      {"fc2/all_arrays.mab", [](Json& d) { d["legacy_clip"]["frame_rate"] = 15.0; }, "/legacy_clip/frame_rate",
       "changing it is not supported"},
      {"fc2/all_arrays.mab", [](Json& d) { d["legacy_clip"]["rotations"][0]["new"] = 1; },
       "/legacy_clip/rotations/0/new", "expected true or false"},
      {"fc2/all_arrays.mab", [](Json& d) { d["legacy_clip"]["rotations"][0]["new"] = true; },
       "/legacy_clip/rotations/0/new", "has a rotation in the file"},
      {"fc2/all_arrays.mab", [](Json& d) { d["legacy_clip"]["translations"][0]["new"] = true; },
       "/legacy_clip/translations/0/new", "has a translation in the file"},
  };
  for (const auto& k : cases) {
    Json doc = exported(k.file);
    doc.erase("codes");
    k.edit(doc);
    const auto r = mab::import_json_bytes(doc.dump());
    ASSERT_FALSE(r.ok()) << k.field;
    EXPECT_EQ(r.error().code, mab::ErrorCode::parse_error) << k.field << ": " << r.error().message();
    EXPECT_EQ(r.error().field, k.field) << r.error().message();
    EXPECT_NE(r.error().message().find(k.phrase), std::string::npos) << k.field << ": " << r.error().message();
  }
}

}  // namespace
