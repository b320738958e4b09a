// The survey's decode sanity checks on files that parse and write back but hold odd clips
// (docs/survey.md): key times that do not increase, a duration far from the last key, a
// constant rotation whose code is not a unit quaternion (D3), each named in the row and
// counted in the sanity histogram; a file that cannot be read is counted as unreadable.
#include <mab/codec_file.hpp>
#include <mab/json.hpp>
#include <mab/survey.hpp>

#include "support/corpus.hpp"
#include "support/json_edit.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <functional>

namespace {

using mab::test::edited_via_json;

TEST(SurveyInputs, OddClipsFailTheSanityChecksByName) {
  struct Case {
    std::vector<std::uint8_t> bytes;
    const char* sanity;     // start of FileResult::sanity after "block 0: "
    const char* histogram;  // the sanity histogram's value (variant, then kind)
  };
  std::vector<Case> cases;
  cases.push_back({edited_via_json("wd1/long_k100.mab", [](nlohmann::json& d) { d["clip"]["key_times"][3] = d["clip"]["key_times"][2]; }),
                   "key times do not increase at key 3", "wd1 key times do not increase"});
  cases.push_back({edited_via_json("wd1/long_k100.mab", [](nlohmann::json& d) { d["clip"]["duration"] = 200.0; }),
                   "duration 200.000000 s disagrees with the last key", "wd1 duration disagrees with the last key"});
  // A constant rotation stored as FF FF FF FF FF 7F: bit 15 of w2 clear, but every stored
  // component near its maximum, so 1 - a^2 - b^2 - c^2 < 0: a code with no valid quaternion
  // (it decodes renormalised, docs/format 9.1; the survey names the code).
  mab::Container c = mab::test::load_container(mab::test::corpus_dir() / "wd1" / "const_only_k9.mab");
  auto* constants = c.blocks[0].section_mut(4);
  ASSERT_NE(constants, nullptr);
  ASSERT_GE(constants->size(), 6u);
  std::fill(constants->begin(), constants->begin() + 6, 0xFF);
  (*constants)[5] = 0x7F;
  cases.push_back({*mab::write_container(c), "constant 0: a code with no valid quaternion",
                   "wd1 a code with no valid quaternion"});
  for (const auto& k : cases) {
    mab::survey::Stats stats;
    const auto r = mab::survey::survey_file(k.bytes, "odd.mab", stats);
    EXPECT_TRUE(r.parsed && r.round_trip) << r.first_error;
    EXPECT_FALSE(r.sane);
    EXPECT_EQ(r.sanity.rfind(std::string("block 0: ") + k.sanity, 0), 0u) << r.sanity;
    EXPECT_EQ(stats.at(mab::survey::h::sanity).buckets.count(k.histogram), 1u) << k.histogram;
    EXPECT_EQ(stats.sane, 0u);
  }
}

// Warnings (an 'aNp' signature, C14) are counted in the row; a long clip lands in the last
// duration bucket.
TEST(SurveyInputs, WarningsAndLongClipsAreCounted) {
  auto bytes = mab::test::load(mab::test::corpus_dir() / "wd1" / "long_k100.mab");
  std::size_t sig = 0;
  while (sig + 3 < 0x40 && !(bytes[sig] == 'a' && bytes[sig + 1] == 'N' && bytes[sig + 2] == 'i')) ++sig;
  ASSERT_LT(sig + 3, 0x40u);
  bytes[sig + 2] = 'p';
  mab::survey::Stats stats;
  const auto r = mab::survey::survey_file(bytes, "anp.mab", stats);
  EXPECT_TRUE(r.parsed && r.round_trip && r.sane) << r.first_error << r.sanity;
  EXPECT_GE(r.warnings, 1u);
  EXPECT_EQ(r.errors, 0u);
  const auto long_clip = edited_via_json("wd1/long_k100.mab", [](nlohmann::json& d) {
    d["clip"]["duration"] = 300.0;
    d["clip"]["key_times"].back() = 300 * 120;
  });
  mab::survey::survey_file(long_clip, "long.mab", stats);
  EXPECT_EQ(stats.at(mab::survey::h::durations).buckets.count("wd1 128.00 or more"), 1u);
}

TEST(SurveyInputs, UnreadableFilesAreCountedWithTheirError) {
  mab::survey::Stats stats;
  const auto r = mab::survey::unreadable("gone.mab", mab::make_error(mab::ErrorCode::io_error, mab::no_offset, "gone.mab",
                                                                      "No such file or directory"),
                                         stats);
  EXPECT_FALSE(r.sane);
  EXPECT_EQ(r.error_code, "io_error");
  EXPECT_EQ(r.first_error.rfind("read: io_error", 0), 0u) << r.first_error;
  EXPECT_EQ(stats.files, 1u);
  EXPECT_EQ(stats.at(mab::survey::h::variants).buckets.count("(unreadable)"), 1u);
  EXPECT_EQ(stats.at(mab::survey::h::errors).buckets.count("read io_error"), 1u);
}

}  // namespace
