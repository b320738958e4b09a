// validate_decode on damaged files: a code with no valid quaternion written over each stored
// rotation code of the corpus, as a bad copy or another tool leaves it. Each is reported at the
// offset it was written to (keys at a group's first frame and keys after the presence bytes,
// format 13; root rotations, format 10.2), and a file full of them is summed up past the cap.
#include <mab/decode_clip.hpp>
#include <mab/legacy.hpp>
#include <mab/quat.hpp>
#include <mab/validate.hpp>

#include "support/corpus.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <functional>
#include <string>
#include <vector>

namespace {

using mab::test::corpus_dir;
using mab::test::load;

// FF FF FF FF FF 7F: every stored component near its largest, so 1 - a^2 - b^2 - c^2 < 0.
constexpr std::array<std::uint8_t, 6> kInvalid = {0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x7F};

// Where `code` is stored in `bytes`, when it is stored exactly once (else npos).
std::size_t unique_at(const std::vector<std::uint8_t>& bytes, const mab::Quat48& code) {
  const auto b = mab::quat48_to_bytes(code);
  const auto first = std::search(bytes.begin(), bytes.end(), b.begin(), b.end());
  if (first == bytes.end()) return std::string::npos;
  if (std::search(first + 1, bytes.end(), b.begin(), b.end()) != bytes.end()) return std::string::npos;
  return static_cast<std::size_t>(first - bytes.begin());
}

std::vector<mab::Finding> code_warnings(const std::vector<std::uint8_t>& bytes) {
  auto c = mab::read_container(bytes);
  EXPECT_TRUE(c.ok());
  std::vector<mab::Finding> out;
  if (!c) return out;
  for (const auto& f : mab::validate_decode(*c))
    if (f.severity == mab::Severity::warning && f.message.find("no valid quaternion") != std::string::npos)
      out.push_back(f);
  return out;
}

// Every keyed rotation code of the Far Cry 2/3 corpus whose bytes occur once in its file.
TEST(ValidateDecodeInputs, EachInvalidKeyedCodeIsReportedWhereItLies) {
  std::size_t at_group = 0, after_presence = 0;
  for (const char* dir : {"fc2", "fc3"}) {
    for (const auto& entry : std::filesystem::directory_iterator(corpus_dir() / dir)) {
      if (entry.path().extension() != ".mab") continue;
      const auto bytes = load(entry.path());
      const auto c = mab::read_container(bytes);
      ASSERT_TRUE(c.ok());
      for (std::size_t blk = 0; blk < c->blocks.size(); ++blk) {
        const auto d = mab::decode_legacy_clip(*c, blk);
        if (!d) continue;
        for (const auto& t : d->rotations)
          for (std::size_t k = 0; k < t.codes.size(); ++k) {
            if (!mab::quat48_valid(t.codes[k])) continue;
            const std::size_t at = unique_at(bytes, t.codes[k]);
            if (at == std::string::npos) continue;
            auto damaged = bytes;
            std::copy(kInvalid.begin(), kInvalid.end(), damaged.begin() + static_cast<std::ptrdiff_t>(at));
            const auto ws = code_warnings(damaged);
            const bool found = std::any_of(ws.begin(), ws.end(), [&](const mab::Finding& f) { return f.offset == at; });
            EXPECT_TRUE(found) << entry.path().filename() << " bone " << t.bone << " frame " << t.frames[k] << " at "
                               << at;
            ++(t.frames[k] % 8 == 0 ? at_group : after_presence);
          }
      }
    }
  }
  EXPECT_GT(at_group, 0u);
  EXPECT_GT(after_presence, 0u);
}

// More codes than the findings list holds: the first ones by name, then one line counting the rest.
TEST(ValidateDecodeInputs, ManyInvalidCodesEndInACount) {
  for (const char* rel : {"fc2/many_tracks.mab", "fc2/all_arrays.mab"}) {
    auto bytes = load(corpus_dir() / rel);
    const auto c = mab::read_container(bytes);
    ASSERT_TRUE(c.ok());
    const auto d = mab::decode_legacy_clip(*c, 0);
    ASSERT_TRUE(d.ok()) << rel;
    std::size_t written = 0;
    const auto original = bytes;
    for (const auto& t : d->rotations)
      for (const auto& code : t.codes)
        if (const std::size_t at = unique_at(original, code); at != std::string::npos) {
          std::copy(kInvalid.begin(), kInvalid.end(), bytes.begin() + static_cast<std::ptrdiff_t>(at));
          ++written;
        }
    if (written <= 16) continue;
    const auto ws = code_warnings(bytes);
    ASSERT_FALSE(ws.empty());
    EXPECT_NE(ws.back().message.find(std::to_string(written - 16) + " more code(s)"), std::string::npos)
        << rel << ": " << ws.back().message;
    return;
  }
  FAIL() << "no corpus clip holds more than 16 keyed codes stored once";
}

// Root rotations (DisplacementOrientations) of the 'aNi' / FC4 corpus: the motion decoder only
// takes a reading whose codes are all unit (format 10.2), so a code with no quaternion leaves the
// section kept as bytes, and verify says why (the square sum of the damaged key).
TEST(ValidateDecodeInputs, AnInvalidRootRotationCodeLeavesTheSectionOpaqueAndSaysWhy) {
  std::size_t tried = 0;
  for (const char* dir : {"wd1", "wd2", "wdl", "fc4", "fc5"}) {
    if (!std::filesystem::exists(corpus_dir() / dir)) continue;
    for (const auto& entry : std::filesystem::directory_iterator(corpus_dir() / dir)) {
      if (entry.path().extension() != ".mab") continue;
      const auto bytes = load(entry.path());
      const auto c = mab::read_container(bytes);
      if (!c) continue;
      const auto d = mab::decode_clip(*c, 0);
      if (!d || d->motion.root_rotation_codes.empty()) continue;
      const std::size_t at = unique_at(bytes, d->motion.root_rotation_codes.front());
      if (at == std::string::npos) continue;
      auto damaged = bytes;
      std::copy(kInvalid.begin(), kInvalid.end(), damaged.begin() + static_cast<std::ptrdiff_t>(at));
      const auto back = mab::decode_clip(*mab::read_container(damaged), 0);
      ASSERT_TRUE(back.ok()) << entry.path().filename();
      EXPECT_TRUE(back->motion.root_rotation_codes.empty()) << entry.path().filename();
      std::string all;
      bool said = false;
      for (const auto& f : mab::validate_decode(*mab::read_container(damaged))) {
        all += f.field + ": " + f.message + "\n";
        said = said || ((f.field + f.message).find("DisplacementOrientations") != std::string::npos &&
                        f.message.find("square-sum") != std::string::npos);
      }
      EXPECT_TRUE(said) << entry.path().filename() << " at " << at << "\n" << all;
      ++tried;
    }
  }
  EXPECT_GT(tried, 0u);
}

}  // namespace
