// The survey's decode sanity checks on files that parse and write back but hold odd clips
// (docs/survey.md): key times that do not increase, a duration far from the last key, a
// constant rotation whose code is not a unit quaternion (decision 3), each named in the row and
// counted in the sanity histogram; a file that cannot be read is counted as unreadable.
#include <mab/json.hpp>
#include <mab/legacy.hpp>
#include <mab/quat.hpp>
#include <mab/survey.hpp>

#include "support/corpus.hpp"
#include "support/json_edit.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <cstring>
#include <functional>
#include <span>

namespace {

using mab::test::edited_via_json;

TEST(SurveyInputs, OddClipsFailTheSanityChecksByName) {
  struct Case {
    std::vector<std::uint8_t> bytes;
    const char* sanity;     // start of FileResult::sanity after "block 0: "
    const char* histogram;  // the sanity histogram's value (variant, then kind)
  };
  std::vector<Case> cases;
  cases.push_back({mab::test::with_key_times("wd1/long_k100.mab", [](std::vector<std::uint32_t>& t) { t[3] = t[2]; }),
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
  cases.push_back(
      {*mab::write_container(c), "constant 0: a code with no valid quaternion", "wd1 a code with no valid quaternion"});
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

// Warnings (an 'aNp' signature, format 16 (C14)) are counted in the row; a long clip lands in the last
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
  const auto r = mab::survey::unreadable(
      "gone.mab", mab::make_error(mab::ErrorCode::io_error, mab::no_offset, "gone.mab", "No such file or directory"),
      stats);
  EXPECT_FALSE(r.sane);
  EXPECT_EQ(r.error_code, "io_error");
  EXPECT_EQ(r.first_error.rfind("read: io_error", 0), 0u) << r.first_error;
  EXPECT_EQ(stats.files, 1u);
  EXPECT_EQ(stats.at(mab::survey::h::variants).buckets.count("(unreadable)"), 1u);
  EXPECT_EQ(stats.at(mab::survey::h::errors).buckets.count("read io_error"), 1u);
}

// Far Cry 2/3 clips with a stored code that holds no quaternion (a keyed bone, the trajectory)
// or a header duration far from lastFrame: each fails the legacy sanity check by name.
TEST(SurveyInputs, OddFarCryClipsFailTheSanityChecksByName) {
  const auto bytes = mab::test::load(mab::test::corpus_dir() / "fc2" / "all_arrays.mab");
  const auto c = mab::read_container(bytes);
  ASSERT_TRUE(c.ok());
  const auto d = mab::decode_legacy_clip(*c, 0);
  ASSERT_TRUE(d.ok());
  // Bytes `from` (stored once in the file) replaced by `to`.
  const auto patched = [&](std::span<const std::uint8_t> from, std::span<const std::uint8_t> to) {
    auto out = bytes;
    const auto at = std::search(out.begin(), out.end(), from.begin(), from.end());
    EXPECT_NE(at, out.end());
    EXPECT_EQ(std::search(at + 1, out.end(), from.begin(), from.end()), out.end()) << "stored more than once";
    if (at != out.end()) std::copy(to.begin(), to.end(), at);
    return out;
  };
  const std::array<std::uint8_t, 6> invalid = {0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x7F};
  struct Case {
    std::vector<std::uint8_t> bytes;
    std::string sanity;
    const char* histogram;
  };
  std::vector<Case> cases;
  const auto& t = d->rotations.at(0);
  cases.push_back({patched(mab::quat48_to_bytes(t.codes.back()), invalid),
                   "bone " + std::to_string(t.bone) + " key " + std::to_string(t.codes.size() - 1) +
                       ": a code with no valid quaternion",
                   "fc2 a code with no valid quaternion"});
  ASSERT_GE(d->trajectory_rotation_codes.size(), 2u);
  cases.push_back({patched(mab::quat48_to_bytes(d->trajectory_rotation_codes[1]), invalid),
                   "trajectory frame 1: a code with no valid quaternion", "fc2 a code with no valid quaternion"});
  const float far = d->duration + 100.0f;
  std::array<std::uint8_t, 4> was{}, now{};
  std::memcpy(was.data(), &d->duration, 4);
  std::memcpy(now.data(), &far, 4);
  cases.push_back({patched(was, now), "duration ", "fc2 duration disagrees with the last key"});
  for (const auto& k : cases) {
    mab::survey::Stats stats;
    const auto r = mab::survey::survey_file(k.bytes, "odd.mab", stats);
    EXPECT_TRUE(r.parsed && r.round_trip) << r.first_error;
    EXPECT_FALSE(r.sane);
    EXPECT_EQ(r.sanity.rfind("block 0: " + k.sanity, 0), 0u) << r.sanity;
    EXPECT_EQ(stats.at(mab::survey::h::sanity).buckets.count(k.histogram), 1u) << k.histogram;
  }
}

}  // namespace
