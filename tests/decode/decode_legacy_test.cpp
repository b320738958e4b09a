// Legacy 'AnD' decoding (format 13). Exact values come from sections built here byte by byte,
// following the format reference's table, not from the library's own writer.
#include <mab/legacy.hpp>

#include "support/corpus.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cstring>

namespace {

using Bytes = std::vector<std::uint8_t>;

void put16(Bytes& b, std::uint32_t v) {
  b.push_back(static_cast<std::uint8_t>(v));
  b.push_back(static_cast<std::uint8_t>(v >> 8));
}
void put32(Bytes& b, std::uint32_t v) {
  put16(b, v & 0xFFFF);
  put16(b, v >> 16);
}
void putf(Bytes& b, float f) { put32(b, std::bit_cast<std::uint32_t>(f)); }
void put_code(Bytes& b, const mab::Quat48& q) {
  for (auto w : q) put16(b, w);
}
void pad16(Bytes& b) {
  while (b.size() % 16 != 0) b.push_back(0);
}
// FC2: u16 fps, u16 0; FC3: an f32 rate (format 13; the FC3 reading is a [guess]).
bool g_fc3 = false;
Bytes array_header(std::uint32_t count, std::uint32_t last) {
  Bytes b;
  put16(b, count), put16(b, last);
  if (g_fc3) putf(b, 30.0f);
  else put16(b, 30), put16(b, 0);
  return b;
}

// A distinct, valid code per (track, frame): bit 15 of w0/w1 picks the dropped component.
mab::Quat48 code_of(std::uint32_t track, std::uint32_t frame) {
  return {static_cast<std::uint16_t>((1000 + 97 * track + frame) | (track & 1) << 15),
          static_cast<std::uint16_t>((20000 + 13 * frame) | (track & 2) << 14),
          static_cast<std::uint16_t>(16383 + track)};
}
mab::Vec3 vec_of(std::uint32_t track, std::uint32_t frame) {
  return {0.5f * static_cast<float>(track) - 1.0f, 0.25f * static_cast<float>(frame),
          -3.0f + 0.125f * static_cast<float>(track * frame)};
}

constexpr std::uint32_t last = 10;  // frames 0..10: groups at 0 and 8
const std::uint32_t const_rot_bones[] = {3, 40};
const std::uint32_t keyed_bones[] = {1, 33, 70};  // three tracks: an odd count, so a pad byte
const std::uint32_t const_tr_bones[] = {5};
const std::uint32_t anim_tr_bones[] = {2, 7};
// presence[group][track]: bit i = a key at sub-frame i + 1 (format 13), bit 7 always set.
const std::uint8_t presence[2][3] = {{0x80 | 0x05, 0x80, 0xFF}, {0x80 | 0x03, 0x80 | 0x02, 0x80}};

// with_end: the group table carries one entry more, where the last group ends (JB-DOC's later
// revision, and the layout its writer produces).
Bytes keyframed_section(bool with_end = false) {
  Bytes b = array_header(3, last);
  const std::size_t table = b.size();
  b.resize(table + (with_end ? 12 : 8));
  for (std::uint32_t g = 0; g < 2; ++g) {
    const auto off = static_cast<std::uint32_t>(b.size());
    std::memcpy(b.data() + table + 4 * g, &off, 4);
    for (std::uint32_t t = 0; t < 3; ++t) put_code(b, code_of(t, 8 * g));
    for (std::uint32_t t = 0; t < 3; ++t) b.push_back(presence[g][t]);
    b.push_back(0);
    for (std::uint32_t t = 0; t < 3; ++t)
      for (std::uint32_t i = 0; i < 7; ++i)
        if ((presence[g][t] >> i) & 1) put_code(b, code_of(t, 8 * g + i + 1));
  }
  if (with_end) {
    const auto end = static_cast<std::uint32_t>(b.size());
    std::memcpy(b.data() + table + 8, &end, 4);
  }
  pad16(b);
  return b;
}

struct Fixture {
  mab::Container c;
  mab::Block& block() { return c.blocks[0]; }
  mab::LegacyHeader& header() { return std::get<mab::LegacyHeader>(block().header); }
  Bytes& section(std::size_t slot) { return *block().section_mut(slot); }
};

void set_mask(mab::LegacyHeader& h, std::size_t mask, std::span<const std::uint32_t> bones) {
  for (std::uint32_t w = 0; w < h.mask_words; ++w) h.masks[mask * h.mask_words + w] = 0;
  for (auto bone : bones) h.masks[mask * h.mask_words + bone / 32] |= 1u << (bone % 32);
}

// corpus/fc2 (or fc3)/all_arrays.mab with every array section (slots 0-5) replaced by the ones
// above; g_fc3 picks the game.
Fixture built() {
  auto c = mab::read_container(mab::test::load(mab::test::corpus_dir() / (g_fc3 ? "fc3" : "fc2") / "all_arrays.mab"));
  EXPECT_TRUE(c.ok());
  Fixture f{std::move(c).value()};
  auto& h = f.header();
  set_mask(h, 0, const_rot_bones), set_mask(h, 1, keyed_bones), set_mask(h, 2, const_tr_bones),
      set_mask(h, 3, anim_tr_bones);
  Bytes s0 = array_header(last + 1, last), s1 = array_header(last + 1, last), s2 = array_header(2, last),
        s4 = array_header(1, last), s5 = array_header(2, last);
  for (std::uint32_t fr = 0; fr <= last; ++fr) {
    for (float v : vec_of(9, fr)) putf(s0, v);
    put_code(s1, code_of(9, fr));
    for (std::uint32_t t = 0; t < 2; ++t)
      for (float v : vec_of(t, fr)) putf(s5, v);  // frame-major
  }
  for (std::uint32_t t = 0; t < 2; ++t) put_code(s2, code_of(5 + t, 0));
  for (float v : vec_of(7, 0)) putf(s4, v);
  for (auto* s : {&s0, &s1, &s2, &s4, &s5}) pad16(*s);
  f.section(0) = s0, f.section(1) = s1, f.section(2) = s2, f.section(3) = keyframed_section(), f.section(4) = s4,
  f.section(5) = s5;
  return f;
}

class DecodeLegacyGame : public ::testing::TestWithParam<bool> {
 protected:
  void SetUp() override { g_fc3 = GetParam(); }
  void TearDown() override { g_fc3 = false; }
};

TEST_P(DecodeLegacyGame, SectionsBuiltFromTheSpecDecodeToTheirValues) {
  auto f = built();
  auto d = mab::decode_legacy_clip(f.c, 0);
  ASSERT_TRUE(d.ok()) << d.error().message();
  EXPECT_EQ(d->last_frame, last);
  EXPECT_EQ(d->frame_rate, 30.0f);

  ASSERT_EQ(d->trajectory_translation.size(), last + 1);
  ASSERT_EQ(d->trajectory_rotation.size(), last + 1);
  for (std::uint32_t fr = 0; fr <= last; ++fr) {
    EXPECT_EQ(d->trajectory_translation[fr], vec_of(9, fr));
    EXPECT_EQ(d->trajectory_rotation_codes[fr], code_of(9, fr));
    EXPECT_EQ(d->trajectory_rotation[fr], mab::decode_quat48(code_of(9, fr)));
  }
  ASSERT_EQ(d->constant_rotations.size(), 2u);
  for (std::uint32_t t = 0; t < 2; ++t) {
    EXPECT_EQ(d->constant_rotations[t].bone, const_rot_bones[t]);
    EXPECT_EQ(d->constant_rotations[t].code, code_of(5 + t, 0));
  }
  ASSERT_EQ(d->constant_translations.size(), 1u);
  EXPECT_EQ(d->constant_translations[0].bone, 5u);
  EXPECT_EQ(d->constant_translations[0].translation, vec_of(7, 0));
  ASSERT_EQ(d->translations.size(), 2u);
  for (std::uint32_t t = 0; t < 2; ++t) {
    EXPECT_EQ(d->translations[t].bone, anim_tr_bones[t]);
    ASSERT_EQ(d->translations[t].frames.size(), last + 1);
    for (std::uint32_t fr = 0; fr <= last; ++fr) EXPECT_EQ(d->translations[t].frames[fr], vec_of(t, fr));
  }

  // Keyed rotations: frames 0 and 8 always, the others where the presence bits say.
  const std::vector<std::uint16_t> want_frames[3] = {{0, 1, 3, 8, 9, 10}, {0, 8, 10}, {0, 1, 2, 3, 4, 5, 6, 7, 8}};
  ASSERT_EQ(d->rotations.size(), 3u);
  for (std::uint32_t t = 0; t < 3; ++t) {
    const auto& tr = d->rotations[t];
    EXPECT_EQ(tr.bone, keyed_bones[t]);
    EXPECT_EQ(tr.frames, want_frames[t]) << "track " << t;
    ASSERT_EQ(tr.codes.size(), tr.frames.size());
    for (std::size_t k = 0; k < tr.frames.size(); ++k) {
      EXPECT_EQ(tr.codes[k], code_of(t, tr.frames[k])) << "track " << t << " frame " << tr.frames[k];
      EXPECT_EQ(tr.keys[k], mab::decode_quat48(tr.codes[k]));
    }
  }
  // Between keys: a slerp by frame distance ([guess], see legacy.hpp); held after the last.
  const auto& t1 = d->rotations[1];
  EXPECT_EQ(mab::legacy_rotation_at(t1, 8), t1.keys[1]);
  EXPECT_LT(mab::angular_error_deg(mab::legacy_rotation_at(t1, 4), mab::quat_slerp(t1.keys[0], t1.keys[1], 0.5)), 1e-4);
  EXPECT_EQ(mab::legacy_rotation_at(t1, 50), t1.keys.back());
}

// The details JB-DOC gives for retail FC2 files (and its writer produces): constant sections
// with lastFrame 0 and rate 0, trajectory sections with a track count of 1, a group table
// ending in the last group's end, a 16-byte zero separator after the last track section. They
// decode to the same values, and an edited clip keeps every one of them.
TEST_P(DecodeLegacyGame, TheRetailLayoutDetailsOfJbDocDecodeAndSurviveAnEdit) {
  auto plain = built();
  auto f = built();
  for (std::size_t slot : {2u, 4u})
    for (std::size_t i = 2; i < 8; ++i) f.section(slot)[i] = 0;
  f.section(0)[0] = 1, f.section(1)[0] = 1;
  f.section(3) = keyframed_section(true);
  f.section(5).resize(f.section(5).size() + 16);
  auto want = mab::decode_legacy_clip(plain.c, 0);
  auto d = mab::decode_legacy_clip(f.c, 0);
  ASSERT_TRUE(want.ok() && d.ok()) << d.error().message();
  EXPECT_EQ(d->last_frame, last);
  EXPECT_EQ(d->frame_rate, 30.0f);
  EXPECT_TRUE(d->headers[2].untimed() && d->headers[4].untimed());
  EXPECT_EQ(d->headers[3].group_table, mab::LegacyGroupTable::with_end);
  EXPECT_EQ(want->headers[3].group_table, mab::LegacyGroupTable::per_group);
  EXPECT_EQ(d->trajectory_translation, want->trajectory_translation);
  EXPECT_EQ(d->trajectory_rotation_codes, want->trajectory_rotation_codes);
  ASSERT_EQ(d->rotations.size(), want->rotations.size());
  for (std::size_t t = 0; t < d->rotations.size(); ++t) {
    EXPECT_EQ(d->rotations[t].frames, want->rotations[t].frames);
    EXPECT_EQ(d->rotations[t].codes, want->rotations[t].codes);
  }
  ASSERT_EQ(d->translations.size(), 2u);
  EXPECT_EQ(d->translations[1].frames, want->translations[1].frames);

  // Every array section rewritten: the layout details come back as they were.
  auto edited = *d;
  const mab::Quat turn = mab::quat_normalised({0.0f, 0.0f, 0.2f, 1.0f});
  for (auto& q : edited.trajectory_rotation) q = mab::quat_mul(turn, q);
  edited.trajectory_translation[0][0] += 1.0f;
  edited.constant_rotations[0].rotation = mab::quat_mul(turn, edited.constant_rotations[0].rotation);
  for (auto& q : edited.rotations[0].keys) q = mab::quat_mul(turn, q);
  edited.constant_translations[0].translation[1] += 1.0f;
  edited.translations[0].frames[3][2] += 1.0f;
  mab::LegacyEncodeReport rep;
  auto e = mab::encode_legacy_clip(f.c, 0, edited, {}, &rep);
  ASSERT_TRUE(e.ok()) << e.error().message();
  EXPECT_EQ(rep.sections_rewritten, 6u);
  auto back = mab::read_container(*mab::write_container(*e));
  ASSERT_TRUE(back.ok());
  auto r = mab::decode_legacy_clip(*back, 0);
  ASSERT_TRUE(r.ok()) << r.error().message();
  for (std::size_t slot = 0; slot < 6; ++slot) {
    EXPECT_EQ(r->headers[slot].count, d->headers[slot].count) << slot;
    EXPECT_EQ(r->headers[slot].last_frame, d->headers[slot].last_frame) << slot;
    EXPECT_EQ(r->headers[slot].rate_bits, d->headers[slot].rate_bits) << slot;
    EXPECT_EQ(r->headers[slot].group_table, d->headers[slot].group_table) << slot;
  }
  const auto s5 = back->blocks[0].section(5);
  EXPECT_EQ(s5.size(), f.section(5).size());  // same data size, separator kept
  EXPECT_TRUE(std::all_of(s5.end() - 16, s5.end(), [](auto v) { return v == 0; }));
  EXPECT_EQ(r->translations[0].frames[3], edited.translations[0].frames[3]);
}

// Each inconsistency refuses the clip with not_decodable (or truncated), naming the section.
TEST_P(DecodeLegacyGame, InconsistentSectionsAreRefusedWithTheirPlace) {
  struct Case {
    const char* what;
    void (*spoil)(Fixture&);
    mab::ErrorCode code;
    const char* field;
    const char* detail;  // part of the message: the check that fired
  };
  const Case cases[] = {
      {"count differs from the mask", [](Fixture& f) { f.section(2)[0] = 3; }, mab::ErrorCode::not_decodable,
       "sections[2]", "expected 2 (bits set"},
      {"presence byte without bit 7", [](Fixture& f) { f.section(3)[8 + 8 + 18] &= 0x7F; },
       mab::ErrorCode::not_decodable, "sections[3]", "without bit 7"},
      {"group offset off by two",
       [](Fixture& f) { f.section(3)[12] = static_cast<std::uint8_t>(f.section(3)[12] + 2); },
       mab::ErrorCode::not_decodable, "sections[3]", "group 1 offset"},
      {"key past lastFrame",
       [](Fixture& f) {
         auto& s3 = f.section(3);
         s3[s3[12] + 18u] = 0x80 | 0x04;  // group 1, track 0: a key at frame 11 > lastFrame 10
       },
       mab::ErrorCode::not_decodable, "sections[3]", "past lastFrame"},
      {"non-zero byte after the data", [](Fixture& f) { f.section(4).back() = 1; }, mab::ErrorCode::not_decodable,
       "sections[4]", "non-zero byte"},
      {"a non-zero byte in a zero tail longer than the padding",
       [](Fixture& f) {
         f.section(4).resize(f.section(4).size() + 16);
         f.section(4).back() = 1;
       },
       mab::ErrorCode::not_decodable, "sections[4]", "non-zero byte"},
      {"section cut short", [](Fixture& f) { f.section(5).resize(40); }, mab::ErrorCode::truncated, "sections[5]",
       "animated translations"},
      {"reserved u16 after fps (FC2) or a rate of 0x00017FC1 (FC3)",
       [](Fixture& f) {
         if (g_fc3) f.section(1)[6] = 1, f.section(1)[7] = 0, f.section(1)[5] = 0x7F, f.section(1)[4] = 0xC1;
         else f.section(1)[6] = 1;
       },
       mab::ErrorCode::not_decodable, "sections[1]", ""},
      {"rate differs between sections", [](Fixture& f) { f.section(4)[g_fc3 ? 6 : 4] = 0x20; },
       mab::ErrorCode::not_decodable, "sections[4]", "frame rate differs"},
      {"lastFrame differs between sections", [](Fixture& f) { f.section(4)[2] = 9; }, mab::ErrorCode::not_decodable,
       "sections[4]", "differs from the clip"},
      {"trajectory count is neither 1 nor lastFrame + 1", [](Fixture& f) { f.section(0)[0] = 10; },
       mab::ErrorCode::not_decodable, "sections[0]", "expected 1 (one track, JB-DOC) or 11 (lastFrame + 1)"},
      {"a constant section with lastFrame 0 but a rate", [](Fixture& f) { f.section(2)[2] = 0; },
       mab::ErrorCode::not_decodable, "sections[2]", "differs from the clip's 10"},
      {"the group table's end entry is not where the last group ends",
       [](Fixture& f) {
         f.section(3) = keyframed_section(true);
         f.section(3)[16] = static_cast<std::uint8_t>(f.section(3)[16] + 6);
       },
       mab::ErrorCode::not_decodable, "sections[3]", "end entry"},
      {"a mask without its section", [](Fixture& f) { f.section(4).clear(); }, mab::ErrorCode::not_decodable, "masks",
       "is absent"},
  };
  {
    auto f = built();
    ASSERT_TRUE(mab::decode_legacy_clip(f.c, 0).ok());
  }
  for (const auto& k : cases) {
    auto f = built();
    k.spoil(f);
    auto d = mab::decode_legacy_clip(f.c, 0);
    ASSERT_FALSE(d.ok()) << k.what;
    EXPECT_EQ(d.error().code, k.code) << k.what << ": " << d.error().message();
    EXPECT_EQ(d.error().field, k.field) << k.what << ": " << d.error().message();
    EXPECT_NE(d.error().message().find(k.detail), std::string::npos) << k.what << ": " << d.error().message();
  }
}

INSTANTIATE_TEST_SUITE_P(Fc2AndFc3, DecodeLegacyGame, ::testing::Values(false, true),
                         [](const auto& p) { return std::string(p.param ? "fc3" : "fc2"); });

// An FC3 clip whose array sections hold FC2's `u16 fps, u16 0` is not read with FC2's rules:
// the format reference's FC3 rate does not fit, and the error says so.
TEST(DecodeLegacy, Fc3WithAnFc2RateFieldIsRefusedByName) {
  auto c = mab::read_container(mab::test::load(mab::test::corpus_dir() / "fc3" / "const_rotations_only.mab"));
  ASSERT_TRUE(c.ok());
  auto& s = *c->blocks[0].section_mut(2);
  s[4] = 30, s[5] = 0, s[6] = 0, s[7] = 0;
  auto d = mab::decode_legacy_clip(*c, 0);
  ASSERT_FALSE(d.ok());
  EXPECT_EQ(d.error().code, mab::ErrorCode::not_decodable);
  EXPECT_NE(d.error().message().find("FC3 reading of format 13"), std::string::npos) << d.error().message();
}

TEST(DecodeLegacy, EveryFarCry2And3CorpusClipDecodesConsistently) {
  std::size_t clips = 0, keys = 0;
  for (const auto& p : mab::test::good_files()) {
    if (p.parent_path().filename() != "fc2" && p.parent_path().filename() != "fc3") continue;
    auto c = mab::read_container(mab::test::load(p));
    ASSERT_TRUE(c.ok()) << p;
    for (std::size_t b = 0; b < c->blocks.size(); ++b) {
      auto d = mab::decode_legacy_clip(*c, b);
      ASSERT_TRUE(d.ok()) << p << " block " << b << ": " << d.error().message();
      const auto& h = *c->blocks[b].legacy();
      std::size_t bits[4] = {};
      for (std::size_t m = 0; m < 4; ++m)
        for (std::uint32_t w = 0; w < h.mask_words; ++w)
          bits[m] += static_cast<std::size_t>(std::popcount(h.masks[m * h.mask_words + w]));
      EXPECT_EQ(d->constant_rotations.size(), bits[0]);
      EXPECT_EQ(d->rotations.size(), bits[1]);
      EXPECT_EQ(d->constant_translations.size(), bits[2]);
      EXPECT_EQ(d->translations.size(), bits[3]);
      for (const auto& t : d->rotations) {
        for (std::uint32_t g = 0; 8 * g <= d->last_frame; ++g)
          EXPECT_NE(std::find(t.frames.begin(), t.frames.end(), 8 * g), t.frames.end()) << p;
        EXPECT_TRUE(std::is_sorted(t.frames.begin(), t.frames.end()));
        EXPECT_LE(t.frames.back(), d->last_frame);
        keys += t.keys.size();
      }
      ++clips;
    }
  }
  EXPECT_GE(clips, 20u);
  EXPECT_GT(keys, 100u);
}

TEST(DecodeLegacy, NotALegacyBlockIsAnInvalidArgument) {
  auto c = mab::read_container(mab::test::load(mab::test::corpus_dir() / "wd1" / "long_k100.mab"));
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(mab::decode_legacy_clip(*c, 0).error().code, mab::ErrorCode::invalid_argument);
  EXPECT_EQ(mab::decode_legacy_clip(*c, 99).error().code, mab::ErrorCode::invalid_argument);
}

}  // namespace

namespace {

mab::Quat48 code_from_hex(const std::string& h) {
  mab::Quat48 q{};
  for (std::size_t i = 0; i < 3; ++i)
    q[i] = static_cast<std::uint16_t>(std::stoul(h.substr(4 * i, 2), nullptr, 16) |
                                      std::stoul(h.substr(4 * i + 2, 2), nullptr, 16) << 8);
  return q;
}

mab::Vec3 vec_from(const nlohmann::json& j) { return {j[0].get<float>(), j[1].get<float>(), j[2].get<float>()}; }

}  // namespace

// The retail-layout banks of the corpus: every track equals the value scripts/gen_corpus.py
// wrote (its expected.json), and the last clip, whose slot 8 points at its own end, ends the
// chain instead of being read as a clip.
// Blood Dragon's files in the guessed FC3 layout are checked the same way.
const char* const generated_banks[] = {"fc2/retail_bank.mab", "fc3/retail_bank.mab", "fc3bd/legacy_clip.mab",
                                       "fc3bd/legacy_bank.mab"};

TEST(DecodeLegacy, RetailLayoutBanksDecodeToTheGeneratorsValues) {
  for (const char* game : generated_banks) {
    const auto path = mab::test::corpus_dir() / game;
    const auto exp = mab::test::load_json(mab::test::expected_path(path));
    auto c = mab::read_container(mab::test::load(path));
    ASSERT_TRUE(c.ok()) << c.error().message();
    ASSERT_EQ(c->blocks.size(), exp.at("blocks").size());
    for (std::size_t b = 0; b < c->blocks.size(); ++b) {
      SCOPED_TRACE(std::string(game) + " clip " + std::to_string(b));
      const auto& t = exp["blocks"][b].at("tracks");
      auto d = mab::decode_legacy_clip(*c, b);
      ASSERT_TRUE(d.ok()) << d.error().message();
      EXPECT_EQ(d->last_frame, t.at("last_frame").get<std::uint16_t>());
      EXPECT_EQ(d->frame_rate, t.at("frame_rate").get<float>());
      ASSERT_EQ(d->present[0], t.contains("trajectory_translation"));
      ASSERT_EQ(d->present[1], t.contains("trajectory_rotation"));
      for (std::size_t f = 0; d->present[0] && f < d->trajectory_translation.size(); ++f)
        EXPECT_EQ(d->trajectory_translation[f], vec_from(t["trajectory_translation"][f]));
      for (std::size_t f = 0; d->present[1] && f < d->trajectory_rotation_codes.size(); ++f)
        EXPECT_EQ(d->trajectory_rotation_codes[f], code_from_hex(t["trajectory_rotation"][f]));
      const auto list = [&](const char* key) { return t.contains(key) ? t[key] : nlohmann::json::array(); };
      ASSERT_EQ(d->constant_rotations.size(), list("constant_rotations").size());
      for (std::size_t i = 0; i < d->constant_rotations.size(); ++i) {
        EXPECT_EQ(d->constant_rotations[i].bone, list("constant_rotations")[i].at("bone").get<std::uint32_t>());
        EXPECT_EQ(d->constant_rotations[i].code, code_from_hex(list("constant_rotations")[i].at("code")));
      }
      ASSERT_EQ(d->rotations.size(), list("rotations").size());
      for (std::size_t i = 0; i < d->rotations.size(); ++i) {
        const auto e = list("rotations")[i];
        EXPECT_EQ(d->rotations[i].bone, e.at("bone").get<std::uint32_t>());
        EXPECT_EQ(d->rotations[i].frames, e.at("frames").get<std::vector<std::uint16_t>>());
        ASSERT_EQ(d->rotations[i].codes.size(), e.at("codes").size());
        for (std::size_t k = 0; k < d->rotations[i].codes.size(); ++k)
          EXPECT_EQ(d->rotations[i].codes[k], code_from_hex(e["codes"][k]));
      }
      ASSERT_EQ(d->constant_translations.size(), list("constant_translations").size());
      for (std::size_t i = 0; i < d->constant_translations.size(); ++i)
        EXPECT_EQ(d->constant_translations[i].translation,
                  vec_from(list("constant_translations")[i].at("translation")));
      ASSERT_EQ(d->translations.size(), list("translations").size());
      for (std::size_t i = 0; i < d->translations.size(); ++i)
        for (std::size_t f = 0; f < d->translations[i].frames.size(); ++f)
          EXPECT_EQ(d->translations[i].frames[f], vec_from(list("translations")[i].at("frames")[f]));
    }
    // The last clip's slot 8 is an empty section at its end, written back in place.
    const auto& end = c->blocks.back();
    ASSERT_GE(end.slot_segment[8], 0);
    EXPECT_TRUE(end.section(8).empty());
    EXPECT_EQ(end.segments[static_cast<std::size_t>(end.slot_segment[8])].child_block, -1);
    EXPECT_EQ(*mab::write_container(*c), mab::test::load(path));
  }
}

// JB-DOC's writer gives a keyed section without tracks its array header alone.
TEST(DecodeLegacy, AKeyedSectionWithoutTracksMayBeItsHeaderAlone) {
  auto f = built();
  set_mask(f.header(), 1, {});
  f.section(3) = array_header(0, last);
  pad16(f.section(3));
  auto d = mab::decode_legacy_clip(f.c, 0);
  ASSERT_TRUE(d.ok()) << d.error().message();
  EXPECT_TRUE(d->rotations.empty());
  EXPECT_EQ(d->headers[3].group_table, mab::LegacyGroupTable::none);
  EXPECT_EQ(d->headers[3].data_size, 8u);
  auto e = mab::encode_legacy_clip(f.c, 0, *d);
  ASSERT_TRUE(e.ok()) << e.error().message();
  EXPECT_EQ(*mab::write_container(*e), *mab::write_container(f.c));
}

// Slots 6 and 7 of the retail-layout banks: every record field and event node equals the
// generator's, and each record's clip offset, taken from the record's own start, reaches the
// chained clip the generator pointed it at.
TEST(DecodeLegacy, TagTablesAndEventChainsDecodeToTheGeneratorsValues) {
  for (const char* game : {"fc2/retail_bank.mab", "fc3/retail_bank.mab", "fc3bd/legacy_bank.mab"}) {
    SCOPED_TRACE(game);
    const auto path = mab::test::corpus_dir() / game;
    const auto exp = mab::test::load_json(mab::test::expected_path(path));
    auto c = mab::read_container(mab::test::load(path));
    ASSERT_TRUE(c.ok());
    std::size_t records = 0, events = 0;
    for (std::size_t b = 0; b < c->blocks.size(); ++b) {
      const auto& eb = exp["blocks"][b];
      auto d = mab::decode_legacy_clip(*c, b);
      ASSERT_TRUE(d.ok()) << d.error().message();
      EXPECT_TRUE(d->tag_table_note.empty() && d->events_note.empty());
      ASSERT_EQ(d->tag_table.has_value(), eb.contains("tag_table"));
      ASSERT_EQ(d->events.has_value(), eb.contains("event_chain"));
      if (d->tag_table) {
        const auto& recs = eb["tag_table"]["records"];
        ASSERT_EQ(d->tag_table->size(), recs.size());
        for (std::size_t i = 0; i < recs.size(); ++i) {
          const auto& r = (*d->tag_table)[i];
          const auto& e = recs[i];
          EXPECT_EQ(r.kind, e.at("kind").get<std::uint8_t>());
          EXPECT_EQ(r.byte_1, e.at("byte_1").get<std::uint8_t>());
          EXPECT_EQ(r.id, e.at("id").get<std::int16_t>());
          std::string b4;
          for (auto v : r.bytes_4) b4 += "0123456789abcdef"[v >> 4], b4 += "0123456789abcdef"[v & 15];
          EXPECT_EQ(b4, e.at("bytes_4_12").get<std::string>());
          EXPECT_EQ(r.clip_offset, e.at("clip_offset").get<std::int32_t>());
          EXPECT_EQ(r.clip_block, e.at("clip_block").get<int>());
          EXPECT_EQ(c->blocks[static_cast<std::size_t>(r.clip_block)].original_base,
                    e.at("clip_base").get<std::uint64_t>());
          EXPECT_EQ(r.start, e.at("start").get<float>());
          EXPECT_EQ(r.end, e.at("end").get<float>());
          for (std::size_t k = 0; k < 4; ++k) {
            EXPECT_EQ(r.names[k].hash, e["names"][k].at("hash").get<std::uint32_t>());
            EXPECT_EQ(r.names[k].text(), e["names"][k].at("text").get<std::string>());
            EXPECT_TRUE(r.names[k].plain());
            EXPECT_EQ(r.names[k].hash, mab::bone_hash(r.names[k].text()));  // JB-DOC: CRC-32 of the text
          }
          EXPECT_EQ(r.pointer_slot, 0u);
          ++records;
        }
      }
      if (d->events) {
        const auto& nodes = eb["event_chain"];
        ASSERT_EQ(d->events->size(), nodes.size());
        for (std::size_t i = 0; i < nodes.size(); ++i) {
          const auto& ev = (*d->events)[i];
          EXPECT_EQ(ev.offset, nodes[i].at("offset").get<std::uint32_t>());
          EXPECT_EQ(ev.time, nodes[i].at("time").get<float>());
          EXPECT_EQ(ev.type, nodes[i].at("type").get<std::uint32_t>());
          EXPECT_EQ(ev.size, nodes[i].at("size").get<std::uint16_t>());
          EXPECT_EQ(ev.next, nodes[i].at("next").get<std::uint16_t>());
          std::string hex;
          for (auto v : ev.payload) hex += "0123456789abcdef"[v >> 4], hex += "0123456789abcdef"[v & 15];
          EXPECT_EQ(hex, nodes[i].at("payload").get<std::string>());
          ++events;
        }
      }
    }
    EXPECT_EQ(records, 2u);
    EXPECT_EQ(events, 3u);
  }
}

// An inconsistent tag table or event chain leaves the clip decoded, keeps the bytes, and says
// why, by section and offset; decode_legacy_tags says the same for a clip whose tracks fail.
TEST(DecodeLegacy, InconsistentTagTablesAndEventChainsStayBytesWithAReason) {
  const auto path = mab::test::corpus_dir() / "fc2" / "retail_bank.mab";
  struct Case {
    const char* what;
    std::size_t slot, at;
    std::uint8_t value;
    const char* detail;
  };
  const Case cases[] = {
      {"a record count past the section", 6, 1, 1, "records of 172 bytes do not fit"},
      {"a non-zero byte after the records", 6, 4 + 2 * 172, 9, "non-zero byte after the last element"},
      {"an event's next offset inside its own node", 7, 10, 12, "falls inside its own"},
      {"an event's payload past the section", 7, 32, 0xF0, "payload needs"},
      {"a non-zero byte between event nodes", 7, 22, 1, "between event nodes"},
  };
  for (const auto& k : cases) {
    auto c = mab::read_container(mab::test::load(path));
    ASSERT_TRUE(c.ok());
    (*c->blocks[0].section_mut(k.slot))[k.at] = k.value;
    auto d = mab::decode_legacy_clip(*c, 0);
    ASSERT_TRUE(d.ok()) << k.what << ": " << d.error().message();
    const bool tags = k.slot == 6;
    EXPECT_EQ(tags ? d->tag_table.has_value() : d->events.has_value(), false) << k.what;
    const std::string& note = tags ? d->tag_table_note : d->events_note;
    EXPECT_NE(note.find(k.detail), std::string::npos) << k.what << ": " << note;
    EXPECT_NE(note.find(tags ? "sections[6]" : "sections[7]"), std::string::npos) << note;
    EXPECT_TRUE(tags ? d->events.has_value() : d->tag_table.has_value()) << k.what;
    // Unedited, the bytes are written back as they are.
    auto e = mab::encode_legacy_clip(*c, 0, *d);
    ASSERT_TRUE(e.ok()) << e.error().message();
    EXPECT_EQ(*mab::write_container(*e), *mab::write_container(*c));
  }
  // Tracks that do not decode: the tag table still does.
  auto c = mab::read_container(mab::test::load(path));
  ASSERT_TRUE(c.ok());
  (*c->blocks[0].section_mut(2))[0] = 99;
  EXPECT_FALSE(mab::decode_legacy_clip(*c, 0).ok());
  auto tags = mab::decode_legacy_tags(*c, 0);
  ASSERT_TRUE(tags.ok());
  ASSERT_TRUE(tags->tag_table.has_value());
  EXPECT_EQ(tags->tag_table->size(), 2u);
  EXPECT_EQ(mab::decode_legacy_tags(*c, 7).error().code, mab::ErrorCode::invalid_argument);
}

// Far Cry 3 Blood Dragon (0x62) is read with the guessed FC3 layout: where the clips are
// consistent they decode; a clip that is not stays bytes with the reason; a body the reading
// does not fit at all is kept opaque with the reason, where an FC3 file is an error.
TEST(DecodeLegacy, BloodDragonDecodesWhereTheFc3LayoutFitsAndIsOpaqueWhereNot) {
  const auto dir = mab::test::corpus_dir() / "fc3bd";
  auto clip = mab::read_container(mab::test::load(dir / "legacy_clip.mab"));
  ASSERT_TRUE(clip.ok());
  EXPECT_EQ(clip->variant->game, mab::Game::far_cry_3_blood_dragon);
  EXPECT_EQ(clip->variant->confidence, mab::Confidence::layout_unverified);
  auto d = mab::decode_legacy_clip(*clip, 0);
  ASSERT_TRUE(d.ok()) << d.error().message();
  EXPECT_EQ(d->frame_rate, 30.0f);  // the f32 rate of the FC3 reading

  auto bad = mab::read_container(mab::test::load(dir / "legacy_undecodable.mab"));
  ASSERT_TRUE(bad.ok());
  auto r = mab::decode_legacy_clip(*bad, 0);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, mab::ErrorCode::not_decodable);
  EXPECT_EQ(r.error().field, "sections[3]");
  EXPECT_NE(r.error().message().find("group 1 offset"), std::string::npos) << r.error().message();

  // An offset past the end: FC3 refuses the file; Blood Dragon keeps the body opaque.
  for (const char* game : {"fc3bd", "fc3"}) {
    auto bytes = mab::test::load(dir / "legacy_clip.mab");
    bytes[0] = game == std::string("fc3") ? 0x61 : 0x62;
    const std::size_t slot2 = 0x10 + 16 * 9 + 0x20 + 8 + 4 * 2;
    bytes[slot2 + 2] = 0x7F;  // sections[2] far past the end
    auto c = mab::read_container(bytes);
    if (game == std::string("fc3")) {
      ASSERT_FALSE(c.ok());
      EXPECT_EQ(c.error().field, "sections[2]");
      continue;
    }
    ASSERT_TRUE(c.ok()) << c.error().message();
    EXPECT_TRUE(c->is_opaque());
    EXPECT_NE(c->opaque_reason.find("the guessed FC3 layout does not fit"), std::string::npos) << c->opaque_reason;
    EXPECT_NE(c->opaque_reason.find("sections[2]"), std::string::npos) << c->opaque_reason;
    EXPECT_EQ(*mab::write_container(*c), bytes);
  }
}
