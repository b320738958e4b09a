// JSON version 3 (docs/json-format.md, "Versions"): both families' tracks in "clip", a Far Cry
// 2/3 block imported by legacy_from_clip as `mab edit` does; versions 1 and 2 still import.
#include <mab/json.hpp>
#include <mab/legacy.hpp>

#include "support/corpus.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <functional>

namespace {

using Json = nlohmann::json;
using mab::test::corpus_dir;
using mab::test::good_files;
using mab::test::load;
using mab::test::name_of;

std::string exported(const mab::Container& c, std::size_t block, std::uint32_t version = 3) {
  mab::JsonExportOptions o;
  o.version = version;
  auto text = mab::export_block_json(c, block, o);
  EXPECT_TRUE(text.ok()) << text.error().message();
  return text ? *text : std::string();
}

bool is_legacy(const mab::Container& c, std::size_t block) {
  return block < c.blocks.size() && c.blocks[block].legacy() != nullptr;
}

// Every Far Cry 2/3 block that decodes (corpus/fc2, fc3, fc3bd) comes back byte for byte from
// its version 3 document, which holds its tracks in "clip" and no "legacy_clip".
TEST(JsonV3, EveryFarCryClipComesBackByteForByte) {
  std::size_t clips = 0;
  for (const auto& p : good_files()) {
    const auto bytes = load(p);
    auto c = mab::read_container(bytes);
    ASSERT_TRUE(c.ok()) << name_of(p);
    for (std::size_t b = 0; b < c->blocks.size(); ++b) {
      if (!is_legacy(*c, b) || !mab::decode_legacy_clip(*c, b)) continue;
      const std::string text = exported(*c, b);
      const Json doc = Json::parse(text);
      EXPECT_TRUE(doc.contains("clip") && !doc.contains("legacy_clip")) << name_of(p);
      auto imported = mab::import_json_bytes(text);
      ASSERT_TRUE(imported.ok()) << name_of(p) << " block " << b << ": " << imported.error().message();
      EXPECT_TRUE(imported->legacy_encoded);
      EXPECT_EQ(imported->bytes, bytes) << name_of(p) << " block " << b;
      EXPECT_EQ(imported->bridge.tracks_edited, 0u) << name_of(p);
      ++clips;
    }
  }
  EXPECT_GE(clips, 30u);
}

// A test per version: v1, v2 and v3 documents of an 'aNi' clip, v2 ("legacy_clip") and v3 of a
// Far Cry 2 and a Far Cry 3 clip, each imported unedited to the file's bytes.
TEST(JsonV3, EachVersionOfEachFamilyImports) {
  for (const char* rel : {"wd2/mixed_k8.mab", "wd1/long_k100.mab", "fc2/all_arrays.mab", "fc3/retail_bank.mab"}) {
    const auto bytes = load(corpus_dir() / rel);
    auto c = mab::read_container(bytes);
    ASSERT_TRUE(c.ok()) << rel;
    for (const std::uint32_t v : {1u, 2u, 3u}) {
      const std::string text = exported(*c, 0, v);
      const Json doc = Json::parse(text);
      EXPECT_EQ(doc["version"], v) << rel;
      EXPECT_EQ(doc.contains("legacy_clip"), is_legacy(*c, 0) && v < 3) << rel << " v" << v;
      auto imported = mab::import_json_bytes(text);
      ASSERT_TRUE(imported.ok()) << rel << " v" << v << ": " << imported.error().message();
      EXPECT_EQ(imported->bytes, bytes) << rel << " v" << v;
      // The Far Cry reader of `mab diff` reads both of its dialects alike.
      if (is_legacy(*c, 0)) {
        auto l = mab::import_legacy_json(text);
        ASSERT_TRUE(l.ok()) << rel << " v" << v << ": " << l.error().message();
        EXPECT_EQ(l->clip.rotations.size(), mab::decode_legacy_clip(*c, 0)->rotations.size()) << rel;
      }
    }
  }
}

int first_animated(const Json& doc) {
  const auto& bones = doc["clip"]["bones"];
  for (std::size_t i = 0; i < bones.size(); ++i)
    if (bones[i].contains("keys")) return static_cast<int>(i);
  return -1;
}

// An edited key, translation and tag record land in the written clip, within --max-error.
TEST(JsonV3, FarCryEditsLand) {
  const auto c = mab::test::load_container(corpus_dir() / "fc2" / "retail_bank.mab");
  Json doc = Json::parse(exported(c, 0));
  const int bone = first_animated(doc);
  ASSERT_GE(bone, 0);
  auto& b = doc["clip"]["bones"][static_cast<std::size_t>(bone)];
  const std::uint32_t id = b["hash"];
  const std::size_t frame = b["keys"].size() / 2;
  const mab::Quat turned = mab::quat_normalised(
      mab::quat_mul(mab::Quat{0.0f, std::sin(0.1f), 0.0f, std::cos(0.1f)},
                    mab::Quat{b["keys"][frame][0], b["keys"][frame][1], b["keys"][frame][2], b["keys"][frame][3]}));
  b["keys"][frame] = {turned.x, turned.y, turned.z, turned.w};
  ASSERT_TRUE(doc.contains("legacy") && doc["legacy"].contains("tag_table"));
  doc["legacy"]["tag_table"][0]["start"] = 0.25;
  ASSERT_TRUE(doc["motion"].contains("constant_translations"));
  auto& ct = doc["motion"]["constant_translations"][0];
  ct["translation"] = {0.5, 0.25, -8.0};
  // "motion" spells every hash in hex, a Far Cry 2/3 bone id too.
  const auto ct_id = static_cast<std::uint32_t>(std::stoul(ct["hash"].get<std::string>(), nullptr, 16));

  auto imported = mab::import_json_bytes(doc.dump());
  ASSERT_TRUE(imported.ok()) << imported.error().message();
  EXPECT_EQ(imported->bridge.tracks_edited, 1u);
  auto back = mab::read_container(imported->bytes);
  ASSERT_TRUE(back.ok());
  auto l = mab::decode_legacy_clip(*back, 0);
  ASSERT_TRUE(l.ok()) << l.error().message();
  bool rotated = false, translated = false;
  for (const auto& t : l->rotations)
    if (t.bone == id) {
      rotated = true;
      EXPECT_LE(mab::angular_error_deg(mab::legacy_rotation_at(t, static_cast<std::uint32_t>(frame)), turned), 0.01);
    }
  for (const auto& t : l->constant_translations)
    if (t.bone == ct_id) {
      translated = true;
      EXPECT_EQ(t.translation, (mab::Vec3{0.5f, 0.25f, -8.0f}));
    }
  EXPECT_TRUE(rotated && translated);
  ASSERT_TRUE(l->tag_table.has_value());
  EXPECT_EQ((*l->tag_table)[0].start, 0.25f);
}

// What the Clip may say and a Far Cry 2/3 clip cannot hold is refused by name, nothing written.
TEST(JsonV3, FarCryChangesThatCannotBeCarriedAreRefusedByName) {
  const auto c = mab::test::load_container(corpus_dir() / "fc2" / "all_arrays.mab");
  const Json doc = Json::parse(exported(c, 0));
  const int found = first_animated(doc);
  ASSERT_GE(found, 0);
  const auto bone = static_cast<std::size_t>(found);
  const std::string bp = "/clip/bones/" + std::to_string(bone);
  struct Case {
    const char* what;
    std::function<void(Json&)> edit;
    std::string field;
  };
  const Case cases[] = {
      {"a bit depth", [&](Json& d) { d["clip"]["bones"][bone]["flags"] = 0x1F; }, bp + "/flags"},
      {"a name", [&](Json& d) { d["clip"]["bones"][bone]["name"] = "Spine"; }, bp + "/hash"},
      {"a duration off lastFrame's rule", [](Json& d) { d["clip"]["duration"] = 123.5; }, "/clip/duration"},
      {"another key rate", [](Json& d) { d["clip"]["key_rate"] = 60.0; }, "key_rate"},
      {"part entries",
       [](Json& d) {
         d["motion"]["parts"] = Json::array(
             {{{"start", 0}, {"end", 1}, {"parent", 0}, {"attachment", 0}, {"type", 1}, {"nested_block", nullptr}}});
       },
       "/motion/parts"},
      {"codes", [](Json& d) { d["codes"] = Json::object(); }, "/codes"},
      {"a legacy_clip in version 3", [](Json& d) { d["legacy_clip"] = Json::object(); }, "/legacy_clip"},
      // Item 3 of issue 33: a container that contradicts the clip is not silently rewritten.
      {"the container's duration alone",
       [](Json& d) { d["container"]["blocks"][0]["header"]["duration_bits"] = 0x42F70000u; }, "/clip/duration"},
      {"a renamed id given as a name", [&](Json& d) { d["clip"]["bones"][bone]["rename_to"] = "Spine"; },
       bp + "/rename_to"},
  };
  for (const auto& k : cases) {
    Json edited = doc;
    if (!edited.contains("legacy")) edited["legacy"] = Json::object();
    k.edit(edited);
    auto r = mab::import_json_bytes(edited.dump());
    ASSERT_FALSE(r.ok()) << k.what;
    EXPECT_EQ(r.error().field, k.field) << k.what << ": " << r.error().message();
  }
  // "legacy" belongs to version 3.
  Json v2 = Json::parse(exported(c, 0, 2));
  v2["legacy"] = Json::object();
  auto r = mab::import_json_bytes(v2.dump());
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().field, "/legacy");
}

}  // namespace
