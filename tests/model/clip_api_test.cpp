// The editable clip's own API (clip.hpp, quat.hpp), as a program that links mabkit calls it:
// every call a caller can get wrong returns an error naming what, and leaves the clip as it was;
// the calls that succeed keep every per-key track the same length.
#include <mab/clip.hpp>
#include <mab/quat.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace {

mab::Clip two_keys() {
  mab::Clip c;
  c.key_rate = 30;
  c.key_times = {0, 10};
  mab::ClipBone a;
  a.hash = 1;
  a.set_kind(mab::BoneKind::animated);
  a.keys = {{0, 0, 0, 1}, {0, 0, 0.6f, 0.8f}};
  a.translations = {{1, 2, 3}, {4, 5, 6}};
  mab::ClipBone k;
  k.hash = 2;
  k.set_kind(mab::BoneKind::constant);
  mab::ClipBone n;
  n.hash = 3;  // no rotation
  c.bones = {a, k, n};
  c.root_motion.rotations = {{0, 0, 0, 1}, {0, 1, 0, 0}};
  c.root_motion.translations = {{0, 0, 0}, {1, 0, 0}};
  return c;
}

TEST(ClipApi, KeySecondsAndBoneLookup) {
  mab::Clip c = two_keys();
  EXPECT_DOUBLE_EQ(c.key_seconds(1), 10.0 / 30.0);
  EXPECT_TRUE(std::isnan(c.key_seconds(2)));
  c.key_rate = 0;
  EXPECT_TRUE(std::isnan(c.key_seconds(0)));
  c.key_rate = std::nan("");
  EXPECT_TRUE(std::isnan(c.key_seconds(0)));
  EXPECT_EQ(c.find_bone(2), 1);
  EXPECT_EQ(c.find_bone(99), -1);
}

TEST(ClipApi, SetRotation) {
  mab::Clip c = two_keys();
  const mab::Quat q{0.6f, 0, 0, 0.8f};
  EXPECT_TRUE(c.set_rotation(0, 1, q).ok());
  EXPECT_EQ(c.bones[0].keys[1], q);
  EXPECT_TRUE(c.set_rotation(1, 99, q).ok()) << "a constant bone has one rotation, whatever the key";
  EXPECT_EQ(c.bones[1].constant, q);
  const mab::Clip before = c;
  auto expect = [&](mab::Status st, mab::ErrorCode code, const char* field) {
    ASSERT_FALSE(st.ok());
    EXPECT_EQ(st.error().code, code) << st.error().message();
    EXPECT_EQ(st.error().field, field);
  };
  expect(c.set_rotation(3, 0, q), mab::ErrorCode::not_found, "bone");
  expect(c.set_rotation(2, 0, q), mab::ErrorCode::not_found, "key");
  expect(c.set_rotation(0, 2, q), mab::ErrorCode::not_found, "key");
  for (const float bad : {std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::infinity()})
    for (unsigned i = 0; i < 4; ++i) {
      mab::Quat b = q;
      b[i] = bad;
      expect(c.set_rotation(0, 0, b), mab::ErrorCode::bad_value, "rotation");
    }
  EXPECT_EQ(c.bones[0].keys, before.bones[0].keys);
  EXPECT_EQ(c.bones[1].constant, before.bones[1].constant);
}

TEST(ClipApi, InsertAndRemoveKeysKeepEveryTrackInStep) {
  mab::Clip c = two_keys();
  ASSERT_TRUE(c.insert_key(1, 5).ok());
  ASSERT_TRUE(c.insert_key(0, 0).ok() == false);  // 0 is taken
  c.key_times[0] = 1;
  ASSERT_TRUE(c.insert_key(0, 0).ok());
  ASSERT_TRUE(c.insert_key(4, 20).ok());
  EXPECT_EQ(c.key_times, (std::vector<std::uint32_t>{0, 1, 5, 10, 20}));
  EXPECT_TRUE(c.check().ok()) << c.check().error().message();
  // Copies of the neighbour before (the one after for the first).
  EXPECT_EQ(c.bones[0].keys[0], c.bones[0].keys[1]);
  EXPECT_EQ(c.bones[0].keys[2], c.bones[0].keys[1]);
  EXPECT_EQ(c.bones[0].keys[4], c.bones[0].keys[3]);
  EXPECT_EQ(c.bones[0].translations[4], (mab::Vec3{4, 5, 6}));
  EXPECT_EQ(c.root_motion.translations.size(), 5u);
  EXPECT_TRUE(c.bones[1].keys.empty());
  auto st = c.insert_key(9, 30);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().code, mab::ErrorCode::invalid_argument);
  st = c.insert_key(2, 5);  // the time the next key has
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().field, "key_times");
  st = c.insert_key(2, 0);  // before the previous key
  ASSERT_FALSE(st.ok());

  ASSERT_TRUE(c.remove_key(2).ok());
  EXPECT_EQ(c.key_times, (std::vector<std::uint32_t>{0, 1, 10, 20}));
  EXPECT_TRUE(c.check().ok());
  st = c.remove_key(4);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().code, mab::ErrorCode::not_found);
  while (c.key_count() > 1) ASSERT_TRUE(c.remove_key(0).ok());
  st = c.remove_key(0);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().code, mab::ErrorCode::invalid_argument);
  EXPECT_TRUE(c.check().ok());

  // A clip without keys: the first key gives an animated bone without keys an identity key.
  mab::Clip e;
  mab::ClipBone b;
  b.set_kind(mab::BoneKind::animated);
  e.bones.push_back(b);
  EXPECT_FALSE(e.check().ok());
  ASSERT_TRUE(e.insert_key(0, 7).ok());
  ASSERT_EQ(e.bones[0].keys.size(), 1u);
  EXPECT_EQ(e.bones[0].keys[0], mab::Quat{});
  EXPECT_TRUE(e.check().ok());
}

TEST(ClipApi, AddAndRemoveBones) {
  mab::Clip c = two_keys();
  mab::ClipBone b;
  b.hash = 9;
  b.set_kind(mab::BoneKind::animated);
  b.set_bit_depth(40);  // clamped to 16
  EXPECT_EQ(b.bit_depth(), 16u);
  b.set_bit_depth(0);
  EXPECT_EQ(b.bit_depth(), 1u);
  const std::size_t i = c.add_bone(b);
  EXPECT_EQ(c.bones[i].keys.size(), 2u);
  EXPECT_EQ(c.bones[i].keys[1], mab::Quat{});
  b.keys = {{0, 1, 0, 0}};
  const std::size_t j = c.add_bone(b);
  EXPECT_EQ(c.bones[j].keys, (std::vector<mab::Quat>{{0, 1, 0, 0}, {0, 1, 0, 0}}));
  EXPECT_TRUE(c.check().ok());
  ASSERT_TRUE(c.remove_bone(j).ok());
  auto st = c.remove_bone(j);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().code, mab::ErrorCode::not_found);
  EXPECT_EQ(c.bones.size(), j);
}

TEST(ClipApi, CheckNamesWhatDoesNotFit) {
  auto fails = [](const mab::Clip& c, mab::ErrorCode code, const std::string& field) {
    auto st = c.check();
    ASSERT_FALSE(st.ok()) << field;
    EXPECT_EQ(st.error().code, code) << st.error().message();
    EXPECT_EQ(st.error().field, field);
  };
  mab::Clip c = two_keys();
  c.bones[0].keys.pop_back();
  fails(c, mab::ErrorCode::count_mismatch, "bones[0].keys");
  c = two_keys();
  c.bones[0].translations.pop_back();
  fails(c, mab::ErrorCode::count_mismatch, "bones[0].translations");
  c = two_keys();
  c.root_motion.rotations.pop_back();
  fails(c, mab::ErrorCode::count_mismatch, "root_motion.rotations");
  c = two_keys();
  c.root_motion.translations.push_back({});
  fails(c, mab::ErrorCode::count_mismatch, "root_motion.translations");
  c = two_keys();
  c.key_times.clear();
  fails(c, mab::ErrorCode::invalid_argument, "key_times");
  c = two_keys();
  c.bones = {c.bones[1]};
  c.root_motion = {};
  c.key_times.resize(65537);
  fails(c, mab::ErrorCode::limit_exceeded, "key_times");
  c.key_times.resize(65536);
  EXPECT_TRUE(c.check().ok());
}

TEST(QuatOps, ZeroAndNonFiniteInputs) {
  const mab::Quat zero{0, 0, 0, 0};
  const mab::Quat nan{std::nanf(""), 0, 0, 1};
  const mab::Quat inf{std::numeric_limits<float>::infinity(), 0, 0, 1};
  EXPECT_EQ(mab::quat_normalised(zero), mab::Quat{});
  EXPECT_EQ(mab::quat_normalised(nan), mab::Quat{});
  EXPECT_EQ(mab::quat_normalised(inf), mab::Quat{});
  for (const auto& q : {zero, nan, inf}) {
    EXPECT_EQ(mab::angular_error_deg(q, mab::Quat{}), 180.0);
    EXPECT_EQ(mab::angular_error_deg(mab::Quat{}, q), 180.0);
  }
  EXPECT_EQ(mab::angular_error_deg(mab::Quat{}, mab::Quat{0, 0, 0, -1}), 0.0);
  EXPECT_EQ(mab::quat_mul(zero, mab::Quat{}), mab::Quat{});
  // Slerp between opposite hemispheres takes the short way.
  const mab::Quat a{0, 0, 0, 1}, b{0, 0, -0.38268343f, -0.9238795f};
  EXPECT_NEAR(mab::angular_error_deg(mab::quat_slerp(a, b, 0.5), {0, 0, 0.19509032f, 0.98078528f}), 0, 1e-3);
  EXPECT_EQ(mab::quat_slerp(a, a, 0.5), a);
}

}  // namespace
