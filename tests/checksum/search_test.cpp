// crc-search: planted checksums must be found exactly; random fields must not match.
#include "checksum/plant.hpp"

#include <mab/crc_search.hpp>

#include <gtest/gtest.h>

namespace {

using namespace mab::checksum;
using mab::test::GenOptions;

ChecksumSpec spec_of(const std::string& text) {
  auto s = parse_spec(text);
  EXPECT_TRUE(s) << text << ": " << (s ? "" : s.error().message());
  return s ? *s : ChecksumSpec{};
}

// Same algorithm, same byte order, same concrete range in every file.
bool same_function(const ChecksumSpec& a, const ChecksumSpec& b, const std::vector<InputFile>& files) {
  if (!(a.algo == b.algo) || a.field != b.field) return false;
  for (const auto& f : files) {
    auto ra = resolve(a.range, f.bytes, a.field);
    auto rb = resolve(b.range, f.bytes, b.field);
    if (!ra || !rb || !(*ra == *rb)) return false;
  }
  return true;
}

struct Planted {
  const char* spec;
  GenOptions gen;
};

class PlantedSearch : public ::testing::TestWithParam<Planted> {};

TEST_P(PlantedSearch, FindsThePlantedChecksumFirst) {
  const auto& p = GetParam();
  auto files = mab::test::generate(p.gen);
  const auto planted = spec_of(p.spec);
  ASSERT_TRUE(mab::test::plant(files, planted));
  auto report = search(files, mab::test::quiet_options());
  ASSERT_TRUE(report) << report.error().message();
  ASSERT_FALSE(report->matches.empty()) << p.spec;
  const auto& top = report->matches.front();
  EXPECT_TRUE(same_function(top.spec, planted, files))
      << "planted: " << p.spec << "\nfound:   " << to_string(top.spec) << " (" << method_name(top.method) << ")";
  EXPECT_GE(top.evidence_bits, 20.0);
}

GenOptions sizes(std::vector<std::size_t> s, std::uint64_t seed = 1) {
  GenOptions g;
  g.sizes = std::move(s);
  g.seed = seed;
  return g;
}

INSTANTIATE_TEST_SUITE_P(
    Kinds, PlantedSearch,
    ::testing::Values(
        // Catalogue CRCs over each standard range, both byte orders.
        Planted{"algo=CRC-32/ISO-HDLC range=0x10..eof field=0x4:4:le", sizes({1500, 1300, 1100})},
        Planted{"algo=CRC-32/BZIP2 range=0x0..eof,zeroed field=0x4:4:le", sizes({1500, 1300, 1100}, 2)},
        Planted{"algo=CRC-32/ISCSI range=0x0..eof,skipped field=0x4:4:le", sizes({1500, 1300, 1100}, 3)},
        Planted{"algo=CRC-32/MPEG-2 range=ani..eof field=0x4:4:be", sizes({900, 1300, 1100}, 4)},
        Planted{"algo=CRC-16/ARC range=0x8..eof field=0x4:4:le", sizes({1500, 1300, 1100}, 5)},
        // Dunia's CRC-64 variant, high half, over animationDataSize bytes from 0x10.
        Planted{"algo=CRC-64/DUNIA part=high range=0x10..size field=0x4:4:le", sizes({1500, 1300, 1100}, 6)},
        Planted{"algo=CRC-64/XZ part=low range=0x8..eof field=0x4:4:le", sizes({1500, 1300, 1100}, 7)},
        // A range only the exhaustive sweep reaches.
        Planted{"algo=CRC-32/AUTOSAR range=0x30..eof-0x4 field=0x4:4:le", sizes({1500, 1300, 1100}, 8)},
        // Other checksums.
        Planted{"algo=adler32 range=0x8..eof field=0x4:4:le", sizes({1500, 1300, 1100}, 9)},
        Planted{"algo=fnv1a-32 range=0x10..eof field=0x4:4:le", sizes({1500, 1300, 1100}, 10)},
        Planted{"algo=fletcher32 range=0x0..eof,zeroed field=0x4:4:be", sizes({1500, 1300, 1100}, 11)},
        // The standard CRC-32 with another initial value.
        Planted{"algo=CRC-32/ISO-HDLC init=0x12345678 range=0x8..eof field=0x4:4:le", sizes({1500, 1300, 1100}, 12)},
        // Unknown polynomial with a non-zero init: the solver, from one equal-length pair.
        Planted{"width=32 poly=0x1f3a5c71 init=0x89abcdef refin=true refout=true xorout=0 range=0x8..eof "
                "field=0x4:4:le",
                sizes({1500, 1500, 1100}, 13)},
        Planted{"width=32 poly=0x2d1e3a59 init=0x0badf00d refin=false refout=false xorout=0xffffffff "
                "range=0x0..eof,zeroed field=0x4:4:be",
                sizes({1200, 1200, 1700}, 14)},
        // Field inside the covered range, removed before the CRC.
        Planted{"width=32 poly=0x6a5f0c3b init=0xffffffff refin=true refout=true xorout=0x5a5a5a5a "
                "range=0x0..eof,skipped field=0x4:4:le",
                sizes({1000, 1000, 1400, 1400, 800}, 15)}));

TEST(Search, UnknownInitAndXoroutFromFiveFiles) {
  // Two equal-length pairs and a fifth length leave enough equations to solve init
  // and xorout with no guess. The polynomial is irreducible: with a factor shared by
  // x^(8d) + 1 (d a length difference) some init bits would be undetermined.
  auto files = mab::test::generate(sizes({1000, 1000, 1300, 1300, 900}, 21));
  const auto planted =
      spec_of("width=32 poly=0x6a5f0c4d init=0x01234567 refin=false refout=false xorout=0x89abcdef range=0x10..eof");
  ASSERT_TRUE(mab::test::plant(files, planted));
  auto report = search(files, mab::test::quiet_options());
  ASSERT_TRUE(report);
  ASSERT_FALSE(report->matches.empty());
  EXPECT_TRUE(same_function(report->matches[0].spec, planted, files)) << to_string(report->matches[0].spec);
  EXPECT_EQ(report->matches[0].ambiguous_bits, 0u);
}

TEST(Search, AllEqualLengthsReportAmbiguousInitXorout) {
  auto files = mab::test::generate(sizes({900, 900, 900, 900}, 22));
  const auto planted = spec_of(
      "width=32 poly=0x3b4c5d6f init=0xffffffff refin=true refout=true xorout=0xffffffff "
      "range=0x8..eof");
  ASSERT_TRUE(mab::test::plant(files, planted));
  auto report = search(files, mab::test::quiet_options());
  ASSERT_TRUE(report);
  ASSERT_FALSE(report->matches.empty());
  const auto& top = report->matches[0];
  EXPECT_EQ(top.spec.algo.crc.poly, 0x3b4c5d6fu);
  EXPECT_EQ(top.ambiguous_bits, 32u);
  // The representative shown is the conventional one.
  EXPECT_EQ(top.spec.algo.crc.init, 0xffffffffu);
  EXPECT_EQ(top.spec.algo.crc.xorout, 0xffffffffu);
}

TEST(Search, RandomFieldsGiveNoMatch) {
  for (std::uint64_t seed : {31u, 32u, 33u}) {
    for (bool vary : {false, true}) {
      GenOptions g = sizes({1500, 1500, 1100}, seed);
      g.vary_header = vary;
      const auto files = mab::test::generate(g);
      auto report = search(files, mab::test::quiet_options());
      ASSERT_TRUE(report);
      EXPECT_TRUE(report->matches.empty())
          << "seed " << seed << ": false positive " << to_string(report->matches[0].spec) << " ("
          << method_name(report->matches[0].method) << ")";
      EXPECT_GT(report->stats.candidates, 100000u);
      EXPECT_GT(report->stats.solver_systems, 0u);
    }
  }
}

TEST(Search, RandomFieldsNoMatchWithoutEqualLengths) {
  const auto files = mab::test::generate(sizes({1500, 1400, 1100, 1000}, 41));
  auto report = search(files, mab::test::quiet_options());
  ASSERT_TRUE(report);
  EXPECT_TRUE(report->matches.empty()) << to_string(report->matches[0].spec);
}

TEST(Search, UnequalLengthsWithConventionalInit) {
  // No two files share a length: the solver guesses init 0 / all ones.
  auto files = mab::test::generate(sizes({1500, 1400, 1100, 1000}, 42));
  const auto planted =
      spec_of("width=32 poly=0x7a3e1d95 init=0xffffffff refin=true refout=true xorout=0 range=0x8..eof");
  ASSERT_TRUE(mab::test::plant(files, planted));
  auto report = search(files, mab::test::quiet_options());
  ASSERT_TRUE(report);
  ASSERT_FALSE(report->matches.empty());
  EXPECT_TRUE(same_function(report->matches[0].spec, planted, files)) << to_string(report->matches[0].spec);
}

TEST(Search, CopiesOfOneFileAreNotEvidence) {
  auto files = mab::test::generate(sizes({1500}, 51));
  ASSERT_TRUE(mab::test::plant(files, spec_of("algo=CRC-32/ISO-HDLC range=0x8..eof")));
  files.push_back(files[0]);
  files.push_back(files[0]);
  auto report = search(files, mab::test::quiet_options());
  ASSERT_TRUE(report);
  EXPECT_TRUE(report->matches.empty());
  EXPECT_GT(report->stats.weak_matches, 0u);
}

TEST(Search, RejectsBadInput) {
  auto files = mab::test::generate(sizes({100, 100, 100}));
  EXPECT_FALSE(search(std::span(files).first(1), mab::test::quiet_options()));
  auto o = mab::test::quiet_options();
  o.field.offset = 98;
  auto r = search(files, o);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, mab::ErrorCode::truncated);
}

}  // namespace
