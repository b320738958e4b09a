// Far Cry 2/3 clips as the editable Clip (legacy_bridge.hpp): the mapping is lossless both ways
// for every corpus clip, and the Clip edit operations land in the clip encode_legacy_clip writes.
#include <mab/edit.hpp>
#include <mab/legacy.hpp>
#include <mab/legacy_bridge.hpp>

#include "support/corpus.hpp"

#include <gtest/gtest.h>

#include <algorithm>

namespace {

using mab::test::legacy_files;
using mab::test::load_container;

// Why: mab edit refused Far Cry 2/3 clips. Through the bridge an unedited clip must come back
// byte for byte, every keyed track recognised as unchanged (its stored keys and codes kept).
TEST(LegacyBridge, AnUneditedClipComesBackByteForByte) {
  std::size_t clips = 0, tracks = 0;
  for (const auto& p : legacy_files()) {
    const auto c = load_container(p);
    const auto bytes = mab::test::load(p);
    for (std::size_t b = 0; b < c.blocks.size(); ++b) {
      auto d = mab::decode_legacy_clip(c, b);
      ASSERT_TRUE(d.ok()) << p << " " << d.error().message();
      const mab::Clip clip = mab::clip_from_legacy(*d);
      ASSERT_TRUE(clip.check().ok()) << p;
      EXPECT_EQ(clip.key_count(), std::size_t{d->last_frame} + 1) << p;
      mab::LegacyBridgeReport br;
      auto back = mab::legacy_from_clip(*d, clip, {}, &br);
      ASSERT_TRUE(back.ok()) << p << " " << back.error().message();
      EXPECT_EQ(br.tracks_kept, d->rotations.size()) << p;
      EXPECT_EQ(br.tracks_edited, 0u) << p;
      mab::LegacyEncodeReport rep;
      auto e = mab::encode_legacy_clip(c, b, *back, mab::legacy_edit_policy(), &rep);
      ASSERT_TRUE(e.ok()) << p << " " << e.error().message();
      EXPECT_EQ(rep.sections_rewritten, 0u) << p << " block " << b;
      auto w = mab::write_container(*e);
      ASSERT_TRUE(w.ok());
      EXPECT_EQ(*w, bytes) << p << " block " << b;
      ++clips;
      tracks += d->rotations.size();
    }
  }
  EXPECT_GE(clips, 20u);
  EXPECT_GE(tracks, 20u);
}

// A bone keyed and constant both (slots 3 and 2) is two bones of one id, and both come back.
TEST(LegacyBridge, ABoneKeyedAndConstantIsTwoBonesOfOneId) {
  const auto c = load_container(mab::test::corpus_dir() / "fc2" / "many_tracks.mab");
  auto d = mab::decode_legacy_clip(c, 0);
  ASSERT_TRUE(d.ok());
  auto both = *d;
  ASSERT_FALSE(both.rotations.empty());
  const std::uint32_t id = both.rotations[0].bone;
  bool constant_already = false;
  for (const auto& k : both.constant_rotations) constant_already |= k.bone == id;
  ASSERT_FALSE(constant_already);
  both.constant_rotations.push_back(
      {id, mab::encode_quat48(mab::Quat{}), mab::decode_quat48(mab::encode_quat48(mab::Quat{}))});
  std::sort(both.constant_rotations.begin(), both.constant_rotations.end(),
            [](const auto& a, const auto& b) { return a.bone < b.bone; });
  const mab::Clip clip = mab::clip_from_legacy(both);
  std::size_t of_id = 0;
  for (std::size_t i = 0; i < clip.bones.size(); ++i)
    if (clip.bones[i].hash == id) {
      EXPECT_EQ(clip.bones[i].kind(), of_id == 0 ? mab::BoneKind::animated : mab::BoneKind::constant);
      ++of_id;
    }
  EXPECT_EQ(of_id, 2u);
  auto back = mab::legacy_from_clip(both, clip);
  ASSERT_TRUE(back.ok()) << back.error().message();
  EXPECT_EQ(back->constant_rotations.size(), both.constant_rotations.size());
  EXPECT_EQ(back->rotations.size(), both.rotations.size());
}

// Key times that are not every frame (a speed change by 0.5 doubles them) are sampled at every
// frame; key times not from frame 0 or at another rate are refused by field.
TEST(LegacyBridge, KeyTimesAreSampledAtEveryFrameAndOtherRatesRefused) {
  const auto c = load_container(mab::test::corpus_dir() / "fc2" / "all_arrays.mab");
  auto d = mab::decode_legacy_clip(c, 0);
  ASSERT_TRUE(d.ok());
  mab::Clip clip = mab::clip_from_legacy(*d);
  ASSERT_TRUE(mab::edit::speed(clip, 0.5).ok());
  mab::LegacyBridgeReport br;
  auto back = mab::legacy_from_clip(*d, clip, {}, &br);
  ASSERT_TRUE(back.ok()) << back.error().message();
  EXPECT_TRUE(br.resampled_to_frames);
  EXPECT_EQ(back->last_frame, 2 * d->last_frame);
  ASSERT_EQ(back->trajectory_translation.size(), std::size_t{back->last_frame} + 1);
  for (std::size_t f = 0; f <= d->last_frame; ++f)
    EXPECT_EQ(back->trajectory_translation[2 * f], d->trajectory_translation[f]) << f;
  EXPECT_EQ(br.duration_rule.empty(), false);

  mab::Clip other_rate = mab::clip_from_legacy(*d);
  other_rate.key_rate = 60;
  auto r = mab::legacy_from_clip(*d, other_rate);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().field, "key_rate");
  mab::Clip late = mab::clip_from_legacy(*d);
  for (auto& t : late.key_times) t += 1;
  r = mab::legacy_from_clip(*d, late);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().field, "key_times");
}

TEST(LegacyBridge, BonesAreSkeletonIds) {
  auto a = mab::parse_legacy_bone("bone_12");
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(*a, 12u);
  auto b = mab::parse_legacy_bone("7");
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(*b, 7u);
  for (const char* bad : {"Root", "bone_", "0x5", "bone_1x", ""}) {
    auto r = mab::parse_legacy_bone(bad);
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_NE(r.error().detail.find("skeleton id"), std::string::npos) << bad;
  }
}

// By skeleton id, --rotate-bone, --set-constant and --remove-bone act on the whole bone: both
// Clip bones of an id keyed and constant (docs/edit.md: "every rotation of BONE (constant or
// keys)"); set_constant keeps the bone's translations. A bone of translations alone has no
// rotation to turn.
TEST(LegacyBridge, OperationsBySkeletonIdEditTheWholeBone) {
  const auto c = load_container(mab::test::corpus_dir() / "fc2" / "all_arrays.mab");
  auto d = mab::decode_legacy_clip(c, 0);
  ASSERT_TRUE(d.ok());
  auto both = *d;  // the first keyed bone given a constant rotation and a constant translation too
  const std::uint32_t id = both.rotations[0].bone;
  const mab::Quat held = mab::decode_quat48(mab::encode_quat48(mab::Quat{0.0f, 0.6f, 0.0f, 0.8f}));
  both.constant_rotations.push_back({id, mab::encode_quat48(held), held});
  both.constant_translations.push_back({id, mab::Vec3{1.0f, 2.0f, 3.0f}});
  auto by_id = [](auto& v) {
    std::sort(v.begin(), v.end(), [](const auto& a, const auto& b) { return a.bone < b.bone; });
  };
  by_id(both.constant_rotations);
  by_id(both.constant_translations);
  const mab::Clip clip = mab::clip_from_legacy(both);
  auto of_id = [&](const mab::Clip& k) {
    std::vector<const mab::ClipBone*> out;
    for (const auto& b : k.bones)
      if (b.hash == id) out.push_back(&b);
    return out;
  };
  ASSERT_EQ(of_id(clip).size(), 2u);
  const mab::Quat q{0.0f, 0.0f, 0.25881905f, 0.96592583f};  // 30 degrees about z

  mab::Clip turned = clip;
  ASSERT_TRUE(mab::rotate_skeleton_bone(turned, id, q).ok());
  const auto t = of_id(turned), o = of_id(clip);
  ASSERT_EQ(t.size(), 2u);
  for (std::size_t k = 0; k < o[0]->keys.size(); ++k)
    EXPECT_LE(mab::angular_error_deg(t[0]->keys[k], mab::quat_mul(q, o[0]->keys[k])), 1e-4) << k;
  EXPECT_LE(mab::angular_error_deg(t[1]->constant, mab::quat_mul(q, o[1]->constant)), 1e-4);

  mab::Clip set = clip;
  ASSERT_TRUE(mab::set_skeleton_constant(set, id, q).ok());
  ASSERT_EQ(of_id(set).size(), 1u);
  EXPECT_EQ(of_id(set)[0]->kind(), mab::BoneKind::constant);
  EXPECT_EQ(of_id(set)[0]->constant_translation, (mab::Vec3{1.0f, 2.0f, 3.0f}));
  auto back = mab::legacy_from_clip(both, set);
  ASSERT_TRUE(back.ok()) << back.error().message();
  EXPECT_EQ(back->rotations.size(), both.rotations.size() - 1);
  EXPECT_EQ(back->constant_translations.size(), both.constant_translations.size());

  mab::Clip removed = clip;
  ASSERT_TRUE(mab::remove_skeleton_bone(removed, id).ok());
  EXPECT_TRUE(of_id(removed).empty());
  EXPECT_EQ(removed.bones.size(), clip.bones.size() - 2);

  mab::Clip none = clip;
  EXPECT_EQ(mab::rotate_skeleton_bone(none, 999, q).error().code, mab::ErrorCode::not_found);
  std::uint32_t translated_only = 0;
  for (const auto& b : clip.bones)
    if (b.kind() == mab::BoneKind::none) translated_only = b.hash;
  ASSERT_NE(translated_only, 0u);
  EXPECT_EQ(mab::rotate_skeleton_bone(none, translated_only, q).error().code, mab::ErrorCode::invalid_argument);
}

// A Far Cry 2/3 bone has no flag byte: a bit depth or another bit set on a Clip bone (Python's
// bone_flags) cannot land. It was dropped with the clip written; it is refused naming the field.
TEST(LegacyBridge, FlagBitsBesideTheKindAreRefused) {
  const auto c = load_container(mab::test::corpus_dir() / "fc2" / "many_tracks.mab");
  auto d = mab::decode_legacy_clip(c, 0);
  ASSERT_TRUE(d.ok());
  for (const unsigned bits : {0x05u, 0x40u, 0x80u}) {
    mab::Clip clip = mab::clip_from_legacy(*d);
    ASSERT_FALSE(clip.bones.empty());
    clip.bones.back().flags = static_cast<std::uint8_t>(clip.bones.back().flags | bits);
    auto back = mab::legacy_from_clip(*d, clip);
    ASSERT_FALSE(back.ok()) << "bits " << bits;
    EXPECT_EQ(back.error().field, "bone_flags");
    EXPECT_NE(back.error().detail.find("only the rotation kind"), std::string::npos) << back.error().message();
  }
  // The kind bits alone are the bone's kind and carry over (with keys or a constant to match).
  EXPECT_TRUE(mab::legacy_from_clip(*d, mab::clip_from_legacy(*d)).ok());
}

// copy_skeleton_track makes the destination's two bones of an id one before copying; a copy the
// source cannot give (its bone has no rotation) is refused with the clip left as it was.
TEST(LegacyBridge, ARefusedCopyLeavesTheClipAsItWas) {
  const auto c = load_container(mab::test::corpus_dir() / "fc2" / "many_tracks.mab");
  auto d = mab::decode_legacy_clip(c, 0);
  ASSERT_TRUE(d.ok());
  const mab::Clip clip = mab::clip_from_legacy(*d);
  std::uint32_t id = 0;
  for (std::size_t i = 1; i < clip.bones.size(); ++i)
    if (clip.bones[i].hash == clip.bones[i - 1].hash) id = clip.bones[i].hash;
  ASSERT_NE(id, 0u) << "the corpus clip holds a bone keyed and constant both";
  mab::Clip source = clip;
  for (auto& b : source.bones)
    if (b.hash == id) b.set_kind(mab::BoneKind::none);
  mab::Clip copied = clip;
  const auto st = mab::copy_skeleton_track(copied, source, id);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.error().detail.find("no rotation"), std::string::npos) << st.error().message();
  ASSERT_EQ(copied.bones.size(), clip.bones.size());
  for (std::size_t i = 0; i < clip.bones.size(); ++i) {
    EXPECT_EQ(copied.bones[i].hash, clip.bones[i].hash) << i;
    EXPECT_EQ(copied.bones[i].kind(), clip.bones[i].kind()) << i;
  }
}

}  // namespace
