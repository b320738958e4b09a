// Far Cry 2/3 clips through `mab edit` and a glTF import as a modder walks them, where the walk
// found an edit that did not land or a refusal that did not say why (docs/edit.md, "Far Cry 2/3
// clips"; docs/gltf.md, "Far Cry 2 and 3").
#include <mab/legacy.hpp>

#include "support/cli_run.hpp"
#include "support/corpus.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <optional>
#include <set>

namespace {

namespace fs = std::filesystem;

mab::LegacyClip decode(const fs::path& p) {
  auto d = mab::decode_legacy_clip(mab::test::load_container(p), 0);
  EXPECT_TRUE(d.ok()) << p;
  return d ? std::move(d).value() : mab::LegacyClip{};
}

std::optional<std::uint32_t> keyed_and_constant(const mab::LegacyClip& c) {
  std::set<std::uint32_t> keyed;
  for (const auto& t : c.rotations) keyed.insert(t.bone);
  for (const auto& k : c.constant_rotations)
    if (keyed.count(k.bone) != 0) return k.bone;
  return std::nullopt;
}

const mab::LegacyRotationTrack* track(const mab::LegacyClip& c, std::uint32_t bone) {
  for (const auto& t : c.rotations)
    if (t.bone == bone) return &t;
  return nullptr;
}

const mab::LegacyConstantRotation* constant(const mab::LegacyClip& c, std::uint32_t bone) {
  for (const auto& k : c.constant_rotations)
    if (k.bone == bone) return &k;
  return nullptr;
}

mab::Quat turn(double ax, double ay, double az, double deg) {
  const double h = deg * 3.14159265358979323846 / 360.0;
  return {static_cast<float>(ax * std::sin(h)), static_cast<float>(ay * std::sin(h)),
          static_cast<float>(az * std::sin(h)), static_cast<float>(std::cos(h))};
}

// By skeleton id on a bone both keyed and constant (slots 3 and 2; docs/legacy.md: "two bones of
// its id" in the editable Clip). docs/edit.md: --rotate-bone turns "every rotation of BONE
// (constant or keys)", --remove-bone drops the bone, --set-constant makes BONE hold QUAT "for the
// whole clip".
// mab edit ran the 'aNi' operation on the first Clip bone of the id alone: --rotate-bone left the
// constant rotation unturned and --remove-bone left it in the file, both with exit 0, and
// --set-constant was refused ("bone_107 holds two of these").
TEST(LegacyEditCli, ABoneKeyedAndConstantIsEditedWhole) {
  const auto dir = mab::test::test_temp_dir("mab_legacy_edit_walk");
  for (const char* game : {"fc2", "fc3"}) {
    const auto in = mab::test::corpus_dir() / game / "many_tracks.mab";
    const auto a = decode(in);
    const auto found = keyed_and_constant(a);
    ASSERT_TRUE(found.has_value()) << game << ": the corpus clip holds a bone keyed and constant both";
    const std::uint32_t id = *found;
    const std::string bone = "bone_" + std::to_string(id);
    const auto out = dir / (std::string(game) + ".mab");
    std::string err;

    auto r = mab::test::run_mab_split(
        "edit " + in.string() + " -o " + out.string() + " --rotate-bone " + bone + " 0,0,1@20", &err);
    ASSERT_EQ(r.status, 0) << game << "\n" << r.out << err;
    auto b = decode(out);
    const mab::Quat q = turn(0, 0, 1, 20);
    ASSERT_TRUE(track(b, id) && constant(b, id)) << game;
    for (std::uint32_t f = 0; f <= a.last_frame; ++f)
      EXPECT_LE(mab::angular_error_deg(mab::legacy_rotation_at(*track(b, id), f),
                                       mab::quat_mul(q, mab::legacy_rotation_at(*track(a, id), f))),
                0.01)
          << game << " frame " << f;
    // One 6-byte code: within its rounding (docs/legacy.md, decision 20's bound).
    EXPECT_LE(mab::angular_error_deg(constant(b, id)->rotation, mab::quat_mul(q, constant(a, id)->rotation)), 0.008)
        << game << ": the constant rotation of " << bone << " was left unturned";

    r = mab::test::run_mab_split("edit " + in.string() + " -o " + out.string() + " --remove-bone " + bone, &err);
    ASSERT_EQ(r.status, 0) << game << "\n" << r.out << err;
    b = decode(out);
    EXPECT_EQ(track(b, id), nullptr) << game;
    EXPECT_EQ(constant(b, id), nullptr) << game << ": the constant rotation of " << bone << " stayed";

    r = mab::test::run_mab_split(
        "edit " + in.string() + " -o " + out.string() + " --set-constant " + bone + " 1,0,0@30", &err);
    ASSERT_EQ(r.status, 0) << game << "\n" << r.out << err;
    b = decode(out);
    EXPECT_EQ(track(b, id), nullptr) << game;
    ASSERT_NE(constant(b, id), nullptr) << game;
    EXPECT_LE(mab::angular_error_deg(constant(b, id)->rotation, turn(1, 0, 0, 30)), 0.008) << game;
  }
}

// --copy-track by skeleton id copies the whole bone too (docs/edit.md: "BONE's rotation track from
// another clip"). A constant-only source onto a bone keyed and constant was refused with
// "bone_107 holds two of these" (the copy replaced the keyed bone and left the constant one); a
// source keyed and constant gave the bone its keyed track alone.
TEST(LegacyEditCli, CopyTrackCopiesTheWholeBone) {
  const auto dir = mab::test::test_temp_dir("mab_legacy_edit_walk");
  for (const char* game : {"fc2", "fc3"}) {
    const auto both = mab::test::corpus_dir() / game / "many_tracks.mab";
    const auto a = decode(both);
    const auto found = keyed_and_constant(a);
    ASSERT_TRUE(found.has_value()) << game;
    const std::string bone = "bone_" + std::to_string(*found);
    const auto held = dir / (std::string(game) + "_held.mab");
    const auto out = dir / (std::string(game) + "_copied.mab");
    std::string err;
    auto r = mab::test::run_mab_split(
        "edit " + both.string() + " -o " + held.string() + " --set-constant " + bone + " 1,0,0@30", &err);
    ASSERT_EQ(r.status, 0) << game << "\n" << r.out << err;

    r = mab::test::run_mab_split(
        "edit " + both.string() + " -o " + out.string() + " --copy-track " + held.string() + " " + bone, &err);
    ASSERT_EQ(r.status, 0) << game << ": a constant source onto a bone keyed and constant\n" << r.out << err;
    auto b = decode(out);
    EXPECT_EQ(track(b, *found), nullptr) << game;
    ASSERT_NE(constant(b, *found), nullptr) << game;
    EXPECT_LE(mab::angular_error_deg(constant(b, *found)->rotation, turn(1, 0, 0, 30)), 0.008) << game;

    r = mab::test::run_mab_split(
        "edit " + held.string() + " -o " + out.string() + " --copy-track " + both.string() + " " + bone, &err);
    ASSERT_EQ(r.status, 0) << game << ": a source keyed and constant onto a constant bone\n" << r.out << err;
    b = decode(out);
    ASSERT_TRUE(track(b, *found) && constant(b, *found)) << game << ": " << bone << " is keyed and constant again";
    for (std::uint32_t f = 0; f <= a.last_frame; ++f)
      EXPECT_LE(mab::angular_error_deg(mab::legacy_rotation_at(*track(b, *found), f),
                                       mab::legacy_rotation_at(*track(a, *found), f)),
                0.01)
          << game << " frame " << f;
    EXPECT_LE(mab::angular_error_deg(constant(b, *found)->rotation, constant(a, *found)->rotation), 0.008) << game;
  }
}

// An edit that needs a section the clip lacks (a constant rotation on a clip of keyed tracks
// alone) or that empties one is refused naming the section as `mab info` lists it; the
// message said "sections[2]: the block has no such section", which named no section a user sees.
TEST(LegacyEditCli, ASectionTheEditNeedsIsNamed) {
  const auto dir = mab::test::test_temp_dir("mab_legacy_edit_walk");
  const auto in = mab::test::corpus_dir() / "fc2" / "chain_3.mab";
  const auto c = mab::test::load_container(in);
  ASSERT_EQ(c.blocks.size(), 3u);
  const auto& last = c.blocks[2];
  ASSERT_TRUE(last.section(2).empty() && !last.section(3).empty()) << "clip 2: keyed rotations, no constant ones";
  auto d = mab::decode_legacy_clip(c, 2);
  ASSERT_TRUE(d.ok());
  const std::string keyed = "bone_" + std::to_string(d->rotations[0].bone);
  struct Case {
    std::string ops, section;
  };
  std::string remove_all;
  for (const auto& t : d->rotations) remove_all += " --remove-bone bone_" + std::to_string(t.bone);
  for (const Case& k :
       {Case{"--set-constant " + keyed + " 0,0,1@10", "ConstantRotations"},
        Case{"--add-bone bone_1 0,0,1@10", "ConstantRotations"}, Case{remove_all, "KeyframedRotations"}}) {
    const auto out = dir / "refused.mab";
    std::string err;
    auto r = mab::test::run_mab_split("edit " + in.string() + " --block 2 -o " + out.string() + " " + k.ops, &err);
    EXPECT_EQ(r.status, 1) << k.ops << "\n" << r.out << err;
    EXPECT_NE(err.find(k.section), std::string::npos) << k.ops << "\n" << err;
    EXPECT_NE(err.find("nothing written"), std::string::npos) << k.ops << "\n" << err;
    EXPECT_FALSE(fs::exists(out)) << k.ops;
  }
}

// A channel whose keys all sit on frames but whose interpolation is STEP (Blender's "Constant")
// holds between frames what a clip's slerp between frames cannot play: refused, rightly, but the
// message said "has a key at 0.250 s (frame 7.50)", where the file has none, and told the user
// to change the scene's frame rate, which was right. It names the interpolation and its fix.
TEST(LegacyGltfCli, AStepChannelIsRefusedNamingItsInterpolation) {
  const auto dir = mab::test::test_temp_dir("mab_legacy_walk_gltf");
  const auto in = mab::test::corpus_dir() / "fc2" / "all_arrays.mab";
  const auto gltf = dir / "clip.gltf", edited = dir / "step.gltf", out = dir / "out.mab";
  std::string err;
  ASSERT_EQ(mab::test::run_mab_split("export " + in.string() + " -o " + gltf.string(), &err).status, 0) << err;
  auto doc = nlohmann::json::parse(mab::test::read_text(gltf));
  auto& anim = doc["animations"][0];
  bool stepped = false;
  for (const auto& ch : anim["channels"]) {
    const auto& node = doc["nodes"][ch["target"]["node"].get<std::size_t>()];
    if (node["name"] == "bone_21" && ch["target"]["path"] == "rotation") {
      anim["samplers"][ch["sampler"].get<std::size_t>()]["interpolation"] = "STEP";
      stepped = true;
    }
  }
  ASSERT_TRUE(stepped) << "bone_21 is a keyed track of all_arrays";
  mab::test::write_text(edited, doc.dump());
  auto r = mab::test::run_mab_split("import " + edited.string() + " --template " + in.string() + " -o " + out.string(),
                                    &err);
  EXPECT_EQ(r.status, 1) << r.out << err;
  EXPECT_NE(err.find("bone_21"), std::string::npos) << err;
  EXPECT_NE(err.find("STEP"), std::string::npos) << err;
  EXPECT_NE(err.find("Linear"), std::string::npos) << err;
  EXPECT_EQ(err.find("has a key at"), std::string::npos) << err;
  EXPECT_FALSE(fs::exists(out));
}

}  // namespace
