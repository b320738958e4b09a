// The edit operations as a program calls them (edit.hpp), given what the CLI never passes:
// each refusal names the operation and leaves the clip as it was; clips without keys or
// without a usable key rate are refused or left alone as documented; resample notes what it
// did; resample_motion follows keys that fall between the source's.
#include <mab/decode_clip.hpp>
#include <mab/edit.hpp>

#include "support/corpus.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace {

mab::Clip corpus_clip(const char* rel) {
  auto d = mab::decode_clip(mab::test::load_container(mab::test::corpus_dir() / rel));
  EXPECT_TRUE(d.ok()) << rel;
  return d ? d->clip : mab::Clip{};
}

void refused(const mab::Status& st, const char* field, const char* what) {
  ASSERT_FALSE(st.ok()) << what;
  EXPECT_EQ(st.error().field, field) << what << ": " << st.error().message();
}

TEST(EditApi, ArgumentsTheCliNeverPassesAreRefused) {
  const mab::Clip clip = corpus_clip("wd1/long_k100.mab");
  const double nan = std::numeric_limits<double>::quiet_NaN();
  mab::Clip c = clip;
  refused(mab::edit::speed(c, 0), "speed", "speed 0");
  refused(mab::edit::speed(c, nan), "speed", "speed nan");
  refused(mab::edit::resample(c, -30), "resample", "resample -30");
  refused(mab::edit::resample(c, INFINITY), "resample", "resample inf");
  refused(mab::edit::set_bits(c, 0, 0), "bits", "bits 0");
  refused(mab::edit::set_bits(c, 0, 17), "bits", "bits 17");
  auto r = mab::edit::reduce(c, -0.5);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().field, "reduce");
  r = mab::edit::reduce(c, nan);
  ASSERT_FALSE(r.ok());
  refused(mab::edit::copy_track(c, clip, 0x12345678u), "copy-track", "copy-track");
  EXPECT_EQ(c.key_times, clip.key_times);
  EXPECT_EQ(c.bones.size(), clip.bones.size());
  // A clip whose key rate is not a rate: nothing can be timed.
  mab::Clip norate = clip;
  norate.key_rate = 0;
  refused(mab::edit::resample(norate, 30), "key_rate", "resample without a rate");
  norate.key_rate = nan;
  refused(mab::edit::trim(norate, 0.1, 0.2), "key_rate", "trim without a rate");
  EXPECT_EQ(norate.key_times, clip.key_times);
}

TEST(EditApi, ClipsWithoutKeys) {
  mab::Clip empty;
  mab::ClipBone b;
  b.hash = 1;
  b.set_kind(mab::BoneKind::constant);
  empty.bones.push_back(b);
  refused(mab::edit::trim(empty, 0, 1), "trim", "trim");
  EXPECT_TRUE(mab::edit::resample(empty, 30).ok());
  EXPECT_TRUE(mab::edit::reverse(empty).ok());
  auto r = mab::edit::reduce(empty, 0.1);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->keys_after, 0u);
  EXPECT_TRUE(empty.key_times.empty());
}

// wd2/translations_all_bones_root_motion keys at 30 units per second: --resample 60 gave back
// the same 12 keys and the file's bytes with exit 0.
TEST(EditApi, ResampleFinerThanTheKeyUnitsIsRefused) {
  const mab::Clip clip = corpus_clip("wd2/translations_all_bones_root_motion.mab");
  ASSERT_EQ(clip.key_rate, 30.0);
  mab::Clip c = clip;
  auto st = mab::edit::resample(c, 60);
  refused(st, "resample", "resample 60 at 30 units per second");
  EXPECT_NE(st.error().message().find("at most 30"), std::string::npos) << st.error().message();
  EXPECT_EQ(c.key_times, clip.key_times);
  ASSERT_TRUE(mab::edit::resample(c, 30).ok());
  mab::Clip w = corpus_clip("wd1/long_k100.mab");  // 120 ticks per second
  ASSERT_TRUE(mab::edit::resample(w, 60).ok());
}

// --copy-track copies a rotation track (docs/motion.md); a source whose translations differ
// from the bone's own is named in the report, and the bone's translations are kept.
TEST(EditApi, CopyTrackSaysTheTranslationsStay) {
  const mab::Clip clip = corpus_clip("wd2/translations_all_bones_root_motion.mab");
  mab::Clip src = clip;
  ASSERT_TRUE(mab::edit::reverse(src).ok());
  const std::uint32_t hash = clip.bones[0].hash;
  ASSERT_FALSE(clip.bones[0].translations.empty());
  ASSERT_NE(src.bones[0].translations, clip.bones[0].translations);
  mab::Clip c = clip;
  mab::edit::Notes notes;
  ASSERT_TRUE(mab::edit::copy_track(c, src, hash, &notes).ok());
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_NE(notes[0].find("its translations are this clip's own"), std::string::npos) << notes[0];
  EXPECT_EQ(c.bones[0].translations, clip.bones[0].translations);
  EXPECT_EQ(c.bones[0].keys, src.bones[0].keys);
  mab::Clip same = clip;  // the source's translations are the bone's: nothing to say
  notes.clear();
  ASSERT_TRUE(mab::edit::copy_track(same, clip, hash, &notes).ok());
  EXPECT_TRUE(notes.empty()) << notes[0];
}

TEST(EditApi, ResampleSaysWhatItDid) {
  mab::Clip c = corpus_clip("wdl/mixed_k9.mab");
  mab::edit::Notes notes;
  ASSERT_TRUE(mab::edit::resample(c, 7, &notes).ok());
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_EQ(notes[0].rfind("{opt:resample} 7: 9 keys -> ", 0), 0u) << notes[0];  // the option by name (error.hpp)
  EXPECT_NE(notes[0].find("(times rounded to key units)"), std::string::npos) << notes[0];
  EXPECT_TRUE(c.check().ok());
}

// Translations and root motion resampled onto times between the source's keys follow the
// straight line (translations) and the shortest arc (rotations) between them.
TEST(EditApi, MotionResampledBetweenKeysIsInterpolated) {
  const mab::Clip from = corpus_clip("wd2/translations_all_bones_root_motion.mab");
  ASSERT_FALSE(from.root_motion.translations.empty());
  mab::Clip to = from;
  // Twice the key rate, keys halfway between the source's (in seconds).
  to.key_rate = 2 * from.key_rate;
  to.key_times.clear();
  for (std::size_t k = 0; k + 1 < from.key_count(); ++k)
    to.key_times.push_back(from.key_times[k] + from.key_times[k + 1]);
  mab::resample_motion(to, from);
  ASSERT_EQ(to.root_motion.translations.size(), to.key_count());
  for (std::size_t k = 0; k < to.key_count(); ++k) {
    const double t = to.key_times[k] / 2.0;  // in the source's units
    std::size_t j = 0;
    while (from.key_times[j + 1] < t) ++j;
    const double u = (t - from.key_times[j]) / (from.key_times[j + 1] - from.key_times[j]);
    for (std::size_t x = 0; x < 3; ++x) {
      const double a = from.root_motion.translations[j][x], b = from.root_motion.translations[j + 1][x];
      EXPECT_NEAR(to.root_motion.translations[k][x], a + (b - a) * u, 1e-4 * std::max(1.0, std::abs(b))) << k;
    }
    const double ab = mab::angular_error_deg(from.root_motion.rotations[j], from.root_motion.rotations[j + 1]);
    const double via = mab::angular_error_deg(from.root_motion.rotations[j], to.root_motion.rotations[k]) +
                       mab::angular_error_deg(to.root_motion.rotations[k], from.root_motion.rotations[j + 1]);
    EXPECT_NEAR(via, ab, 1e-3) << k;
  }
}

// A bone rotated in one clip and not in the other is listed apart, not compared.
TEST(EditApi, DiffListsBonesWhoseRotationKindDiffers) {
  const mab::Clip a = corpus_clip("wd1/long_k100.mab");
  mab::Clip b = a;
  b.bones[1].set_kind(mab::BoneKind::none);
  auto d = mab::diff_clips(a, b);
  ASSERT_TRUE(d.ok());
  ASSERT_EQ(d->rotation_kind_differs.size(), 1u);
  EXPECT_EQ(d->rotation_kind_differs[0], a.bones[1].hash);
  EXPECT_EQ(d->bones.size(), a.bones.size() - 1);
}

}  // namespace
