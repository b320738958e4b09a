// Decision 21 in the library: the error policy (edit_policy, legacy_edit_policy) and its one
// refusal; bone identity in documents ("rename_to", "new", flags) and edit::rename_bone.
#include <mab/edit.hpp>
#include <mab/json.hpp>
#include <mab/legacy.hpp>

#include "support/corpus.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>

namespace {

using nlohmann::json;

const auto k_wd1 = mab::test::corpus_dir() / "wd1" / "bit15_k7.mab";

mab::DecodedClip decoded(const std::filesystem::path& file) {
  auto c = mab::read_container(mab::test::load(file));
  EXPECT_TRUE(c.ok());
  auto d = mab::decode_clip(std::move(c).value(), 0);
  EXPECT_TRUE(d.ok());
  return std::move(d).value();
}

json document(const mab::DecodedClip& d) {
  auto text = mab::export_json(d);
  EXPECT_TRUE(text.ok());
  return json::parse(*text);
}

TEST(JsonIdentity, ThePolicyRaisesAChangedDepthKeepsARequestedOneAndRefusesTheRest) {
  const auto policy = mab::edit_policy();
  EXPECT_EQ(policy.max_error_deg, mab::default_max_error_deg);
  EXPECT_TRUE(policy.raise_depth);
  EXPECT_TRUE(policy.refuse_above_max_error);
  const auto d = decoded(k_wd1);
  mab::Clip edited = d.clip;
  edited.bones[0].keys[3] = {0.5f, 0.5f, 0.5f, 0.5f};
  // Without the policy the bone keeps its 7 bits, far off the bound; with it, a finer depth.
  mab::EncodeReport plain, raised;
  ASSERT_TRUE(mab::encode_clip(d, edited, {}, &plain).ok());
  EXPECT_GT(plain.max_error_deg, 0.1);
  ASSERT_TRUE(mab::encode_clip(d, edited, policy, &raised).ok());
  EXPECT_LE(raised.max_error_deg, 0.01);
  ASSERT_EQ(raised.depth_changes.size(), 1u);
  EXPECT_FALSE(raised.depth_changes[0].requested);
  EXPECT_EQ(raised.depth_changes[0].before, 7u);
  // A depth the edit sets is the user's: kept, and refused when it misses the bound.
  ASSERT_TRUE(mab::edit::set_bits(edited, 0, 4).ok());
  auto refused = mab::encode_clip(d, edited, policy);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().field, "max_error");
  EXPECT_NE(refused.error().detail.find("at the 4 bits the edit asks for"), std::string::npos)
      << refused.error().detail;
  mab::EncodeReport kept;
  ASSERT_TRUE(mab::encode_clip(d, edited, mab::edit_policy(10.0), &kept).ok());
  EXPECT_TRUE(kept.depth_changes.at(0).requested);
  EXPECT_EQ(kept.depth_changes.at(0).after, 4u);
  // A constant is a 6-byte quaternion: a bound below its rounding is refused, naming it.
  mab::Clip constant = d.clip;
  constant.bones[2].constant = {0.1f, 0.2f, 0.3f, 0.9f};
  auto c = mab::encode_clip(d, constant, mab::edit_policy(1e-7));
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.error().detail.find("bone 0x530EC1CB: its constant rotation, stored as a 6-byte quaternion"),
            std::string::npos)
      << c.error().detail;
  EXPECT_NE(c.error().message().find("above max_error 1e-07; nothing written (max_error "), std::string::npos)
      << c.error().detail;
}

// The edit JsonEdit.OneQuaternionChangesOnlyItsChunk makes (one key turned by 10 degrees), on
// every corpus clip with the default policy: written within 0.01 degree, its bone at a raised
// depth where its own missed, every other bone's chunks kept; or refused because even 16 bits
// miss the bound.
TEST(JsonIdentity, EveryCorpusEditMeetsTheBound) {
  std::size_t edits = 0, raised = 0, refused = 0;
  for (const auto& p : mab::test::good_files()) {
    auto c = mab::read_container(mab::test::load(p));
    ASSERT_TRUE(c.ok());
    for (std::size_t blk = 0; blk < c->blocks.size(); ++blk) {
      auto d = mab::decode_clip(*c, blk);
      if (!d || d->clip.key_count() == 0) continue;
      std::size_t animated = 0, bone = d->clip.bones.size();
      for (std::size_t i = 0; i < d->clip.bones.size(); ++i)
        if (d->clip.bones[i].kind() == mab::BoneKind::animated) bone = std::min(bone, i), ++animated;
      if (animated == 0) continue;
      const std::string what = p.string() + " block " + std::to_string(blk);
      auto doc = document(*d);
      const std::size_t key = d->clip.key_count() / 2;
      const mab::Quat o = d->clip.bones[bone].keys[key];
      const float s = 0.08715574f, w = 0.9961947f;  // 10 degrees about x, applied on the right
      const mab::Quat q{o.w * s + o.x * w, o.y * w + o.z * s, o.z * w - o.y * s, o.w * w - o.x * s};
      doc["clip"]["bones"][bone]["keys"][key] = {q.x, q.y, q.z, q.w};
      auto imported = mab::import_json_bytes(doc.dump());
      ++edits;
      if (!imported) {
        EXPECT_EQ(imported.error().field, "max_error") << what << ": " << imported.error().message();
        EXPECT_NE(imported.error().detail.find("at 16 bits, the finest depth"), std::string::npos) << what;
        ++refused;
        continue;
      }
      const auto& rep = imported->report;
      EXPECT_LE(rep.max_error_deg, 0.01) << what;
      const std::size_t chunks = mab::chunk_count(static_cast<std::uint32_t>(d->clip.key_count()));
      if (rep.depth_changes.empty()) {
        EXPECT_EQ(rep.chunks_requantised, 1u) << what;
      } else {
        ++raised;
        ASSERT_EQ(rep.depth_changes.size(), 1u) << what;
        EXPECT_EQ(rep.depth_changes[0].hash, d->clip.bones[bone].hash) << what;
        EXPECT_FALSE(rep.depth_changes[0].requested) << what;
        EXPECT_GT(rep.depth_changes[0].after, rep.depth_changes[0].before) << what;
      }
      EXPECT_GE(rep.chunks_reused, (animated - 1) * chunks) << what;
      auto out = mab::read_container(imported->bytes);
      ASSERT_TRUE(out.ok()) << what;
      auto again = mab::decode_clip(std::move(out).value(), blk);
      ASSERT_TRUE(again.ok()) << what;
      EXPECT_LE(mab::angular_error_deg(again->clip.bones[bone].keys[key], q), 0.01 + 1e-4) << what;
    }
  }
  EXPECT_GT(edits, 20u);
  EXPECT_GT(raised, 0u);  // the case decision 21 found: a kept depth far off the bound
  std::printf("%zu edits: %zu at a raised depth, %zu refused\n", edits, raised, refused);
}

TEST(JsonIdentity, FarCry2KeysHaveNoDepthAndTheBoundIsTheSparseWritersRefusal) {
  const auto c = mab::test::load_container(mab::test::corpus_dir() / "fc2" / "many_tracks.mab");
  auto clip = mab::decode_legacy_clip(c, 0);
  ASSERT_TRUE(clip.ok());
  ASSERT_FALSE(clip->rotations.empty());
  clip->rotations[0].keys[0] = {0.1f, 0.2f, 0.3f, 0.9f};
  mab::LegacyEncodeReport rep;
  ASSERT_TRUE(mab::encode_legacy_clip(c, 0, *clip, mab::legacy_edit_policy(), &rep).ok());
  EXPECT_LE(rep.max_error_deg, mab::default_max_error_deg);
  auto refused = mab::encode_legacy_clip(c, 0, *clip, mab::legacy_edit_policy(1e-7));
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.error().detail.find("Far Cry 2/3 keys are 6-byte quaternions: no depth to raise"),
            std::string::npos)
      << refused.error().detail;
  EXPECT_NE(refused.error().detail.find("above {opt:max_error} 1e-07; nothing written"), std::string::npos);
}

TEST(JsonIdentity, RenameToAndRenameBoneKeepEveryCode) {
  const auto d = decoded(k_wd1);
  auto doc = document(d);
  doc["clip"]["bones"][3]["rename_to"] = "0x0BADF00D";
  auto imported = mab::import_json(doc.dump());
  ASSERT_TRUE(imported.ok()) << imported.error().message();
  EXPECT_EQ(imported->clip.bones[3].hash, 0x0BADF00Du);
  EXPECT_EQ(imported->clip.bones[3].renamed_from, d.clip.bones[3].hash);
  auto written = mab::import_json_bytes(doc.dump());
  ASSERT_TRUE(written.ok()) << written.error().message();
  const auto& rep = written->report;
  const auto* bytes = &written->bytes;
  EXPECT_EQ(rep.chunks_requantised, 0u);
  ASSERT_EQ(rep.bones_renamed.size(), 1u);
  EXPECT_EQ(rep.bones_renamed[0].second, 0x0BADF00Du);
  mab::Clip by_edit = d.clip;
  ASSERT_TRUE(mab::edit::rename_bone(by_edit, 3, "0x0BADF00D").ok());
  EXPECT_EQ(*mab::encode_clip(d, by_edit, mab::edit_policy()), *bytes);
  // Renamed back: the original file.
  ASSERT_TRUE(mab::edit::rename_bone(by_edit, 3, "0x8F39FA4E").ok());
  EXPECT_FALSE(by_edit.bones[3].renamed_from.has_value());
  EXPECT_EQ(*mab::encode_clip(d, by_edit, mab::edit_policy()), mab::test::load(k_wd1));
  // A rename onto another bone's hash, a bad name or hash: errors.
  EXPECT_FALSE(mab::edit::rename_bone(by_edit, 3, "0xB6C65665").ok());
  EXPECT_FALSE(mab::parse_bone_id("0x123456789").ok());
  EXPECT_FALSE(mab::parse_bone_id("").ok());
  EXPECT_EQ(mab::parse_bone_id("Root")->hash, 0xB6C65665u);
  doc["clip"]["bones"][3]["rename_to"] = "Root";
  auto clash = mab::import_json(doc.dump());
  ASSERT_FALSE(clash.ok());
  EXPECT_EQ(clash.error().field, "/clip/bones/3/rename_to");
}

TEST(JsonIdentity, DuplicatesAndKindChangesFollowTheFile) {
  const auto d = decoded(k_wd1);
  auto doc = document(d);
  // The same bone twice: the second has no bone of the file left.
  auto twice = doc;
  twice["clip"]["bones"][4]["hash"] = doc["clip"]["bones"][3]["hash"];
  auto r = mab::import_json(twice.dump());
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().field, "/clip/bones/4/hash");
  // Re-ordering is not a change of identity.
  auto swapped = doc;
  std::swap(swapped["clip"]["bones"][0], swapped["clip"]["bones"][1]);
  EXPECT_TRUE(mab::import_json_bytes(swapped.dump()).ok());
  // A constant bone made animated (flags and keys together) is an edit of its kind.
  auto animated = doc;
  auto& b = animated["clip"]["bones"][2];
  ASSERT_EQ(b["flags"], 48);
  b["flags"] = 0x10;
  b["keys"] = json::array();
  for (std::size_t k = 0; k < doc["clip"]["key_times"].size(); ++k) b["keys"].push_back(b["constant"]);
  b.erase("constant");
  auto imported = mab::import_json_bytes(animated.dump());
  ASSERT_TRUE(imported.ok()) << imported.error().message();
  EXPECT_LE(imported->report.max_error_deg, 0.01);
}

}  // namespace
