// `mab import x.glb --template BANK.mab` onto Far Cry 2/3 banks (issue 31, item 1): Blender
// writes every bone of the armature into every action, also the bones a clip has no track
// for. Unedited (at the rest `mab export` gives them) they change nothing and the bank comes
// back byte for byte; edited, the edit lands where the clip has a section to hold it, else the
// import exits 1 naming the bone, the channel and --ignore-unmatched. And the glTF route's
// `-o` onto its --template, by content (issue 31, item 5).
#include "interchange/gltf/gltf_tools.hpp"
#include "support/cli_run.hpp"
#include "support/corpus.hpp"

#include <mab/legacy.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <set>

namespace {

namespace fs = std::filesystem;

using mab::test::load;
using mab::test::read_text;

mab::test::CliRun run(const std::string& args, std::string* err = nullptr) {
  return mab::test::run_mab_split(args, err);
}

void save(const fs::path& p, const std::vector<std::uint8_t>& bytes) {
  std::ofstream f(p, std::ios::binary);
  f.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
}

const fs::path k_chain = mab::test::corpus_dir() / "fc2" / "chain_3.mab";
const fs::path k_retail = mab::test::corpus_dir() / "fc2" / "retail_bank.mab";

// Blender's bone axes: each joint's rest turned -90 degrees about x, its keys re-expressed
// against it (q * F), which a rest-relative read undoes (docs/gltf.md).
constexpr float k_half = 0.70710678f;
const std::vector<float> k_blender_rest = {-k_half, 0.0f, 0.0f, k_half};

// `mab export`'s glb of `bank` as Blender's default export writes it back at a `fps` scene:
// extras dropped, a rotation, a translation and a scale channel on every bone node in every
// animation (at rest where the action has none), every channel sampled at each frame, and each joint's
// rest in Blender's bone axes. With `leftover`, a bone the action does not key holds the pose
// another action left it in (Blender samples such a bone where the last pose it evaluated put
// it: mid-way through another clip's track), else its rest.
tinygltf::Model blender_style(const fs::path& dir, const fs::path& bank, double fps, bool leftover = false) {
  const auto plain = dir / (bank.stem().string() + "_plain.glb");
  EXPECT_EQ(run("export " + bank.string() + " -o " + plain.string()).status, 0);
  auto m = mab::test::parse_gltf(load(plain));
  mab::test::drop_extras(m);
  const auto& bones = m.nodes.at(0).children;
  for (std::size_t ai = 0; ai < m.animations.size(); ++ai) {
    float end = 0;
    for (const auto& ch : m.animations[ai].channels) {
      const auto k = mab::test::read_sampler(m, m.animations[ai], ch.sampler, ch.target_path == "rotation" ? 4 : 3);
      end = std::max(end, k.t.back());
    }
    for (const int node : bones)
      for (const std::string path : {"rotation", "translation", "scale"}) {
        if (mab::test::sampler_of(m, ai, node, path) >= 0) continue;
        mab::test::SamplerKeys k;
        k.width = path == "rotation" ? 4 : 3;
        k.t = end > 0 ? std::vector<float>{0.0f, end} : std::vector<float>{0.0f};
        std::vector<float> pose(k.width, 0.0f);
        if (k.width == 4 || path == "scale") pose.back() = 1.0f;
        if (path == "scale") pose = {1.0f, 1.0f, 1.0f};
        for (std::size_t other = 0; leftover && path != "scale" && other < m.animations.size(); ++other) {
          const int s = other == ai ? -1 : mab::test::sampler_of(m, other, node, path);
          if (s < 0) continue;
          const auto o = mab::test::read_sampler(m, m.animations[other], s, k.width);
          pose = mab::test::lerp_at(o, 0.37 * o.t.back());
          break;
        }
        for (std::size_t i = 0; i < k.t.size(); ++i) k.v.insert(k.v.end(), pose.begin(), pose.end());
        mab::test::add_channel(m, ai, node, path, k);
      }
  }
  mab::test::resample_like_blender(m, fps);
  for (const int node : bones) {
    m.nodes.at(static_cast<std::size_t>(node)).rotation = {k_blender_rest[0], k_blender_rest[1], k_blender_rest[2],
                                                           k_blender_rest[3]};
    for (auto& a : m.animations)
      for (const auto& ch : a.channels) {
        if (ch.target_node != node || ch.target_path != "rotation") continue;
        auto k = mab::test::read_sampler(m, a, ch.sampler, 4);
        for (std::size_t i = 0; i < k.t.size(); ++i) {
          const mab::Quat q =
              mab::quat_mul({k.v[4 * i], k.v[4 * i + 1], k.v[4 * i + 2], k.v[4 * i + 3]},
                            {k_blender_rest[0], k_blender_rest[1], k_blender_rest[2], k_blender_rest[3]});
          k.v[4 * i] = q.x, k.v[4 * i + 1] = q.y, k.v[4 * i + 2] = q.z, k.v[4 * i + 3] = q.w;
        }
        mab::test::write_sampler(m, a, ch.sampler, k);
      }
  }
  return m;
}

int animation_named(const tinygltf::Model& m, const std::string& name) {
  for (std::size_t i = 0; i < m.animations.size(); ++i)
    if (m.animations[i].name == name) return static_cast<int>(i);
  return -1;
}

// Every key of `path` on `node` in animation `anim` changed by `change(key index, values)`.
template <class Change>
void edit_channel(tinygltf::Model& m, int anim, const std::string& node, const std::string& path, Change&& change) {
  const int n = mab::test::node_named(m, node);
  ASSERT_GE(n, 0) << node;
  auto& a = m.animations.at(static_cast<std::size_t>(anim));
  const int s = mab::test::sampler_of(m, static_cast<std::size_t>(anim), n, path);
  ASSERT_GE(s, 0) << node << " " << path;
  auto k = mab::test::read_sampler(m, a, s, path == "rotation" ? 4 : 3);
  for (std::size_t i = 0; i < k.t.size(); ++i) change(i, k.t[i], &k.v[i * k.width]);
  mab::test::write_sampler(m, a, s, k);
}

// A turn by `deg` about an axis of no symmetry (components far apart: a 6-byte code of a
// rotation with two components near a tie can round by a few quanta, format 9.1).
mab::Quat axis_turn(double deg) {
  const double h = deg * 3.14159265358979323846 / 360.0, s = std::sin(h);
  return {static_cast<float>(0.36 * s), static_cast<float>(0.48 * s), static_cast<float>(0.8 * s),
          static_cast<float>(std::cos(h))};
}

// A key's rotation turned by `deg` about that axis in the bone's own frame (Blender's axes: after F).
void turn(float* v, double deg) {
  const mab::Quat q = mab::quat_mul({v[0], v[1], v[2], v[3]}, axis_turn(deg));
  v[0] = q.x, v[1] = q.y, v[2] = q.z, v[3] = q.w;
}

mab::LegacyClip clip_of(const fs::path& p, std::size_t block) {
  auto l = mab::decode_legacy_clip(mab::test::load_container(p), block);
  EXPECT_TRUE(l.ok()) << (l ? "" : l.error().message());
  return l ? std::move(l).value() : mab::LegacyClip{};
}

// A bone of the bank that block `block` neither rotates (rotation) nor translates.
std::uint32_t untracked_bone(const fs::path& bank, std::size_t block, bool rotation) {
  std::set<std::uint32_t> all, has;
  const auto c = mab::test::load_container(bank);
  for (std::size_t b = 0; b < c.blocks.size(); ++b) {
    const auto l = clip_of(bank, b);
    for (const auto& t : l.constant_rotations) all.insert(t.bone);
    for (const auto& t : l.rotations) all.insert(t.bone);
    for (const auto& t : l.constant_translations) all.insert(t.bone);
    for (const auto& t : l.translations) all.insert(t.bone);
    if (b != block) continue;
    if (rotation) {
      for (const auto& t : l.constant_rotations) has.insert(t.bone);
      for (const auto& t : l.rotations) has.insert(t.bone);
    } else {
      for (const auto& t : l.constant_translations) has.insert(t.bone);
      for (const auto& t : l.translations) has.insert(t.bone);
    }
  }
  for (const auto b : all)
    if (!has.count(b)) return b;
  ADD_FAILURE() << "every bone of " << bank << " is in block " << block;
  return 0;
}

// In double, each side normalised: float quaternions are unit only to about 1e-7, which acos
// near 1 would read as hundredths of a degree.
double angle_deg(const mab::Quat& a, const mab::Quat& b) {
  const double na = std::sqrt(double{a.x} * a.x + double{a.y} * a.y + double{a.z} * a.z + double{a.w} * a.w);
  const double nb = std::sqrt(double{b.x} * b.x + double{b.y} * b.y + double{b.z} * b.z + double{b.w} * b.w);
  const double d = std::abs(double{a.x} * b.x + double{a.y} * b.y + double{a.z} * b.z + double{a.w} * b.w) / (na * nb);
  return 2.0 * std::acos(std::min(1.0, d)) * 180.0 / 3.14159265358979323846;
}

// Unedited, Blender's every-bone export comes back byte for byte (sampled at the clip's rate,
// the README's step, and at Blender's default 24 fps; the bones an action does not key at rest
// or where another clip's pose left them), and says those channels are unedited.
TEST(GltfBankCli, UneditedEveryBoneExportComesBackByteForByte) {
  const auto dir = mab::test::test_temp_dir("mab_gltf_bank_cli");
  for (const auto& bank : {k_chain, k_retail})
    for (const double fps : {30.0, 24.0})
      for (const bool leftover : {false, true}) {
        SCOPED_TRACE(bank.string() + " at " + std::to_string(fps) + (leftover ? ", other clips' poses" : ", at rest"));
        const auto glb = dir / "unedited.glb", out = dir / "out.mab";
        fs::remove(out);
        save(glb, mab::test::write_gltf(blender_style(dir, bank, fps, leftover)));
        std::string err;
        const auto r = run("import " + glb.string() + " --template " + bank.string() + " -o " + out.string(), &err);
        ASSERT_EQ(r.status, 0) << r.out << err;
        EXPECT_EQ(read_text(out), read_text(bank)) << r.out;
        EXPECT_NE(r.out.find("channel(s) on bank bones the clip has no track for, unedited"), std::string::npos)
            << r.out;
        EXPECT_EQ(err.find("match no track"), std::string::npos) << err;
        EXPECT_EQ(r.out.find("dropped"), std::string::npos) << r.out;
      }
  fs::remove_all(dir);
}

// A rotation and a translation set on bones clip 0 of chain_3 has no track for, held still:
// the clip has constant sections (slots 2 and 4), so they land as new constants. On main they
// were noted and dropped with exit 0.
TEST(GltfBankCli, AnEditOnABoneWithoutATrackLandsAsANewConstant) {
  const auto dir = mab::test::test_temp_dir("mab_gltf_bank_cli");
  auto m = blender_style(dir, k_chain, 30.0);
  const int anim = animation_named(m, "block_0");
  ASSERT_GE(anim, 0);
  const auto before = clip_of(k_chain, 0);
  ASSERT_TRUE(before.present[2] && before.present[4]);
  const std::uint32_t rot = untracked_bone(k_chain, 0, true), tr = untracked_bone(k_chain, 0, false);
  const std::string rot_node = "bone_" + std::to_string(rot), tr_node = "bone_" + std::to_string(tr);
  edit_channel(m, anim, rot_node, "rotation", [](std::size_t, float, float* v) { turn(v, 20.0); });
  edit_channel(m, anim, tr_node, "translation", [](std::size_t, float, float* v) { v[0] += 0.25f; });
  const auto glb = dir / "edited.glb", out = dir / "out.mab";
  save(glb, mab::test::write_gltf(m));
  std::string err;
  const auto r = run("import " + glb.string() + " --template " + k_chain.string() + " -o " + out.string(), &err);
  ASSERT_EQ(r.status, 0) << r.out << err;
  EXPECT_NE(r.out.find(rot_node + " rotation (new constant)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(tr_node + " translation (new constant)"), std::string::npos) << r.out;

  const auto after = clip_of(out, 0);
  ASSERT_EQ(after.constant_rotations.size(), before.constant_rotations.size() + 1);
  const auto q = std::find_if(after.constant_rotations.begin(), after.constant_rotations.end(),
                              [&](const auto& c) { return c.bone == rot; });
  ASSERT_NE(q, after.constant_rotations.end());
  // Blender's q * F read back rest-relative: the turn about the joint's own axis, F undone.
  const mab::Quat f{k_blender_rest[0], k_blender_rest[1], k_blender_rest[2], k_blender_rest[3]};
  const mab::Quat expected = mab::quat_mul(mab::quat_mul(f, axis_turn(20.0)), {-f.x, -f.y, -f.z, f.w});
  EXPECT_LT(angle_deg(q->rotation, expected), 0.011);
  const auto t = std::find_if(after.constant_translations.begin(), after.constant_translations.end(),
                              [&](const auto& c) { return c.bone == tr; });
  ASSERT_NE(t, after.constant_translations.end());
  EXPECT_NEAR(t->translation[0], 0.25f, 1e-6);
  EXPECT_NEAR(t->translation[1], 0.0f, 1e-6);
  // What the clip had stays as it was.
  for (const auto& c : before.constant_rotations) {
    const auto it = std::find_if(after.constant_rotations.begin(), after.constant_rotations.end(),
                                 [&](const auto& a) { return a.bone == c.bone; });
    ASSERT_NE(it, after.constant_rotations.end());
    EXPECT_EQ(it->code, c.code) << "bone " << c.bone;
  }
  EXPECT_EQ(after.trajectory_rotation_codes, before.trajectory_rotation_codes);
  // The other clips of the bank are untouched.
  for (std::size_t b = 1; b < 3; ++b) {
    const auto x = clip_of(k_chain, b), y = clip_of(out, b);
    ASSERT_EQ(x.rotations.size(), y.rotations.size());
    for (std::size_t i = 0; i < x.rotations.size(); ++i) EXPECT_EQ(x.rotations[i].codes, y.rotations[i].codes);
  }
  fs::remove_all(dir);
}

// A rotation that moves, on a bone clip 1 does not rotate: the clip has keyed rotations
// (slot 3), so it becomes a keyed track that plays the edit at every frame.
TEST(GltfBankCli, AMovingEditOnABoneWithoutATrackBecomesAKeyedTrack) {
  const auto dir = mab::test::test_temp_dir("mab_gltf_bank_cli");
  auto m = blender_style(dir, k_chain, 30.0);
  const int anim = animation_named(m, "block_1");
  ASSERT_GE(anim, 0);
  const auto before = clip_of(k_chain, 1);
  ASSERT_TRUE(before.present[3]);
  const std::uint32_t bone = untracked_bone(k_chain, 1, true);
  const std::string node = "bone_" + std::to_string(bone);
  // 3 degrees per frame about the joint's own z.
  edit_channel(m, anim, node, "rotation", [](std::size_t, float s, float* v) { turn(v, 3.0 * s * 30.0); });
  const auto glb = dir / "moving.glb", out = dir / "out.mab";
  save(glb, mab::test::write_gltf(m));
  std::string err;
  const auto r = run("import " + glb.string() + " --template " + k_chain.string() + " -o " + out.string(), &err);
  ASSERT_EQ(r.status, 0) << r.out << err;
  EXPECT_NE(r.out.find(node + " rotation (new track)"), std::string::npos) << r.out;
  const auto after = clip_of(out, 1);
  ASSERT_EQ(after.rotations.size(), before.rotations.size() + 1);
  const auto t =
      std::find_if(after.rotations.begin(), after.rotations.end(), [&](const auto& k) { return k.bone == bone; });
  ASSERT_NE(t, after.rotations.end());
  const mab::Quat f{k_blender_rest[0], k_blender_rest[1], k_blender_rest[2], k_blender_rest[3]};
  for (std::uint32_t frame = 0; frame <= after.last_frame; ++frame) {
    const mab::Quat expected = mab::quat_mul(mab::quat_mul(f, axis_turn(3.0 * frame)), {-f.x, -f.y, -f.z, f.w});
    EXPECT_LT(angle_deg(mab::legacy_rotation_at(*t, frame), expected), 0.011) << "frame " << frame;
  }
  fs::remove_all(dir);
}

// Clip 1 of chain_3 has no translation section and no root motion: a translation set on a bone,
// or root motion, cannot be stored. Refused naming the bone, the channel and --ignore-unmatched;
// with it, listed as dropped and the rest written.
TEST(GltfBankCli, AnEditTheClipCannotHoldIsRefusedByName) {
  const auto dir = mab::test::test_temp_dir("mab_gltf_bank_cli");
  auto m = blender_style(dir, k_chain, 30.0);
  const int anim = animation_named(m, "block_1");
  ASSERT_GE(anim, 0);
  const auto before = clip_of(k_chain, 1);
  ASSERT_FALSE(before.present[0] || before.present[1] || before.present[4] || before.present[5]);
  const std::uint32_t bone = untracked_bone(k_chain, 1, false);
  const std::string node = "bone_" + std::to_string(bone);
  edit_channel(m, anim, node, "translation", [](std::size_t, float, float* v) { v[1] += 0.25f; });
  const auto glb = dir / "translated.glb", out = dir / "out.mab";
  save(glb, mab::test::write_gltf(m));
  std::string err;
  auto r = run("import " + glb.string() + " --template " + k_chain.string() + " -o " + out.string(), &err);
  EXPECT_EQ(r.status, 1) << r.out << err;
  EXPECT_NE(err.find(node + " translation"), std::string::npos) << err;
  EXPECT_NE(err.find("--ignore-unmatched"), std::string::npos) << err;
  EXPECT_FALSE(fs::exists(out));

  edit_channel(m, anim, "trajectory", "rotation", [](std::size_t, float, float* v) { turn(v, 15.0); });
  save(glb, mab::test::write_gltf(m));
  r = run("import " + glb.string() + " --template " + k_chain.string() + " -o " + out.string(), &err);
  EXPECT_EQ(r.status, 1) << r.out << err;
  EXPECT_NE(err.find("trajectory rotation"), std::string::npos) << err;
  EXPECT_FALSE(fs::exists(out));

  r = run("import " + glb.string() + " --template " + k_chain.string() + " -o " + out.string() + " --ignore-unmatched",
          &err);
  ASSERT_EQ(r.status, 0) << r.out << err;
  EXPECT_NE(r.out.find("dropped           " + node + " translation"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("dropped           trajectory rotation"), std::string::npos) << r.out;
  EXPECT_NE(err.find("not stored (--ignore-unmatched): " + node + " translation"), std::string::npos) << err;
  EXPECT_EQ(read_text(out), read_text(k_chain)) << "only dropped channels were edited";
  fs::remove_all(dir);
}

// Item 5 for the glTF route: -o onto the --template's content under another name (a copy), a
// hard link or a symbolic link to it needs --in-place, which keeps a .bak.
TEST(GltfBankCli, OutputOntoTheTemplatesContentNeedsInPlace) {
  const auto dir = mab::test::test_temp_dir("mab_gltf_bank_cli");
  for (const auto& src : {mab::test::corpus_dir() / "wd2" / "mixed_k8.mab", k_chain}) {
    SCOPED_TRACE(src.string());
    const auto walk = dir / "walk.mab", glb = dir / "walk.glb";
    fs::remove_all(dir);
    fs::create_directories(dir);
    fs::copy_file(src, walk);
    ASSERT_EQ(run("export " + walk.string() + " -o " + glb.string()).status, 0);
    auto m = mab::test::parse_gltf(load(glb));
    auto& a = m.animations.at(0);
    const auto& ch = a.channels.at(0);
    auto k = mab::test::read_sampler(m, a, ch.sampler, ch.target_path == "rotation" ? 4 : 3);
    if (ch.target_path == "rotation") turn(&k.v[0], 20.0);
    else k.v[0] += 0.25f;
    mab::test::write_sampler(m, a, ch.sampler, k);
    save(glb, mab::test::write_gltf(m));
    const std::string original = read_text(walk);
    const auto copy = dir / "copy.mab", hard = dir / "hard.mab", sym = dir / "sym.mab";
    fs::copy_file(walk, copy);
    fs::create_hard_link(walk, hard);
    fs::create_symlink(walk, sym);
    const std::string import = "import " + glb.string() + " --template " + walk.string() + " -o ";
    for (const auto& target : {walk, copy, hard, sym}) {
      std::string err;
      const auto r = run(import + target.string(), &err);
      EXPECT_EQ(r.status, 2) << target << r.out << err;
      EXPECT_NE(err.find("--in-place"), std::string::npos) << err;
      EXPECT_EQ(read_text(target), original) << target << ": refused, yet written";
    }
    std::string err;
    EXPECT_EQ(run(import + copy.string(), &err).status, 2);
    EXPECT_NE(err.find("holds the --template's clip"), std::string::npos) << err;
    const auto r = run(import + copy.string() + " --in-place", &err);
    ASSERT_EQ(r.status, 0) << r.out << err;
    EXPECT_NE(r.out.find("kept " + copy.string() + " as " + copy.string() + ".bak"), std::string::npos) << r.out;
    EXPECT_EQ(read_text(dir / "copy.mab.bak"), original);
    EXPECT_NE(read_text(copy), original) << "the edit did not land";
    EXPECT_EQ(read_text(walk), original);
    // A new file, or one holding other bytes, is written without the flag.
    EXPECT_EQ(run(import + (dir / "new.mab").string(), &err).status, 0) << err;
    EXPECT_EQ(run(import + copy.string(), &err).status, 0) << err;
  }
  fs::remove_all(dir);
}

}  // namespace
