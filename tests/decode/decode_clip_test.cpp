// decode_clip / encode_clip on the corpus: values match the generator's independent
// decoder, unedited clips re-encode byte for byte, edits touch only their chunk.
#include <mab/decode_clip.hpp>
#include <mab/encode_clip.hpp>
#include <mab/validate.hpp>

#include "support/corpus.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>

namespace {

using mab::test::good_files;
using mab::test::load;

// The generator decodes in float64; we decode in float32 with the engine constants.
// A float32 step is one ulp (FLT_EPSILON for values <= 1); near s = 1 the square root
// amplifies it by 1 / (2 sqrt(1 - s)), and the generator keeps 1 - s >= 1e-3. The
// expected values are printed with 7 decimals (5e-8).
const double k_tol = 16.0 * std::numeric_limits<float>::epsilon() / (2.0 * std::sqrt(1e-3)) + 5e-8;

bool decodable(const mab::Container& c) { return !c.is_opaque() && (c.blocks[0].ani() || c.blocks[0].fc4()); }

void expect_near(const mab::Quat& q, const nlohmann::json& e, const std::string& what) {
  EXPECT_NEAR(q.x, e[0].get<double>(), k_tol) << what;
  EXPECT_NEAR(q.y, e[1].get<double>(), k_tol) << what;
  EXPECT_NEAR(q.z, e[2].get<double>(), k_tol) << what;
  EXPECT_NEAR(q.w, e[3].get<double>(), k_tol) << what;
}

TEST(DecodeClip, MatchesTheGeneratorsDecode) {
  std::size_t checked_keys = 0;
  for (const auto& p : good_files()) {
    auto c = mab::read_container(load(p));
    ASSERT_TRUE(c.ok());
    if (!decodable(*c)) continue;
    SCOPED_TRACE(mab::test::name_of(p));
    const auto exp = mab::test::load_json(mab::test::expected_path(p));
    const std::size_t blocks = c->blocks.size();
    for (std::size_t k = 0; k < blocks; ++k) {
      auto d = mab::decode_clip(*c, k);
      ASSERT_TRUE(d.ok()) << d.error().message();
      const auto& eb = exp["blocks"][k];
      EXPECT_EQ(d->clip.key_times, eb.at("key_times").get<std::vector<std::uint32_t>>());
      for (const auto& [bone, q] : eb.at("constant_rotations").items())
        expect_near(d->clip.bones[std::stoul(bone)].constant, q, "constant bone " + bone);
      for (const auto& [bone, keys] : eb.at("rotations").items()) {
        const auto& got = d->clip.bones[std::stoul(bone)].keys;
        ASSERT_EQ(got.size(), keys.size());
        for (std::size_t i = 0; i < got.size(); ++i, ++checked_keys)
          expect_near(got[i], keys[i], "bone " + bone + " key " + std::to_string(i));
      }
    }
  }
  EXPECT_GT(checked_keys, 1000u);
}

TEST(EncodeClip, UneditedClipReencodesByteForByte) {
  std::size_t files = 0;
  for (const auto& p : good_files()) {
    const auto bytes = load(p);
    auto c = mab::read_container(bytes);
    ASSERT_TRUE(c.ok());
    if (!decodable(*c)) continue;
    SCOPED_TRACE(mab::test::name_of(p));
    for (std::size_t k = 0; k < c->blocks.size(); ++k) {
      auto d = mab::decode_clip(*c, k);
      ASSERT_TRUE(d.ok()) << d.error().message();
      mab::EncodeReport rep;
      auto out = mab::encode_clip(*d, d->clip, {}, &rep);
      ASSERT_TRUE(out.ok()) << out.error().message();
      EXPECT_EQ(*out, bytes);
      EXPECT_EQ(rep.chunks_requantised, 0u);
      EXPECT_EQ(rep.constants_encoded, 0u);
    }
    ++files;
  }
  EXPECT_GE(files, 30u);
}

mab::Quat rotate_x(const mab::Quat& q, double deg) {
  const double h = deg * M_PI / 360.0;
  const double c = std::cos(h), s = std::sin(h);
  // q * (s, 0, 0, c)
  return {static_cast<float>(q.w * s + q.x * c), static_cast<float>(q.y * c + q.z * s),
          static_cast<float>(q.z * c - q.y * s), static_cast<float>(q.w * c - q.x * s)};
}

TEST(EncodeClip, EditingOneKeyRequantisesOnlyItsChunk) {
  std::size_t edited_files = 0;
  for (const auto& p : good_files()) {
    const auto bytes = load(p);
    auto c = mab::read_container(bytes);
    ASSERT_TRUE(c.ok());
    if (!decodable(*c) || c->blocks[0].fc4()) continue;
    auto d = mab::decode_clip(*c, 0);
    ASSERT_TRUE(d.ok());
    int bone = -1;
    for (std::size_t i = 0; i < d->clip.bones.size() && bone < 0; ++i)
      if (d->clip.bones[i].kind() == mab::BoneKind::animated) bone = static_cast<int>(i);
    if (bone < 0) continue;
    SCOPED_TRACE(mab::test::name_of(p));
    auto edited = d->clip;
    const std::size_t key = edited.key_count() / 2;
    const mab::Quat target = rotate_x(edited.bones[static_cast<std::size_t>(bone)].keys[key], 20.0);
    ASSERT_TRUE(edited.set_rotation(static_cast<std::size_t>(bone), key, target).ok());
    mab::EncodeReport rep;
    auto out = mab::encode_clip(*d, edited, {}, &rep);
    ASSERT_TRUE(out.ok()) << out.error().message();
    EXPECT_EQ(rep.chunks_requantised, 1u);
    auto back_c = mab::read_container(*out);
    ASSERT_TRUE(back_c.ok()) << back_c.error().message();
    for (const auto& f : mab::validate(*back_c))
      EXPECT_NE(f.severity, mab::Severity::error) << f.field << ": " << f.message;
    auto back = mab::decode_clip(*back_c, 0);
    ASSERT_TRUE(back.ok()) << back.error().message();
    for (std::size_t i = 0; i < d->clip.bones.size(); ++i) {
      const auto& a = d->clip.bones[i];
      const auto& b = back->clip.bones[i];
      for (std::size_t k = 0; k < a.keys.size(); ++k) {
        if (static_cast<int>(i) == bone && k / 8 == key / 8) continue;
        EXPECT_EQ(a.keys[k], b.keys[k]) << "bone " << i << " key " << k << " changed";
      }
    }
    const double err = mab::angular_error_deg(back->clip.bones[static_cast<std::size_t>(bone)].keys[key], target);
    EXPECT_LE(err, rep.max_error_deg + 1e-9);
    // Outside the JointRotations section, only offsets and sizes may differ.
    EXPECT_TRUE(std::equal(bytes.begin(), bytes.begin() + 16, out->begin()));
    ++edited_files;
  }
  EXPECT_GE(edited_files, 15u);
}

TEST(EncodeClip, AddingAndRemovingKeysAndBonesGivesValidFiles) {
  for (const auto& p : good_files()) {
    auto c = mab::read_container(load(p));
    ASSERT_TRUE(c.ok());
    if (!decodable(*c) || c->blocks[0].fc4()) continue;
    auto d = mab::decode_clip(*c, 0);
    ASSERT_TRUE(d.ok());
    SCOPED_TRACE(mab::test::name_of(p));
    auto edited = d->clip;
    const std::uint32_t last = edited.key_times.back();
    ASSERT_TRUE(edited.insert_key(edited.key_count(), last + 1).ok());
    mab::ClipBone nb;
    nb.hash = mab::bone_hash("NewBone");
    nb.set_kind(mab::BoneKind::animated);
    nb.set_bit_depth(12);
    // Where every bone carries a translation (the accepted rule, docs/motion.md), so must a new one:
    // it gets a copy of the first bone's track (the encoder never invents one).
    if (d->evidence.translations.accepted() && d->motion.translation_bones == mab::TranslationBones::all_bones)
      nb.translations = edited.bones[0].translations;
    edited.add_bone(nb);
    if (edited.key_count() > 2) {
      ASSERT_TRUE(edited.remove_key(0).ok());
    }
    auto out = mab::encode_clip(*d, edited);
    ASSERT_TRUE(out.ok()) << out.error().message();
    auto back_c = mab::read_container(*out);
    ASSERT_TRUE(back_c.ok()) << back_c.error().message();
    for (const auto& f : mab::validate(*back_c))
      EXPECT_NE(f.severity, mab::Severity::error) << f.field << ": " << f.message;
    auto back = mab::decode_clip(*back_c, 0);
    ASSERT_TRUE(back.ok()) << back.error().message();
    EXPECT_EQ(back->clip.key_times, edited.key_times);
    EXPECT_EQ(back->clip.bones.size(), edited.bones.size());
    // Encoding the decoded result again is idempotent.
    auto again = mab::encode_clip(*back, back->clip);
    ASSERT_TRUE(again.ok());
    EXPECT_EQ(*again, *out);
  }
}

}  // namespace

namespace {

std::vector<std::uint8_t> regress_file(const char* name) {
  return load(std::string(MAB_SOURCE_DIR) + "/fuzz/seeds/fuzz_decode_encode/regress/" + name);
}

// Found by fuzz_decode_encode: FC4 and FC5 take the key count from the KeyTimes bytes, and a
// file without them decodes to a clip with no keys, which must still write back as read.
TEST(EncodeClip, ClipWithoutKeysWritesBackUnchanged) {
  const auto bytes = regress_file("fuzz_decode_encode-zero_keys_not_reencodable.mab");
  auto c = mab::read_container(bytes);
  ASSERT_TRUE(c.ok()) << c.error().message();
  auto d = mab::decode_clip(*c, 0);
  ASSERT_TRUE(d.ok()) << d.error().message();
  EXPECT_EQ(d->clip.key_count(), 0u);
  auto out = mab::encode_clip(*d, d->clip);
  ASSERT_TRUE(out.ok()) << out.error().message();
  EXPECT_EQ(*out, bytes);
  // Animating a bone needs keys: refused with the field named, not written.
  mab::Clip edited = d->clip;
  mab::ClipBone b;
  b.hash = mab::bone_hash("Animated");
  b.set_kind(mab::BoneKind::animated);
  b.set_bit_depth(12);
  edited.add_bone(b);
  auto refused = mab::encode_clip(*d, edited);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().field, "key_times");
}

// Found by fuzz_decode_encode: FC5 blocks are found by scanning for plausible 'aNi' headers
// (format 4.3), and growing a later block can make a stray 'aNi' plausible. Every edit of this
// file either writes a file that reads back with the same blocks, or is refused with
// ambiguous_layout; the refusal must actually happen for some edit here.
TEST(EncodeClip, EditThatWouldMoveFc5BlocksIsRefused) {
  const auto bytes = regress_file("fuzz_decode_encode-fc5_edit_changes_block_split.mab");
  auto c = mab::read_container(bytes);
  ASSERT_TRUE(c.ok()) << c.error().message();
  ASSERT_GT(c->blocks.size(), 2u);
  std::size_t refused = 0, written = 0;
  for (std::size_t blk = 0; blk < c->blocks.size(); ++blk) {
    auto d = mab::decode_clip(*c, blk);
    if (!d) continue;
    for (std::size_t i = 0; i < d->clip.bones.size(); ++i) {
      const mab::ClipBone& b = d->clip.bones[i];
      if (b.kind() != mab::BoneKind::animated) continue;
      for (std::size_t k = 0; k < b.keys.size(); ++k) {
        mab::Clip edited = d->clip;
        edited.bones[i].keys[k] = mab::Quat{0.6f, -0.48f, 0.0f, 0.64f};
        mab::EncodeOptions opt;
        opt.choose_depth = true;
        opt.max_error_deg = 0.001;
        auto out = mab::encode_clip(*d, edited, opt);
        if (!out) {
          EXPECT_EQ(out.error().code, mab::ErrorCode::ambiguous_layout) << out.error().message();
          ++refused;
          continue;
        }
        ++written;
        auto back = mab::read_container(*out);
        ASSERT_TRUE(back.ok()) << back.error().message();
        ASSERT_EQ(back->blocks.size(), c->blocks.size());
        auto d2 = mab::decode_clip(*back, blk);
        ASSERT_TRUE(d2.ok()) << d2.error().message();
        EXPECT_EQ(d2->clip.key_times, edited.key_times);
      }
    }
  }
  EXPECT_GT(refused, 0u);
  std::printf("fc5 edits: %zu written, %zu refused\n", written, refused);
}

}  // namespace

namespace {

// Found by fuzz_decode_encode: JointConstantRotations and JointRotations at the same offset
// (legal, kept as read: format 8.3, decision 8). Re-quantising a rotation would rewrite the constants
// too; the edit is refused and names the shared offset, and the unedited clip still writes
// back byte for byte.
TEST(EncodeClip, EditOfSectionsSharingBytesIsRefused) {
  const auto bytes = regress_file("fuzz_decode_encode-shared_section_rewritten.mab");
  auto c = mab::read_container(bytes);
  ASSERT_TRUE(c.ok()) << c.error().message();
  auto d = mab::decode_clip(*c, 0);
  ASSERT_TRUE(d.ok()) << d.error().message();
  auto same = mab::encode_clip(*d, d->clip);
  ASSERT_TRUE(same.ok()) << same.error().message();
  EXPECT_EQ(*same, bytes);
  mab::Clip edited = d->clip;
  std::size_t bone = edited.bones.size();
  for (std::size_t i = 0; i < edited.bones.size() && bone == edited.bones.size(); ++i)
    if (edited.bones[i].kind() == mab::BoneKind::animated) bone = i;
  ASSERT_LT(bone, edited.bones.size());
  edited.bones[bone].keys[0] = mab::Quat{0.6f, -0.48f, 0.0f, 0.64f};
  auto out = mab::encode_clip(*d, edited);
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.error().code, mab::ErrorCode::overlap);
  EXPECT_NE(out.error().message().find("m_offsets[4]"), std::string::npos) << out.error().message();

  // A constant edit too, even though the rotation stream written after it would restore the
  // shared bytes and the output would then silently lose the edit.
  mab::Clip const_edit = d->clip;
  std::size_t cb = const_edit.bones.size();
  for (std::size_t i = 0; i < const_edit.bones.size() && cb == const_edit.bones.size(); ++i)
    if (const_edit.bones[i].kind() == mab::BoneKind::constant) cb = i;
  ASSERT_LT(cb, const_edit.bones.size());
  const_edit.bones[cb].constant = mab::Quat{0.6f, -0.48f, 0.0f, 0.64f};
  auto out2 = mab::encode_clip(*d, const_edit);
  ASSERT_FALSE(out2.ok());
  EXPECT_EQ(out2.error().code, mab::ErrorCode::overlap);
}

}  // namespace

namespace {

// DecodeOptions::keys = false (what `mab info` asks for): everything but the animated keys is
// what a full decode gives, the exact codes, key times, motion and evidence included.
TEST(DecodeClip, WithoutKeysEverythingElseIsTheFullDecode) {
  std::size_t blocks = 0, keys_skipped = 0;
  for (const auto& p : good_files()) {
    auto c = mab::read_container(load(p));
    ASSERT_TRUE(c.ok()) << p;
    for (std::size_t b = 0; b < c->blocks.size(); ++b) {
      auto full = mab::decode_clip(*c, b);
      mab::DecodeOptions lean_options;
      lean_options.keys = false;
      auto lean = mab::decode_clip(*c, b, lean_options);
      ASSERT_EQ(full.ok(), lean.ok()) << p << " block " << b;
      if (!full) {
        EXPECT_EQ(full.error().message(), lean.error().message()) << p;
        continue;
      }
      ++blocks;
      const auto& f = full->clip;
      const auto& l = lean->clip;
      EXPECT_EQ(f.key_times, l.key_times) << p;
      EXPECT_EQ(f.key_rate, l.key_rate) << p;
      ASSERT_EQ(f.bones.size(), l.bones.size()) << p;
      for (std::size_t i = 0; i < f.bones.size(); ++i) {
        EXPECT_EQ(f.bones[i].hash, l.bones[i].hash);
        EXPECT_EQ(f.bones[i].flags, l.bones[i].flags);
        EXPECT_EQ(f.bones[i].translations, l.bones[i].translations) << p << " bone " << i;
        EXPECT_EQ(f.bones[i].constant_translation, l.bones[i].constant_translation);
        if (f.bones[i].kind() == mab::BoneKind::constant) {
          EXPECT_EQ(std::memcmp(&f.bones[i].constant, &l.bones[i].constant, sizeof(mab::Quat)), 0);
        }
        if (f.bones[i].kind() == mab::BoneKind::animated && !f.bones[i].keys.empty()) {
          EXPECT_TRUE(l.bones[i].keys.empty()) << p << " bone " << i;
          ++keys_skipped;
        }
      }
      EXPECT_EQ(full->constant_codes, lean->constant_codes) << p;
      EXPECT_EQ(full->rotations.chunk_table, lean->rotations.chunk_table) << p;
      EXPECT_EQ(full->rotations.chunks.size(), lean->rotations.chunks.size()) << p;
      EXPECT_EQ(full->evidence.translations.text(), lean->evidence.translations.text()) << p;
      EXPECT_EQ(full->evidence.root_rotations.text(), lean->evidence.root_rotations.text()) << p;
      EXPECT_EQ(full->evidence.parts.text(), lean->evidence.parts.text()) << p;
      EXPECT_EQ(f.root_motion.translations, l.root_motion.translations) << p;
      EXPECT_EQ(f.parts.size(), l.parts.size()) << p;
    }
  }
  EXPECT_GT(blocks, 50u);
  EXPECT_GT(keys_skipped, 100u);
}

}  // namespace
