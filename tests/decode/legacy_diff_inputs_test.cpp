// mab diff on Far Cry 2/3 clips whose tracks are keyed at other frames (diff_clips of their
// clip_from_legacy Clips, legacy_bridge.hpp): each clip is read between its own keys (the slerp
// by frame distance, held before the first key), so a key one clip lacks shows as the difference
// from the other's interpolation there, and nothing else does.
#include <mab/edit.hpp>
#include <mab/legacy.hpp>
#include <mab/legacy_bridge.hpp>
#include <mab/quat.hpp>

#include "support/corpus.hpp"

#include <gtest/gtest.h>

#include <algorithm>

namespace {

mab::LegacyClip clip_of(const char* rel) {
  auto d = mab::decode_legacy_clip(mab::test::load_container(mab::test::corpus_dir() / rel), 0);
  EXPECT_TRUE(d.ok()) << rel;
  return d ? *d : mab::LegacyClip{};
}

// The first keyed track with at least `n` keys.
mab::LegacyRotationTrack* track_with(mab::LegacyClip& c, std::size_t n) {
  for (auto& t : c.rotations)
    if (t.frames.size() >= n) return &t;
  return nullptr;
}

const mab::BoneDiff* diff_of(const mab::ClipDiff& d, std::uint32_t bone) {
  for (const auto& x : d.bones)
    if (x.hash == bone) return &x;
  return nullptr;
}

mab::ClipDiff compare(const mab::LegacyClip& a, const mab::LegacyClip& b) {
  auto d = mab::diff_clips(mab::clip_from_legacy(a), mab::clip_from_legacy(b));
  EXPECT_TRUE(d.ok()) << d.error().message();
  return d ? *d : mab::ClipDiff{};
}

void erase_key(mab::LegacyRotationTrack& t, std::size_t k) {
  t.frames.erase(t.frames.begin() + static_cast<std::ptrdiff_t>(k));
  t.keys.erase(t.keys.begin() + static_cast<std::ptrdiff_t>(k));
  t.codes.erase(t.codes.begin() + static_cast<std::ptrdiff_t>(k));
}

TEST(LegacyDiffInputs, AKeyOneClipLacksIsComparedWithTheOthersInterpolation) {
  const mab::LegacyClip a = clip_of("fc2/all_arrays.mab");
  mab::LegacyClip b = a;
  auto* t = track_with(b, 3);
  ASSERT_NE(t, nullptr);
  const std::uint32_t bone = t->bone;
  const auto& orig = *track_with(const_cast<mab::LegacyClip&>(a), 3);
  const double f0 = orig.frames[0], f1 = orig.frames[1], f2 = orig.frames[2];
  // What b plays at the removed key's frame: the slerp of its neighbours.
  const mab::Quat between = mab::quat_slerp(orig.keys[0], orig.keys[2], (f1 - f0) / (f2 - f0));
  const double expected = mab::angular_error_deg(orig.keys[1], between);
  erase_key(*t, 1);
  for (const bool flipped : {false, true}) {
    const auto d = flipped ? compare(b, a) : compare(a, b);
    const mab::BoneDiff* got = diff_of(d, bone);
    ASSERT_NE(got, nullptr);
    EXPECT_NEAR(got->max_deg, expected, 1e-3);
    if (expected > 1e-3) {
      EXPECT_NEAR(got->worst_time_s, f1 / a.frame_rate, 1e-6);
    }
    for (const auto& x : d.bones) {
      if (x.hash == bone) continue;
      EXPECT_EQ(x.max_deg, 0.0) << x.name;
    }
  }
}

// A track whose first key comes later in one clip holds that key before it; a track with no
// keys at all reads as no rotation change (identity) and differs from the other by its angle.
TEST(LegacyDiffInputs, KeysStartingLaterAreHeldAndAnEmptyTrackIsIdentity) {
  const mab::LegacyClip a = clip_of("fc2/all_arrays.mab");
  mab::LegacyClip b = a;
  auto* t = track_with(b, 2);
  ASSERT_NE(t, nullptr);
  const std::uint32_t bone = t->bone;
  const mab::Quat second = t->keys[1];
  const mab::Quat first = t->keys[0];
  double from_identity = 0;  // the largest turn of a's track: what an empty track differs by
  for (const auto& q : t->keys) from_identity = std::max(from_identity, mab::angular_error_deg(q, mab::Quat{}));
  erase_key(*t, 0);  // b's track now starts at its second key
  auto d = compare(a, b);
  const mab::BoneDiff* got = diff_of(d, bone);
  ASSERT_NE(got, nullptr);
  EXPECT_NEAR(got->max_deg, mab::angular_error_deg(first, second), 1e-3);
  EXPECT_EQ(got->worst_time_s, 0.0);
  t->frames.clear();
  t->keys.clear();
  t->codes.clear();
  d = compare(a, b);
  got = diff_of(d, bone);
  ASSERT_NE(got, nullptr);
  EXPECT_NEAR(got->max_deg, from_identity, 1e-3);
}

// A bone both keyed and constant is two bones of one id (docs/legacy.md). With the keyed one
// removed from B, the diff paired A's keyed track with B's constant (occurrence 0 with
// occurrence 0) and reported a rotation difference and a kind change for a bone whose remaining
// rotation is the same in both; the constant meets the constant and the keyed track is A's only.
TEST(LegacyDiffInputs, TheTwoBonesOfOneIdPairByKind) {
  const auto a = clip_of("fc2/many_tracks.mab");
  std::uint32_t id = 0;
  bool found = false;
  for (const auto& k : a.constant_rotations)
    for (const auto& t : a.rotations)
      if (!found && t.bone == k.bone) {
        id = k.bone;
        found = true;
      }
  ASSERT_TRUE(found) << "the corpus clip holds a bone keyed and constant both";
  auto b = a;
  b.rotations.erase(std::find_if(b.rotations.begin(), b.rotations.end(),
                                 [&](const mab::LegacyRotationTrack& t) { return t.bone == id; }));
  const auto d = compare(a, b);
  EXPECT_EQ(d.max_deg, 0.0);
  EXPECT_TRUE(d.rotation_kind_differs.empty());
  EXPECT_EQ(d.only_in_a, std::vector<std::uint32_t>{id});
  EXPECT_TRUE(d.only_in_b.empty());
  const auto d2 = compare(b, a);
  EXPECT_EQ(d2.max_deg, 0.0);
  EXPECT_EQ(d2.only_in_b, std::vector<std::uint32_t>{id});
}

}  // namespace
