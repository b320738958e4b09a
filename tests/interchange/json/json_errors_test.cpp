// Malformed "mabkit-clip" documents: every defect is an error naming its JSON path, never
// a crash, never a silently ignored edit.
#include <mab/json.hpp>

#include "support/corpus.hpp"

#include <gtest/gtest.h>

#include <functional>
#include <random>

namespace {

using json = nlohmann::ordered_json;

// wd1/bit15_k7: bones 0, 1, 3 animated, 2 constant, 4 without rotation; 7 keys.
std::string base_text() {
  static const std::string text = [] {
    auto c = mab::read_container(mab::test::load(mab::test::corpus_dir() / "wd1" / "bit15_k7.mab"));
    auto d = mab::decode_clip(std::move(c).value());
    mab::JsonExportOptions with_codes;  // the cases below damage the codes too
    with_codes.codes = true;
    return mab::export_json(*d, with_codes).value();
  }();
  return text;
}

struct Case {
  const char* name;
  std::function<void(json&)> edit;
  mab::ErrorCode code;
  std::string field;
};

void expect_error(const std::string& text, mab::ErrorCode code, const std::string& field, const std::string& what) {
  auto bytes = mab::import_json_bytes(text);
  ASSERT_FALSE(bytes.ok()) << what;
  EXPECT_EQ(bytes.error().code, code) << what << ": " << bytes.error().message();
  EXPECT_EQ(bytes.error().field, field) << what << ": " << bytes.error().message();
  EXPECT_FALSE(bytes.error().detail.empty()) << what;
  auto clip = mab::import_json(text);
  ASSERT_FALSE(clip.ok()) << what;
  EXPECT_EQ(clip.error().field, field) << what;
}

TEST(JsonErrors, SyntaxErrorsGiveTheByteOffset) {
  for (const std::string text : {"", "{", "[1, 2", "{\"format\": }", "{\"a\": 1} x", "nul"}) {
    auto r = mab::import_json_bytes(text);
    ASSERT_FALSE(r.ok()) << text;
    EXPECT_EQ(r.error().code, mab::ErrorCode::parse_error) << text;
    EXPECT_EQ(r.error().field, "json text") << text;
    EXPECT_NE(r.error().offset, mab::no_offset) << text;
    EXPECT_LE(r.error().offset, text.size()) << text;
  }
  auto r = mab::import_json_bytes("{\"format\": \"mabkit-clip\",\n \"version\": 1,\n \"block\": ]}");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().offset, 51u) << r.error().message();
  EXPECT_NE(r.error().message().find("line 3"), std::string::npos) << r.error().message();
}

TEST(JsonErrors, EveryDefectNamesItsPath) {
  using mab::ErrorCode;
  const auto P = ErrorCode::parse_error;
  const std::vector<Case> cases = {
      {"not an object", [](json& j) { j = json::array(); }, P, "/"},
      {"wrong format", [](json& j) { j["format"] = "gltf"; }, P, "/format"},
      {"format a number", [](json& j) { j["format"] = 1; }, P, "/format"},
      {"missing format", [](json& j) { j.erase("format"); }, P, "/format"},
      {"future version", [](json& j) { j["version"] = 4; }, ErrorCode::unsupported_version, "/version"},
      {"version a string", [](json& j) { j["version"] = "one"; }, P, "/version"},
      {"version a fraction", [](json& j) { j["version"] = 1.5; }, P, "/version"},
      {"version zero", [](json& j) { j["version"] = 0; }, ErrorCode::unsupported_version, "/version"},
      {"unknown field", [](json& j) { j["colour"] = "red"; }, P, "/colour"},
      {"missing container", [](json& j) { j.erase("container"); }, P, "/container"},
      {"missing block", [](json& j) { j.erase("block"); }, P, "/block"},
      {"block out of range", [](json& j) { j["block"] = 3; }, P, "/block"},
      {"unknown variant", [](json& j) { j["container"]["variant"] = "fc9"; }, P, "/container/variant"},
      {"odd hex", [](json& j) { j["container"]["blocks"][0]["segments"][1]["bytes"] = "abc"; }, P,
       "/container/blocks/0/segments/1/bytes"},
      {"not hex", [](json& j) { j["container"]["blocks"][0]["segments"][1]["bytes"] = "0g"; }, P,
       "/container/blocks/0/segments/1/bytes"},
      {"bytes a number", [](json& j) { j["container"]["blocks"][0]["segments"][1]["bytes"] = 12; }, P,
       "/container/blocks/0/segments/1/bytes"},
      {"short reserved", [](json& j) { j["container"]["header"]["reserved"] = "00"; }, P, "/container/header/reserved"},
      {"magic too wide", [](json& j) { j["container"]["header"]["magic_word"] = 0x100000000ull; }, P,
       "/container/header/magic_word"},
      {"negative checksum", [](json& j) { j["container"]["header"]["checksum"] = -1; }, P,
       "/container/header/checksum"},
      {"bad hex integer", [](json& j) { j["container"]["header"]["checksum"] = "0xZZ"; }, P,
       "/container/header/checksum"},
      {"signature size", [](json& j) { j["container"]["blocks"][0]["header"]["signature"] = "614e"; }, P,
       "/container/blocks/0/header/signature"},
      {"data counts size",
       [](json& j) {
         j["container"]["blocks"][0]["header"]["data_counts"] = {1, 2, 3};
       },
       P, "/container/blocks/0/header/data_counts"},
      {"wrong shape", [](json& j) { j["container"]["blocks"][0]["header"]["shape"] = "wdl"; }, P,
       "/container/blocks/0/header/shape"},
      {"wrong layout", [](json& j) { j["container"]["blocks"][0]["layout"] = "legacy"; }, P,
       "/container/blocks/0/layout"},
      {"missing header field", [](json& j) { j["container"]["blocks"][0]["header"].erase("last_frame"); }, P,
       "/container/blocks/0/header/last_frame"},
      {"slot past segments", [](json& j) { j["container"]["blocks"][0]["slot_segment"][0] = 99; }, P,
       "/container/blocks/0/slot_segment/0"},
      {"slot on preamble", [](json& j) { j["container"]["blocks"][0]["slot_segment"][0] = 0; }, P,
       "/container/blocks/0/slot_segment/0"},
      {"slot table size", [](json& j) { j["container"]["blocks"][0]["slot_segment"].erase(0); }, P,
       "/container/blocks/0/slot_segment"},
      {"no segments", [](json& j) { j["container"]["blocks"][0]["segments"] = json::array(); }, P,
       "/container/blocks/0/segments"},
      {"child in an aNi block", [](json& j) { j["container"]["blocks"][0]["segments"][1]["child_block"] = 1; }, P,
       "/container/blocks/0/segments/1/child_block"},
      {"size rule", [](json& j) { j["container"]["blocks"][0]["size_rule"] = "always"; }, P,
       "/container/blocks/0/size_rule"},
      {"bone flags a string", [](json& j) { j["container"]["blocks"][0]["bones"][0]["flags"] = "x"; }, P,
       "/container/blocks/0/bones/0/flags"},
      {"blocks and opaque body", [](json& j) { j["container"]["opaque_body"] = ""; }, P, "/container"},
      {"key time fraction", [](json& j) { j["clip"]["key_times"][0] = 1.5; }, P, "/clip/key_times/0"},
      {"key time negative", [](json& j) { j["clip"]["key_times"][0] = -1; }, P, "/clip/key_times/0"},
      {"key times an object", [](json& j) { j["clip"]["key_times"] = json::object(); }, P, "/clip/key_times"},
      {"duration a string", [](json& j) { j["clip"]["duration"] = "long"; }, P, "/clip/duration"},
      {"duration beyond float", [](json& j) { j["clip"]["duration"] = 1e300; }, P, "/clip/duration"},
      {"missing key rate", [](json& j) { j["clip"].erase("key_rate"); }, P, "/clip/key_rate"},
      {"bones an object", [](json& j) { j["clip"]["bones"] = json::object(); }, P, "/clip/bones"},
      {"three components",
       [](json& j) {
         j["clip"]["bones"][0]["keys"][0] = {1, 0, 0};
       },
       P, "/clip/bones/0/keys/0"},
      {"component a string", [](json& j) { j["clip"]["bones"][0]["keys"][0][1] = "x"; }, P, "/clip/bones/0/keys/0/1"},
      {"component null", [](json& j) { j["clip"]["bones"][3]["keys"][6][3] = nullptr; }, P, "/clip/bones/3/keys/6/3"},
      {"too few keys", [](json& j) { j["clip"]["bones"][1]["keys"].erase(0); }, P, "/clip/bones/1/keys"},
      {"missing keys", [](json& j) { j["clip"]["bones"][1].erase("keys"); }, P, "/clip/bones/1/keys"},
      {"keys on a constant bone", [](json& j) { j["clip"]["bones"][2]["keys"] = json::array(); }, P,
       "/clip/bones/2/keys"},
      {"missing constant", [](json& j) { j["clip"]["bones"][2].erase("constant"); }, P, "/clip/bones/2/constant"},
      {"constant on an empty bone",
       [](json& j) {
         j["clip"]["bones"][4]["constant"] = {0, 0, 0, 1};
       },
       P, "/clip/bones/4/constant"},
      {"flags too large", [](json& j) { j["clip"]["bones"][0]["flags"] = 300; }, P, "/clip/bones/0/flags"},
      {"missing hash", [](json& j) { j["clip"]["bones"][0].erase("hash"); }, P, "/clip/bones/0/hash"},
      {"name disagrees with hash", [](json& j) { j["clip"]["bones"][0]["name"] = "NotRoot"; }, P, "/clip/bones/0/hash"},
      {"unknown bone field", [](json& j) { j["clip"]["bones"][0]["rotation"] = 1; }, P, "/clip/bones/0/rotation"},
      {"edited cflags",
       [](json& j) {
         auto& v = j["codes"]["rotations"]["chunks"][0][0]["cflags"];
         v = v.get<int>() ^ 1;
       },
       P, "/codes/rotations/chunks/0/0/cflags"},
      {"edited header word",
       [](json& j) {
         auto& v = j["codes"]["rotations"]["chunks"][0][1]["headers"][2];
         v = v.get<int>() ^ 1;
       },
       P, "/codes/rotations/chunks/0/1/headers/2"},
      {"cflags above 6 bits", [](json& j) { j["codes"]["rotations"]["chunks"][0][0]["cflags"] = 64; }, P,
       "/codes/rotations/chunks/0/0/cflags"},
      {"nine raw values",
       [](json& j) {
         j["codes"]["rotations"]["chunks"][0][0]["raw"][0] = json::array({0, 0, 0, 0, 0, 0, 0, 0, 0});
       },
       P, "/codes/rotations/chunks/0/0/raw/0"},
      {"short constant code", [](json& j) { j["codes"]["constant_codes"][0] = "ffbf"; }, P, "/codes/constant_codes/0"},
      {"edited constant code", [](json& j) { j["codes"]["constant_codes"][0] = "ffbfffbfff3f"; }, P,
       "/codes/constant_codes/0"},
      {"edited tail", [](json& j) { j["codes"]["rotations"]["tail"] = "00"; }, P, "/codes/rotations/tail"},
      {"codes without clip", [](json& j) { j.erase("clip"); }, P, "/codes"},
  };
  const auto base = json::parse(base_text());
  for (const auto& c : cases) {
    json j = base;
    c.edit(j);
    expect_error(j.dump(), c.code, c.field, c.name);
  }
}

TEST(JsonErrors, UnknownVersionSaysWhichVersionsAreRead) {
  json j = json::parse(base_text());
  j["version"] = 7;
  j["something_new"] = true;  // a later version's field must not hide the version error
  auto r = mab::import_json_bytes(j.dump());
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, mab::ErrorCode::unsupported_version);
  EXPECT_NE(r.error().message().find("version 7"), std::string::npos) << r.error().message();
  EXPECT_NE(r.error().message().find("versions 1 to 3"), std::string::npos) << r.error().message();
}

TEST(JsonErrors, ChainedClipLinksAreChecked) {
  auto c = mab::read_container(mab::test::load(mab::test::corpus_dir() / "fc2" / "chain_2.mab"));
  ASSERT_TRUE(c.ok());
  ASSERT_EQ(c->blocks.size(), 2u);
  const auto base = json::parse(mab::export_json(*c).value());
  std::size_t linking = 0;
  const auto& segments = base["container"]["blocks"][0]["segments"];
  for (std::size_t s = 0; s < segments.size(); ++s)
    if (segments[s].contains("child_block")) linking = s;
  ASSERT_GT(linking, 0u);
  const std::string segment = "/container/blocks/0/segments/" + std::to_string(linking);
  const std::string link = segment + "/child_block";
  {
    json j = base;
    j["container"]["blocks"][1]["parent"] = -1;
    expect_error(j.dump(), mab::ErrorCode::parse_error, "/container/blocks/1/parent", "orphan chained clip");
  }
  {
    json j = base;
    j["container"]["blocks"][0]["segments"][linking]["child_block"] = 0;
    expect_error(j.dump(), mab::ErrorCode::parse_error, link, "link to itself");
  }
  {
    json j = base;
    for (auto& s : j["container"]["blocks"][0]["segments"]) s.erase("child_block");
    expect_error(j.dump(), mab::ErrorCode::parse_error, "/container/blocks/1/parent", "unlinked chained clip");
  }
  {
    json j = base;
    j["container"]["blocks"][1]["parent"] = 1;
    expect_error(j.dump(), mab::ErrorCode::parse_error, "/container/blocks/1/parent", "self parent");
  }
  {
    json j = base;
    j["container"]["blocks"][0]["segments"][linking]["bytes"] = "00";
    expect_error(j.dump(), mab::ErrorCode::parse_error, segment + "/bytes", "bytes in a link");
  }
}

// A container-only document may edit any field, but not into a file no reader accepts.
TEST(JsonErrors, ContainerEditsThatCannotBeReadBackAreRefused) {
  json j = json::parse(base_text());
  j.erase("clip");
  j.erase("codes");
  ASSERT_TRUE(mab::import_json_bytes(j.dump()).ok());
  j["container"]["blocks"][0]["header"]["signature"] = "000000";
  auto r = mab::import_json_bytes(j.dump());
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, mab::ErrorCode::bad_signature) << r.error().message();
  EXPECT_NE(r.error().message().find("does not read back"), std::string::npos) << r.error().message();
}

// Random damage to valid documents, at the text and at the value level: any outcome but
// a crash (the sanitizer build turns memory errors into failures).
TEST(JsonErrors, RandomDamageNeverCrashes) {
  std::mt19937 rng(12345);
  std::vector<std::string> texts{base_text()};
  for (const char* f : {"fc5/three_blocks.mab", "fc4/mixed_k9.mab", "wdl/mixed_k9.mab", "fc2/chain_2.mab"}) {
    const auto p = mab::test::corpus_dir() / f;
    if (!std::filesystem::exists(p)) continue;
    auto c = mab::read_container(mab::test::load(p));
    if (!c) continue;
    auto d = mab::decode_clip(*c);
    texts.push_back(d ? mab::export_json(*d).value() : mab::export_json(*c).value());
  }
  const json replacements[] = {nullptr,
                               -1,
                               0,
                               1,
                               65535,
                               70000,
                               4294967296ull,
                               1.5,
                               -0.0,
                               1e39,
                               "",
                               "zz",
                               "0xFFFFFFFF",
                               "abc",
                               json::array(),
                               json::object(),
                               json::array({0, 0, 0, 1}),
                               true};
  std::size_t ok = 0, failed = 0;
  for (const auto& text : texts) {
    const json base = json::parse(text);
    const json flat = base.flatten();
    std::vector<std::string> pointers;
    for (auto it = flat.begin(); it != flat.end(); ++it) pointers.push_back(it.key());
    for (int i = 0; i < 400; ++i) {
      json j = base;
      const int edits = 1 + static_cast<int>(rng() % 3);
      for (int e = 0; e < edits; ++e) {
        std::string ptr = pointers[rng() % pointers.size()];
        // Sometimes replace a whole parent object or array, not just a leaf.
        if (rng() % 3 == 0 && ptr.rfind('/') > 0) ptr = ptr.substr(0, ptr.rfind('/'));
        // An earlier edit may have replaced this node's parent by a scalar.
        try {
          j[json::json_pointer(ptr)] = replacements[rng() % std::size(replacements)];
        } catch (const nlohmann::json::exception&) {}
      }
      auto r = mab::import_json_bytes(j.dump());
      (r.ok() ? ok : failed)++;
      if (!r.ok()) {
        EXPECT_FALSE(r.error().message().empty());
      }
    }
    for (int i = 0; i < 200; ++i) {
      std::string t = text;
      const std::size_t at = rng() % t.size();
      switch (rng() % 3) {
        case 0: t.resize(at); break;
        case 1: t[at] = "{}[],:\"0-ex9"[rng() % 12]; break;
        default: t.erase(at, 1 + rng() % 8); break;
      }
      auto r = mab::import_json_bytes(t);
      (r.ok() ? ok : failed)++;
    }
  }
  EXPECT_GT(failed, 0u);
  std::printf("random damage: %zu imported, %zu rejected\n", ok, failed);
}

}  // namespace
