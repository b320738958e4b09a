// `mab edit` and `mab convert` given arguments and files they cannot honour: each exits 1 with
// one line naming the operation and why, and writes nothing (docs/edit.md). Odd files (key
// times that repeat or go back, a clip too long for the target's key rate, bone count flag
// bits) are made the way a user makes them: a JSON document edited and imported.
#include <mab/decode_clip.hpp>
#include <mab/json.hpp>

#include "support/cli_run.hpp"
#include "support/corpus.hpp"
#include "support/json_edit.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace {

using mab::test::corpus_dir;

class EditInputs : public ::testing::Test {
 protected:
  std::filesystem::path dir;
  void SetUp() override { dir = mab::test::test_temp_dir("mab_edit_inputs"); }
  void TearDown() override { std::filesystem::remove_all(dir); }

  // Runs `mab ARGS`; expects exit `status` (1: refused, 2: usage, docs/cli.md), `phrase` in its
  // one-line error, and no output file.
  void refused(const std::string& args, const std::string& phrase, int status = 1) {
    const auto out = dir / "out.mab";
    std::string err;
    const auto r = mab::test::run_mab_split(args + " -o " + out.string(), &err);
    EXPECT_EQ(r.status, status) << args << "\n" << r.out << err;
    EXPECT_NE(err.find(phrase), std::string::npos) << args << ": " << err;
    EXPECT_EQ(std::count(err.begin(), err.end(), '\n'), 1) << err;
    EXPECT_FALSE(std::filesystem::exists(out)) << args;
  }
  std::string written(const std::string& args) {
    const auto out = dir / "ok.mab";
    std::filesystem::remove(out);
    std::string err;
    const auto r = mab::test::run_mab_split(args + " -o " + out.string(), &err);
    EXPECT_EQ(r.status, 0) << args << "\n" << r.out << err;
    EXPECT_TRUE(std::filesystem::exists(out)) << args;
    return r.out;
  }
  // corpus file `rel` edited through its JSON document (support/json_edit.hpp), written to dir/NAME.
  std::string from_json(const char* rel, const std::string& name, const std::function<void(nlohmann::json&)>& edit) {
    const auto p = dir / name;
    EXPECT_TRUE(mab::write_file_atomic(p, mab::test::edited_via_json(rel, edit)).ok());
    return p.string();
  }
};

TEST_F(EditInputs, NumbersOutsideWhatAnOperationTakes) {
  const std::string f = (corpus_dir() / "wd1" / "long_k100.mab").string();
  refused("edit " + f + " --speed 0", "--speed");
  refused("edit " + f + " --speed -2", "positive");
  refused("edit " + f + " --speed 0.0001", "65535");  // 5.5 s at 120 ticks/s, 10000 times slower
  refused("edit " + f + " --trim 2 1", "START < END");
  refused("edit " + f + " --trim -1 1", "START < END");
  refused("edit " + f + " --resample 0", "positive");
  refused("edit " + f + " --resample 1e9", "65536 keys");
  refused("edit " + f + " --bits Root 17", "1..16", 2);
  refused("edit " + f + " --bits Root 0", "1..16", 2);
  refused("edit " + f + " --reduce -1", "degrees >= 0");
  refused("edit " + f + " --reduce nan", "not a number", 2);
  refused("edit " + f + " --speed inf", "not a number", 2);
  refused("edit " + f + " --rename-bone 0xB6C65665 0xB6C65665", "already has hash 0xB6C65665");
  refused("edit " + f + " --rename-bone 0xB6C65665 0x123456789", "at most 8 hex digits");
  refused("edit " + f + " --add-bone \"\" 0,0,0,1", "needs a name");
  refused("edit " + f + " --rotate-bone Nobody 0,0,1@10", "Nobody");
}

TEST_F(EditInputs, BonesWithoutARotationAndTracksFromElsewhere) {
  // wd1/mixed_k16_nonascending.mab: bones 0x530EC1CB and 0x07C159A2 have no rotation.
  const std::string f = (corpus_dir() / "wd1" / "mixed_k16_nonascending.mab").string();
  refused("edit " + f + " --rotate-bone 0x530EC1CB 0,0,1@10", "no rotation to turn");
  // The same bone, given by its hash as a decimal number.
  refused("edit " + f + " --rotate-bone 1393476043 0,0,1@10", "no rotation to turn");
  refused("edit " + f + " --copy-track " + f + " 0x530EC1CB", "no rotation in the source");
  const std::string other = (corpus_dir() / "wd1" / "long_k100.mab").string();
  // Regression: a hash that names no bone was reported only as the CRC-32 of its text.
  refused("edit " + f + " --copy-track " + other + " 0x12345678", "no bone with hash 0x12345678");
  // A constant bone of the source becomes a constant bone here.
  written("edit " + other + " --copy-track " + f + " 0xB021FD58");
  auto d = mab::decode_clip(mab::test::load_container(dir / "ok.mab"));
  ASSERT_TRUE(d.ok());
  const int b = d->clip.find_bone(0xB021FD58u);
  ASSERT_GE(b, 0);
  EXPECT_EQ(d->clip.bones[static_cast<std::size_t>(b)].kind(), mab::BoneKind::constant);
}

// Key times that repeat or go back (a JSON document may say so, and the file keeps them):
// operations that move keys in time refuse them, naming the key.
TEST_F(EditInputs, KeyTimesThatDoNotIncreaseCannotBeRetimed) {
  // Times that do not increase (a damaged file's: a JSON import refuses them).
  auto with_times = [&](const char* name, const std::function<void(std::vector<std::uint32_t>&)>& edit) {
    const auto p = dir / name;
    EXPECT_TRUE(mab::write_file_atomic(p, mab::test::with_key_times("wd1/long_k100.mab", edit)).ok());
    return p.string();
  };
  const auto repeat = with_times("repeat.mab", [](std::vector<std::uint32_t>& t) { t[2] = t[1]; });
  const auto back = with_times("back.mab", [](std::vector<std::uint32_t>& t) { t[2] = t[1] - 1; });
  for (const auto& f : {repeat, back}) {
    refused("edit " + f + " --speed 2", "key 2");
    refused("edit " + f + " --trim 0.1 1", "increasing key times");
    refused("edit " + f + " --resample 30", "increasing key times");
    refused("edit " + f + " --reverse", "increasing key times");
    refused("convert " + f + " --to wdl", "key times do not increase at key 2");
  }
}

TEST_F(EditInputs, ConversionsTheTargetCannotHold) {
  // Legion frames at 30/s: 20,000 frames are 80,000 WD1 ticks, past the u16 key times.
  const auto longer =
      from_json("wdl/mixed_k9.mab", "long.mab", [](nlohmann::json& d) { d["clip"]["key_times"].back() = 20000; });
  refused("convert " + longer + " --to wd1", "65535");
  // m_nbBonesInAnim flag bits 0x5000 (decision 5): WD1 would read them as bone count bits.
  const std::string high = (corpus_dir() / "wdl" / "highflags_k17.mab").string();
  refused("convert " + high + " --to wd1", "m_nbBonesInAnim flag bits 0x5000");
  const auto out = written("convert " + high + " --to wd1 --drop-unmappable");
  EXPECT_NE(out.find("m_nbBonesInAnim flag bits 0x5000"), std::string::npos) << out;
}

}  // namespace
