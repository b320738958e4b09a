// `mab import` of glTF files: every animated channel is accounted for (issue 31, items 1 and 2).
// Each glb is `mab export`'s, changed the way Blender writes it back (extras dropped, names
// kept or renamed, a second armature's copy, keys moved), then imported through the CLI: what
// changed lands in the file, or the import exits 1 naming it and the option that drops it.
#include "interchange/gltf/gltf_tools.hpp"
#include "support/cli_run.hpp"
#include "support/corpus.hpp"

#include <mab/decode_clip.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <functional>
#include <map>

namespace {

namespace fs = std::filesystem;

using mab::test::load;

mab::test::CliRun run(const std::string& args, std::string* err = nullptr) {
  return mab::test::run_mab_split(args, err);
}

fs::path temp_dir() { return mab::test::test_temp_dir("mab_gltf_channels_cli_test"); }

void save(const fs::path& p, const std::vector<std::uint8_t>& bytes) {
  std::ofstream f(p, std::ios::binary);
  f.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
}

const fs::path k_corpus = mab::test::corpus_dir();
const fs::path k_names = k_corpus / "bone_names.txt";

// `clip` exported (with the corpus bone names), changed by `change`, saved as NAME.glb.
template <class Change>
fs::path changed_export(const fs::path& dir, const fs::path& clip, const std::string& name, Change&& change) {
  const auto plain = dir / (name + "_plain.glb");
  EXPECT_EQ(run("export " + clip.string() + " -o " + plain.string() + " --names " + k_names.string()).status, 0);
  auto m = mab::test::parse_gltf(load(plain));
  change(m);
  const auto p = dir / (name + ".glb");
  save(p, mab::test::write_gltf(m));
  return p;
}

mab::Clip decoded(const fs::path& p, std::size_t block = 0) {
  auto d = mab::decode_clip(mab::test::load_container(p), block);
  EXPECT_TRUE(d.ok()) << (d ? "" : d.error().message());
  return d ? d->clip : mab::Clip{};
}

int animation_of(const tinygltf::Model& m, const std::string& name) {
  for (std::size_t i = 0; i < m.animations.size(); ++i)
    if (m.animations[i].name == name) return static_cast<int>(i);
  return -1;
}

// Key k of the rotation channel of `node` in animation `anim` turned by `deg` about z.
void turn_key(tinygltf::Model& m, std::size_t anim, int node, std::size_t k, double deg) {
  auto& a = m.animations.at(anim);
  const int s = mab::test::sampler_of(m, anim, node, "rotation");
  ASSERT_GE(s, 0);
  auto keys = mab::test::read_sampler(m, a, s, 4);
  const auto v = mab::test::turned(&keys.v[4 * k], deg);
  std::copy(v.begin(), v.end(), keys.v.begin() + static_cast<std::ptrdiff_t>(4 * k));
  mab::test::write_sampler(m, a, s, keys);
}

// A second armature's copy of the rig (Blender: the glb imported twice into one scene): every
// bone node again, with the same names, under a copy of the root, its channels in the same
// animation, the copy of `turned_node` turned at key 1.
void second_armature(tinygltf::Model& m, int turned_node) {
  const int root = m.scenes.at(0).nodes.at(0);
  tinygltf::Node root2 = m.nodes.at(static_cast<std::size_t>(root));
  root2.children.clear();
  std::map<int, int> copy;
  for (const int c : m.nodes.at(static_cast<std::size_t>(root)).children) {
    copy[c] = static_cast<int>(m.nodes.size());
    m.nodes.push_back(m.nodes.at(static_cast<std::size_t>(c)));
    root2.children.push_back(copy[c]);
  }
  m.nodes.push_back(root2);
  m.scenes.at(0).nodes.push_back(static_cast<int>(m.nodes.size() - 1));
  auto& a = m.animations.at(0);
  const std::size_t n = a.channels.size();
  for (std::size_t i = 0; i < n; ++i) {
    auto ch = a.channels[i];
    if (!copy.count(ch.target_node)) continue;
    const auto keys = mab::test::read_sampler(m, a, ch.sampler, ch.target_path == "rotation" ? 4 : 3);
    a.samplers.emplace_back();
    ch.sampler = static_cast<int>(a.samplers.size() - 1);
    ch.target_node = copy[ch.target_node];
    a.channels.push_back(ch);
    mab::test::write_sampler(m, a, ch.sampler, keys);
  }
  turn_key(m, 0, copy.at(turned_node), 1, 30.0);
}

const fs::path k_k40 = k_corpus / "wd2" / "long_k40.mab";

// Item 1: animated nodes matching no bone are refused by name; --ignore-unmatched drops them
// and says so.
TEST(GltfChannelsCli, NodesMatchingNoBoneAreRefusedByName) {
  const auto dir = temp_dir();
  const auto out = dir / "out.mab";
  std::string err;
  struct Case {
    const char* name;
    std::function<void(tinygltf::Model&)> change;
    const char* named;
  };
  const std::vector<Case> cases = {
      {"renamed",
       [](tinygltf::Model& m) {
         mab::test::drop_extras(m);
         const int n = mab::test::node_named(m, "Spine1");
         m.nodes.at(static_cast<std::size_t>(n)).name = "spine1";
         turn_key(m, 0, n, 3, 25.0);
       },
       "spine1 (matches no bone of the block)"},
      {"twice",
       [](tinygltf::Model& m) {
         mab::test::drop_extras(m);
         second_armature(m, mab::test::node_named(m, "Spine1"));
       },
       "Spine1 (matches no bone of the block)"},
      {"newbone",
       [](tinygltf::Model& m) {
         mab::test::drop_extras(m);
         tinygltf::Node n;
         n.name = "Tail";
         m.nodes.push_back(n);
         const int node = static_cast<int>(m.nodes.size() - 1);
         m.nodes.at(static_cast<std::size_t>(m.scenes.at(0).nodes.at(0))).children.push_back(node);
         mab::test::SamplerKeys k;
         k.t = {0.0f, 1.0f};
         k.v = {0, 0, 0, 1, 0, 0, 0.38268343f, 0.92387953f};
         mab::test::add_channel(m, 0, node, "rotation", k);
       },
       "Tail (matches no bone of the block)"},
  };
  for (const auto& c : cases) {
    const auto g = changed_export(dir, k_k40, c.name, c.change);
    fs::remove(out);
    auto r = run("import " + g.string() + " --template " + k_k40.string() + " -o " + out.string(), &err);
    EXPECT_EQ(r.status, 1) << c.name << "\n" << r.out << err;
    EXPECT_NE(err.find(c.named), std::string::npos) << c.name << "\n" << err;
    EXPECT_NE(err.find("--ignore-unmatched"), std::string::npos) << c.name << "\n" << err;
    EXPECT_FALSE(fs::exists(out)) << c.name;
    r = run("import " + g.string() + " --template " + k_k40.string() + " -o " + out.string() + " --ignore-unmatched",
            &err);
    ASSERT_EQ(r.status, 0) << c.name << "\n" << err;
    EXPECT_NE(r.out.find(std::string("dropped           ") + c.named), std::string::npos) << c.name << "\n" << r.out;
    EXPECT_NE(err.find("not stored (--ignore-unmatched)"), std::string::npos) << c.name << "\n" << err;
  }
}

// Item 1: a second animation no block takes (Blender's action of the second armature,
// "block_0.001") is refused; --ignore-unmatched drops it.
TEST(GltfChannelsCli, AnAnimationNoBlockTakesIsRefused) {
  const auto dir = temp_dir();
  const auto g = changed_export(dir, k_k40, "second_action", [](tinygltf::Model& m) {
    mab::test::drop_extras(m);
    tinygltf::Animation a = m.animations.at(0);
    a.name = "block_0.001";
    m.animations.push_back(a);
    turn_key(m, 1, mab::test::node_named(m, "Spine1"), 2, 25.0);
  });
  const auto out = dir / "out.mab";
  std::string err;
  auto r = run("import " + g.string() + " --template " + k_k40.string() + " -o " + out.string(), &err);
  EXPECT_EQ(r.status, 1) << r.out << err;
  EXPECT_NE(err.find("animation 1 \"block_0.001\" goes into no block"), std::string::npos) << err;
  EXPECT_NE(err.find("--ignore-unmatched"), std::string::npos) << err;
  r = run("import " + g.string() + " --template " + k_k40.string() + " -o " + out.string() + " --ignore-unmatched",
          &err);
  ASSERT_EQ(r.status, 0) << err;
  EXPECT_NE(r.out.find("animation 1 \"block_0.001\" dropped (--ignore-unmatched)"), std::string::npos) << r.out;
  EXPECT_EQ(load(out), load(k_k40));
}

// Item 1: a rotation keyed on a bone without a rotation track (Far Cry 5 three_blocks, block 1,
// Spine1) becomes a new track; an unedited export still comes back byte for byte.
TEST(GltfChannelsCli, ARotationOnABoneWithoutARotationTrackLands) {
  const auto dir = temp_dir();
  const fs::path fc5 = k_corpus / "fc5" / "three_blocks.mab";
  const auto before = decoded(fc5, 1);
  const int spine = before.find_bone(mab::bone_hash("Spine1"));
  ASSERT_GE(spine, 0);
  ASSERT_EQ(before.bones[static_cast<std::size_t>(spine)].kind(), mab::BoneKind::none);
  const auto out = dir / "out.mab";
  std::string err;
  // Blender writes every bone's channels: an identity rotation on Spine1 changes nothing.
  const auto rest = changed_export(dir, fc5, "rest", [](tinygltf::Model& m) {
    mab::test::drop_extras(m);
    const int a = animation_of(m, "block_1");
    ASSERT_GE(a, 0);
    mab::test::SamplerKeys k;
    k.t = {0.0f, 0.2f};
    k.v = {0, 0, 0, 1, 0, 0, 0, 1};
    mab::test::add_channel(m, static_cast<std::size_t>(a), mab::test::node_named(m, "Spine1"), "rotation", k);
  });
  auto r = run("import " + rest.string() + " --template " + fc5.string() + " -o " + out.string(), &err);
  ASSERT_EQ(r.status, 0) << err;
  EXPECT_EQ(load(out), load(fc5));
  const auto keyed = changed_export(dir, fc5, "keyed", [&](tinygltf::Model& m) {
    mab::test::drop_extras(m);
    const int a = animation_of(m, "block_1");
    ASSERT_GE(a, 0);
    mab::test::SamplerKeys k;
    k.t = {0.0f};
    k.v = {0, 0, 0.25881905f, 0.96592583f};  // 30 degrees about z
    mab::test::add_channel(m, static_cast<std::size_t>(a), mab::test::node_named(m, "Spine1"), "rotation", k);
  });
  fs::remove(out);  // it holds the template's bytes: writing over it needs --in-place (issue 31 item 5)
  r = run("import " + keyed.string() + " --template " + fc5.string() + " -o " + out.string(), &err);
  ASSERT_EQ(r.status, 0) << err;
  EXPECT_NE(r.out.find("changed           0x8F39FA4E rotation (a new track)"), std::string::npos) << r.out;  // Spine1
  const auto after = decoded(out, 1);
  const int s2 = after.find_bone(mab::bone_hash("Spine1"));
  ASSERT_GE(s2, 0);
  ASSERT_NE(after.bones[static_cast<std::size_t>(s2)].kind(), mab::BoneKind::none);
  const auto& b = after.bones[static_cast<std::size_t>(s2)];
  const mab::Quat q = b.kind() == mab::BoneKind::constant ? b.constant : b.keys.front();
  // Rotated by the flat rig's Z-up to Y-up turn and back: 30 degrees about some axis.
  EXPECT_NEAR(std::abs(q.w), 0.96592583, 1e-3);
}

const fs::path k_motion = k_corpus / "wd2" / "translations_all_bones_root_motion.mab";

// Item 1: a translation edit on a translated bone and root-motion edits (the trajectory node's
// translation and rotation) land; the rest keeps its values.
TEST(GltfChannelsCli, TranslationAndRootMotionEditsLand) {
  const auto dir = temp_dir();
  const auto before = decoded(k_motion);
  ASSERT_FALSE(before.root_motion.translations.empty());
  ASSERT_FALSE(before.root_motion.rotations.empty());
  ASSERT_FALSE(before.bones.at(1).translations.empty());
  const auto out = dir / "out.mab";
  std::string err;
  // Unedited, through the same path: the template's bytes.
  const auto plain = changed_export(dir, k_motion, "plain", [](tinygltf::Model& m) { mab::test::drop_extras(m); });
  auto r = run("import " + plain.string() + " --template " + k_motion.string() + " -o " + out.string(), &err);
  ASSERT_EQ(r.status, 0) << err;
  EXPECT_EQ(load(out), load(k_motion));
  EXPECT_NE(r.out.find("changed           nothing"), std::string::npos) << r.out;
  const auto g = changed_export(dir, k_motion, "moved", [](tinygltf::Model& m) {
    mab::test::drop_extras(m);
    // Bone 1's node: the second bone under the rig root.
    const int root = m.scenes.at(0).nodes.at(0);
    const int node = m.nodes.at(static_cast<std::size_t>(root)).children.at(1);
    auto& a = m.animations.at(0);
    int s = mab::test::sampler_of(m, 0, node, "translation");
    ASSERT_GE(s, 0);
    auto k = mab::test::read_sampler(m, a, s, 3);
    k.v[3 * 5 + 0] += 0.25f;
    mab::test::write_sampler(m, a, s, k);
    const int traj = mab::test::node_named(m, "trajectory");
    ASSERT_GE(traj, 0);
    s = mab::test::sampler_of(m, 0, traj, "translation");
    ASSERT_GE(s, 0);
    k = mab::test::read_sampler(m, a, s, 3);
    k.v[3 * 7 + 2] += 0.5f;
    mab::test::write_sampler(m, a, s, k);
    turn_key(m, 0, traj, 4, 15.0);
  });
  fs::remove(out);  // it holds the template's bytes: writing over it needs --in-place (issue 31 item 5)
  r = run("import " + g.string() + " --template " + k_motion.string() + " -o " + out.string(), &err);
  ASSERT_EQ(r.status, 0) << err;
  EXPECT_NE(r.out.find("root motion translation"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("root motion rotation"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(" translation"), std::string::npos) << r.out;
  const auto after = decoded(out);
  ASSERT_EQ(after.key_count(), before.key_count());
  EXPECT_NEAR(after.bones.at(1).translations.at(5)[0], before.bones.at(1).translations.at(5)[0] + 0.25f, 2e-3);
  EXPECT_NEAR(after.bones.at(1).translations.at(4)[0], before.bones.at(1).translations.at(4)[0], 2e-3);
  EXPECT_NEAR(after.root_motion.translations.at(7)[2], before.root_motion.translations.at(7)[2] + 0.5f, 2e-3);
  const mab::Quat& qa = after.root_motion.rotations.at(4);
  const mab::Quat& qb = before.root_motion.rotations.at(4);
  const double c = std::abs(double{qa.x} * qb.x + double{qa.y} * qb.y + double{qa.z} * qb.z + double{qa.w} * qb.w);
  EXPECT_NEAR(c, std::cos(15.0 * 3.14159265358979 / 360.0), 1e-3);
  EXPECT_EQ(after.bones.at(0).translations, before.bones.at(0).translations);
}

// Translations an 'aNi' block cannot hold (docs/motion.md): a bone without a translation moved
// away from its rest, and a bone's constant translation (format 10.2) made to move, are refused
// by name, nothing written; an unedited export of the constants' file still comes back exactly.
TEST(GltfChannelsCli, TranslationsTheBlockCannotHoldAreRefusedByName) {
  const auto dir = temp_dir();
  std::string err;
  // A bone of a clip without translations given one that moves a unit along x.
  const auto plain_clip = k_corpus / "wd2" / "long_k40.mab";
  ASSERT_TRUE(decoded(plain_clip).bones.at(1).translations.empty());
  const auto added = changed_export(dir, plain_clip, "added", [](tinygltf::Model& m) {
    mab::test::drop_extras(m);
    const int root = m.scenes.at(0).nodes.at(0);
    const int node = m.nodes.at(static_cast<std::size_t>(root)).children.at(0);
    ASSERT_LT(mab::test::sampler_of(m, 0, node, "translation"), 0);
    const auto& n = m.nodes.at(static_cast<std::size_t>(node));
    const std::vector<float> rest = mab::test::rest_translation(n);
    mab::test::SamplerKeys k;
    k.width = 3;
    k.t = {0.0f, 0.5f};
    k.v = {rest[0], rest[1], rest[2], rest[0] + 1.0f, rest[1], rest[2]};
    mab::test::add_channel(m, 0, node, "translation", k);
  });
  const auto out = dir / "refused.mab";
  auto r = run("import " + added.string() + " --template " + plain_clip.string() + " -o " + out.string(), &err);
  EXPECT_EQ(r.status, 1) << r.out;
  EXPECT_NE(err.find("stores no translation for this bone"), std::string::npos) << err;
  EXPECT_FALSE(fs::exists(out));

  // A constant translation (one key in the export) given a second key a unit away.
  const auto constants = k_corpus / "wdl" / "translations_flag80_constants40.mab";
  const auto unedited =
      changed_export(dir, constants, "constants_plain", [](tinygltf::Model& m) { mab::test::drop_extras(m); });
  r = run("import " + unedited.string() + " --template " + constants.string() + " -o " + out.string(), &err);
  ASSERT_EQ(r.status, 0) << err;
  EXPECT_EQ(load(out), load(constants));
  fs::remove(out);
  bool moved = false;
  const auto moving = changed_export(dir, constants, "constants_moving", [&moved](tinygltf::Model& m) {
    mab::test::drop_extras(m);
    auto& a = m.animations.at(0);
    for (const auto& ch : a.channels) {
      if (ch.target_path != "translation") continue;
      auto k = mab::test::read_sampler(m, a, ch.sampler, 3);
      if (k.t.size() != 1) continue;
      k.t.push_back(k.t[0] + 0.5f);
      k.v.insert(k.v.end(), {k.v[0] + 1.0f, k.v[1], k.v[2]});
      mab::test::write_sampler(m, a, ch.sampler, k);
      moved = true;
      break;
    }
  });
  ASSERT_TRUE(moved) << "no constant translation channel in the export";
  r = run("import " + moving.string() + " --template " + constants.string() + " -o " + out.string(), &err);
  EXPECT_EQ(r.status, 1) << r.out;
  EXPECT_NE(err.find("stores one constant translation"), std::string::npos) << err;
  EXPECT_FALSE(fs::exists(out));
}

// Item 1: scale keys are refused by name; --ignore-unmatched drops them.
TEST(GltfChannelsCli, ScaleKeysAreRefusedByName) {
  const auto dir = temp_dir();
  const auto g = changed_export(dir, k_k40, "scaled", [](tinygltf::Model& m) {
    mab::test::drop_extras(m);
    mab::test::SamplerKeys k;
    k.width = 3;
    k.t = {0.0f, 1.0f};
    k.v = {1, 1, 1, 1.5f, 1.5f, 1.5f};
    mab::test::add_channel(m, 0, mab::test::node_named(m, "Spine1"), "scale", k);
  });
  const auto out = dir / "out.mab";
  std::string err;
  auto r = run("import " + g.string() + " --template " + k_k40.string() + " -o " + out.string(), &err);
  EXPECT_EQ(r.status, 1) << r.out << err;
  EXPECT_NE(err.find("Spine1 scale (the format has no scale tracks)"), std::string::npos) << err;
  EXPECT_NE(err.find("--ignore-unmatched"), std::string::npos) << err;
  r = run("import " + g.string() + " --template " + k_k40.string() + " -o " + out.string() + " --ignore-unmatched",
          &err);
  ASSERT_EQ(r.status, 0) << err;
  EXPECT_EQ(load(out), load(k_k40));
  EXPECT_NE(r.out.find("dropped           Spine1 scale"), std::string::npos) << r.out;
}

// Item 2: another clip's animation with the extras gone (Blender's default export) is refused
// from its content, as is the clip reversed; --allow-other-clip imports it.
TEST(GltfChannelsCli, AnotherClipsAnimationIsRefusedFromItsContent) {
  const auto dir = temp_dir();
  const auto other = changed_export(dir, k_corpus / "wdl" / "long_k60_alias.mab", "k60",
                                    [](tinygltf::Model& m) { mab::test::drop_extras(m); });
  const auto out = dir / "out.mab";
  std::string err;
  auto r = run("import " + other.string() + " --template " + k_k40.string() + " -o " + out.string(), &err);
  EXPECT_EQ(r.status, 1) << r.out << err;
  EXPECT_NE(err.find("another clip's animation"), std::string::npos) << err;
  EXPECT_NE(err.find("--allow-other-clip"), std::string::npos) << err;
  EXPECT_FALSE(fs::exists(out));
  r = run("import " + other.string() + " --template " + k_k40.string() + " -o " + out.string() + " --allow-other-clip",
          &err);
  ASSERT_EQ(r.status, 0) << err;
  const auto reversed = dir / "reversed.mab";
  ASSERT_EQ(run("edit " + k_k40.string() + " --reverse -o " + reversed.string()).status, 0);
  const auto rev = changed_export(dir, reversed, "rev", [](tinygltf::Model& m) { mab::test::drop_extras(m); });
  fs::remove(out);
  r = run("import " + rev.string() + " --template " + k_k40.string() + " -o " + out.string(), &err);
  EXPECT_EQ(r.status, 1) << r.out << err;
  EXPECT_NE(err.find("--allow-other-clip"), std::string::npos) << err;
  // Equal length, and one bone edited over its whole length: the same clip.
  const auto edited = changed_export(dir, k_k40, "edited", [](tinygltf::Model& m) {
    mab::test::drop_extras(m);
    auto& a = m.animations.at(0);
    const int s = a.channels.at(0).sampler;
    auto k = mab::test::read_sampler(m, a, s, 4);
    for (std::size_t i = 0; i < k.t.size(); ++i) {
      const auto v = mab::test::turned(&k.v[4 * i], 10.0);
      std::copy(v.begin(), v.end(), k.v.begin() + static_cast<std::ptrdiff_t>(4 * i));
    }
    mab::test::write_sampler(m, a, s, k);
  });
  r = run("import " + edited.string() + " --template " + k_k40.string() + " -o " + out.string(), &err);
  EXPECT_EQ(r.status, 0) << err;
}

}  // namespace
