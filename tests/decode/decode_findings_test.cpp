// validate_decode (validate.hpp): what only a decode shows, as findings for `mab verify` and
// `mab survey` (decision 20: a clip that does not decode, or a code with no valid quaternion, was
// reported as nothing at all).
#include <mab/decode_clip.hpp>
#include <mab/legacy.hpp>
#include <mab/validate.hpp>

#include "support/corpus.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

namespace {

using mab::test::corpus_dir;
using mab::test::load_container;

std::vector<mab::Finding> warnings_of(const mab::Container& c) {
  std::vector<mab::Finding> out;
  for (const auto& f : mab::validate_decode(c))
    if (f.severity == mab::Severity::warning) out.push_back(f);
  return out;
}

std::string text_of(const std::vector<mab::Finding>& fs) {
  std::string s;
  for (const auto& f : fs) s += "[" + f.field + "] " + f.message + "\n";
  return s;
}

std::uint32_t u32_at(std::span<const std::uint8_t> s, std::size_t at) {
  return std::uint32_t{s[at]} | std::uint32_t{s[at + 1]} << 8 | std::uint32_t{s[at + 2]} << 16 |
         std::uint32_t{s[at + 3]} << 24;
}

// The corpus decodes everywhere but in the files built not to: Blood Dragon's clip whose group
// table is off by 2, the FC2 clip holding codes with no valid quaternion, and the 'aNi' files
// whose motion sections no reading fits (their expected.json says "opaque").
TEST(ValidateDecode, TheCorpusWarnsOnlyWhereItWasBuiltTo) {
  for (const auto& p : mab::test::good_files()) {
    const auto c = load_container(p);
    const auto w = warnings_of(c);
    const std::string name = mab::test::name_of(p);
    if (name == "fc3bd/legacy_undecodable.mab") {
      ASSERT_EQ(w.size(), 1u) << text_of(w);
      EXPECT_EQ(w[0].field, "sections[3]");
      EXPECT_NE(w[0].message.find("group 1 offset"), std::string::npos) << w[0].message;
      EXPECT_NE(w[0].message.find("do not decode"), std::string::npos) << w[0].message;
    } else if (name == "fc2/invalid_quaternion.mab") {
      const auto doc = mab::test::load_json(mab::test::expected_path(p));
      const auto& want = doc["blocks"][0]["invalid_codes"];
      ASSERT_EQ(w.size(), want.size()) << text_of(w);
      for (std::size_t i = 0; i < w.size(); ++i) {
        EXPECT_NE(w[i].message.find(want[i].get<std::string>()), std::string::npos) << w[i].message;
        EXPECT_NE(w[i].message.find("no valid quaternion"), std::string::npos) << w[i].message;
      }
      EXPECT_EQ(w[0].field, "sections[2]");
      EXPECT_NE(w[0].offset, mab::no_offset);
    } else {
      // Corpus files whose translations, root motion or parts no reading fits, and legacy
      // clips whose slot 6 holds bytes that are no tag table.
      const auto doc = mab::test::load_json(mab::test::expected_path(p));
      std::size_t opaque = 0, tag_tables = 0;
      for (const auto& b : doc["blocks"]) {
        if (b.contains("motion"))
          for (const auto& [kind, level] : b["motion"]["evidence"].items()) opaque += level == "opaque";
        tag_tables += b.value("tag_table_undecodable", false);
      }
      ASSERT_EQ(w.size(), opaque + tag_tables) << name << ":\n" << text_of(w);
      for (const auto& f : w)
        EXPECT_TRUE(f.message.find("kept as bytes, not decoded: no reading fits") != std::string::npos ||
                    (tag_tables && f.message.find("tag table does not decode") != std::string::npos))
            << f.message;
    }
  }
}

// Each consistency refusal of decode_legacy_clip is a warning with its reason and place.
TEST(ValidateDecode, ALegacyClipThatDoesNotDecodeIsAWarningWithTheReason) {
  struct Case {
    const char* what;
    void (*spoil)(mab::Container&);
    const char* field;
    const char* detail;
  };
  const Case cases[] = {
      {"a count that contradicts the mask", [](mab::Container& c) { ++(*c.blocks[0].section_mut(2))[0]; },
       "sections[2]", "bits set in the section's mask"},
      {"a group offset off by 2",
       [](mab::Container& c) {
         auto& s = *c.blocks[0].section_mut(3);
         s[12] = static_cast<std::uint8_t>(s[12] + 2);
       },
       "sections[3]", "group 1 offset"},
      {"a non-zero pad byte",
       [](mab::Container& c) {
         auto& s = *c.blocks[0].section_mut(3);
         const std::size_t tracks = s[0];
         ASSERT_EQ(tracks % 2, 1u);  // an odd count has the pad byte
         s[u32_at(s, 8) + 7 * tracks] = 1;
       },
       "sections[3]", "pad byte is not 0"},
  };
  const auto good = load_container(corpus_dir() / "fc2" / "all_arrays.mab");
  ASSERT_TRUE(warnings_of(good).empty());
  for (const auto& k : cases) {
    auto c = good;
    k.spoil(c);
    ASSERT_FALSE(mab::decode_legacy_clip(c, 0).ok()) << k.what;
    const auto w = warnings_of(c);
    ASSERT_EQ(w.size(), 1u) << k.what << "\n" << text_of(w);
    EXPECT_EQ(w[0].field, k.field) << k.what;
    EXPECT_EQ(w[0].code, mab::ErrorCode::not_decodable) << k.what;
    EXPECT_EQ(w[0].block, 0) << k.what;
    EXPECT_NE(w[0].offset, mab::no_offset) << k.what;
    EXPECT_NE(w[0].message.find(k.detail), std::string::npos) << k.what << ": " << w[0].message;
  }
}

// docs/legacy.md, "Codes with no valid quaternion": decoded as the nearest unit quaternion;
// an unedited clip still encodes to its own bytes (the codes are kept, not re-quantised).
TEST(ValidateDecode, CodesWithNoValidQuaternionDecodeToUnitQuaternionsAndKeepTheirBytes) {
  const auto path = corpus_dir() / "fc2" / "invalid_quaternion.mab";
  const auto c = load_container(path);
  const auto d = mab::decode_legacy_clip(c, 0);
  ASSERT_TRUE(d.ok()) << d.error().message();
  std::size_t invalid = 0;
  auto check = [&](const mab::Quat48& code, const mab::Quat& q) {
    if (mab::quat48_valid(code)) return;
    ++invalid;
    const double n = std::sqrt(double{q.x} * q.x + double{q.y} * q.y + double{q.z} * q.z + double{q.w} * q.w);
    EXPECT_NEAR(n, 1.0, 1e-6);
    // The generator's code: a = b = c = 0x7FFF * step - bias, k = 2: (a, b, 0, c) renormalised.
    const double v = 1.0 / std::sqrt(3.0);
    EXPECT_NEAR(q.x, v, 1e-6);
    EXPECT_NEAR(q.y, v, 1e-6);
    EXPECT_EQ(q.z, 0.0f);
    EXPECT_NEAR(q.w, v, 1e-6);
  };
  for (const auto& r : d->constant_rotations) check(r.code, r.rotation);
  for (const auto& t : d->rotations)
    for (std::size_t k = 0; k < t.codes.size(); ++k) check(t.codes[k], t.keys[k]);
  EXPECT_EQ(invalid, 2u);
  auto e = mab::encode_legacy_clip(c, 0, *d);
  ASSERT_TRUE(e.ok()) << e.error().message();
  EXPECT_EQ(*mab::write_container(*e), mab::test::load(path));
}

// 'aNi': a constant code with no valid quaternion is named by bone index and hash; a clip
// whose rotations do not decode is a warning with the decoder's reason.
TEST(ValidateDecode, AniConstantCodesAndBrokenRotationsAreWarnings) {
  for (const auto& p : mab::test::good_files()) {
    if (p.parent_path().filename() != "wd1") continue;
    auto c = load_container(p);
    auto d = mab::decode_clip(c, 0);
    ASSERT_TRUE(d.ok()) << p;
    std::size_t bone = 0;
    while (bone < d->clip.bones.size() && d->clip.bones[bone].kind() != mab::BoneKind::constant) ++bone;
    if (bone == d->clip.bones.size()) continue;
    const auto slots = mab::ani_slots(c.blocks[0].ani()->shape);
    auto& s = *c.blocks[0].section_mut(static_cast<std::size_t>(slots.constant_rotations));
    const std::uint8_t invalid[6] = {0xFF, 0x7F, 0xFF, 0xFF, 0xFF, 0x7F};
    std::copy(invalid, invalid + 6, s.begin());
    auto w = warnings_of(c);
    ASSERT_EQ(w.size(), 1u) << p << "\n" << text_of(w);
    EXPECT_EQ(w[0].field, "JointConstantRotations[0]");
    EXPECT_NE(w[0].message.find("bone " + std::to_string(bone)), std::string::npos) << w[0].message;
    EXPECT_NE(w[0].message.find("no valid quaternion"), std::string::npos) << w[0].message;

    auto broken = load_container(p);
    if (broken.blocks[0].section(static_cast<std::size_t>(slots.rotations)).size() < 8) continue;
    auto& rs = *broken.blocks[0].section_mut(static_cast<std::size_t>(slots.rotations));
    rs[0] = 0xFF, rs[1] = 0xFF;  // a chunk table of 65535 bytes
    if (mab::decode_clip(broken, 0).ok()) continue;
    w = warnings_of(broken);
    ASSERT_FALSE(w.empty()) << p;
    EXPECT_NE(w[0].message.find("rotations do not decode"), std::string::npos) << w[0].message;
    return;
  }
  FAIL() << "no WD1 corpus file with a constant bone";
}

}  // namespace
