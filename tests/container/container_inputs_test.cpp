// Container files at the edges of what the readers accept: an 'aNp' signature (format 16 (C14)), two bones
// with one hash, animated bones without a JointRotations section, files and key counts over
// the caller's limits. Each reads, validates and decodes as documented: a warning where the
// file is kept as it is, an error naming the field where it cannot be decoded.
#include <mab/container.hpp>
#include <mab/decode_clip.hpp>
#include <mab/encode_clip.hpp>
#include <mab/json.hpp>
#include <mab/validate.hpp>

#include "support/cli_run.hpp"
#include "support/corpus.hpp"
#include "support/json_edit.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace {

using mab::test::corpus_dir;
using mab::test::load;

const mab::Finding* find(const std::vector<mab::Finding>& fs, const std::string& field) {
  for (const auto& f : fs)
    if (f.field == field) return &f;
  return nullptr;
}

// format 16 (C14): 'aNp' instead of 'aNi' is read and kept, with a warning.
TEST(ContainerInputs, AnApSignatureIsKeptWithAWarning) {
  auto bytes = load(corpus_dir() / "wd1" / "long_k100.mab");
  auto c = mab::read_container(bytes);
  ASSERT_TRUE(c.ok());
  std::size_t sig = 0;
  while (sig + 3 < 0x40 && !(bytes[sig] == 'a' && bytes[sig + 1] == 'N' && bytes[sig + 2] == 'i')) ++sig;
  ASSERT_LT(sig + 3, 0x40u);
  bytes[sig + 2] = 'p';
  auto p = mab::read_container(bytes);
  ASSERT_TRUE(p.ok()) << p.error().message();
  const auto findings = mab::validate(*p);
  const auto* f = find(findings, "signature");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->severity, mab::Severity::warning);
  EXPECT_EQ(mab::to_string(f->severity), "warning");
  EXPECT_NE(f->message.find("format 16 (C14)"), std::string::npos);
  EXPECT_FALSE(mab::has_errors(findings));
  EXPECT_EQ(*mab::write_container(*p), bytes);
  auto d = mab::decode_clip(*p);
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(*mab::encode_clip(*d, d->clip), bytes);
}

TEST(ContainerInputs, BonesSharingAHashAreAWarningNamingTheSecond) {
  const auto bytes = mab::test::with_hash_shared("wd1/long_k100.mab", 0, 2);
  const auto findings = mab::validate(*mab::read_container(bytes));
  const auto* f = find(findings, "bone_hashes[2]");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->severity, mab::Severity::warning);
  EXPECT_NE(f->message.find("duplicate bone hash 0xb6c65665"), std::string::npos) << f->message;
}

TEST(ContainerInputs, AnimatedBonesWithoutARotationSectionDoNotDecode) {
  mab::Container c = mab::test::load_container(corpus_dir() / "wd1" / "long_k100.mab");
  const int rotations = mab::ani_slots(mab::AniShape::wd1).rotations;
  c.blocks[0].slot_segment[static_cast<std::size_t>(rotations)] = -1;
  auto bytes = mab::write_container(c);
  ASSERT_TRUE(bytes.ok()) << bytes.error().message();
  auto back = mab::read_container(*bytes);
  ASSERT_TRUE(back.ok());
  auto d = mab::decode_clip(*back);
  ASSERT_FALSE(d.ok());
  EXPECT_EQ(d.error().code, mab::ErrorCode::count_mismatch) << d.error().message();
  EXPECT_EQ(d.error().field, "m_offsets[6]");
  // The CLI's verify says so in its JSON, with the severity words.
  const auto dir = mab::test::test_temp_dir("mab_container_inputs");
  ASSERT_TRUE(mab::write_file_atomic(dir / "norot.mab", *bytes).ok());
  const auto run = mab::test::run_mab("verify --json " + (dir / "norot.mab").string(), "2>/dev/null");
  EXPECT_EQ(run.status, 1) << run.out;
  EXPECT_NE(run.out.find("but no JointRotations section"), std::string::npos) << run.out;
  std::filesystem::remove_all(dir);
}

TEST(ContainerInputs, FilesAndKeyCountsOverTheCallersLimitsAreRefused) {
  const auto bytes = load(corpus_dir() / "wd1" / "long_k100.mab");
  mab::Limits small;
  small.max_file_size = bytes.size() - 1;
  auto c = mab::read_container(bytes, small);
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.error().code, mab::ErrorCode::limit_exceeded);
  EXPECT_EQ(c.error().field, "file");
  small = mab::default_limits;
  small.max_keys = 99;  // the clip has 100
  auto d = mab::decode_clip(*mab::read_container(bytes), 0, small);
  ASSERT_FALSE(d.ok());
  EXPECT_EQ(d.error().code, mab::ErrorCode::limit_exceeded);
  EXPECT_EQ(d.error().field, "KeyTimes");
  small = mab::default_limits;
  small.max_bones = 2;  // the clip has 3
  const auto findings = mab::validate(*mab::read_container(bytes), small);
  const auto* f = find(findings, "bones");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->severity, mab::Severity::error);
  EXPECT_EQ(mab::to_string(f->severity), "error");
}

TEST(ContainerInputs, MoreBlocksThanTheLimitAreRefused) {
  const auto bytes = load(corpus_dir() / "fc5" / "three_blocks.mab");
  ASSERT_TRUE(mab::read_container(bytes).ok());
  mab::Limits two;
  two.max_blocks = 2;
  auto c = mab::read_container(bytes, two);
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.error().code, mab::ErrorCode::limit_exceeded) << c.error().message();
}

// A Legion header whose frame rate is not a number: the clip still reads, at the default key
// rate of 30 (decision 7), and validate says why.
TEST(ContainerInputs, AFrameRateThatIsNotANumberFallsBackTo30) {
  mab::Container c = mab::test::load_container(corpus_dir() / "wdl" / "mixed_k9.mab");
  c.blocks[0].ani()->frame_rate_bits = 0x7FC00000u;
  const auto bytes = *mab::write_container(c);
  auto back = mab::read_container(bytes);
  ASSERT_TRUE(back.ok()) << back.error().message();
  EXPECT_EQ(mab::key_rate(*back, 0), 30.0);
  auto d = mab::decode_clip(*back);
  ASSERT_TRUE(d.ok()) << d.error().message();
  EXPECT_EQ(d->clip.key_rate, 30.0);
  EXPECT_EQ(*mab::encode_clip(*d, d->clip), bytes);
  const auto findings = mab::validate(*back);
  const auto* f = find(findings, "m_animFrameRate");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->severity, mab::Severity::warning);
}

}  // namespace
