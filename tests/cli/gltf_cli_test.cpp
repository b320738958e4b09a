// End-to-end tests of `mab export` and `mab import` with glTF files.
#include "support/cli_run.hpp"
#include "support/corpus.hpp"

#include <gtest/gtest.h>

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
  auto r = run("import " + (mab::test::corpus_dir() / "external" / "RiggedFigure.gltf").string() +
                   " --game wdl -o " + out.string(),
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
  r = run("export " + (mab::test::corpus_dir() / "primal" / "opaque_33.mab").string() + " -o " + (dir / "x.glb").string(),
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

}  // namespace
