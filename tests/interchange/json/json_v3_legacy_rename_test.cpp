// "rename_to" on a Far Cry 2/3 bone that is both keyed and constant (slots 3 and 2): a version 3
// document holds it as two entries of one id (docs/json-format.md, "Far Cry 2 and 3 in version
// 3"), so renaming the bone means renaming both, which must move both tracks with their codes,
// as `mab edit --rename-bone` does (docs/legacy.md, "Editing with mab edit").
#include <mab/json.hpp>
#include <mab/legacy.hpp>

#include "support/corpus.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <optional>
#include <set>

namespace {

using Json = nlohmann::json;

struct Bank {
  mab::LegacyClip clip;
  std::uint32_t both = 0;   // an id keyed and constant both
  std::uint32_t free = 0;   // an id in no list
  std::uint32_t other = 0;  // an id with a constant rotation only
};

Bank many_tracks(const char* game) {
  Bank b;
  const auto c = mab::test::load_container(mab::test::corpus_dir() / game / "many_tracks.mab");
  auto d = mab::decode_legacy_clip(c, 0);
  EXPECT_TRUE(d.ok());
  if (!d) return b;
  b.clip = *d;
  std::set<std::uint32_t> keyed, used;
  for (const auto& t : d->rotations) keyed.insert(t.bone), used.insert(t.bone);
  for (const auto& t : d->constant_rotations) {
    used.insert(t.bone);
    if (keyed.count(t.bone) != 0) b.both = t.bone;
    else b.other = t.bone;
  }
  for (const auto& t : d->constant_translations) used.insert(t.bone);
  for (const auto& t : d->translations) used.insert(t.bone);
  while (used.count(b.free) != 0) ++b.free;
  return b;
}

std::string document(const char* game) {
  const auto c = mab::test::load_container(mab::test::corpus_dir() / game / "many_tracks.mab");
  auto text = mab::export_block_json(c, 0, mab::JsonExportOptions{});
  EXPECT_TRUE(text.ok());
  return text ? *text : std::string();
}

// Both entries of the bone renamed: one bone, under the new id, with its stored keys and codes.
TEST(JsonV3LegacyRename, ABoneKeyedAndConstantIsRenamedByBothItsEntries) {
  for (const char* game : {"fc2", "fc3"}) {
    const Bank bank = many_tracks(game);
    ASSERT_NE(bank.both, 0u) << game << ": the corpus clip holds a bone keyed and constant both";
    Json doc = Json::parse(document(game));
    std::size_t entries = 0;
    for (auto& b : doc["clip"]["bones"])
      if (b["hash"] == bank.both) b["rename_to"] = bank.free, ++entries;
    ASSERT_EQ(entries, 2u) << game;
    auto r = mab::import_json_bytes(doc.dump());
    ASSERT_TRUE(r.ok()) << game << ": " << r.error().message();
    auto c = mab::read_container(r->bytes);
    ASSERT_TRUE(c.ok());
    auto after = mab::decode_legacy_clip(*c, 0);
    ASSERT_TRUE(after.ok());
    const mab::LegacyRotationTrack *was = nullptr, *now = nullptr;
    for (const auto& t : bank.clip.rotations)
      if (t.bone == bank.both) was = &t;
    for (const auto& t : after->rotations) {
      EXPECT_NE(t.bone, bank.both) << game;
      if (t.bone == bank.free) now = &t;
    }
    ASSERT_TRUE(was != nullptr && now != nullptr) << game;
    EXPECT_EQ(now->frames, was->frames) << game;
    EXPECT_EQ(now->codes, was->codes) << game;
    std::optional<mab::Quat48> was_constant, now_constant;
    for (const auto& k : bank.clip.constant_rotations)
      if (k.bone == bank.both) was_constant = k.code;
    for (const auto& k : after->constant_rotations) {
      EXPECT_NE(k.bone, bank.both) << game;
      if (k.bone == bank.free) now_constant = k.code;
    }
    ASSERT_TRUE(was_constant && now_constant) << game;
    EXPECT_EQ(*now_constant, *was_constant) << game;
    EXPECT_EQ(after->rotations.size(), bank.clip.rotations.size()) << game;
    EXPECT_EQ(after->constant_rotations.size(), bank.clip.constant_rotations.size()) << game;
  }
}

// Two different bones renamed onto one id, or one renamed onto another bone's id, are still
// refused at the rename: that would merge two bones of the skeleton (decision 24).
TEST(JsonV3LegacyRename, RenamesOntoOneIdFromTwoBonesAreStillRefused) {
  const Bank bank = many_tracks("fc2");
  ASSERT_NE(bank.other, 0u);
  Json doc = Json::parse(document("fc2"));
  for (auto& b : doc["clip"]["bones"])
    if (b["hash"] == bank.both && b.contains("keys")) b["rename_to"] = bank.other;
  auto r = mab::import_json_bytes(doc.dump());
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().field.find("/rename_to"), std::string::npos) << r.error().message();

  doc = Json::parse(document("fc2"));
  for (auto& b : doc["clip"]["bones"])
    if (b["hash"] == bank.both || b["hash"] == bank.other) b["rename_to"] = bank.free;
  r = mab::import_json_bytes(doc.dump());
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().field.find("/rename_to"), std::string::npos) << r.error().message();
}

}  // namespace
