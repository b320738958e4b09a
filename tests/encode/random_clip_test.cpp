// Random clips (fixed seeds) through the whole file codec: encode, decode, compare
// within the quantisation bound; encoding the decoded clip again is byte-identical.
#include <mab/decode_clip.hpp>
#include <mab/encode_clip.hpp>
#include <mab/validate.hpp>

#include "support/corpus.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

namespace {

mab::Quat random_unit(std::mt19937& rng) {
  std::normal_distribution<float> n(0.0f, 1.0f);
  mab::Quat q{n(rng), n(rng), n(rng), n(rng)};
  const float len = std::sqrt(q.x * q.x + q.y * q.y + q.z * q.z + q.w * q.w);
  return {q.x / len, q.y / len, q.z / len, q.w / len};
}

// A track that wanders smoothly, as animation does, so chunk ranges are small.
std::vector<mab::Quat> random_track(std::mt19937& rng, std::size_t keys) {
  std::vector<mab::Quat> out;
  mab::Quat q = random_unit(rng);
  std::normal_distribution<float> step(0.0f, 0.05f);
  for (std::size_t i = 0; i < keys; ++i) {
    q = {q.x + step(rng), q.y + step(rng), q.z + step(rng), q.w + step(rng)};
    const float len = std::sqrt(q.x * q.x + q.y * q.y + q.z * q.z + q.w * q.w);
    q = {q.x / len, q.y / len, q.z / len, q.w / len};
    out.push_back(q);
  }
  return out;
}

// Bound from the bit count: a raw value is off by at most half a slope step, and the
// slope spans at most 2 (format 9.2: m/127.5 with m <= 255) over 2^n - 1 steps, so each
// stored component is within 1/(2^n - 1). Three such components and the derived one
// move the quaternion by at most 2 * sqrt(3) times that; the angle is twice the
// chord. Valid while the small-angle approximation holds (n >= 6 here).
double bound_deg(unsigned nbits) {
  const double comp = 1.0 / ((1u << nbits) - 1.0);
  return 2.0 * 2.0 * std::sqrt(3.0) * comp * 180.0 / M_PI;
}

TEST(RandomClip, EncodeDecodeWithinBoundAndIdempotent) {
  std::mt19937 rng(20261202);
  std::size_t files = 0, keys_checked = 0;
  for (const auto& p : mab::test::good_files()) {
    auto c = mab::read_container(mab::test::load(p));
    ASSERT_TRUE(c.ok());
    if (c->is_opaque() || !c->blocks[0].ani()) continue;
    auto d = mab::decode_clip(*c, 0);
    ASSERT_TRUE(d.ok()) << d.error().message();
    SCOPED_TRACE(mab::test::name_of(p));
    auto clip = d->clip;
    for (auto& b : clip.bones) {
      if (b.kind() == mab::BoneKind::constant) b.constant = random_unit(rng);
      if (b.kind() == mab::BoneKind::animated) b.keys = random_track(rng, clip.key_count());
    }
    mab::EncodeReport rep;
    auto out = mab::encode_clip(*d, clip, {}, &rep);
    ASSERT_TRUE(out.ok()) << out.error().message();
    auto back_c = mab::read_container(*out);
    ASSERT_TRUE(back_c.ok()) << back_c.error().message();
    for (const auto& f : mab::validate(*back_c))
      EXPECT_NE(f.severity, mab::Severity::error) << f.field << ": " << f.message;
    auto back = mab::decode_clip(*back_c, 0);
    ASSERT_TRUE(back.ok()) << back.error().message();
    for (std::size_t i = 0; i < clip.bones.size(); ++i) {
      const auto& want = clip.bones[i];
      const auto& got = back->clip.bones[i];
      if (want.kind() == mab::BoneKind::constant) {
        // 15-bit components in a 2/sqrt(2) range: step sqrt(2)/32767 (format 9.1).
        const double comp = std::sqrt(2.0) / 32767.0 / 2.0;
        EXPECT_LE(mab::angular_error_deg(want.constant, got.constant),
                  2.0 * 2.0 * std::sqrt(3.0) * comp * 180.0 / M_PI);
      }
      if (want.kind() != mab::BoneKind::animated) continue;
      for (std::size_t k = 0; k < want.keys.size(); ++k, ++keys_checked) {
        const double err = mab::angular_error_deg(want.keys[k], got.keys[k]);
        EXPECT_LE(err, rep.bone_error_deg[i] + 1e-9) << "bone " << i << " key " << k;
        if (want.bit_depth() >= 6) {
          EXPECT_LE(err, bound_deg(want.bit_depth())) << "n=" << want.bit_depth();
        }
      }
    }
    auto again = mab::encode_clip(*back, back->clip);
    ASSERT_TRUE(again.ok());
    EXPECT_EQ(*again, *out) << "re-encoding the decoded clip changed the bytes";
    ++files;
  }
  EXPECT_GE(files, 20u);
  EXPECT_GT(keys_checked, 1000u);
}

TEST(RandomClip, DurationFollowsTheLastKeyWhereItDidInTheInput) {
  for (const auto& p : mab::test::good_files()) {
    auto c = mab::read_container(mab::test::load(p));
    ASSERT_TRUE(c.ok());
    if (c->is_opaque() || !c->blocks[0].ani()) continue;
    auto d = mab::decode_clip(*c, 0);
    ASSERT_TRUE(d.ok());
    const auto& clip = d->clip;
    const float last = static_cast<float>(clip.key_times.back() / clip.key_rate);
    if (last != clip.duration || clip.key_count() < 2) continue;
    SCOPED_TRACE(mab::test::name_of(p));
    auto edited = clip;
    ASSERT_TRUE(edited.remove_key(edited.key_count() - 1).ok());
    auto out = mab::encode_clip(*d, edited);
    ASSERT_TRUE(out.ok());
    auto back = mab::decode_clip(*mab::read_container(*out), 0);
    ASSERT_TRUE(back.ok());
    EXPECT_EQ(back->clip.duration, static_cast<float>(edited.key_times.back() / edited.key_rate));
    return;
  }
  FAIL() << "no corpus clip whose duration is its last key time";
}

}  // namespace
