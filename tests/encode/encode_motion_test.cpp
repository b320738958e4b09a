// encode_clip with translations, root motion and part entries (docs/motion.md): edits come back
// within the reported error and change only what holds them; what was not decoded cannot be
// written; nested-block links follow blocks an edit moves.
#include <mab/convert.hpp>
#include <mab/decode_clip.hpp>
#include <mab/edit.hpp>
#include <mab/edit_policy.hpp>
#include <mab/encode_clip.hpp>
#include <mab/validate.hpp>

#include "decode/decode_motion.hpp"
#include "io/bytes.hpp"
#include "support/corpus.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <functional>

namespace {

using mab::test::load;

std::filesystem::path corpus(const char* rel) { return mab::test::corpus_dir() / rel; }

mab::DecodedClip decoded(const char* rel, std::size_t block = 0) {
  auto c = mab::read_container(load(corpus(rel)));
  EXPECT_TRUE(c.ok()) << rel;
  auto d = mab::decode_clip(*c, block);
  EXPECT_TRUE(d.ok()) << (d ? "" : d.error().message());
  return std::move(d).value();
}

mab::DecodedClip reread(const std::vector<std::uint8_t>& bytes, std::size_t block = 0) {
  auto c = mab::read_container(bytes);
  EXPECT_TRUE(c.ok()) << (c ? "" : c.error().message());
  for (const auto& f : mab::validate(*c)) EXPECT_NE(f.severity, mab::Severity::error) << f.field << ": " << f.message;
  auto d = mab::decode_clip(*c, block);
  EXPECT_TRUE(d.ok()) << (d ? "" : d.error().message());
  return std::move(d).value();
}

bool same(const mab::Vec3& a, const mab::Vec3& b) { return std::memcmp(a.data(), b.data(), sizeof a) == 0; }

std::size_t first_translated(const mab::Clip& c) {
  for (std::size_t i = 0; i < c.bones.size(); ++i)
    if (!c.bones[i].translations.empty()) return i;
  return c.bones.size();
}

// One key moved by 0.25 units inside the bone's scale: one chunk re-quantised, the key within
// the reported error, everything else bit for bit; re-encoding the result is a fixed point.
TEST(EncodeMotion, EditedTranslationKeyRequantisesOnlyItsChunk) {
  for (const char* rel : {"wd1/translations_flag40.mab", "wdl/translations_flag80_constants40.mab",
                          "wd2/translations_all_bones_root_motion.mab"}) {
    SCOPED_TRACE(rel);
    const auto d = decoded(rel);
    ASSERT_TRUE(d.evidence.translations.accepted());
    const std::size_t bone = first_translated(d.clip);
    ASSERT_LT(bone, d.clip.bones.size());
    mab::Clip edited = d.clip;
    const std::size_t key = edited.key_count() - 1;  // last chunk
    auto& v = edited.bones[bone].translations[key];
    const float scale = d.motion.translation_table[0].scale();
    v[0] = v[0] > 0 ? v[0] - 0.25f * scale : v[0] + 0.25f * scale;  // stays inside [-scale, scale]
    const mab::Vec3 asked = v;
    mab::EncodeReport rep;
    auto out = mab::encode_clip(d, edited, {}, &rep);
    ASSERT_TRUE(out.ok()) << out.error().message();
    EXPECT_EQ(rep.translation_chunks_requantised, 1u);
    EXPECT_EQ(rep.translation_scales_widened, 0u);
    EXPECT_EQ(rep.chunks_requantised, 0u);
    // n bits over a range of at most 2 + 2/127.5, in units of the scale.
    const double bound = scale * (2.0 + 2.0 / 127.5) / ((1u << d.motion.translation_table[0].bit_depth()) - 1) / 2;
    EXPECT_LE(rep.max_translation_error, bound + 1e-6 * scale);
    const auto back = reread(*out);
    EXPECT_EQ(back.evidence.translations.level, d.evidence.translations.level);
    for (std::size_t i = 0; i < back.clip.bones.size(); ++i) {
      EXPECT_EQ(back.clip.bones[i].keys, d.clip.bones[i].keys);
      ASSERT_EQ(back.clip.bones[i].translations.size(), d.clip.bones[i].translations.size());
      for (std::size_t k = 0; k < back.clip.bones[i].translations.size(); ++k) {
        if (i == bone && k / 8 == key / 8) continue;
        EXPECT_TRUE(same(back.clip.bones[i].translations[k], d.clip.bones[i].translations[k])) << i << " " << k;
      }
    }
    for (unsigned j = 0; j < 3; ++j)
      EXPECT_LE(std::fabs(double{back.clip.bones[bone].translations[key][j]} - double{asked[j]}),
                rep.max_translation_error);
    auto again = mab::encode_clip(back, back.clip);
    ASSERT_TRUE(again.ok());
    EXPECT_EQ(*again, *out);
  }
}

// A value beyond the bone's scale widens its TranslationTable entry; the whole bone is then
// re-quantised and comes back within the reported error.
TEST(EncodeMotion, ValueBeyondTheScaleWidensTheEntry) {
  const auto d = decoded("fc5/root_translation_block.mab", 1);
  ASSERT_EQ(d.evidence.translations.level, mab::EvidenceLevel::decoded);
  mab::Clip edited = d.clip;
  const float scale = d.motion.translation_table[0].scale();
  edited.bones[0].translations[3] = {3.0f * scale, -0.5f * scale, 0.0f};
  mab::EncodeReport rep;
  auto out = mab::encode_clip(d, edited, {}, &rep);
  ASSERT_TRUE(out.ok()) << out.error().message();
  EXPECT_EQ(rep.translation_scales_widened, 1u);
  EXPECT_EQ(rep.translation_chunks_requantised, mab::chunk_count(static_cast<std::uint32_t>(edited.key_count())));
  const auto back = reread(*out, 1);
  EXPECT_EQ(back.evidence.translations.level, mab::EvidenceLevel::decoded);
  EXPECT_GE(back.motion.translation_table[0].scale(), 3.0f * scale);
  for (std::size_t k = 0; k < edited.key_count(); ++k)
    for (unsigned j = 0; j < 3; ++j)
      EXPECT_LE(std::fabs(double{back.clip.bones[0].translations[k][j]} - double{edited.bones[0].translations[k][j]}),
                rep.max_translation_error);
  // The other block is untouched.
  const auto main_before = decoded("fc5/root_translation_block.mab", 0);
  const auto main_after = reread(*out, 0);
  EXPECT_EQ(main_after.clip.bones.size(), main_before.clip.bones.size());
  for (std::size_t i = 0; i < main_before.clip.bones.size(); ++i)
    EXPECT_EQ(main_after.clip.bones[i].keys, main_before.clip.bones[i].keys);
  // Beyond the largest scale (2^24 - 1 steps, about 5000 units, format 10.1) no entry holds the
  // value: refused, naming the bone (regress/fuzz_decode_encode-translation_beyond_largest_scale.mab).
  edited.bones[0].translations[3] = {0.0f, -5001.0f, 0.0f};
  auto beyond = mab::encode_clip(d, edited);
  ASSERT_FALSE(beyond.ok());
  EXPECT_EQ(beyond.error().code, mab::ErrorCode::bad_value);
  EXPECT_EQ(beyond.error().field, "bones[0].translations");
}

// Float sections are written back bit for bit; 6-byte root rotations within the code's bound.
TEST(EncodeMotion, ConstantTranslationsAndRootMotionEdits) {
  for (const char* rel : {"wdl/translations_flag80_constants40.mab", "wd1/root_motion_f32x4_constants80.mab",
                          "wd2/translations_all_bones_root_motion.mab"}) {
    SCOPED_TRACE(rel);
    const auto d = decoded(rel);
    mab::Clip edited = d.clip;
    for (auto& b : edited.bones)
      if (b.constant_translation) (*b.constant_translation)[1] += 0.5f;
    auto& rm = edited.root_motion;
    if (!rm.translations.empty()) rm.translations[2] = {1.0f, 2.0f, -3.5f};
    const mab::Quat turned{0.0f, 0.38268343f, 0.0f, 0.9238795f};
    if (!rm.rotations.empty()) rm.rotations[1] = turned;
    mab::EncodeReport rep;
    auto out = mab::encode_clip(d, edited, {}, &rep);
    ASSERT_TRUE(out.ok()) << out.error().message();
    EXPECT_FALSE(rep.motion_sections_rewritten.empty());
    const auto back = reread(*out);
    for (std::size_t i = 0; i < edited.bones.size(); ++i) {
      EXPECT_EQ(back.clip.bones[i].constant_translation.has_value(), edited.bones[i].constant_translation.has_value());
      if (edited.bones[i].constant_translation) {
        EXPECT_TRUE(same(*back.clip.bones[i].constant_translation, *edited.bones[i].constant_translation));
      }
    }
    ASSERT_EQ(back.clip.root_motion.translations.size(), rm.translations.size());
    for (std::size_t k = 0; k < rm.translations.size(); ++k)
      EXPECT_TRUE(same(back.clip.root_motion.translations[k], rm.translations[k]));
    ASSERT_EQ(back.clip.root_motion.rotations.size(), rm.rotations.size());
    for (std::size_t k = 0; k < rm.rotations.size(); ++k) {
      const double err = mab::angular_error_deg(back.clip.root_motion.rotations[k], rm.rotations[k]);
      if (k == 1) {
        EXPECT_LE(err, 0.0086 + 1e-6);  // docs/library.md "Error bounds": 6-byte quaternion
      } else {
        EXPECT_EQ(back.clip.root_motion.rotations[k], rm.rotations[k]);
      }
    }
    auto again = mab::encode_clip(back, back.clip);
    ASSERT_TRUE(again.ok());
    EXPECT_EQ(*again, *out);
  }
}

// Timing edits carry translations and root motion with the keys (Clip::insert_key/remove_key).
TEST(EncodeMotion, KeyInsertAndRemoveCarryTranslations) {
  const auto d = decoded("wd2/translations_all_bones_root_motion.mab");
  mab::Clip edited = d.clip;
  ASSERT_TRUE(edited.insert_key(edited.key_count(), edited.key_times.back() + 1).ok());
  ASSERT_TRUE(edited.remove_key(0).ok());
  ASSERT_TRUE(edited.check().ok()) << edited.check().error().message();
  mab::EncodeReport rep;
  auto out = mab::encode_clip(d, edited, {}, &rep);
  ASSERT_TRUE(out.ok()) << out.error().message();
  const auto back = reread(*out);
  EXPECT_EQ(back.evidence.translations.level, mab::EvidenceLevel::hypothesis);
  EXPECT_EQ(back.evidence.root_rotations.level, mab::EvidenceLevel::hypothesis);
  EXPECT_EQ(back.clip.root_motion.translations, edited.root_motion.translations);
  for (std::size_t i = 0; i < edited.bones.size(); ++i)
    for (std::size_t k = 0; k < edited.key_count(); ++k)
      for (unsigned j = 0; j < 3; ++j)
        EXPECT_LE(std::fabs(double{back.clip.bones[i].translations[k][j]} - double{edited.bones[i].translations[k][j]}),
                  rep.max_translation_error);
}

// Decision 21 for translations: a key time added early regroups every later 8-key chunk, so
// every translated bone is re-quantised, edited or not. At its own depth (4 bits for bone 0
// of this clip) that moved untouched translations by about 0.38 units; the edit policy raises
// the depth until the bound holds, or to 16 bits for a track spanning hundreds of units, and
// refuses what 16 bits miss, the default bound as a given one.
TEST(EncodeMotion, RegroupedTranslationsStayWithinTheBoundOrTheFinestDepth) {
  const auto d = decoded("wd1/translations_flag40.mab");
  mab::Clip edited = d.clip;
  ASSERT_GE(edited.key_count(), 2u);
  ASSERT_GT(edited.key_times[1], edited.key_times[0] + 1);
  ASSERT_TRUE(edited.insert_key(1, edited.key_times[0] + 1).ok());
  auto worst_untouched = [&](const mab::Clip& back) {
    double worst = 0;
    for (std::size_t i = 0; i < d.clip.bones.size(); ++i)
      for (std::size_t k = 0; k < d.clip.bones[i].translations.size(); ++k)
        for (unsigned j = 0; j < 3; ++j) {
          const std::size_t kb = k == 0 ? 0 : k + 1;  // the inserted key is index 1
          worst = std::max(
              worst, std::fabs(double{back.bones[i].translations[kb][j]} - double{d.clip.bones[i].translations[k][j]}));
        }
    return worst;
  };
  // Depths kept (no policy): the regrouped chunks at 4 bits.
  mab::EncodeReport kept;
  auto plain = mab::encode_clip(d, edited, {}, &kept);
  ASSERT_TRUE(plain.ok()) << plain.error().message();
  const double kept_error = worst_untouched(reread(*plain).clip);
  EXPECT_GT(kept_error, 0.1);
  EXPECT_EQ(kept.translation_depths_raised, 0u);

  // The policy with a bound 16 bits meet: finer depths, the untouched values within what the
  // report says.
  mab::EncodeReport rep;
  auto out = mab::encode_clip(d, edited, mab::edit_policy(mab::default_max_error_deg, 0.0045), &rep);
  ASSERT_TRUE(out.ok()) << out.error().message();
  const double error = worst_untouched(reread(*out).clip);
  EXPECT_GT(rep.translation_depths_raised, 0u);
  EXPECT_LE(error, rep.max_translation_error + 1e-6);
  EXPECT_LT(error, kept_error / 50);
  // 16 bits on bone 0's 440-unit span miss the default 0.001 units: refused, nothing written.
  ASSERT_GT(rep.max_translation_error, mab::default_max_translation_error);
  auto refused = mab::encode_clip(d, edited, mab::edit_policy());
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().field, "max_translation_error");
  EXPECT_NE(refused.error().message().find("above max_translation_error "), std::string::npos);
  EXPECT_TRUE(
      mab::encode_clip(d, edited, mab::edit_policy(mab::default_max_error_deg, rep.max_translation_error * 1.01)).ok());
}

// A key time added after the last (the add-on's new-key export on this clip) puts two keys in the
// last chunk of bone 0x1630ABF4 (6 bits, scale 453 units). Its components were stored as 16-bit
// constants whenever those came within half a constant step (scale / 65535 = 0.0069 units),
// though a varying form was closer: 0.003128 units off, and no depth lowered it (a constant has
// no interpolant bits), so the depth search kept 6 bits. A depth the format holds meets the bound.
TEST(EncodeMotion, ANewKeyTimeOnAWideTrackMeetsTheTranslationBound) {
  const auto d = decoded("wdl/translations_flag80_constants40.mab");
  mab::Clip edited = d.clip;
  const std::size_t keys = edited.key_count();
  ASSERT_TRUE(edited.insert_key(keys, edited.key_times[keys - 1] + 1).ok());
  mab::EncodeOptions strict = mab::edit_policy();
  strict.refuse_above_max_translation_error = true;
  mab::EncodeReport rep;
  auto out = mab::encode_clip(d, edited, strict, &rep);
  ASSERT_TRUE(out.ok()) << out.error().message();
  EXPECT_LE(rep.max_translation_error, mab::default_max_translation_error);
  const auto back = reread(*out);
  double worst = 0;
  for (std::size_t i = 0; i < edited.bones.size(); ++i) {
    ASSERT_EQ(back.clip.bones[i].translations.size(), edited.bones[i].translations.size());
    for (std::size_t k = 0; k < edited.bones[i].translations.size(); ++k)
      for (unsigned j = 0; j < 3; ++j)
        worst = std::max(worst, std::fabs(double{back.clip.bones[i].translations[k][j]} -
                                          double{edited.bones[i].translations[k][j]}));
  }
  EXPECT_LE(worst, rep.max_translation_error + 1e-9);
  EXPECT_LE(worst, mab::default_max_translation_error);
}

// Nothing is written in a layout the decoder did not prove on this block.
TEST(EncodeMotion, DataForSectionsNotDecodedIsRefused) {
  {
    const auto d = decoded("wd1/mixed_k16_nonascending.mab");  // no translation sections
    mab::Clip edited = d.clip;
    edited.bones[0].translations.assign(edited.key_count(), mab::Vec3{1, 2, 3});
    auto out = mab::encode_clip(d, edited);
    ASSERT_FALSE(out.ok());
    EXPECT_EQ(out.error().code, mab::ErrorCode::invalid_argument);
    EXPECT_EQ(out.error().field, "bones[0].translations");
    EXPECT_NE(out.error().message().find("absent"), std::string::npos) << out.error().message();
  }
  {
    const auto d = decoded("wd1/translations_inconsistent.mab");
    ASSERT_EQ(d.evidence.translations.level, mab::EvidenceLevel::opaque);
    mab::Clip edited = d.clip;
    edited.bones[0].translations.assign(edited.key_count(), mab::Vec3{1, 2, 3});
    auto out = mab::encode_clip(d, edited);
    ASSERT_FALSE(out.ok());
    EXPECT_NE(out.error().message().find("opaque"), std::string::npos) << out.error().message();
    edited = d.clip;
    edited.root_motion.translations.assign(edited.key_count(), mab::Vec3{});
    EXPECT_FALSE(mab::encode_clip(d, edited).ok());
  }
  {
    // A bone the accepted rule (flag 0x40) gives a translation must have one, and no other may.
    const auto d = decoded("wd1/translations_flag40.mab");
    mab::Clip edited = d.clip;
    const std::size_t bone = first_translated(edited);
    edited.bones[bone].translations.clear();
    auto out = mab::encode_clip(d, edited);
    ASSERT_FALSE(out.ok());
    EXPECT_EQ(out.error().field, "bones[" + std::to_string(bone) + "].translations");
    // Clearing the flag too is a consistent edit: the bone loses its translation.
    edited.bones[bone].flags = static_cast<std::uint8_t>(edited.bones[bone].flags & ~0x40);
    auto ok = mab::encode_clip(d, edited);
    ASSERT_TRUE(ok.ok()) << ok.error().message();
    const auto back = reread(*ok);
    EXPECT_TRUE(back.clip.bones[bone].translations.empty());
    EXPECT_EQ(back.evidence.translations.level, mab::EvidenceLevel::hypothesis);
    EXPECT_EQ(back.container.blocks[0].ani()->data_counts[5], d.container.blocks[0].ani()->data_counts[5] - 1);
  }
}

// An edit of block 0 that moves the blocks after it: its first animated bone at 16 bits with a
// new first key.
mab::Result<std::vector<std::uint8_t>> grow_block0(const mab::Container& c) {
  auto prop = mab::decode_clip(c, 0);
  if (!prop) return prop.error();
  mab::Clip grown = prop->clip;
  std::size_t bone = 0;
  while (grown.bones[bone].kind() != mab::BoneKind::animated) ++bone;
  grown.bones[bone].set_bit_depth(16);
  grown.bones[bone].keys[0] = mab::Quat{0.6f, -0.48f, 0.0f, 0.64f};
  return mab::encode_clip(*prop, grown);
}

// Part entries: times written back bit for bit; when an edit of another block moves the blocks,
// the nested offsets are rewritten so each entry still names its block.
TEST(EncodeMotion, PartEditsAndNestedLinksFollowMovedBlocks) {
  const auto main = decoded("fc5/parts_nested.mab", 1);
  ASSERT_EQ(main.evidence.parts.level, mab::EvidenceLevel::hypothesis);
  ASSERT_EQ(main.clip.parts.size(), 3u);
  EXPECT_EQ(main.clip.parts[0].nested_block, 0);
  EXPECT_EQ(main.clip.parts[1].nested_block, 2);
  {
    mab::Clip edited = main.clip;
    edited.parts[2].end = edited.parts[2].start;
    edited.parts[0].type = 6;
    auto out = mab::encode_clip(main, edited);
    ASSERT_TRUE(out.ok()) << out.error().message();
    const auto back = reread(*out, 1);
    EXPECT_EQ(back.clip.parts, edited.parts);
    edited.parts.pop_back();
    EXPECT_FALSE(mab::encode_clip(main, edited).ok());
  }
  // Block 0 (before the main block) grows.
  auto out = grow_block0(*mab::read_container(load(corpus("fc5/parts_nested.mab"))));
  ASSERT_TRUE(out.ok()) << out.error().message();
  auto before = mab::read_container(load(corpus("fc5/parts_nested.mab")));
  auto after = mab::read_container(*out);
  ASSERT_TRUE(after.ok());
  ASSERT_EQ(after->blocks.size(), 3u);
  ASSERT_NE(after->blocks[1].original_base, before->blocks[1].original_base);  // the main block moved
  const auto back = reread(*out, 1);
  ASSERT_EQ(back.evidence.parts.level, mab::EvidenceLevel::hypothesis) << back.evidence.parts.text();
  EXPECT_EQ(back.clip.parts, main.clip.parts);
}

// A part array that stayed opaque is kept byte for byte when an edit moves the blocks (decision 8):
// without a proven base its offsets are not links to follow. Whether a nested offset lands on
// a block depends on where the blocks are, so the moved file may read parts by chance (found by
// fuzz_decode_encode, regress/fuzz_decode_encode-opaque_parts_read_after_move.mab); those are
// not data of the input's reading and are refused against it (docs/motion.md).
TEST(EncodeMotion, OpaquePartArrayIsKeptWhenBlocksMove) {
  auto c = mab::read_container(load(corpus("fc5/parts_nested.mab")));
  ASSERT_TRUE(c.ok());
  const auto main = decoded("fc5/parts_nested.mab", 1);
  ASSERT_EQ(main.clip.parts[0].nested_block, 0);
  auto moved = grow_block0(*c);
  ASSERT_TRUE(moved.ok()) << moved.error().message();
  const auto shift = static_cast<std::int64_t>(mab::read_container(*moved)->blocks[1].original_base) -
                     static_cast<std::int64_t>(c->blocks[1].original_base);
  ASSERT_GT(shift, 0);

  // Entry 0's offset made to land `shift` bytes before block 0: on no block, so no reading fits.
  mab::Block& b = c->blocks[1];
  const auto slot = static_cast<std::size_t>(mab::container::motion_layout(b).parts);
  std::vector<std::uint8_t>& array = *b.section_mut(slot);
  const std::size_t at = mab::container::part_header_size(main.motion.part_header) + mab::container::part_nested_at;
  mab::io::store_u32(array, at, mab::decode::load_u32(array, at) - static_cast<std::uint32_t>(shift));
  const std::vector<std::uint8_t> opaque_array = array;
  auto input = mab::write_container(*c);
  ASSERT_TRUE(input.ok());
  const auto in1 = reread(*input, 1);
  ASSERT_EQ(in1.evidence.parts.level, mab::EvidenceLevel::opaque) << in1.evidence.parts.text();
  ASSERT_TRUE(in1.clip.parts.empty());

  auto out = grow_block0(*mab::read_container(*input));
  ASSERT_TRUE(out.ok()) << out.error().message();
  auto after = mab::read_container(*out);
  ASSERT_TRUE(after.ok());
  EXPECT_EQ(std::vector<std::uint8_t>(after->blocks[1].section(slot).begin(), after->blocks[1].section(slot).end()),
            opaque_array);
  // Block 0 now sits where entry 0 points: the moved file reads the parts.
  const auto out1 = reread(*out, 1);
  ASSERT_EQ(out1.evidence.parts.level, mab::EvidenceLevel::hypothesis) << out1.evidence.parts.text();
  EXPECT_EQ(out1.clip.parts, main.clip.parts);
  auto refused = mab::encode_clip(in1, out1.clip);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().code, mab::ErrorCode::invalid_argument);
  EXPECT_EQ(refused.error().field, "parts");
  // The same clip as the input reads it (no parts) writes the input's block back unchanged.
  mab::Clip as_input = out1.clip;
  as_input.parts.clear();
  auto same = mab::encode_clip(in1, as_input);
  ASSERT_TRUE(same.ok()) << same.error().message();
  EXPECT_EQ(*same, *input);
  // The edit that moved the blocks says that block 1's opaque array may now hold stale links;
  // the corpus file, whose part array decodes and is relinked, gets no such line.
  auto in0 = mab::decode_clip(*mab::read_container(*input), 0);
  ASSERT_TRUE(in0.ok());
  mab::Clip grown = in0->clip;
  std::size_t bone = 0;
  while (grown.bones[bone].kind() != mab::BoneKind::animated) ++bone;
  grown.bones[bone].set_bit_depth(16);
  grown.bones[bone].keys[0] = mab::Quat{0.6f, -0.48f, 0.0f, 0.64f};
  mab::EncodeReport rep;
  ASSERT_TRUE(mab::encode_clip(*in0, grown, {}, &rep).ok());
  ASSERT_EQ(rep.warnings.size(), 1u);
  EXPECT_NE(rep.warnings[0].find("block 1's"), std::string::npos) << rep.warnings[0];
  EXPECT_NE(rep.warnings[0].find("stale"), std::string::npos) << rep.warnings[0];
  const auto good = decoded("fc5/parts_nested.mab");
  mab::Clip good_grown = good.clip;
  bone = 0;
  while (good_grown.bones[bone].kind() != mab::BoneKind::animated) ++bone;
  good_grown.bones[bone].set_bit_depth(16);
  good_grown.bones[bone].keys[0] = mab::Quat{0.6f, -0.48f, 0.0f, 0.64f};
  mab::EncodeReport good_rep;
  ASSERT_TRUE(mab::encode_clip(good, good_grown, {}, &good_rep).ok());
  EXPECT_TRUE(good_rep.warnings.empty()) << good_rep.warnings[0];
}

}  // namespace

namespace {

// Timing edits carry translations and root motion (edit.hpp): the edited clip encodes, and
// reads back with the same evidence and the carried values.
TEST(EncodeMotion, TimingEditsCarryTranslationsAndRootMotion) {
  const auto d = decoded("wd2/translations_all_bones_root_motion.mab");
  struct Op {
    const char* name;
    std::function<mab::Status(mab::Clip&)> run;
  };
  const std::vector<Op> ops{
      {"speed", [](mab::Clip& c) { return mab::edit::speed(c, 2.0); }},
      {"trim", [](mab::Clip& c) { return mab::edit::trim(c, 0.05, 0.3); }},
      {"reverse", [](mab::Clip& c) { return mab::edit::reverse(c); }},
      {"loop_fix", [](mab::Clip& c) { return mab::edit::loop_fix(c); }},
      {"resample", [](mab::Clip& c) { return mab::edit::resample(c, 20.0); }},  // 30 units/s: 45 is refused
      {"reduce",
       [](mab::Clip& c) {
         return mab::edit::reduce(c, 90.0).ok()
                    ? mab::Status{}
                    : mab::Status{mab::make_error(mab::ErrorCode::invalid_argument, 0, "reduce")};
       }},
  };
  for (const auto& op : ops) {
    SCOPED_TRACE(op.name);
    mab::Clip edited = d.clip;
    ASSERT_TRUE(op.run(edited).ok());
    ASSERT_TRUE(edited.check().ok()) << edited.check().error().message();
    mab::EncodeReport rep;
    auto out = mab::encode_clip(d, edited, {}, &rep);
    ASSERT_TRUE(out.ok()) << out.error().message();
    const auto back = reread(*out);
    EXPECT_EQ(back.evidence.translations.hypothesis, 3u);
    EXPECT_EQ(back.evidence.root_rotations.hypothesis, 1u);
    EXPECT_EQ(back.evidence.root_translations.hypothesis, 1u);
    EXPECT_EQ(back.clip.key_times, edited.key_times);
    EXPECT_EQ(back.clip.root_motion.translations, edited.root_motion.translations);
    ASSERT_EQ(back.clip.root_motion.rotations.size(), edited.key_count());
    for (std::size_t k = 0; k < edited.key_count(); ++k)
      EXPECT_LE(mab::angular_error_deg(back.clip.root_motion.rotations[k], edited.root_motion.rotations[k]),
                0.0086 + 1e-6);
    for (std::size_t i = 0; i < edited.bones.size(); ++i) {
      ASSERT_EQ(back.clip.bones[i].translations.size(), edited.key_count());
      for (std::size_t k = 0; k < edited.key_count(); ++k)
        for (unsigned j = 0; j < 3; ++j)
          EXPECT_LE(
              std::fabs(double{back.clip.bones[i].translations[k][j]} - double{edited.bones[i].translations[k][j]}),
              rep.max_translation_error);
    }
  }
  // Reversing keeps the values, in reverse order.
  mab::Clip rev = d.clip;
  ASSERT_TRUE(mab::edit::reverse(rev).ok());
  EXPECT_TRUE(same(rev.bones[0].translations.front(), d.clip.bones[0].translations.back()));
  EXPECT_EQ(rev.root_motion.translations.front(), d.clip.root_motion.translations.back());
}

}  // namespace

namespace {

// mab convert carries translations as their sections (by name, format 8.2's slot map): each
// game of the chain reads them back with the same hypothesis and the same values.
TEST(EncodeMotion, ConvertCarriesTranslationSections) {
  const auto original = load(corpus("wd1/translations_flag40.mab"));
  const auto first = decoded("wd1/translations_flag40.mab");
  std::vector<std::uint8_t> bytes = original;
  for (const auto g :
       {mab::Game::watch_dogs_legion, mab::Game::watch_dogs_2, mab::Game::far_cry_5, mab::Game::watch_dogs}) {
    SCOPED_TRACE(std::string(mab::to_string(g)));
    auto out = mab::convert_clip(*mab::read_container(bytes), 0, g);
    ASSERT_TRUE(out.ok()) << out.error().message();
    const auto d = reread(*out);
    EXPECT_EQ(d.evidence.translations.level, mab::EvidenceLevel::hypothesis) << d.evidence.translations.text();
    EXPECT_EQ(d.evidence.translations.hypothesis, 1u);
    for (std::size_t i = 0; i < first.clip.bones.size(); ++i) {
      ASSERT_EQ(d.clip.bones[i].translations.size(), first.clip.bones[i].translations.size());
      for (std::size_t k = 0; k < first.clip.bones[i].translations.size(); ++k)
        EXPECT_TRUE(same(d.clip.bones[i].translations[k], first.clip.bones[i].translations[k]));
      EXPECT_EQ(d.clip.bones[i].keys, first.clip.bones[i].keys);
    }
    bytes = *out;
  }
  // The copied sections follow the rebuilt ones, so the chain changes the section order (not the
  // values: above), unlike for files without them (Convert.RoundTripThroughEveryAniGame).
  EXPECT_EQ(bytes.size(), original.size());
  // Keys that meet at the target's rate would leave the copied stream one key per old key.
  mab::Clip dense = first.clip;
  for (std::size_t k = 0; k < dense.key_count(); ++k) dense.key_times[k] = static_cast<std::uint32_t>(k);
  auto packed = mab::encode_clip(first, dense);
  ASSERT_TRUE(packed.ok()) << packed.error().message();
  auto refused = mab::convert_clip(*mab::read_container(*packed), 0, mab::Game::watch_dogs_legion);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.error().message().find("translations or root motion"), std::string::npos)
      << refused.error().message();
}

}  // namespace
