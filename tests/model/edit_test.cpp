// Clip edits, key reduction, conversion and diff, each checked on the decoded result of the
// file it writes (not only that a file is written).
#include <mab/convert.hpp>
#include <mab/edit.hpp>
#include <mab/gltf.hpp>
#include <mab/requantise.hpp>
#include <mab/validate.hpp>

#include "support/cli_run.hpp"
#include "support/corpus.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

namespace {

using mab::test::load;

constexpr double pi = 3.14159265358979323846;
// Angles of float32 quaternions are known to about 2^-22 rad (1.4e-5 degree).
constexpr double measure_deg = 2e-5;

mab::Quat turn(double x, double y, double z, double deg) {
  const double n = std::sqrt(x * x + y * y + z * z), h = deg * pi / 360.0;
  return {static_cast<float>(x / n * std::sin(h)), static_cast<float>(y / n * std::sin(h)),
          static_cast<float>(z / n * std::sin(h)), static_cast<float>(std::cos(h))};
}

// A WDL clip of smooth motion: bone 0 turns uniformly about z (an exact slerp), bone 1 about
// a tilted axis with a bump at key 37, bone 2 is constant. 60 keys one frame apart at 30/s.
mab::DecodedClip smooth_clip() {
  auto empty = mab::new_container(mab::Game::watch_dogs_legion);
  auto d = mab::decode_clip(*empty);
  mab::Clip clip = d->clip;
  clip.key_times.clear();
  for (std::uint32_t k = 0; k < 60; ++k) clip.key_times.push_back(k);
  clip.duration = 59.0f / 30.0f;
  const char* names[3] = {"Root", "Spine", "Head"};
  for (int i = 0; i < 3; ++i) {
    mab::ClipBone b;
    b.name = names[i];
    b.hash = mab::bone_hash(names[i]);
    if (i == 2) {
      b.set_kind(mab::BoneKind::constant);
      b.constant = turn(1, 0, 0, 30);
    } else {
      b.set_kind(mab::BoneKind::animated);
      b.set_bit_depth(16);
      for (std::uint32_t k = 0; k < 60; ++k) {
        double deg = 3.0 * k;
        if (i == 1 && k == 37) deg += 6;
        b.keys.push_back(i == 0 ? turn(0, 0, 1, deg) : turn(1, 1, 0.3, deg));
      }
    }
    clip.bones.push_back(b);
  }
  auto bytes = mab::encode_clip(*d, clip);
  EXPECT_TRUE(bytes.ok()) << bytes.error().message();
  return *mab::decode_clip(*mab::read_container(*bytes));
}

// Encodes `edited` against `original`, reads the file back and decodes it.
mab::Clip written(const mab::DecodedClip& original, const mab::Clip& edited, mab::EncodeReport* rep = nullptr,
                  mab::EncodeOptions opt = {}) {
  auto bytes = mab::encode_clip(original, edited, opt, rep);
  EXPECT_TRUE(bytes.ok()) << bytes.error().message();
  auto c = mab::read_container(*bytes);
  EXPECT_TRUE(c.ok());
  for (const auto& f : mab::validate(*c)) EXPECT_NE(f.severity, mab::Severity::error) << f.message;
  return mab::decode_clip(*c)->clip;
}

double bound(const mab::EncodeReport& r) { return r.max_error_deg + measure_deg; }

TEST(Edit, SpeedScalesTimesAndKeepsRotations) {
  const auto d = smooth_clip();
  mab::Clip c = d.clip;
  ASSERT_TRUE(mab::edit::speed(c, 0.5).ok());
  mab::EncodeReport rep;
  const auto out = written(d, c, &rep);
  ASSERT_EQ(out.key_count(), 60u);
  for (std::size_t k = 0; k < 60; ++k) EXPECT_EQ(out.key_times[k], 2 * k);
  EXPECT_FLOAT_EQ(out.duration, 2 * d.clip.duration);
  EXPECT_EQ(rep.chunks_requantised, 0u) << "same rotations: every chunk keeps its codes";
  for (std::size_t k = 0; k < 60; ++k)
    EXPECT_EQ(std::memcmp(&out.bones[0].keys[k], &d.clip.bones[0].keys[k], sizeof(mab::Quat)), 0);
  // Faster: keys meet and the later one goes.
  mab::Clip f = d.clip;
  mab::edit::Notes notes;
  ASSERT_TRUE(mab::edit::speed(f, 4, &notes).ok());
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_LT(f.key_count(), 60u);
  for (std::size_t k = 1; k < f.key_count(); ++k) EXPECT_GT(f.key_times[k], f.key_times[k - 1]);
  EXPECT_FALSE(mab::edit::speed(f, 0).ok());
}

TEST(Edit, TrimKeepsTheRangeAndInterpolatesItsEnds) {
  const auto d = smooth_clip();
  mab::Clip c = d.clip;
  ASSERT_TRUE(mab::edit::trim(c, 10.5 / 30, 40.0 / 30).ok());  // 10.5 frames rounds to 11
  mab::EncodeReport rep;
  const auto out = written(d, c, &rep);
  ASSERT_EQ(out.key_count(), 30u);  // frames 11..40
  EXPECT_EQ(out.key_times.front(), 0u);
  EXPECT_EQ(out.key_times.back(), 29u);
  EXPECT_NEAR(out.duration, 29.0 / 30.0, 1e-6);
  for (std::size_t k = 0; k < out.key_count(); ++k)
    EXPECT_LE(mab::angular_error_deg(out.bones[1].keys[k], d.clip.bones[1].keys[k + 11]), bound(rep)) << k;
  mab::Clip bad = d.clip;
  EXPECT_FALSE(mab::edit::trim(bad, 2, 1).ok());
}

TEST(Edit, ReverseLoopFixResample) {
  const auto d = smooth_clip();
  mab::Clip r = d.clip;
  ASSERT_TRUE(mab::edit::reverse(r).ok());
  mab::EncodeReport rep;
  auto out = written(d, r, &rep);
  for (std::size_t k = 0; k < 60; ++k) {
    EXPECT_EQ(out.key_times[k], k);
    EXPECT_LE(mab::angular_error_deg(out.bones[0].keys[k], d.clip.bones[0].keys[59 - k]), bound(rep));
  }
  mab::Clip l = d.clip;
  ASSERT_TRUE(mab::edit::loop_fix(l).ok());
  out = written(d, l, &rep);
  EXPECT_LE(mab::angular_error_deg(out.bones[1].keys.back(), d.clip.bones[1].keys.front()), bound(rep));
  EXPECT_LE(rep.chunks_requantised, 2u) << "one chunk per animated bone changes";
  mab::Clip s = d.clip;
  ASSERT_TRUE(mab::edit::resample(s, 10).ok());  // every third frame
  out = written(d, s, &rep);
  ASSERT_EQ(out.key_count(), 21u);  // 0, 3, ..., 57, then 59
  EXPECT_EQ(out.key_times[19], 57u);
  EXPECT_EQ(out.key_times[20], 59u);
  for (std::size_t k = 0; k < out.key_count(); ++k)
    EXPECT_LE(mab::angular_error_deg(out.bones[1].keys[k], mab::sample_bone(d.clip, d.clip.bones[1], out.key_times[k])),
              bound(rep));
}

TEST(Edit, BoneOperations) {
  const auto d = smooth_clip();
  const auto spine = *mab::find_bone(d.clip, "Spine");
  EXPECT_EQ(spine, 1u);
  EXPECT_EQ(*mab::find_bone(d.clip, "0xB6C65665"), 0u);  // Root by hash
  EXPECT_FALSE(mab::find_bone(d.clip, "Tail").ok());

  mab::Clip c = d.clip;
  const auto r = turn(0, 1, 0, 20);
  ASSERT_TRUE(mab::edit::rotate_bone(c, spine, r).ok());
  mab::EncodeReport rep;
  auto out = written(d, c, &rep);
  for (std::size_t k = 0; k < 60; ++k) {
    EXPECT_NEAR(mab::angular_error_deg(out.bones[1].keys[k], d.clip.bones[1].keys[k]), 20, bound(rep));
    EXPECT_LE(mab::angular_error_deg(out.bones[1].keys[k], mab::quat_mul(r, d.clip.bones[1].keys[k])), bound(rep));
    EXPECT_EQ(std::memcmp(&out.bones[0].keys[k], &d.clip.bones[0].keys[k], sizeof(mab::Quat)), 0) << "Root untouched";
  }

  mab::Clip s = d.clip;
  ASSERT_TRUE(mab::edit::set_constant(s, spine, turn(0, 0, 1, 45)).ok());
  ASSERT_TRUE(mab::edit::add_bone(s, "Tail", turn(1, 0, 0, 10)).ok());
  EXPECT_FALSE(mab::edit::add_bone(s, "Tail", {}).ok());
  ASSERT_TRUE(mab::edit::remove_bone(s, *mab::find_bone(s, "Head")).ok());
  out = written(d, s, &rep);
  ASSERT_EQ(out.bones.size(), 3u);
  EXPECT_EQ(out.bones[1].kind(), mab::BoneKind::constant);
  EXPECT_LE(mab::angular_error_deg(out.bones[1].constant, turn(0, 0, 1, 45)),
            0.0087);  // 6-byte quantum (docs/library.md, "Error bounds")
  EXPECT_EQ(out.bones[2].hash, mab::bone_hash("Tail"));
  EXPECT_LE(mab::angular_error_deg(out.bones[2].constant, turn(1, 0, 0, 10)), 0.0087);

  mab::Clip b = d.clip;
  ASSERT_TRUE(mab::edit::set_bits(b, 0, 6).ok());
  EXPECT_FALSE(mab::edit::set_bits(b, 2, 6).ok()) << "a constant bone has no depth";
  EXPECT_FALSE(mab::edit::set_bits(b, 0, 17).ok());
  out = written(d, b, &rep);
  EXPECT_EQ(out.bones[0].bit_depth(), 6u);
  EXPECT_EQ(out.bones[1].bit_depth(), 16u);
  EXPECT_EQ(rep.chunks_requantised, 8u) << "the 8 chunks of bone 0 only";
  // n bits give at most 4*sqrt(3)/(2^n - 1) rad per key (docs/library.md, "Error bounds").
  EXPECT_LE(rep.max_error_deg, 4 * std::sqrt(3.0) / 63 * 180 / pi);
}

TEST(Edit, CopyTrackResamplesOntoThisClipsTimes) {
  const auto d = smooth_clip();
  // The source: the same motion at half speed, so key k here is key k/2 there.
  mab::Clip src = d.clip;
  ASSERT_TRUE(mab::edit::speed(src, 0.5).ok());
  ASSERT_TRUE(mab::edit::rotate_bone(src, 1, turn(0, 0, 1, 90)).ok());
  mab::Clip c = d.clip;
  ASSERT_TRUE(mab::edit::copy_track(c, src, mab::bone_hash("Spine")).ok());
  mab::EncodeReport rep;
  const auto out = written(d, c, &rep);
  for (std::size_t k = 0; k < 60; ++k)
    EXPECT_LE(mab::angular_error_deg(out.bones[1].keys[k], mab::sample_bone(src, src.bones[1], static_cast<double>(k))),
              bound(rep))
        << k;
  mab::Clip add = d.clip;
  ASSERT_TRUE(mab::edit::remove_bone(add, 1).ok());
  mab::edit::Notes notes;
  ASSERT_TRUE(mab::edit::copy_track(add, src, mab::bone_hash("Spine"), &notes).ok());
  EXPECT_EQ(add.bones.back().hash, mab::bone_hash("Spine"));
  EXPECT_EQ(notes.size(), 1u);
}

TEST(Edit, ReduceKeepsOnlyTheKeysTheMotionNeeds) {
  const auto d = smooth_clip();
  mab::Clip c = d.clip;
  auto r = mab::edit::reduce(c, 0.01);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->keys_before, 60u);
  // Both bones turn uniformly, so slerp between the ends is exact, except around the bump at
  // key 37: keys 0, 36, 37, 38 and 59 remain.
  EXPECT_EQ(c.key_times, (std::vector<std::uint32_t>{0, 36, 37, 38, 59}));
  EXPECT_LE(r->max_error_deg, 0.01);
  mab::EncodeReport rep;
  const auto out = written(d, c, &rep);
  // Every original key, interpolated from what was kept, within tolerance + quantisation.
  for (std::size_t i = 0; i < 2; ++i)
    for (std::size_t k = 0; k < 60; ++k)
      EXPECT_LE(
          mab::angular_error_deg(mab::sample_bone(out, out.bones[i], static_cast<double>(k)), d.clip.bones[i].keys[k]),
          0.01 + rep.max_error_deg + measure_deg)
          << i << " " << k;
  // A loose tolerance drops the bump too.
  mab::Clip loose = d.clip;
  auto r2 = mab::edit::reduce(loose, 10.0);
  ASSERT_TRUE(r2.ok());
  EXPECT_EQ(loose.key_count(), 2u);
  EXPECT_GT(r2->max_error_deg, 1.0);
  EXPECT_LE(r2->max_error_deg, 10.0);
}

// Chained operations give the file that applying them one call at a time gives.
TEST(Edit, ChainedCliOperationsEqualOneAtATime) {
  const auto dir = mab::test::test_temp_dir("mab_edit_test");
  const auto src = mab::test::corpus_dir() / "wd1" / "long_k100.mab";
  const auto chained = dir / "chained.mab", a = dir / "a.mab", b = dir / "b.mab", c = dir / "c.mab";
  std::string err;
  auto r = mab::test::run_mab_split("edit " + src.string() + " -o " + chained.string() +
                                        " --speed 2 --rotate-bone Root 0,0,1@30 --reverse --trim 0.2 1.0",
                                    &err);
  ASSERT_EQ(r.status, 0) << err;
  ASSERT_EQ(mab::test::run_mab_split("edit " + src.string() + " -o " + a.string() + " --speed 2", &err).status, 0)
      << err;
  ASSERT_EQ(mab::test::run_mab_split("edit " + a.string() + " -o " + b.string() + " --rotate-bone Root 0,0,1@30", &err)
                .status,
            0);
  ASSERT_EQ(mab::test::run_mab_split("edit " + b.string() + " -o " + c.string() + " --reverse", &err).status, 0);
  ASSERT_EQ(mab::test::run_mab_split("edit " + c.string() + " -o " + a.string() + " --trim 0.2 1.0", &err).status, 0);
  // Rotating, re-quantising, then re-quantising again can differ from one quantisation, so
  // the comparison is of the decoded rotations within the errors reported along the way.
  auto x = mab::decode_clip(*mab::read_container(load(chained)));
  auto y = mab::decode_clip(*mab::read_container(load(a)));
  ASSERT_TRUE(x.ok() && y.ok());
  EXPECT_EQ(x->clip.key_times, y->clip.key_times);
  auto diff = mab::diff_clips(x->clip, y->clip);
  ASSERT_TRUE(diff.ok());
  EXPECT_LE(diff->max_deg, 0.02 + measure_deg) << "each step stays within its 0.01 degree bound";
  // Operations that do not re-quantise give identical bytes whichever way they are run.
  ASSERT_EQ(mab::test::run_mab_split("edit " + src.string() + " -o " + chained.string() + " --speed 2 --reverse", &err)
                .status,
            0);
  ASSERT_EQ(mab::test::run_mab_split("edit " + src.string() + " -o " + b.string() + " --speed 2", &err).status, 0);
  ASSERT_EQ(mab::test::run_mab_split("edit " + b.string() + " -o " + c.string() + " --reverse", &err).status, 0);
  EXPECT_EQ(load(chained), load(c));
  // Errors name the operation and write nothing.
  r = mab::test::run_mab_split("edit " + src.string() + " -o " + (dir / "no.mab").string() + " --speed 2 --bits Tail 5",
                               &err);
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(err.find("--bits Tail 5"), std::string::npos) << err;
  EXPECT_FALSE(std::filesystem::exists(dir / "no.mab"));
}

// docs/edit.md: WD1 -> WDL -> WD2 -> FC5 -> WD1 returns the same rotations within the reported
// bound; on these clips every chunk keeps its codes and the file comes back byte for byte.
TEST(Convert, RoundTripThroughEveryAniGame) {
  const mab::Game chain[] = {mab::Game::watch_dogs_legion, mab::Game::watch_dogs_2, mab::Game::far_cry_5,
                             mab::Game::watch_dogs};
  for (const char* rel : {"wd1/long_k100.mab", "wd1/many_bones_150.mab", "wd1/one_bone_k8.mab"}) {
    const auto original = load(mab::test::corpus_dir() / rel);
    std::vector<std::uint8_t> bytes = original;
    double worst = 0;
    for (const auto g : chain) {
      mab::ConvertReport rep;
      mab::ConvertOptions opt;
      opt.drop_unmappable = true;  // Markup has no FC5 slot (format 8.2)
      auto out = mab::convert_clip(*mab::read_container(bytes), 0, g, opt, &rep);
      ASSERT_TRUE(out.ok()) << rel << " -> " << mab::to_string(g) << ": " << out.error().message();
      auto c = mab::read_container(*out);
      ASSERT_TRUE(c.ok());
      EXPECT_EQ(c->variant->game, g);
      for (const auto& f : mab::validate(*c)) EXPECT_NE(f.severity, mab::Severity::error) << rel << f.message;
      worst = std::max(worst, rep.encode.max_error_deg);
      auto before = mab::decode_clip(*mab::read_container(bytes));
      auto after = mab::decode_clip(*c);
      auto diff = mab::diff_clips(before->clip, after->clip);
      ASSERT_TRUE(diff.ok());
      EXPECT_LE(diff->max_deg, rep.encode.max_error_deg + measure_deg) << rel << " -> " << mab::to_string(g);
      bytes = *out;
    }
    auto a = mab::decode_clip(*mab::read_container(original));
    auto b = mab::decode_clip(*mab::read_container(bytes));
    EXPECT_EQ(a->clip.key_times, b->clip.key_times) << rel;
    auto diff = mab::diff_clips(a->clip, b->clip);
    EXPECT_LE(diff->max_deg, worst + measure_deg) << rel;
    EXPECT_EQ(diff->max_deg, 0.0) << rel << ": the codes are reused all the way";
  }
}

TEST(Convert, TimesKeepTheirSecondsAndUnmappableSectionsAreRefusedByName) {
  const auto src = *mab::read_container(load(mab::test::corpus_dir() / "wd1" / "mixed_k17_padded_markup.mab"));
  auto refused = mab::convert_clip(src, 0, mab::Game::far_cry_5);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.error().message().find("Markup"), std::string::npos) << refused.error().message();
  mab::ConvertReport rep;
  auto out = mab::convert_clip(src, 0, mab::Game::watch_dogs_legion, {}, &rep);
  ASSERT_TRUE(out.ok()) << out.error().message();
  EXPECT_EQ(rep.source_rate, 120.0);
  EXPECT_EQ(rep.target_rate, 30.0);
  const auto a = mab::decode_clip(src)->clip;
  const auto b = mab::decode_clip(*mab::read_container(*out))->clip;
  ASSERT_EQ(b.key_count() + rep.keys_merged, a.key_count());
  double shift = 0;
  std::size_t j = 0;
  for (std::size_t k = 0; k < a.key_count() && j < b.key_count(); ++k) {
    if (std::abs(b.key_seconds(j) - a.key_seconds(k)) <= 0.5 / 30 + 1e-9) {
      shift = std::max(shift, std::abs(b.key_seconds(j) - a.key_seconds(k)));
      ++j;
    }
  }
  EXPECT_EQ(j, b.key_count());
  EXPECT_NEAR(shift, rep.max_time_shift_s, 1e-9);
  bool markup = false;
  for (const auto& s : rep.carried) markup = markup || s.find("Markup") != std::string::npos;
  EXPECT_TRUE(markup);
  bool rate_default = false;
  for (const auto& f : rep.defaults) rate_default = rate_default || f.field == "m_animFrameRate";
  EXPECT_TRUE(rate_default);
}

TEST(Diff, FindsTheEditedBoneAndKey) {
  const auto d = smooth_clip();
  mab::Clip c = d.clip;
  c.bones[1].keys[20] = mab::quat_mul(turn(1, 0, 0, 5), c.bones[1].keys[20]);
  auto diff = mab::diff_clips(d.clip, c);
  ASSERT_TRUE(diff.ok());
  ASSERT_EQ(diff->bones.size(), 3u);
  EXPECT_EQ(diff->bones[0].max_deg, 0.0);
  EXPECT_NEAR(diff->bones[1].max_deg, 5.0, 1e-4);
  EXPECT_EQ(diff->bones[1].worst_time_s, d.clip.key_seconds(20));
  EXPECT_EQ(diff->bones[1].times, d.clip.key_count());
  EXPECT_NEAR(diff->bones[1].mean_deg, 5.0 / 60, 1e-5);
  EXPECT_NEAR(diff->max_deg, 5.0, 1e-4);
  mab::Clip fewer = d.clip;
  fewer.bones.pop_back();
  diff = mab::diff_clips(d.clip, fewer);
  ASSERT_EQ(diff->only_in_a.size(), 1u);
  EXPECT_EQ(diff->only_in_a[0], mab::bone_hash("Head"));
}

}  // namespace

namespace {

// --max-error: every animated bone, changed or not, at the smallest depth meeting the bound.
TEST(Edit, MaxErrorRequantisesEveryBoneAtTheSmallestDepth) {
  const auto d = smooth_clip();
  mab::EncodeOptions opt;
  opt.requantise_all = true;
  opt.max_error_deg = 0.05;
  mab::EncodeReport rep;
  const auto out = written(d, d.clip, &rep, opt);
  EXPECT_EQ(rep.chunks_reused, 0u);
  EXPECT_EQ(rep.chunks_requantised, 16u);
  EXPECT_LE(rep.max_error_deg, 0.05);
  for (std::size_t i = 0; i < 2; ++i) {
    EXPECT_LT(out.bones[i].bit_depth(), 16u) << "16 bits is more than 0.05 degree needs";
    auto finer = mab::choose_bit_depth(d.clip.bones[i].keys, 0.05);
    ASSERT_TRUE(finer.ok());
    EXPECT_EQ(out.bones[i].bit_depth(), finer->nbits);
    for (std::size_t k = 0; k < 60; ++k)
      EXPECT_LE(mab::angular_error_deg(out.bones[i].keys[k], d.clip.bones[i].keys[k]), 0.05 + measure_deg);
  }
}

TEST(Edit, ReduceOnGltfImport) {
  const auto d = smooth_clip();
  auto g = mab::export_gltf(d.container);
  ASSERT_TRUE(g.ok());
  mab::GltfImportOptions o;
  o.game = mab::Game::watch_dogs_legion;
  o.reduce_deg = 0.01;
  // The five keys left are far apart: even 16 bits keep one bone only within 0.025 degrees,
  // which the default bound (0.01) of the error policy refuses (decision 21).
  o.max_error_deg = 0.05;
  auto imported = mab::import_gltf(*g, nullptr, o);
  ASSERT_TRUE(imported.ok()) << imported.error().message();
  const auto& a = imported->report.animations.at(0);
  EXPECT_EQ(a.keys_before_reduce, 60u);
  EXPECT_EQ(a.keys, 5u);
  EXPECT_LE(a.reduce_error_deg, 0.01);
  auto back = mab::decode_clip(*mab::read_container(imported->bytes));
  EXPECT_EQ(back->clip.key_times, (std::vector<std::uint32_t>{0, 36, 37, 38, 59}));
}

TEST(EditCli, ConvertAndDiffReportWhatTheyDid) {
  const auto dir = mab::test::test_temp_dir("mab_edit_cli_test");
  const auto src = mab::test::corpus_dir() / "wd1" / "long_k100.mab";
  const auto wdl = dir / "wdl.mab";
  std::string err;
  auto r = mab::test::run_mab_split("convert " + src.string() + " --to wdl -o " + wdl.string(), &err);
  ASSERT_EQ(r.status, 0) << err;
  EXPECT_NE(r.out.find("120 -> 30 per second"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("m_skeletonPathId"), std::string::npos) << r.out;
  r = mab::test::run_mab_split("diff " + src.string() + " " + wdl.string(), &err);
  EXPECT_EQ(r.status, 0) << r.out << err;
  EXPECT_NE(r.out.find("3 bones compared: 3 identical"), std::string::npos) << r.out;
  const auto turned = dir / "turned.mab";
  ASSERT_EQ(mab::test::run_mab_split(
                "edit " + src.string() + " -o " + turned.string() + " --rotate-bone Pelvis 1,0,0@5", &err)
                .status,
            0)
      << err;
  r = mab::test::run_mab_split("diff " + src.string() + " " + turned.string() + " --json", &err);
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.out.find("\"hash\": \"0xB021FD58\""), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\"identical\": false"), std::string::npos) << r.out;
  r = mab::test::run_mab_split("convert " + (mab::test::corpus_dir() / "wd1" / "mixed_k17_padded_markup.mab").string() +
                                   " --to fc5 -o " + (dir / "no.mab").string(),
                               &err);
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(err.find("Markup"), std::string::npos) << err;
  EXPECT_FALSE(std::filesystem::exists(dir / "no.mab"));
}

}  // namespace
