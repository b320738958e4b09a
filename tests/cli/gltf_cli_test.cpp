// End-to-end tests of `mab export` and `mab import` with glTF files.
#include "interchange/gltf/gltf_tools.hpp"
#include "support/cli_run.hpp"
#include "support/corpus.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>

namespace {

namespace fs = std::filesystem;

using mab::test::load;

mab::test::CliRun run(const std::string& args, std::string* err = nullptr) {
  return mab::test::run_mab_split(args, err);
}

fs::path temp_dir() { return mab::test::test_temp_dir("mab_gltf_cli_test"); }

const fs::path k_wd1 = mab::test::corpus_dir() / "wd1" / "long_k100.mab";

TEST(GltfCli, ExportThenImportWithTheTemplateGivesTheSameBytes) {
  const auto dir = temp_dir();
  for (const char* ext : {".glb", ".gltf"}) {
    const auto g = dir / (std::string("walk") + ext);
    std::string err;
    auto r = run("export " + k_wd1.string() + " -o " + g.string(), &err);
    ASSERT_EQ(r.status, 0) << err;
    EXPECT_NE(r.out.find("1 animation(s), 3 rotation channels, 300 keys"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("give --names FILE"), std::string::npos) << r.out;
    EXPECT_EQ(load(g).at(0), std::string(ext) == ".glb" ? 'g' : '{');
    const auto back = dir / "back.mab";
    r = run("import " + g.string() + " --template " + k_wd1.string() + " -o " + back.string(), &err);
    ASSERT_EQ(r.status, 0) << err;
    EXPECT_EQ(load(back), load(k_wd1)) << ext;
    EXPECT_NE(r.out.find("300 as in the template"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("39 reused, 0 re-quantised"), std::string::npos) << r.out;
    fs::remove(back);
  }
}

TEST(GltfCli, NamesFileNamesTheBones) {
  const auto dir = temp_dir();
  {
    std::ofstream names(dir / "names.txt");
    names << "# bones of the rig\r\nRoot\r\n\r\nPelvis\n";
  }
  const auto g = dir / "walk.gltf";
  std::string err;
  auto r = run("export " + k_wd1.string() + " -o " + g.string() + " --names " + (dir / "names.txt").string(), &err);
  ASSERT_EQ(r.status, 0) << err;
  EXPECT_NE(r.out.find("named             2 bone(s)"), std::string::npos) << r.out;
  const auto text = load(g);
  const std::string s(text.begin(), text.end());
  EXPECT_NE(s.find("\"name\": \"Root\""), std::string::npos);
  EXPECT_NE(s.find("\"name\": \"Pelvis\""), std::string::npos);
  EXPECT_NE(s.find("\"name\": \"bone_0x530EC1CB\""), std::string::npos);
  // The names match the template's hashes by CRC-32 on the way back.
  const auto back = dir / "back.mab";
  r = run("import " + g.string() + " --template " + k_wd1.string() + " -o " + back.string(), &err);
  ASSERT_EQ(r.status, 0) << err;
  EXPECT_EQ(load(back), load(k_wd1));
}

TEST(GltfCli, NewClipFromAThirdPartyRigListsWhatItCannotStore) {
  const auto dir = temp_dir();
  const auto out = dir / "figure.mab";
  std::string err;
  auto r = run("import " + (mab::test::corpus_dir() / "external" / "RiggedFigure.gltf").string() + " --game wdl -o " +
                   out.string(),
               &err);
  ASSERT_EQ(r.status, 0) << err;
  EXPECT_NE(err.find("19 translation channel(s) not stored"), std::string::npos) << err;
  EXPECT_NE(err.find("19 scale channel(s) not stored"), std::string::npos) << err;
  EXPECT_NE(r.out.find("19 new"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("new clip defaults"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("checksum"), std::string::npos) << r.out;
  r = run("verify " + out.string(), &err);
  EXPECT_EQ(r.status, 0) << r.out << err;
  EXPECT_NE(r.out.find("(wdl, identical"), std::string::npos) << r.out;
}

TEST(GltfCli, MistakesGetOneLineErrorsAndNoOutput) {
  const auto dir = temp_dir();
  const auto g = dir / "walk.glb";
  ASSERT_EQ(run("export " + k_wd1.string() + " -o " + g.string()).status, 0);
  const auto out = dir / "out.mab";
  std::string err;
  // Neither a template nor a game.
  auto r = run("import " + g.string() + " -o " + out.string(), &err);
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(err.find("--template ORIG.mab"), std::string::npos) << err;
  EXPECT_NE(err.find("--game"), std::string::npos) << err;
  // Overwriting the template needs --in-place.
  const auto copy = dir / "copy.mab";
  fs::copy_file(k_wd1, copy);
  r = run("import " + g.string() + " --template " + copy.string() + " -o " + copy.string(), &err);
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(err.find("--in-place"), std::string::npos) << err;
  // A GLB cut short.
  auto bytes = load(g);
  bytes.resize(bytes.size() / 2);
  const auto cut = dir / "cut.glb";
  {
    std::ofstream f(cut, std::ios::binary);
    f.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  }
  r = run("import " + cut.string() + " --template " + k_wd1.string() + " -o " + out.string(), &err);
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(err.find("GLB length"), std::string::npos) << err;
  EXPECT_EQ(std::count(err.begin(), err.end(), '\n'), 1) << err;
  // A file whose clip does not decode (kept opaque).
  r = run(
      "export " + (mab::test::corpus_dir() / "primal" / "opaque_33.mab").string() + " -o " + (dir / "x.glb").string(),
      &err);
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(err.find("not_decodable"), std::string::npos) << err;
  EXPECT_FALSE(fs::exists(dir / "x.glb"));
  EXPECT_FALSE(fs::exists(out));
  // glTF-only options on JSON.
  r = run("export " + k_wd1.string() + " -o " + (dir / "x.json").string() + " --names " + (dir / "none.txt").string(),
          &err);
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(err.find("glTF output"), std::string::npos) << err;
}

void save(const fs::path& p, const std::vector<std::uint8_t>& bytes) {
  std::ofstream f(p, std::ios::binary);
  f.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
}

const fs::path k_wdl = mab::test::corpus_dir() / "wdl" / "long_k60_alias.mab";

// The export of k_wdl changed by `change` (a tinygltf model edit), saved as NAME.glb.
template <class Change>
fs::path changed_export(const fs::path& dir, const std::string& name, Change&& change) {
  auto g = mab::export_gltf(mab::test::load_container(k_wdl));
  EXPECT_TRUE(g.ok());
  auto m = mab::test::parse_gltf(*g);
  change(m);
  const auto p = dir / (name + ".glb");
  save(p, mab::test::write_gltf(m));
  return p;
}

void key_on_frame_3(tinygltf::Model& m) {
  auto& a = m.animations.at(0);
  auto k = mab::test::read_sampler(m, a, a.channels.at(0).sampler, 4);
  mab::test::insert_key(k, 3.0f / 30.0f, 20.0);
  mab::test::write_sampler(m, a, a.channels.at(0).sampler, k);
}

TEST(GltfCli, AKeyOnANewFrameLandsAndTemplateTimesSaysWhatItLeavesOut) {
  const auto dir = temp_dir();
  const auto g = changed_export(dir, "key3", key_on_frame_3);
  const auto out = dir / "out.mab";
  std::string err;
  auto r = run("import " + g.string() + " --template " + k_wdl.string() + " -o " + out.string(), &err);
  ASSERT_EQ(r.status, 0) << err;
  EXPECT_NE(r.out.find("61 keys (the template's key times and the added ones)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("key times added   1 for keys set between the template's (key units at 30/s: 3)"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("1 changed: 0xB6C65665"), std::string::npos) << r.out;
  EXPECT_NE(load(out), load(k_wdl));
  r = run("import " + g.string() + " --template " + k_wdl.string() + " -o " + out.string() + " --template-times", &err);
  ASSERT_EQ(r.status, 0) << err;
  EXPECT_EQ(load(out), load(k_wdl));
  EXPECT_NE(err.find("--template-times: 1 key(s) set between the template's key times were not carried"),
            std::string::npos)
      << err;
  EXPECT_NE(err.find("0xB6C65665 at 0.100 s"), std::string::npos) << err;
  r = run("import " + g.string() + " --template " + k_wdl.string() + " -o " + (dir / "x.mab").string() +
              " --template-times --keep-times",
          &err);
  EXPECT_EQ(r.status, 2);  // usage (docs/cli.md, exit codes)
  EXPECT_NE(err.find("exclude each other"), std::string::npos) << err;
  EXPECT_FALSE(fs::exists(dir / "x.mab"));
}

// A Far Cry 2 bank resampled as Blender does: its report says so once (the resample lines were
// printed twice per animation for Far Cry 2/3 imports).
TEST(GltfCli, AFarCry2ResampledImportReportsItOnce) {
  const auto dir = temp_dir();
  const fs::path bank = mab::test::corpus_dir() / "fc2/all_arrays.mab";
  auto g = mab::export_gltf(mab::test::load_container(bank));
  ASSERT_TRUE(g.ok()) << g.error().message();
  auto m = mab::test::parse_gltf(*g);
  mab::test::resample_like_blender(m, 24.0);
  const auto p = dir / "fc2_sampled.glb";
  save(p, mab::test::write_gltf(m));
  std::string err;
  auto r = run("import " + p.string() + " --template " + bank.string() + " -o " + (dir / "out.mab").string(), &err);
  ASSERT_EQ(r.status, 0) << err;
  EXPECT_EQ(load(dir / "out.mab"), load(bank));
  std::size_t lines = 0;
  for (std::size_t at = r.out.find("  resampled "); at != std::string::npos; at = r.out.find("  resampled ", at + 1))
    ++lines;
  EXPECT_EQ(lines, 1u) << r.out;
}

TEST(GltfCli, AResampledFileKeepsUntouchedBonesAndRefusesToGuessEdits) {
  const auto dir = temp_dir();
  const auto plain =
      changed_export(dir, "sampled", [](tinygltf::Model& m) { mab::test::resample_like_blender(m, 24.0); });
  const auto out = dir / "out.mab";
  std::string err;
  auto r = run("import " + plain.string() + " --template " + k_wdl.string() + " -o " + out.string(), &err);
  ASSERT_EQ(r.status, 0) << err;
  EXPECT_EQ(load(out), load(k_wdl));
  EXPECT_NE(r.out.find("the file's channels are samples at 24 per second, not the clip's key times; 4 track(s) match "
                       "the template at every sample and are kept exactly"),
            std::string::npos)
      << r.out;
  const auto edited = changed_export(dir, "edited", [](tinygltf::Model& m) {
    auto& a = m.animations.at(0);
    auto k = mab::test::read_sampler(m, a, a.channels.at(2).sampler, 4);
    const auto v = mab::test::turned(&k.v[4 * 30], 20.0);
    std::copy(v.begin(), v.end(), k.v.begin() + 4 * 30);
    mab::test::write_sampler(m, a, a.channels.at(2).sampler, k);
    mab::test::resample_like_blender(m, 24.0);
  });
  fs::remove(out);
  r = run("import " + edited.string() + " --template " + k_wdl.string() + " -o " + out.string(), &err);
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(std::count(err.begin(), err.end(), '\n'), 1) << err;
  EXPECT_NE(err.find("set the scene frame rate to 30 fps"), std::string::npos) << err;
  EXPECT_NE(err.find("--accept-resample"), std::string::npos) << err;
  EXPECT_FALSE(fs::exists(out));
  r = run("import " + edited.string() + " --template " + k_wdl.string() + " -o " + out.string() + " --accept-resample",
          &err);
  ASSERT_EQ(r.status, 0) << err;
  EXPECT_NE(r.out.find("between samples   3 edited key(s)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("1 changed: 0x530EC1CB"), std::string::npos) << r.out;
}

TEST(GltfCli, NoOpAndOtherClipImportsFailWithTheFlagThatAllowsThem) {
  const auto dir = temp_dir();
  const auto empty = changed_export(dir, "empty", [](tinygltf::Model& m) { m.animations.clear(); });
  const auto out = dir / "out.mab";
  std::string err;
  auto r = run("import " + empty.string() + " --template " + k_wdl.string() + " -o " + out.string(), &err);
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(err.find("no animations: nothing to import (--allow-no-op"), std::string::npos) << err;
  EXPECT_FALSE(fs::exists(out));
  r = run("import " + empty.string() + " --template " + k_wdl.string() + " -o " + out.string() + " --allow-no-op",
          &err);
  ASSERT_EQ(r.status, 0) << err;
  EXPECT_EQ(load(out), load(k_wdl));
  // Nodes renamed and their extras dropped: none names a bone.
  const auto renamed = changed_export(dir, "renamed", [](tinygltf::Model& m) {
    mab::test::drop_extras(m);
    for (std::size_t i = 0; i < m.nodes.size(); ++i) m.nodes[i].name = "Joint" + std::to_string(i);
  });
  r = run("import " + renamed.string() + " --template " + k_wdl.string() + " -o " + (dir / "x.mab").string(), &err);
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(err.find("moves no bone of the template's block 0"), std::string::npos) << err;
  // The WD1 clip's export (the same bone names) against the WDL template: another clip.
  const auto wd1 = dir / "wd1.glb";
  ASSERT_EQ(run("export " + k_wd1.string() + " -o " + wd1.string()).status, 0);
  r = run("import " + wd1.string() + " --template " + k_wdl.string() + " -o " + (dir / "x.mab").string(), &err);
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(err.find("exported from a clip of 120 keys/s and 5.500 s, but the template's block 0 has 30 keys/s and "
                     "3.333 s"),
            std::string::npos)
      << err;
  EXPECT_NE(err.find("--allow-other-clip"), std::string::npos) << err;
  // glTF options on a JSON document.
  r = run("import " + (dir / "doc.json").string() + " -o " + (dir / "x.mab").string() + " --allow-no-op", &err);
  EXPECT_EQ(r.status, 2);  // usage (docs/cli.md, exit codes)
  EXPECT_FALSE(fs::exists(dir / "x.mab"));
}

TEST(GltfCli, ExportSaysWhichSceneRatePutsEveryKeyOnAFrame) {
  const auto dir = temp_dir();
  std::string err;
  auto r = run("export " + k_wd1.string() + " -o " + (dir / "w.glb").string(), &err);
  ASSERT_EQ(r.status, 0) << err;
  EXPECT_NE(r.out.find("set the scene frame rate to 30 fps before importing"), std::string::npos) << r.out;
}

}  // namespace
