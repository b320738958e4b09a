// docs/legacy.md, items 8-11 end to end: Far Cry 2/3 clips in survey, diff and convert; verify's
// warnings for clips that do not decode and codes with no valid quaternion; diff on the union
// of both key timelines and on JSON documents; import's report of kept and added keys.
#include <mab/decode_clip.hpp>
#include <mab/encode_clip.hpp>
#include <mab/file_io.hpp>
#include <mab/legacy.hpp>

#include "support/cli_run.hpp"
#include "support/corpus.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <sstream>

namespace {

using mab::test::CliRun;
using mab::test::corpus_dir;

std::filesystem::path temp_dir() { return mab::test::test_temp_dir("mab_legacy_cli"); }

CliRun run(const std::string& args, std::string* err = nullptr) { return mab::test::run_mab_split(args, err); }

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

void write(const std::filesystem::path& p, const mab::Container& c) {
  auto bytes = mab::write_container(c);
  ASSERT_TRUE(bytes.ok());
  ASSERT_TRUE(mab::write_file_atomic(p, *bytes).ok());
}

std::string read_text(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// Why: `mab verify --strict` passed files whose legacy clip does not decode, and files holding
// a code with no valid quaternion. Now each is a warning with its reason (so --strict fails).
TEST(LegacyCli, VerifyWarnsOnClipsThatDoNotDecodeAndOnInvalidCodes) {
  const auto dir = temp_dir();
  auto c = mab::test::load_container(corpus_dir() / "fc2" / "all_arrays.mab");
  auto& s3 = *c.blocks[0].section_mut(3);
  s3[12] = static_cast<std::uint8_t>(s3[12] + 2);  // group 1's offset, off by 2
  write(dir / "group_off_by_2.mab", c);
  auto plain = run("verify " + (dir / "group_off_by_2.mab").string());
  EXPECT_EQ(plain.status, 0) << plain.out;
  EXPECT_TRUE(has(plain.out, "1 warnings")) << plain.out;
  EXPECT_TRUE(has(plain.out, "warning: block 0: not_decodable")) << plain.out;
  EXPECT_TRUE(has(plain.out, "group 1 offset")) << plain.out;
  auto strict = run("verify --strict " + (dir / "group_off_by_2.mab").string());
  EXPECT_EQ(strict.status, 1) << strict.out;
  EXPECT_TRUE(has(strict.out, "FAIL")) << strict.out;
  EXPECT_TRUE(has(strict.out, "sections[3]")) << strict.out;
  EXPECT_TRUE(has(strict.out, "do not decode")) << strict.out;

  const auto invalid = corpus_dir() / "fc2" / "invalid_quaternion.mab";
  const auto want = mab::test::load_json(mab::test::expected_path(invalid))["blocks"][0]["invalid_codes"];
  auto j = run("verify --strict --json " + invalid.string());
  EXPECT_EQ(j.status, 1) << j.out;
  const auto doc = nlohmann::json::parse(j.out);
  std::size_t named = 0;
  for (const auto& f : doc["files"][0]["findings"])
    for (const auto& w : want)
      named += has(f["message"].get<std::string>(), w.get<std::string>()) && f["severity"] == "warning";
  EXPECT_EQ(named, want.size()) << j.out;
  // The corpus itself still verifies (warnings are not failures without --strict).
  auto all = run("verify -q " + corpus_dir().string());
  EXPECT_EQ(all.status, 0) << all.out;
}

// Why: `mab survey` listed Far Cry 2/3 rotation and tag sections as opaque and its CSV said
// decoded_blocks=0, while info, dump and export decode them.
TEST(LegacyCli, SurveyCountsFarCry2And3ClipsAsDecoded) {
  const auto dir = temp_dir();
  std::size_t files = 0, clips = 0;
  for (const auto& p : mab::test::legacy_files()) {
    std::filesystem::copy_file(p, dir / (p.parent_path().filename().string() + "_" + p.filename().string()));
    clips += mab::test::load_container(p).blocks.size();
    ++files;
  }
  auto r = run("survey -q " + dir.string() + " --csv " + (dir / "s.csv").string() + " --json " +
               (dir / "s.json").string() + " --html " + (dir / "s.html").string());
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_TRUE(has(r.out, "decoded blocks    " + std::to_string(clips) + " of " + std::to_string(clips))) << r.out;
  const auto doc = nlohmann::json::parse(read_text(dir / "s.json"));
  ASSERT_EQ(doc["files"].size(), files);
  for (const auto& row : doc["files"]) {
    EXPECT_EQ(row["decoded_blocks"], row["blocks"]) << row["path"];
    EXPECT_EQ(row["json_identity"], true) << row["path"];
    // The clip holding codes with no valid quaternion is the one that is not sane.
    EXPECT_EQ(row["sane"], !has(row["path"].get<std::string>(), "invalid_quaternion")) << row["path"] << row["sanity"];
  }
  const auto& s = doc.at("summary");
  EXPECT_EQ(s.at("decoded_blocks"), clips);
  const auto& hs = s.at("histograms");
  if (hs.contains("opaque sections, by variant and name (bytes)")) {
    for (const auto& [value, b] : hs.at("opaque sections, by variant and name (bytes)").items())
      for (const char* name : {"Rotations", "Translations", "Trajectory"}) {
        EXPECT_FALSE(has(value, name)) << value << " is decoded";
      }
  }
  const auto& ev = hs.at("sections by evidence (decoded, hypothesis N, opaque)");
  EXPECT_TRUE(ev.contains("fc2 KeyframedRotations: decoded")) << ev.dump();
  EXPECT_TRUE(ev.contains("fc3 KeyframedRotations: decoded")) << ev.dump();
  EXPECT_TRUE(ev.contains("fc2 TagTable: decoded")) << ev.dump();
  EXPECT_FALSE(hs.contains("blocks not decoded, by reason")) << hs.dump();
  // The CSV's columns say the same (no path here holds a comma).
  std::istringstream csv(read_text(dir / "s.csv"));
  std::vector<std::vector<std::string>> rows;
  for (std::string line; std::getline(csv, line);) {
    rows.emplace_back();
    std::istringstream cells(line);
    for (std::string cell; std::getline(cells, cell, ',');) rows.back().push_back(cell);
  }
  ASSERT_EQ(rows.size(), files + 1);
  const auto column = [&](const std::string& name) {
    return static_cast<std::size_t>(std::find(rows[0].begin(), rows[0].end(), name) - rows[0].begin());
  };
  const std::size_t blocks = column("blocks"), decoded = column("decoded_blocks");
  ASSERT_LT(decoded, rows[0].size());
  for (std::size_t i = 1; i < rows.size(); ++i) {
    EXPECT_EQ(rows[i].at(decoded), rows[i].at(blocks)) << rows[i][0];
    EXPECT_NE(rows[i].at(decoded), "0") << rows[i][0];
  }
  EXPECT_TRUE(has(read_text(dir / "s.html"), "decoded blocks"));
}

// 'aNi' translations, root motion and part clips that decode (docs/motion.md) are not "opaque".
TEST(LegacyCli, SurveyCountsDecodedAniMotionSectionsAsDecoded) {
  const auto dir = temp_dir();
  const auto file = corpus_dir() / "wd2" / "translations_all_bones_root_motion.mab";
  std::filesystem::copy_file(file, dir / file.filename());
  auto r = run("survey -q " + dir.string() + " --json " + (dir / "s.json").string());
  EXPECT_EQ(r.status, 0) << r.out;
  const auto s = nlohmann::json::parse(read_text(dir / "s.json")).at("summary").at("histograms");
  if (s.contains("opaque sections, by variant and name (bytes)")) {
    for (const auto& [value, b] : s.at("opaque sections, by variant and name (bytes)").items())
      for (const char* name : {"TranslationTable", "JointTranslations", "Displacement"}) {
        EXPECT_FALSE(has(value, name)) << value;
      }
  }
  bool translations = false;
  for (const auto& [value, b] : s.at("sections by evidence (decoded, hypothesis N, opaque)").items())
    translations = translations || has(value, "wd2 translations: ");
  EXPECT_TRUE(translations) << s.dump();
}

// A clip with a key inserted in B (20 degrees off the interpolation there): the difference
// shows whichever file comes first.
TEST(LegacyCli, DiffComparesOnTheUnionOfBothKeyTimelines) {
  const auto dir = temp_dir();
  const auto a_path = corpus_dir() / "wd1" / "long_k100.mab";
  auto d = mab::decode_clip(mab::test::load_container(a_path), 0);
  ASSERT_TRUE(d.ok());
  mab::Clip b = d->clip;
  std::size_t at = 1;
  while (at < b.key_count() && b.key_times[at] - b.key_times[at - 1] < 2) ++at;
  ASSERT_LT(at, b.key_count());
  const std::uint32_t t = (b.key_times[at - 1] + b.key_times[at]) / 2;
  ASSERT_TRUE(b.insert_key(at, t).ok());
  // Every bone gets its own interpolation at the new key; one bone is turned 20 degrees more.
  const double u = double(t - b.key_times[at - 1]) / double(b.key_times[at + 1] - b.key_times[at - 1]);
  std::size_t bone = b.bones.size();
  for (std::size_t i = 0; i < b.bones.size(); ++i) {
    if (b.bones[i].kind() != mab::BoneKind::animated) continue;
    ASSERT_TRUE(b.set_rotation(i, at, mab::quat_slerp(b.bones[i].keys[at - 1], b.bones[i].keys[at + 1], u)).ok());
    if (bone == b.bones.size()) bone = i;
  }
  ASSERT_LT(bone, b.bones.size());
  const mab::Quat turn{0.0f, 0.0f, static_cast<float>(std::sin(10.0 * 3.14159265358979 / 180)),
                       static_cast<float>(std::cos(10.0 * 3.14159265358979 / 180))};
  ASSERT_TRUE(b.set_rotation(bone, at, mab::quat_mul(turn, b.bones[bone].keys[at])).ok());
  mab::EncodeOptions eo;
  eo.raise_depth = true;  // every re-quantised key within 0.01 degree
  auto bytes = mab::encode_clip(*d, b, eo);
  ASSERT_TRUE(bytes.ok()) << bytes.error().message();
  const auto b_path = dir / "inserted.mab";
  ASSERT_TRUE(mab::write_file_atomic(b_path, *bytes).ok());
  for (const auto& args : {a_path.string() + " " + b_path.string(), b_path.string() + " " + a_path.string()}) {
    auto r = run("diff --json " + args);
    EXPECT_EQ(r.status, 1) << args << "\n" << r.out;
    const auto j = nlohmann::json::parse(r.out);
    EXPECT_NEAR(j["max_deg"].get<double>(), 20.0, 0.05) << args;
    bool found = false;
    for (const auto& e : j["bones"])
      if (e["max_deg"].get<double>() > 19.9) {
        found = true;
        EXPECT_NEAR(e["worst_time_s"].get<double>(), t / 120.0, 1e-9) << args;
      }
    EXPECT_TRUE(found) << r.out;
  }
  // JSON documents read too: the document of B, before any re-quantisation, is B.
  ASSERT_EQ(run("export " + b_path.string() + " -o " + (dir / "b.json").string()).status, 0);
  auto same = run("diff " + b_path.string() + " " + (dir / "b.json").string());
  EXPECT_EQ(same.status, 0) << same.out;
  auto j = run("diff --json " + a_path.string() + " " + (dir / "b.json").string());
  EXPECT_EQ(j.status, 1);
  EXPECT_NEAR(nlohmann::json::parse(j.out)["max_deg"].get<double>(), 20.0, 0.05);
}

// Why: `mab diff` and `mab convert` refused Far Cry 2 with "rotations of this layout are not
// specified".
TEST(LegacyCli, DiffComparesFarCry2ClipsAndConvertSaysWhyItDoesNot) {
  const auto dir = temp_dir();
  const auto a_path = corpus_dir() / "fc2" / "retail_bank.mab";
  const auto c = mab::test::load_container(a_path);
  auto d = mab::decode_legacy_clip(c, 1);
  ASSERT_TRUE(d.ok());
  auto edited = *d;
  auto& track = edited.rotations.back();
  // 10 degrees about y (half-angle 5).
  const mab::Quat turn{0.0f, static_cast<float>(std::sin(5.0 * 3.14159265358979 / 180)), 0.0f,
                       static_cast<float>(std::cos(5.0 * 3.14159265358979 / 180))};
  track.keys[1] = mab::quat_mul(turn, track.keys[1]);
  auto e = mab::encode_legacy_clip(c, 1, edited);
  ASSERT_TRUE(e.ok()) << e.error().message();
  write(dir / "edited.mab", *e);
  auto r = run("diff --block 1 " + a_path.string() + " " + (dir / "edited.mab").string());
  EXPECT_EQ(r.status, 1) << r.out;
  EXPECT_TRUE(has(r.out, "bone_" + std::to_string(track.bone))) << r.out;
  EXPECT_TRUE(has(r.out, "tracks compared")) << r.out;
  auto j =
      nlohmann::json::parse(run("diff --json --block 1 " + a_path.string() + " " + (dir / "edited.mab").string()).out);
  EXPECT_NEAR(j["max_deg"].get<double>(), 10.0, 0.02);
  EXPECT_EQ(j["family"], "far cry 2/3");
  EXPECT_EQ(run("diff " + a_path.string() + " " + a_path.string()).status, 0);
  // Its JSON document (block 1) against the edited file, and the other way round.
  ASSERT_EQ(run("export " + (dir / "edited.mab").string() + " --block 1 -o " + (dir / "e.json").string()).status, 0);
  EXPECT_EQ(run("diff --block 1 " + (dir / "edited.mab").string() + " " + (dir / "e.json").string()).status, 0);
  EXPECT_EQ(run("diff --block 1 " + (dir / "e.json").string() + " " + a_path.string()).status, 1);
  std::string err;
  auto mixed = run("diff " + a_path.string() + " " + (corpus_dir() / "wd1" / "long_k100.mab").string(), &err);
  EXPECT_EQ(mixed.status, 2);
  EXPECT_TRUE(has(err, "cannot be compared")) << err;

  auto conv = run("convert " + a_path.string() + " --to wdl -o " + (dir / "x.mab").string(), &err);
  EXPECT_EQ(conv.status, 1);
  EXPECT_TRUE(has(err, "not supported")) << err;
  EXPECT_TRUE(has(err, "skeleton id")) << err;
  EXPECT_FALSE(has(err, "not specified")) << err;
  EXPECT_FALSE(std::filesystem::exists(dir / "x.mab"));
}

// Why: editing one key of a keyed track rebuilt the whole sparse track. `mab import` of a JSON
// document with one key turned reports every other key kept and none added.
TEST(LegacyCli, ImportOfAOneKeyEditReportsTheKeysKept) {
  const auto dir = temp_dir();
  const auto src = corpus_dir() / "fc2" / "many_tracks.mab";
  ASSERT_EQ(run("export " + src.string() + " --json-version 2 -o " + (dir / "a.json").string()).status, 0);
  auto doc = nlohmann::json::parse(read_text(dir / "a.json"));
  auto& key = doc["legacy_clip"]["rotations"][0]["keys"][1];
  const float x = key[0].get<float>(), w = key[3].get<float>();
  key[0] = 0.9986295f * x + 0.0523360f * w;  // about 6 degrees about x
  key[3] = 0.9986295f * w - 0.0523360f * x;
  std::ofstream(dir / "b.json") << doc.dump();
  std::size_t keys = 0;
  const auto original = mab::decode_legacy_clip(mab::test::load_container(src), 0);
  ASSERT_TRUE(original.ok());
  for (const auto& t : original->rotations) keys += t.frames.size();
  auto r = run("import " + (dir / "b.json").string() + " -o " + (dir / "b.mab").string());
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_TRUE(has(r.out, std::to_string(keys) + " stored keys before, " + std::to_string(keys) + " after: " +
                             std::to_string(keys - 1) + " kept at their frames and codes, 0 at new frames"))
      << r.out;
}

}  // namespace
