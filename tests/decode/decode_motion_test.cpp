// Translations, root motion and part entries (docs/motion.md) on the corpus: the evidence and the
// values a reader of the documented rules finds (scripts/gen_corpus.py decides them with its own
// reader), byte-identical round trips, edits that come back within the reported error, and
// refusals that name the section.
#include <mab/decode_clip.hpp>
#include <mab/encode_clip.hpp>
#include <mab/validate.hpp>

#include "support/corpus.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <set>

namespace {

using mab::test::good_files;
using mab::test::load;

std::string evidence_name(const mab::Evidence& e) {
  switch (e.level) {
    case mab::EvidenceLevel::absent: return "absent";
    case mab::EvidenceLevel::decoded: return "decoded";
    case mab::EvidenceLevel::hypothesis: return "hypothesis " + std::to_string(e.hypothesis);
    case mab::EvidenceLevel::opaque: return "opaque";
  }
  return "?";
}

// The generator decodes in float64, mabkit in float32 with the engine constants: a component
// (format 9.2 formulas, |c| <= 3) is within 4 ulps of 3 (rotation_varying_value rounds a double
// sum of a float slope product), the scale within half an ulp, their product within another;
// 16 ulps of 3 covers it, in units of the scale; the JSON keeps 7 decimals (5e-8).
double translation_tol(double scale) { return 16.0 * 3.0 * std::numeric_limits<float>::epsilon() * scale + 5e-8; }
// 6-byte quaternions and f32 values are printed with 7 decimals.
constexpr double k_print_tol = 5e-8 + 1e-7;

struct Loaded {
  std::filesystem::path path;
  std::vector<std::uint8_t> bytes;
  nlohmann::json expected;
};

std::vector<Loaded> motion_files() {
  std::vector<Loaded> out;
  for (const auto& p : good_files()) {
    auto exp = mab::test::load_json(mab::test::expected_path(p));
    bool any = false;
    for (const auto& b : exp["blocks"]) any = any || b.contains("motion");
    if (any) out.push_back({p, load(p), std::move(exp)});
  }
  return out;
}

TEST(DecodeMotion, CorpusHasEveryCase) {
  std::set<std::string> seen;
  for (const auto& f : motion_files())
    for (const auto& b : f.expected["blocks"])
      if (b.contains("motion"))
        for (const auto& [kind, ev] : b["motion"]["evidence"].items()) seen.insert(kind + ": " + ev.get<std::string>());
  for (const char* want : {"translations: decoded", "translations: hypothesis 1", "translations: hypothesis 2",
                           "translations: hypothesis 3", "translations: opaque", "constant_translations: hypothesis 1",
                           "constant_translations: hypothesis 2", "root_rotations: hypothesis 1",
                           "root_rotations: hypothesis 2", "root_translations: hypothesis 1",
                           "root_translations: hypothesis 2", "parts: hypothesis 1", "parts: hypothesis 2"})
    EXPECT_TRUE(seen.count(want)) << want;
}

TEST(DecodeMotion, MatchesTheGenerator) {
  std::size_t translation_keys = 0, expected_keys = 0;
  for (const auto& f : motion_files()) {
    SCOPED_TRACE(mab::test::name_of(f.path));
    auto c = mab::read_container(f.bytes);
    ASSERT_TRUE(c.ok()) << c.error().message();
    for (std::size_t k = 0; k < c->blocks.size(); ++k) {
      const auto& eb = f.expected["blocks"][k];
      if (!eb.contains("motion")) continue;
      const auto& m = eb["motion"];
      auto d = mab::decode_clip(*c, k);
      ASSERT_TRUE(d.ok()) << d.error().message();
      const auto& ev = d->evidence;
      EXPECT_EQ(evidence_name(ev.translations), m["evidence"]["translations"]) << ev.translations.text();
      EXPECT_EQ(evidence_name(ev.constant_translations), m["evidence"]["constant_translations"])
          << ev.constant_translations.text();
      EXPECT_EQ(evidence_name(ev.root_rotations), m["evidence"]["root_rotations"]) << ev.root_rotations.text();
      EXPECT_EQ(evidence_name(ev.root_translations), m["evidence"]["root_translations"]) << ev.root_translations.text();
      EXPECT_EQ(evidence_name(ev.parts), m["evidence"]["parts"]) << ev.parts.text();
      if (ev.translations.level == mab::EvidenceLevel::opaque) {
        EXPECT_FALSE(ev.translations.detail.empty());
      }

      // Translations: every bone the generator translated, and no other.
      std::size_t translated = 0;
      for (const auto& b : d->clip.bones) translated += !b.translations.empty();
      if (m.contains("translations") && ev.translations.accepted()) {
        EXPECT_EQ(translated, m["translations"].size());
        for (const auto& [bone, keys] : m["translations"].items()) expected_keys += keys.size();
        const auto& table = m["translation_table"];
        ASSERT_EQ(d->motion.translation_table.size(), table.size());
        for (std::size_t t = 0; t < table.size(); ++t) {
          const auto bone = table[t][0].get<std::size_t>();
          EXPECT_EQ(d->motion.translation_table[t].bit_depth(), table[t][1].get<unsigned>());
          EXPECT_EQ(d->motion.translation_table[t].scale_code(), table[t][2].get<std::uint32_t>());
          const double tol = translation_tol(d->motion.translation_table[t].scale());
          const auto& want = m["translations"][std::to_string(bone)];
          const auto& got = d->clip.bones[bone].translations;
          ASSERT_EQ(got.size(), want.size());
          for (std::size_t i = 0; i < got.size(); ++i, ++translation_keys)
            for (unsigned j = 0; j < 3; ++j)
              EXPECT_NEAR(got[i][j], want[i][j].get<double>(), tol) << "bone " << bone << " key " << i;
        }
      } else {
        EXPECT_EQ(translated, 0u);
      }
      if (m.contains("constant_translations") && ev.constant_translations.accepted()) {
        for (const auto& [bone, v] : m["constant_translations"].items()) {
          const auto& ct = d->clip.bones[std::stoul(bone)].constant_translation;
          ASSERT_TRUE(ct.has_value()) << bone;
          for (unsigned j = 0; j < 3; ++j) EXPECT_NEAR((*ct)[j], v[j].get<double>(), k_print_tol);
        }
      }
      if (m.contains("root_rotations")) {
        const auto& want = m["root_rotations"];
        ASSERT_EQ(d->clip.root_motion.rotations.size(), want.size());
        for (std::size_t i = 0; i < want.size(); ++i)
          for (unsigned j = 0; j < 4; ++j)
            EXPECT_NEAR(d->clip.root_motion.rotations[i][j], want[i][j].get<double>(), k_print_tol + 1e-6);
      } else {
        EXPECT_TRUE(d->clip.root_motion.rotations.empty());
      }
      if (m.contains("root_translations")) {
        const auto& want = m["root_translations"];
        ASSERT_EQ(d->clip.root_motion.translations.size(), want.size());
        for (std::size_t i = 0; i < want.size(); ++i)
          for (unsigned j = 0; j < 3; ++j)
            EXPECT_NEAR(d->clip.root_motion.translations[i][j], want[i][j].get<double>(), k_print_tol);
      }
      if (m.contains("parts")) {
        const auto& want = m["parts"];
        ASSERT_EQ(d->clip.parts.size(), want.size());
        for (std::size_t i = 0; i < want.size(); ++i) {
          const auto& p = d->clip.parts[i];
          EXPECT_NEAR(p.start, want[i]["start"].get<double>(), k_print_tol);
          EXPECT_NEAR(p.end, want[i]["end"].get<double>(), k_print_tol);
          EXPECT_EQ(p.parent_hash, want[i]["parent"].get<std::uint32_t>());
          EXPECT_EQ(p.attachment_hash, want[i]["attachment"].get<std::uint32_t>());
          EXPECT_EQ(p.type, want[i]["type"].get<unsigned>());
          EXPECT_EQ(p.nested_block, want[i]["nested_block"].is_null() ? -1 : want[i]["nested_block"].get<int>());
        }
      }
    }
  }
  EXPECT_EQ(translation_keys, expected_keys);
  EXPECT_GT(translation_keys, 0u);
}

// --strict-layout: only the public decoder's reading (FC5 single-bone blocks) survives; every
// hypothesis is refused with that reason, and the file still writes back byte for byte.
TEST(DecodeMotion, StrictLayoutKeepsHypothesesOpaque) {
  std::size_t decoded = 0, refused = 0;
  for (const auto& f : motion_files()) {
    SCOPED_TRACE(mab::test::name_of(f.path));
    auto c = mab::read_container(f.bytes);
    ASSERT_TRUE(c.ok());
    for (std::size_t k = 0; k < c->blocks.size(); ++k) {
      mab::DecodeOptions strict;
      strict.strict_layout = true;
      auto d = mab::decode_clip(*c, k, strict);
      ASSERT_TRUE(d.ok()) << d.error().message();
      for (const auto* e : {&d->evidence.translations, &d->evidence.constant_translations, &d->evidence.root_rotations,
                            &d->evidence.root_translations, &d->evidence.parts}) {
        EXPECT_NE(e->level, mab::EvidenceLevel::hypothesis) << e->text();
        if (e->level == mab::EvidenceLevel::decoded) ++decoded;
        if (e->level == mab::EvidenceLevel::opaque && e->detail.find("{opt:strict_layout}") != std::string::npos)
          ++refused;
      }
      auto out = mab::encode_clip(*d, d->clip);
      ASSERT_TRUE(out.ok()) << out.error().message();
      EXPECT_EQ(*out, f.bytes);
    }
  }
  EXPECT_EQ(decoded, 2u);  // the FC5 'Root' blocks of root_translation_block and parts_nested
  EXPECT_GE(refused, 10u);
}

}  // namespace
