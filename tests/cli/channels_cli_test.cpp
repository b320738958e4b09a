// Issue 31, items 3, 4 and 7: key times that do not increase are refused by a JSON import and
// flagged by verify (one rule, mab::check_key_times, for import, verify, survey and diff); `mab
// diff` and `mab dump` show every channel `mab export` writes (translations, constant
// translations, root motion); `mab dump` selects keys by frame and by time. Real files through
// the `mab` binary.
#include "support/cli_run.hpp"
#include "support/corpus.hpp"
#include "support/json_edit.hpp"

#include <mab/file_io.hpp>
#include <mab/legacy.hpp>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

namespace {

using mab::test::corpus_dir;
using mab::test::run_mab_split;

class ChannelsCli : public ::testing::Test {
 protected:
  void SetUp() override { dir = mab::test::test_temp_dir("mab_channels"); }
  void TearDown() override { std::filesystem::remove_all(dir); }

  static bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }
  static std::string corpus(const char* rel) { return (corpus_dir() / rel).string(); }
  std::string path(const std::string& name) const { return (dir / name).string(); }

  // Corpus file `rel` exported to its JSON document, `edit`ed, written to dir/NAME.
  std::string edited_document(const char* rel, const std::string& name,
                              const std::function<void(nlohmann::json&)>& edit) {
    const std::string doc = path(name + ".json");
    // Version 2: the Far Cry 2/3 edits below are written against "legacy_clip".
    EXPECT_EQ(run_mab_split("export " + corpus(rel) + " --json-version 2 -o " + doc).status, 0) << rel;
    std::ifstream in(doc);
    std::stringstream ss;
    ss << in.rdbuf();
    auto j = nlohmann::json::parse(ss.str());
    edit(j);
    std::ofstream(doc, std::ios::trunc) << j.dump(1);
    return doc;
  }
  // The document imported onto a .mab dir/NAME.mab; its exit status must be 0.
  std::string imported(const std::string& doc, const std::string& name) {
    const std::string out = path(name + ".mab");
    std::string err;
    const auto r = run_mab_split("import " + doc + " -o " + out, &err);
    EXPECT_EQ(r.status, 0) << r.out << err;
    return out;
  }

  std::filesystem::path dir;
};

// Item 3. Before: `key_times[5] = key_times[4]` imported with exit 0 ("1 added, 1 removed") and
// verify --strict passed the result, while diff and survey refused it.
TEST_F(ChannelsCli, AJsonImportRefusesKeyTimesThatDoNotIncrease) {
  struct Case {
    const char* name;
    std::function<void(nlohmann::json&)> edit;
    const char* values;
  };
  const Case cases[] = {
      {"repeat", [](nlohmann::json& d) { d["clip"]["key_times"][5] = d["clip"]["key_times"][4]; },
       "key_times[5] = 4 does not come after key_times[4] = 4"},
      {"back", [](nlohmann::json& d) { d["clip"]["key_times"][5] = 3; },
       "key_times[5] = 3 does not come after key_times[4] = 4"},
  };
  for (const auto& c : cases) {
    const auto doc = edited_document("wd2/long_k40.mab", c.name, c.edit);
    std::string err;
    const auto r = run_mab_split("import " + doc + " -o " + path(std::string(c.name) + ".mab"), &err);
    EXPECT_EQ(r.status, 1) << c.name << "\n" << r.out << err;
    EXPECT_TRUE(has(err, "/clip/key_times/5")) << err;
    EXPECT_TRUE(has(err, c.values)) << err;
    EXPECT_TRUE(has(err, "format 9.4")) << err;
    EXPECT_FALSE(std::filesystem::exists(path(std::string(c.name) + ".mab"))) << c.name;
  }
}

// Item 3: a file whose key times do not increase (as a damaged file holds them) is a verify
// warning that --strict fails on, with its offset; survey and diff refuse it with the same words;
// its own unedited document still imports (no edit, nothing to refuse).
TEST_F(ChannelsCli, VerifySurveyAndDiffNameTheSameKeyTimesThatDoNotIncrease) {
  const std::string bad = path("repeat.mab");
  ASSERT_TRUE(mab::write_file_atomic(bad, mab::test::with_key_times("wd1/long_k100.mab",
                                                                    [](std::vector<std::uint32_t>& t) { t[5] = t[4]; }))
                  .ok());
  const std::string rule = "key times do not increase at key 5";
  auto v = run_mab_split("verify " + bad);
  EXPECT_EQ(v.status, 0) << v.out;
  EXPECT_TRUE(has(v.out, "1 warnings")) << v.out;
  EXPECT_TRUE(has(v.out, rule)) << v.out;
  EXPECT_TRUE(has(v.out, "KeyTimes")) << v.out;
  auto strict = run_mab_split("verify --strict " + bad);
  EXPECT_EQ(strict.status, 1) << strict.out;
  EXPECT_TRUE(has(strict.out, "FAIL") && has(strict.out, rule)) << strict.out;
  // The corpus file itself: no such warning.
  EXPECT_EQ(run_mab_split("verify --strict " + corpus("wd1/long_k100.mab")).status, 0);

  std::string err;
  auto d = run_mab_split("diff " + corpus("wd1/long_k100.mab") + " " + bad, &err);
  EXPECT_EQ(d.status, 2) << d.out;
  EXPECT_TRUE(has(err, rule)) << err;
  auto s = run_mab_split("survey " + bad + " --json " + path("s.json"), &err);
  std::ifstream sj(path("s.json"));
  std::stringstream ss;
  ss << sj.rdbuf();
  EXPECT_TRUE(has(ss.str(), rule)) << s.out << err;

  // Its own document, unedited, comes back as the file holds it.
  ASSERT_EQ(run_mab_split("export " + bad + " -o " + path("repeat.json")).status, 0);
  auto back = run_mab_split("import " + path("repeat.json") + " -o " + path("back.mab"), &err);
  EXPECT_EQ(back.status, 0) << back.out << err;
  EXPECT_EQ(mab::test::load(path("back.mab")), mab::test::load(bad));
}

// Item 4. Before: after +5 units on a translation and on the root motion, `mab diff` said "3
// bones compared: 3 identical" (exit 0) and `mab dump` printed no translation.
TEST_F(ChannelsCli, DiffAndDumpShowTranslationAndRootMotionEdits) {
  const char* rel = "wd2/translations_all_bones_root_motion.mab";
  const auto doc = edited_document(rel, "moved", [](nlohmann::json& d) {
    d["motion"]["translations"][0]["keys"][3][0] = d["motion"]["translations"][0]["keys"][3][0].get<double>() + 5;
    d["motion"]["root_motion"]["translations"][7][1] =
        d["motion"]["root_motion"]["translations"][7][1].get<double>() + 5;
  });
  const auto edited = imported(doc, "moved");
  const std::string orig = corpus(rel);

  auto r = run_mab_split("diff " + orig + " " + edited);
  EXPECT_EQ(r.status, 1) << r.out;
  EXPECT_FALSE(has(r.out, "3 identical")) << r.out;
  EXPECT_TRUE(has(r.out, "3 bones compared: 2 identical")) << r.out;
  // The edited bone's translation row: about 5 units at key 3 of both clips.
  std::istringstream rows(r.out);
  std::string line;
  bool bone_row = false, root_row = false;
  while (std::getline(rows, line)) {
    std::istringstream f(line);
    std::string label, channel, key_a, key_b;
    double largest = 0, mean = 0, at = 0;
    if (line.rfind("root motion", 0) == 0) {
      std::string word;
      f >> word >> word;  // "root motion"
      label = "root motion";
    } else {
      f >> label;
    }
    f >> channel >> largest >> mean >> at >> key_a >> key_b;
    if (!f || channel != "translation") continue;
    EXPECT_NEAR(largest, 5.0, 0.01) << line;
    if (label == "0xB6C65665") bone_row = key_a == "3" && key_b == "3";
    if (label == "root motion") root_row = key_a == "7" && key_b == "7";
  }
  EXPECT_TRUE(bone_row) << r.out;
  EXPECT_TRUE(root_row) << r.out;
  EXPECT_TRUE(has(r.out, "root motion compared: differs")) << r.out;

  auto j = nlohmann::json::parse(run_mab_split("diff --json " + orig + " " + edited).out);
  EXPECT_FALSE(j["identical"].get<bool>());
  EXPECT_EQ(j["max_deg"].get<double>(), 0.0);
  EXPECT_NEAR(j["max_translation"].get<double>(), 5.0, 0.01);
  bool root_json = false;
  for (const auto& b : j["bones"]) {
    if (!b.contains("translation")) continue;
    const auto& t = b["translation"];
    if (b.value("root_motion", false)) {
      root_json = true;
      EXPECT_NEAR(t["max"].get<double>(), 5.0, 0.01);
      EXPECT_EQ(t["key_a"], 7);
      EXPECT_NEAR(t["worst_time_s"].get<double>(), 7.0 / 30, 1e-9);
    } else if (b["hash"] == "0xB6C65665") {
      EXPECT_EQ(t["key_b"], 3);
    } else {
      EXPECT_EQ(t["max"].get<double>(), 0.0) << b.dump();
    }
  }
  EXPECT_TRUE(root_json) << j.dump(1);
  // A clip against itself and against its own document: identical in every channel.
  EXPECT_EQ(run_mab_split("diff " + orig + " " + orig).status, 0);

  // dump: the translation and the root motion, key by key, with the edit visible.
  auto before = run_mab_split("dump " + orig + " --keys 3:3");
  auto after = run_mab_split("dump " + edited + " --keys 3:3");
  ASSERT_EQ(after.status, 0);
  EXPECT_TRUE(has(after.out, "\ntranslations\n")) << after.out;
  EXPECT_TRUE(has(after.out, "\nroot motion\n")) << after.out;
  EXPECT_TRUE(has(after.out, "3 translated bones")) << after.out;
  EXPECT_NE(before.out.substr(before.out.find("\ntranslations\n")),
            after.out.substr(after.out.find("\ntranslations\n")));
  auto root7 = run_mab_split("dump " + edited + " --keys 7:7");
  auto root7_before = run_mab_split("dump " + orig + " --keys 7:7");
  EXPECT_NE(root7.out.substr(root7.out.find("\nroot motion\n")),
            root7_before.out.substr(root7_before.out.find("\nroot motion\n")));
}

// Item 4: constant translations are a channel too.
TEST_F(ChannelsCli, DiffAndDumpShowConstantTranslations) {
  const char* rel = "wdl/translations_flag80_constants40.mab";
  const auto doc = edited_document(rel, "const", [](nlohmann::json& d) {
    auto& v = d["motion"]["constant_translations"][1]["translation"];
    v[2] = v[2].get<double>() + 5;
  });
  const auto edited = imported(doc, "const");
  auto r = run_mab_split("diff " + corpus(rel) + " " + edited);
  EXPECT_EQ(r.status, 1) << r.out;
  EXPECT_TRUE(has(r.out, "0x8F39FA4E")) << r.out;
  EXPECT_TRUE(has(r.out, "translation")) << r.out;
  EXPECT_TRUE(has(r.out, "largest difference 0.000000 degrees, 5.0000")) << r.out;
  auto dump = run_mab_split("dump " + edited + " --bone 0x8F39FA4E");
  EXPECT_TRUE(has(dump.out, "\nconstant translations\n")) << dump.out;
  EXPECT_TRUE(has(dump.out, "3 constant translations")) << dump.out;
}

// Item 4, Far Cry 2/3: translations per frame, constant translations and the trajectory's
// translation are compared too (before: "8 rotations compared: 8 identical", exit 0).
TEST_F(ChannelsCli, DiffShowsFarCry2TranslationsAndTrajectory) {
  const char* rel = "fc2/all_arrays.mab";
  const auto doc = edited_document(rel, "fc2", [](nlohmann::json& d) {
    auto& c = d["legacy_clip"];
    c["translations"][0]["frames"][4][1] = c["translations"][0]["frames"][4][1].get<double>() + 5;
    c["trajectory_translation"][6][0] = c["trajectory_translation"][6][0].get<double>() + 5;
    c["constant_translations"][0]["translation"][2] = c["constant_translations"][0]["translation"][2].get<double>() + 5;
  });
  const auto edited = imported(doc, "fc2");
  auto r = run_mab_split("diff " + corpus(rel) + " " + edited);
  EXPECT_EQ(r.status, 1) << r.out;
  EXPECT_TRUE(has(r.out, "trajectory compared: differs")) << r.out;
  auto j = nlohmann::json::parse(run_mab_split("diff --json " + corpus(rel) + " " + edited).out);
  EXPECT_FALSE(j["identical"].get<bool>());
  std::size_t moved = 0;
  for (const auto& b : j["bones"])
    if (b.contains("translation") && b["translation"]["max"].get<double>() > 4.99) {
      ++moved;
      if (b["bone"] == "trajectory") {
        EXPECT_EQ(b["translation"]["key_a"], 6) << b.dump();
      }
    }
  EXPECT_EQ(moved, 3u) << j.dump(1);
  EXPECT_EQ(run_mab_split("diff " + corpus(rel) + " " + corpus(rel)).status, 0);
}

// Item 4: both values where a channel's difference peaks. Before: a row said how much, where and
// at which keys, not what either clip holds there. Under each row, `A:` then `B:`: a rotation's
// quaternion as `mab dump` prints it, a translation's x y z in file units; --json: value_a and
// value_b. A JSON document compares as written, so B's values are the document's.
TEST_F(ChannelsCli, DiffPrintsBothValuesWhereTheDifferencePeaks) {
  // The values line under the row of `label` and `channel`: A's and B's numbers, and A's text.
  struct Values {
    std::vector<double> a, b;
    std::string a_text;
  };
  auto values = [](const std::string& out, const std::string& label, const std::string& channel) {
    std::istringstream rows(out);
    std::string line;
    while (std::getline(rows, line)) {
      if (line.rfind(label + " ", 0) != 0) continue;
      std::istringstream f(line.substr(label.size()));
      std::string c;
      if (!(f >> c) || c != channel || !std::getline(rows, line)) continue;
      Values v;
      const auto at_a = line.find("  A:"), at_b = line.find("   B:");
      if (at_a != 0 || at_b == std::string::npos) return v;
      v.a_text = line.substr(4, at_b - 4);
      std::istringstream na(v.a_text), nb(line.substr(at_b + 5));
      for (double x = 0; na >> x;) v.a.push_back(x);
      for (double x = 0; nb >> x;) v.b.push_back(x);
      return v;
    }
    return Values{};
  };

  // 'aNi' rotation: Root turned 10 degrees. The two quaternions are 10 degrees apart and A's is the
  // one `mab dump` prints for Root at key A.
  const std::string walk = corpus("wd2/long_k40.mab"), turned = path("turned.mab");
  ASSERT_EQ(run_mab_split("edit " + walk + " -o " + turned + " --rotate-bone Root 0,0,1@10").status, 0);
  auto r = run_mab_split("diff " + walk + " " + turned);
  EXPECT_EQ(r.status, 1) << r.out;
  const auto rot = values(r.out, "0xB6C65665", "rotation");
  ASSERT_EQ(rot.a.size(), 4u) << r.out;
  ASSERT_EQ(rot.b.size(), 4u) << r.out;
  double dot = 0;
  for (std::size_t i = 0; i < 4; ++i) dot += rot.a[i] * rot.b[i];
  const double apart = 2 * std::acos(std::min(1.0, std::abs(dot))) * 180 / 3.14159265358979323846;
  EXPECT_NEAR(apart, 10.0, 0.01) << r.out;
  // docs/edit.md shows this run's output as it is.
  std::ifstream md(mab::test::source_dir() / "docs" / "edit.md");
  std::stringstream edit_md;
  edit_md << md.rdbuf();
  EXPECT_TRUE(has(edit_md.str(), "turned.mab\n" + r.out + "```")) << r.out;
  auto j = nlohmann::json::parse(run_mab_split("diff --json " + walk + " " + turned).out);
  for (const auto& b : j["bones"]) {
    if (b["hash"] != "0xB6C65665") continue;
    ASSERT_EQ(b["value_a"].size(), 4u) << b.dump();
    for (std::size_t i = 0; i < 4; ++i) EXPECT_NEAR(b["value_a"][i].get<double>(), rot.a[i], 5e-7) << b.dump();
    for (std::size_t i = 0; i < 4; ++i) EXPECT_NEAR(b["value_b"][i].get<double>(), rot.b[i], 5e-7) << b.dump();
    const auto key = b["key_a"].get<int>();
    auto dump =
        run_mab_split("dump " + walk + " --bone 0xB6C65665 --keys " + std::to_string(key) + ":" + std::to_string(key));
    EXPECT_TRUE(has(dump.out, rot.a_text + "\n")) << rot.a_text << "\n" << dump.out;
  }

  // 'aNi' translation and root motion against the edited document: A holds the file's values,
  // B the document's (+5 on x of key 3; +5 on y of the root at key 7).
  const char* rel = "wd2/translations_all_bones_root_motion.mab";
  std::vector<double> key3, root7;
  const auto doc = edited_document(rel, "moved", [&](nlohmann::json& d) {
    auto& k = d["motion"]["translations"][0]["keys"][3];
    auto& m = d["motion"]["root_motion"]["translations"][7];
    key3 = k.get<std::vector<double>>();
    root7 = m.get<std::vector<double>>();
    k[0] = key3[0] + 5;
    m[1] = root7[1] + 5;
  });
  r = run_mab_split("diff " + corpus(rel) + " " + doc);
  EXPECT_EQ(r.status, 1) << r.out;
  const auto moved = values(r.out, "0xB6C65665", "translation");
  const auto root = values(r.out, "root motion", "translation");
  ASSERT_EQ(moved.a.size(), 3u) << r.out;
  ASSERT_EQ(moved.b.size(), 3u) << r.out;
  ASSERT_EQ(root.b.size(), 3u) << r.out;
  for (std::size_t i = 0; i < 3; ++i) {
    EXPECT_NEAR(moved.a[i], key3[i], 1e-5) << r.out;
    EXPECT_NEAR(moved.b[i], key3[i] + (i == 0 ? 5 : 0), 1e-5) << r.out;
    EXPECT_NEAR(root.a[i], root7[i], 1e-5) << r.out;
    EXPECT_NEAR(root.b[i], root7[i] + (i == 1 ? 5 : 0), 1e-5) << r.out;
  }
  j = nlohmann::json::parse(run_mab_split("diff --json " + corpus(rel) + " " + doc).out);
  bool root_json = false;
  for (const auto& b : j["bones"])
    if (b.value("root_motion", false)) {
      root_json = true;
      const auto& t = b["translation"];
      EXPECT_NEAR(t["value_b"][1].get<double>() - t["value_a"][1].get<double>(), 5.0, 1e-5) << b.dump();
    }
  EXPECT_TRUE(root_json) << j.dump(1);

  // Far Cry 2: a keyed rotation set to identity, the trajectory moved, a constant translation
  // moved; each row shows both sides.
  const char* fc2 = "fc2/all_arrays.mab";
  std::string rotated_bone;
  std::vector<double> traj6, constant;
  mab::LegacyRotationTrack doc_track;  // the edited track as the document holds it
  const auto fc2_doc = edited_document(fc2, "fc2", [&](nlohmann::json& d) {
    auto& c = d["legacy_clip"];
    rotated_bone = "bone_" + std::to_string(c["rotations"][0]["bone"].get<int>());
    c["rotations"][0]["keys"][1] = nlohmann::json::array({0.0, 0.0, 0.0, 1.0});
    for (const auto& f : c["rotations"][0]["frames"]) doc_track.frames.push_back(f.get<std::uint16_t>());
    for (const auto& k : c["rotations"][0]["keys"])
      doc_track.keys.push_back({k[0].get<float>(), k[1].get<float>(), k[2].get<float>(), k[3].get<float>()});
    traj6 = c["trajectory_translation"][6].get<std::vector<double>>();
    c["trajectory_translation"][6][0] = traj6[0] + 5;
    constant = c["constant_translations"][0]["translation"].get<std::vector<double>>();
    c["constant_translations"][0]["translation"][2] = constant[2] + 5;
  });
  r = run_mab_split("diff " + corpus(fc2) + " " + fc2_doc);
  EXPECT_EQ(r.status, 1) << r.out;
  const auto fc2_rot = values(r.out, rotated_bone, "rotation");
  ASSERT_EQ(fc2_rot.b.size(), 4u) << r.out;
  // Every frame is compared (clip_from_legacy), so the peak may fall between stored keys (here
  // frame 2, between the identity key at frame 1 and the next): B's row is what the document's
  // track plays at the peak's frame.
  std::ptrdiff_t peak = -1;
  const auto fc2_json = nlohmann::json::parse(run_mab_split("diff --json " + corpus(fc2) + " " + fc2_doc).out);
  for (const auto& b : fc2_json["bones"])
    if (b["bone"] == rotated_bone) peak = b["key_b"].get<std::ptrdiff_t>();
  ASSERT_GE(peak, 0) << r.out;
  const mab::Quat played = mab::legacy_rotation_at(doc_track, static_cast<std::uint32_t>(peak));
  for (unsigned i = 0; i < 4; ++i) EXPECT_NEAR(fc2_rot.b[i], played[i], 5e-7) << r.out;
  EXPECT_NE(fc2_rot.a, fc2_rot.b) << r.out;
  const auto traj = values(r.out, "trajectory", "translation");
  ASSERT_EQ(traj.b.size(), 3u) << r.out;
  EXPECT_NEAR(traj.a[0], traj6[0], 1e-5) << r.out;
  EXPECT_NEAR(traj.b[0], traj6[0] + 5, 1e-5) << r.out;
  bool constant_row = false;
  std::istringstream rows(r.out);
  for (std::string line; std::getline(rows, line);) {
    std::istringstream f(line);
    std::string label, channel;
    if (!(f >> label >> channel) || label.rfind("bone_", 0) != 0 || channel != "translation") continue;
    const auto v = values(r.out, label, "translation");
    if (v.b.size() == 3 && std::abs(v.b[2] - v.a[2] - 5) < 1e-5 && std::abs(v.a[2] - constant[2]) < 1e-5)
      constant_row = true;
  }
  EXPECT_TRUE(constant_row) << r.out;
}

// Item 7: docs/gltf.md checked a frame-40 edit with --keys 40:48, which are key indices; frame
// 40 of wdl/long_k60_alias (the README's walk: 30 fps, sparse keys) is key 22.
TEST_F(ChannelsCli, DumpSelectsKeysByFrameAndByTime) {
  const std::string f = corpus("wdl/long_k60_alias.mab");
  auto frames = run_mab_split("dump " + f + " --frames 40:48");
  ASSERT_EQ(frames.status, 0);
  auto first_row = [](const std::string& out) {
    const auto at = out.find("\nanimated bones\n");
    std::istringstream rows(out.substr(at + 16));
    std::string header, row;
    std::getline(rows, header);
    std::getline(rows, row);
    std::istringstream cells(row);
    long key = -1, frame = -1;
    cells >> key >> frame;
    return std::make_pair(key, frame);
  };
  EXPECT_TRUE(has(frames.out, " frame ")) << frames.out;
  EXPECT_EQ(first_row(frames.out), std::make_pair(22L, 40L)) << frames.out;
  auto time = run_mab_split("dump " + f + " --time 1.3333:1.6");
  EXPECT_EQ(time.out, frames.out);
  // --keys stays key indices: key 40 is at another frame.
  auto keys = run_mab_split("dump " + f + " --keys 40:48");
  EXPECT_EQ(first_row(keys.out).first, 40L) << keys.out;
  EXPECT_NE(first_row(keys.out).second, 40L) << keys.out;
  std::string err;
  // No key in the range: refused, naming the clip's frames.
  EXPECT_EQ(run_mab_split("dump " + f + " --frames 5000:6000", &err).status, 1);
  EXPECT_TRUE(has(err, "no key there")) << err;
  EXPECT_EQ(run_mab_split("dump " + f + " --frames 1:2 --time 0:1", &err).status, 2);
  // docs/gltf.md checks a frame-40 edit by frame.
  std::ifstream md(mab::test::source_dir() / "docs" / "gltf.md");
  std::stringstream ss;
  ss << md.rdbuf();
  EXPECT_TRUE(has(ss.str(), "--frames 40:48")) << "docs/gltf.md";
  EXPECT_FALSE(has(ss.str(), "--keys 40:48")) << "docs/gltf.md";
}

}  // namespace
