// The survey's per-file checks and its bounded aggregates (lib/include/mab/survey.hpp).
#include <mab/survey.hpp>

#include "support/corpus.hpp"

#include <gtest/gtest.h>

namespace {

using mab::test::load;

TEST(Survey, GoodFilesPassEveryCheckAndBadFilesNameTheirError) {
  mab::survey::Stats stats;
  for (const auto& p : mab::test::good_files()) {
    const auto r = mab::survey::survey_file(load(p), p.string(), stats);
    EXPECT_TRUE(r.parsed && r.round_trip) << p << ": " << r.first_error;
    // A file built with codes that hold no quaternion (format 9.1) is the one not sane.
    const auto doc = mab::test::load_json(mab::test::expected_path(p));
    const bool invalid_codes = !doc["blocks"].empty() && doc["blocks"][0].contains("invalid_codes");
    EXPECT_EQ(r.sane, !invalid_codes) << p << ": " << r.sanity;
    EXPECT_EQ(invalid_codes, r.sanity.find("no valid quaternion") != std::string::npos) << r.sanity;
    ASSERT_TRUE(r.json_identity.has_value());
    EXPECT_TRUE(*r.json_identity) << p;
  }
  EXPECT_EQ(stats.files, mab::test::good_files().size());
  EXPECT_EQ(stats.round_trips, stats.files);
  for (const auto& p : mab::test::bad_files()) {
    const auto doc = mab::test::load_json(mab::test::expected_path(p));
    const auto r = mab::survey::survey_file(load(p), p.string(), stats);
    EXPECT_FALSE(r.first_error.empty()) << p;
    EXPECT_EQ(r.error_code, doc["error"].get<std::string>()) << p << ": " << r.first_error;
  }
}

TEST(Survey, HistogramsStayBoundedAndKeepExamples) {
  mab::survey::Histogram h;
  h.max_values = 4;
  for (int i = 0; i < 100; ++i) h.add("v" + std::to_string(i % 10), "file" + std::to_string(i), 2);
  EXPECT_EQ(h.buckets.size(), 5u);  // four values and "(other)"
  EXPECT_EQ(h.total, 100u);
  EXPECT_EQ(h.buckets["(other)"].count, 60u);
  EXPECT_EQ(h.buckets["v0"].examples.size(), 3u);
  EXPECT_EQ(h.buckets["v0"].bytes, 20u);
  mab::survey::Histogram g = h;
  g.merge(h);
  EXPECT_EQ(g.buckets["v1"].count, 20u);
  EXPECT_EQ(g.buckets.size(), 5u);
}

TEST(Survey, JsonCheckSamplesByPath) {
  const auto bytes = load(mab::test::corpus_dir() / "wd1" / "long_k100.mab");
  mab::survey::Options o;
  o.json_every = 0;
  mab::survey::Stats s;
  EXPECT_FALSE(mab::survey::survey_file(bytes, "a.mab", s, o).json_identity.has_value());
  o.json_every = 4;
  std::size_t checked = 0;
  for (int i = 0; i < 200; ++i)
    checked += mab::survey::survey_file(bytes, "f" + std::to_string(i), s, o).json_identity.has_value();
  EXPECT_GT(checked, 25u);
  EXPECT_LT(checked, 75u);
  // The same path is always checked or always not.
  const bool first = mab::survey::survey_file(bytes, "f7", s, o).json_identity.has_value();
  EXPECT_EQ(mab::survey::survey_file(bytes, "f7", s, o).json_identity.has_value(), first);
}

}  // namespace
