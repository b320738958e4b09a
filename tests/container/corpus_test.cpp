// Every corpus file: byte-identical round trip, summary equal to the generator's
// expectation, no validation error, and robustness to truncation and corruption.
#include <mab/container.hpp>
#include <mab/validate.hpp>

#include "support/corpus.hpp"

#include <gtest/gtest.h>

#include <cctype>
#include <map>
#include <random>
#include <tuple>

namespace {

using mab::test::good_files;
using mab::test::load;
using mab::test::name_of;

class CorpusFile : public ::testing::TestWithParam<std::filesystem::path> {};

std::string param_name(const ::testing::TestParamInfo<std::filesystem::path>& info) {
  std::string s = name_of(info.param);
  for (auto& ch : s)
    if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
  return s;
}

TEST(Corpus, IsPresent) {
  EXPECT_GE(good_files().size(), 40u) << "run scripts/gen_corpus.py";
  EXPECT_GE(mab::test::bad_files().size(), 10u);
}

TEST_P(CorpusFile, RoundTripsByteForByte) {
  const auto bytes = load(GetParam());
  ASSERT_FALSE(bytes.empty());
  auto c = mab::read_container(bytes);
  ASSERT_TRUE(c.ok()) << c.error().message();
  auto w = mab::write_container(*c);
  ASSERT_TRUE(w.ok()) << w.error().message();
  EXPECT_EQ(*w, bytes);
}

TEST_P(CorpusFile, HasNoValidationErrors) {
  const auto bytes = load(GetParam());
  auto c = mab::read_container(bytes);
  ASSERT_TRUE(c.ok()) << c.error().message();
  for (const auto& f : mab::validate(*c))
    EXPECT_NE(f.severity, mab::Severity::error) << f.field << " at " << f.offset << ": " << f.message;
}

TEST_P(CorpusFile, MatchesGeneratorSummary) {
  const auto bytes = load(GetParam());
  const auto exp = mab::test::load_json(mab::test::expected_path(GetParam()));
  auto c = mab::read_container(bytes);
  ASSERT_TRUE(c.ok()) << c.error().message();
  EXPECT_EQ(c->variant->short_name, exp.at("variant").get<std::string>());
  EXPECT_EQ(bytes.size(), exp.at("file_size").get<std::size_t>());
  const auto& eblocks = exp.at("blocks");
  ASSERT_EQ(c->blocks.size(), eblocks.size());
  auto pl = mab::place(*c);
  ASSERT_TRUE(pl.ok());
  for (std::size_t k = 0; k < eblocks.size(); ++k) {
    SCOPED_TRACE("block " + std::to_string(k));
    const auto& eb = eblocks[k];
    const auto& b = c->blocks[k];
    // FC4 offsets count from 0x18; the model's block starts at 0x10 with the 8 bytes before 'aNi'.
    const std::uint64_t rel = b.fc4() ? 8 : 0;
    EXPECT_EQ(pl->blocks[k].base + rel, eb.at("base").get<std::uint64_t>());
    if (eb.contains("bones")) {
      ASSERT_EQ(b.bones.size(), eb.at("bones").size());
      for (std::size_t i = 0; i < b.bones.size(); ++i) {
        EXPECT_EQ(b.bones[i].hash, eb["bones"][i].at("hash").get<std::uint32_t>());
        EXPECT_EQ(b.bones[i].flags, eb["bones"][i].at("flags").get<std::uint8_t>());
      }
    }
    if (const auto* a = b.ani()) {
      EXPECT_EQ(a->bone_count_field, eb.at("bone_count_field").get<std::uint16_t>());
      EXPECT_EQ(a->flags, eb.at("flags").get<std::uint8_t>());
      EXPECT_EQ(a->animation_data_size, eb.at("animation_data_size").get<std::uint32_t>());
      EXPECT_EQ(a->data_counts, eb.at("data_counts").get<std::vector<std::uint16_t>>());
      EXPECT_FLOAT_EQ(a->duration(), eb.at("duration").get<float>());
      if (!eb.at("last_frame").is_null()) {
        EXPECT_EQ(a->last_frame, eb.at("last_frame").get<std::uint16_t>());
      }
    }
    // Sections: every non-zero slot with its offset and extent (format 8.3).
    std::map<std::size_t, std::tuple<std::uint64_t, std::uint64_t, std::uint64_t>> want, got;
    for (const auto& s : eb.at("sections"))
      want[s.at("slot").get<std::size_t>()] = {s.at("offset").get<std::uint64_t>(),
                                               s.at("file_offset").get<std::uint64_t>(),
                                               s.at("size").get<std::uint64_t>()};
    for (std::size_t slot = 0; slot < b.slot_segment.size(); ++slot) {
      if (b.slot_segment[slot] < 0) continue;
      if (b.fc4() && slot >= 10) continue;  // the bone table offsets, checked through the bones
      const auto& ps = pl->blocks[k].segments[static_cast<std::size_t>(b.slot_segment[slot])];
      got[slot] = {ps.offset - rel, pl->blocks[k].base + ps.offset, ps.size};
    }
    EXPECT_EQ(got, want);
  }
}

TEST_P(CorpusFile, EveryTruncationParsesOrFailsCleanly) {
  const auto bytes = load(GetParam());
  for (std::size_t len = 0; len < bytes.size(); ++len) {
    std::span<const std::uint8_t> prefix(bytes.data(), len);
    auto c = mab::read_container(prefix);
    if (c.ok()) {
      // Anything that parses must write back exactly what was read.
      auto w = mab::write_container(*c);
      ASSERT_TRUE(w.ok()) << len;
      ASSERT_TRUE(std::equal(w->begin(), w->end(), prefix.begin(), prefix.end())) << "length " << len;
      (void)mab::validate(*c);
    } else {
      ASSERT_NE(c.error().code, mab::ErrorCode::ok);
      ASSERT_NE(c.error().offset, mab::no_offset) << c.error().message();
      ASSERT_LE(c.error().offset, len) << c.error().message();
      ASSERT_FALSE(c.error().field.empty()) << c.error().message();
    }
  }
}

TEST_P(CorpusFile, SingleByteCorruptionsParseOrFailCleanly) {
  const auto original = load(GetParam());
  std::mt19937 rng(1234);
  std::vector<std::size_t> positions;
  for (std::size_t i = 0; i < std::min<std::size_t>(original.size(), 0x100); ++i) positions.push_back(i);
  for (int i = 0; i < 64 && !original.empty(); ++i) positions.push_back(rng() % original.size());
  for (const std::size_t pos : positions) {
    for (const int kind : {0, 1, 2, 3}) {
      auto bytes = original;
      const std::uint8_t v = bytes[pos];
      bytes[pos] = kind == 0   ? std::uint8_t(v ^ 0xFF)
                   : kind == 1 ? std::uint8_t(0)
                   : kind == 2 ? std::uint8_t(v ^ 0x80)
                               : std::uint8_t(v + 1);
      auto c = mab::read_container(bytes);
      if (c.ok()) {
        auto w = mab::write_container(*c);
        ASSERT_TRUE(w.ok()) << pos;
        ASSERT_EQ(*w, bytes) << "corruption at " << pos;
        (void)mab::validate(*c);
      } else {
        ASSERT_NE(c.error().code, mab::ErrorCode::ok);
        ASSERT_NE(c.error().offset, mab::no_offset) << c.error().message();
        ASSERT_FALSE(c.error().field.empty()) << c.error().message();
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Good, CorpusFile, ::testing::ValuesIn(good_files()), param_name);

// Bad files: each fails at the stage, with the code, field and offset its
// expected.json names.
class BadFile : public ::testing::TestWithParam<std::filesystem::path> {};

TEST_P(BadFile, FailsWithTheDocumentedError) {
  const auto bytes = load(GetParam());
  const auto exp = mab::test::load_json(mab::test::expected_path(GetParam()));
  const auto code = exp.at("error").get<std::string>();
  const auto field = exp.at("field").get<std::string>();
  const auto offset = exp.at("offset").get<std::uint64_t>();
  auto c = mab::read_container(bytes);
  if (exp.at("stage") == "parse") {
    ASSERT_FALSE(c.ok()) << "parsed, expected " << code;
    EXPECT_EQ(mab::to_string(c.error().code), code) << c.error().message();
    EXPECT_EQ(c.error().field, field) << c.error().message();
    EXPECT_EQ(c.error().offset, offset) << c.error().message();
  } else {
    ASSERT_TRUE(c.ok()) << c.error().message();
    const auto findings = mab::validate(*c);
    bool found = false;
    for (const auto& f : findings)
      found |= f.severity == mab::Severity::error && mab::to_string(f.code) == code && f.field == field &&
               f.offset == offset;
    std::string all;
    for (const auto& f : findings)
      all += std::string(mab::to_string(f.code)) + " " + f.field + " @" + std::to_string(f.offset) + "; ";
    EXPECT_TRUE(found) << "want " << code << " " << field << " @" << offset << ", got: " << all;
  }
}

INSTANTIATE_TEST_SUITE_P(Bad, BadFile, ::testing::ValuesIn(mab::test::bad_files()), param_name);

}  // namespace
