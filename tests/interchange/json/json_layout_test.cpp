// The streaming JSON writer gives exactly the bytes the DOM-based writer it replaced gave
// (json_reference.hpp): every corpus file and block, container-only documents, and edited
// clips with awkward floats, names and sizes.
#include "interchange/json/json_reference.hpp"
#include "interchange/json/json_writer.hpp"
#include "support/corpus.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <limits>
#include <random>

namespace {

using mab::test::good_files;
using mab::test::load;
using mab::test::name_of;

void expect_same_text(const std::string& now, const std::string& before, const std::string& what) {
  if (now == before) return;
  std::size_t i = 0;
  while (i < now.size() && i < before.size() && now[i] == before[i]) ++i;
  FAIL() << what << ": first difference at byte " << i << "\nnow:    " << now.substr(i > 80 ? i - 80 : 0, 160)
         << "\nbefore: " << before.substr(i > 80 ? i - 80 : 0, 160);
}

void expect_same(const mab::Result<std::string>& now, const mab::Result<std::string>& before, const std::string& what) {
  ASSERT_EQ(now.ok(), before.ok()) << what;
  if (now.ok()) expect_same_text(*now, *before, what);
}

void expect_same(const std::string& now, const mab::Result<std::string>& before, const std::string& what) {
  ASSERT_TRUE(before.ok()) << what;
  expect_same_text(now, *before, what);
}

mab::JsonExportOptions version(std::uint32_t v, bool codes = false) {
  mab::JsonExportOptions o;
  o.version = v;
  o.codes = codes;
  return o;
}

// Version 1 documents are the DOM writer's bytes; version 2 documents are the same layout
// without "codes" (unless asked for). The default, version 3, differs from 2 for an 'aNi' block
// only by its number (JsonLayout.VersionTwoLeavesOutOnlyTheCodes).
TEST(JsonLayout, EveryCorpusDocumentIsByteIdenticalToTheDomWriter) {
  std::size_t docs = 0;
  for (const auto& p : good_files()) {
    auto c = mab::read_container(load(p));
    ASSERT_TRUE(c.ok()) << name_of(p);
    expect_same(mab::export_json(*c, "because", version(1)), reference::export_json(*c, "because"),
                name_of(p) + " container");
    expect_same(mab::export_json(*c, "because", version(2)), reference::export_json(*c, "because", 2),
                name_of(p) + " container v2");
    ++docs;
    for (std::size_t b = 0; b < c->blocks.size(); ++b) {
      auto d = mab::decode_clip(*c, b);
      if (!d) continue;
      const auto what = name_of(p) + " block " + std::to_string(b);
      expect_same(mab::export_json(*d, version(1)), reference::export_json(*d), what);
      expect_same(mab::export_json(*d, version(2)), reference::export_json(*d, 2), what + " v2");
      expect_same(mab::export_json(*d, version(2, true)), reference::export_json(*d, 2, true), what + " v2 codes");
      ++docs;
    }
  }
  EXPECT_GE(docs, good_files().size() + 40);  // 64 files as containers, 46 decoded blocks
}

// export_block_json (keys decoded as they are written, one decode for clip and codes) gives
// the bytes of export_json on decode_clip's or decode_legacy_clip's result, or of the
// container-only document with decode's reason, for every block, version and thread count.
TEST(JsonLayout, StoredBlockExportIsTheDecodedClipsDocument) {
  std::size_t clips = 0, legacy = 0, containers = 0;
  for (const auto& p : good_files()) {
    auto c = mab::read_container(load(p));
    ASSERT_TRUE(c.ok()) << name_of(p);
    for (std::size_t b = 0; b < std::max<std::size_t>(c->blocks.size(), 1); ++b) {
      for (const auto& o :
           {version(3), version(3, true), version(2), version(1), mab::JsonExportOptions{3, false, 2, 0}}) {
        const auto what = name_of(p) + " block " + std::to_string(b) + " v" + std::to_string(o.version) +
                          (o.codes ? " codes" : "") + " threads " + std::to_string(o.threads);
        mab::JsonExportReport report;
        const auto now = mab::export_block_json(*c, b, o, &report);
        ASSERT_TRUE(now.ok()) << what << ": " << now.error().message();
        auto d = mab::decode_clip(*c, b);
        auto l = mab::decode_legacy_clip(*c, b);
        if (d) {
          expect_same(now, mab::export_json(*d, o), what);
          EXPECT_TRUE(report.clip && report.clip_absent.empty()) << what;
          ++clips;
        } else if (l) {
          expect_same(now, mab::export_json(*c, *l, o), what);
          EXPECT_TRUE(report.clip && report.clip_absent.empty()) << what;
          ++legacy;
        } else {
          EXPECT_FALSE(report.clip) << what;
          EXPECT_FALSE(report.clip_absent.empty()) << what;
          expect_same(now, mab::export_json(*c, report.clip_absent, o), what);
          ++containers;
        }
        // Streamed in small pieces: the same bytes.
        std::string joined;
        const mab::JsonSink sink = [&](std::string_view t) {
          joined += t;
          return true;
        };
        mab::JsonExportOptions small = o;
        small.piece_size = 700;
        ASSERT_TRUE(mab::export_block_json(*c, b, sink, small).ok()) << what;
        expect_same(joined, now, what + " streamed");
      }
    }
  }
  EXPECT_GT(clips, 150u);
  EXPECT_GT(legacy, 50u);
  EXPECT_GT(containers, 10u);
  auto c = mab::read_container(load(mab::test::corpus_dir() / "wd1" / "long_k100.mab"));
  const auto missing = mab::export_block_json(*c, 1);
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().code, mab::ErrorCode::invalid_argument);
}

TEST(JsonLayout, VersionTwoLeavesOutOnlyTheCodes) {
  auto c = mab::read_container(load(mab::test::corpus_dir() / "wd1" / "long_k100.mab"));
  auto d = mab::decode_clip(*c);
  ASSERT_TRUE(d.ok());
  auto one = nlohmann::json::parse(mab::export_json(*d, version(1)).value());
  auto two = nlohmann::json::parse(mab::export_json(*d, version(2)).value());
  auto three = nlohmann::json::parse(mab::export_json(*d).value());
  auto two_codes = nlohmann::json::parse(mab::export_json(*d, version(2, true)).value());
  EXPECT_EQ(one["version"], 1);
  EXPECT_EQ(two["version"], 2);
  EXPECT_TRUE(one.contains("codes"));
  EXPECT_FALSE(two.contains("codes"));
  EXPECT_EQ(two_codes["codes"], one["codes"]);
  one.erase("codes");
  one["version"] = 2;
  EXPECT_EQ(one, two);
  EXPECT_EQ(three["version"], 3);  // the default; an 'aNi' block's version 3 is its version 2
  three["version"] = 2;
  EXPECT_EQ(three, two);
  for (const std::uint32_t bad : {0u, 4u}) {
    const auto r = mab::export_json(*d, version(bad));
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().code, mab::ErrorCode::invalid_argument);
    EXPECT_NE(r.error().message().find("version " + std::to_string(bad)), std::string::npos) << r.error().message();
  }
}

TEST(JsonLayout, EditedClipsWithAwkwardValuesAreByteIdentical) {
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  const float awkward[] = {0.0f,
                           -0.0f,
                           1e-45f,
                           -1e-38f,
                           3.4028235e38f,
                           0.1f,
                           1.0f / 3.0f,
                           0.70710677f,
                           std::numeric_limits<float>::quiet_NaN(),
                           std::numeric_limits<float>::infinity()};
  const std::string names[] = {
      "Root", "L Thigh", "quote\"back\\slash", "tab\tnew\nline\x01\x1f", "Kn\xc3\xa9", std::string(200, 'x')};
  std::size_t n = 0;
  for (const auto& p : good_files()) {
    auto c = mab::read_container(load(p));
    ASSERT_TRUE(c.ok());
    auto d = mab::decode_clip(*c);
    if (!d) continue;
    for (int round = 0; round < 3; ++round) {
      mab::DecodedClip e = *d;
      auto& clip = e.clip;
      clip.duration = awkward[rng() % std::size(awkward)];
      clip.key_rate = round == 2 ? std::numeric_limits<double>::quiet_NaN() : 30.0 * (1 + round);
      for (std::size_t i = 0; i < clip.bones.size(); ++i) {
        auto& b = clip.bones[i];
        b.name = names[(i + static_cast<std::size_t>(round)) % std::size(names)];
        for (auto& q : b.keys)
          q = rng() % 5 == 0 ? mab::Quat{awkward[rng() % 10], u(rng), -0.0f, u(rng)}
                             : mab::Quat{u(rng), u(rng), u(rng), u(rng)};
        b.constant = {u(rng), awkward[rng() % 10], u(rng), 1.0f};
      }
      // A long clip: many keys per bone, so bones span many lines.
      if (round == 1 && !clip.bones.empty())
        for (std::uint32_t k = 0; k < 300; ++k) {
          clip.key_times.push_back(clip.key_times.empty() ? k : clip.key_times.back() + 1 + k % 3);
          for (auto& b : clip.bones)
            if (b.kind() == mab::BoneKind::animated) b.keys.push_back({u(rng), u(rng), u(rng), u(rng)});
        }
      const auto before = reference::export_json(e);
      expect_same(mab::export_json(e, version(1)), before, name_of(p) + " round " + std::to_string(round));
      // Bones and chunks cut into runs written by several threads: the same bytes, for any
      // number of runs, including more runs than bones.
      for (const unsigned threads : {2u, 3u, 64u})
        expect_same(mab::export_json(e, {1, false, threads, 0}), before,
                    name_of(p) + " round " + std::to_string(round) + ", " + std::to_string(threads) + " threads");
      // Streamed in pieces of any size (1 byte: a piece at every spread-out element), on one
      // thread or several: the pieces join into the same bytes.
      for (const std::size_t piece : {std::size_t{1}, std::size_t{700}, std::size_t{1} << 20})
        for (const unsigned threads : {1u, 3u}) {
          std::string joined;
          std::size_t pieces = 0;
          const mab::JsonSink sink = [&](std::string_view t) {
            joined += t;
            ++pieces;
            return true;
          };
          mab::JsonExportOptions o = version(1);
          o.threads = threads;
          o.parallel_min_keys = 0;
          o.piece_size = piece;
          const auto st = mab::export_json(e, sink, o);
          ASSERT_TRUE(st.ok()) << st.error().message();
          expect_same(joined, before, name_of(p) + " streamed, pieces of " + std::to_string(piece));
          if (piece == 1) {
            EXPECT_GT(pieces, e.clip.bones.size());
          }
        }
      ++n;
    }
  }
  EXPECT_GT(n, 100u);
}

TEST(JsonLayout, AStreamStopsWhenTheSinkRefusesAndABadNameSendsNothing) {
  auto c = mab::read_container(load(mab::test::corpus_dir() / "wd1" / "long_k100.mab"));
  auto d = mab::decode_clip(*c);
  ASSERT_TRUE(d.ok());
  mab::JsonExportOptions o;
  o.piece_size = 100;
  std::size_t calls = 0;
  const mab::JsonSink refuse_third = [&](std::string_view) { return ++calls < 3; };
  const auto st = mab::export_json(*d, refuse_third, o);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().code, mab::ErrorCode::io_error);
  EXPECT_EQ(calls, 3u);  // nothing more is offered once refused

  d->clip.bones[0].name = "bad\xff";
  calls = 0;
  const mab::JsonSink count = [&](std::string_view) { return ++calls, true; };
  const auto bad = mab::export_json(*d, count, o);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().code, mab::ErrorCode::bad_value);
  EXPECT_EQ(calls, 0u);
}

TEST(JsonLayout, InvalidUtf8InANameIsAnErrorAsBefore) {
  auto c = mab::read_container(load(mab::test::corpus_dir() / "wd1" / "long_k100.mab"));
  auto d = mab::decode_clip(*c);
  ASSERT_TRUE(d.ok());
  d->clip.bones[0].name = "bad\xff";
  auto now = mab::export_json(*d, version(1));
  auto before = reference::export_json(*d);
  ASSERT_FALSE(now.ok());
  ASSERT_FALSE(before.ok());
  EXPECT_EQ(now.error().code, before.error().code);
}

}  // namespace

namespace {

// The old two-step float text (json_reference.hpp's float_json + append_number), exactly.
std::string old_float_text(float f) {
  std::string out;
  reference::append_inline(reference::float_json(f), out);
  return out;
}

std::string new_float_text(float f) {
  std::string out;
  mab::json_out::Writer w(out);
  w.scalar_array([&] { w.float_value(f); });
  w.finish();
  return out.substr(1, out.size() - 2);
}

// The writer prints a float's own shortest text except where that differs from the old
// two-step text; the exhaustive check over all 2^32 floats found two such values.
TEST(JsonLayout, FloatTextMatchesTheOldTwoStepTextOnTwoMillionFloats) {
  std::mt19937 rng(11);
  std::size_t n = 0;
  auto check = [&](std::uint32_t bits) {
    float f;
    std::memcpy(&f, &bits, sizeof f);
    ASSERT_EQ(new_float_text(f), old_float_text(f)) << std::hex << bits;
    ++n;
  };
  check(0x15AE43FDu);
  check(0x95AE43FDu);
  for (std::uint32_t b : {0u, 0x80000000u, 1u, 0x7F7FFFFFu, 0x3F800000u, 0x7F800000u, 0x7FC00000u}) check(b);
  for (int i = 0; i < 2000000; ++i) check(static_cast<std::uint32_t>(rng()));
  EXPECT_GT(n, 2000000u);
}

}  // namespace
