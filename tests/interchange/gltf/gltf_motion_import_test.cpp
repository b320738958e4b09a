// glTF import of translations and root motion onto an 'aNi' template (docs/gltf.md,
// "Translations and root motion"; docs/motion.md): an edit on a timeline that gained a key time
// lands at every time, the added one sampled from the file; a constant translation moved as a
// whole lands; a channel at rest where the block stores nothing is kept out silently, one that
// moves is refused by name; a translation key between the clip's key times is refused; a file
// resampled on another frame grid is refused unless accept_resample reads the samples.
#include <mab/decode_clip.hpp>
#include <mab/gltf.hpp>
#include <mab/quat.hpp>

#include "interchange/gltf/gltf_tools.hpp"
#include "support/corpus.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>

namespace {

using mab::test::corpus_dir;
using mab::test::load;
using mab::test::load_container;
using mab::test::parse_gltf;
using mab::test::write_gltf;

// WD1, 4 bones (0 and 2 animated, 1 and 3 constant translations), 9 keys at ticks 0, 4, ..., 32
// (120/s), root motion as f32 quaternions and translations (scripts/corpus/good.py).
const auto k_root = corpus_dir() / "wd1" / "root_motion_f32x4_constants80.mab";

mab::Clip clip_of(const mab::Container& c) {
  auto d = mab::decode_clip(c, 0);
  EXPECT_TRUE(d.ok()) << (d ? "" : d.error().message());
  return d ? d->clip : mab::Clip{};
}

mab::Clip clip_of(const std::vector<std::uint8_t>& bytes) {
  auto c = mab::read_container(bytes);
  EXPECT_TRUE(c.ok());
  return c ? clip_of(*c) : mab::Clip{};
}

tinygltf::Model exported(const mab::Container& c) {
  auto g = mab::export_gltf(c);
  EXPECT_TRUE(g.ok()) << (g ? "" : g.error().message());
  return g ? parse_gltf(*g) : tinygltf::Model{};
}

std::string bone_node(std::uint32_t hash) {
  char name[32];
  std::snprintf(name, sizeof name, "bone_0x%08X", hash);
  return name;
}

mab::Result<mab::GltfImport> import(const tinygltf::Model& m, const mab::Container& c, mab::GltfImportOptions o = {}) {
  return mab::import_gltf(write_gltf(m), &c, o);
}

// Keys of channel `path` of node `name` in animation 0.
mab::test::SamplerKeys keys_of(const tinygltf::Model& m, const std::string& name, const std::string& path) {
  const int node = mab::test::node_named(m, name);
  EXPECT_GE(node, 0) << name;
  const int s = mab::test::sampler_of(m, 0, node, path);
  EXPECT_GE(s, 0) << name << " " << path;
  return s < 0 ? mab::test::SamplerKeys{}
               : mab::test::read_sampler(m, m.animations.at(0), s, path == "rotation" ? 4 : 3);
}

void set_keys(tinygltf::Model& m, const std::string& name, const std::string& path, const mab::test::SamplerKeys& k) {
  const int node = mab::test::node_named(m, name);
  ASSERT_GE(node, 0) << name;
  const int s = mab::test::sampler_of(m, 0, node, path);
  ASSERT_GE(s, 0) << name << " " << path;
  mab::test::write_sampler(m, m.animations.at(0), s, k);
}

double angle_deg(const mab::Quat& a, const std::vector<float>& b) {
  return mab::angular_error_deg(a, mab::Quat{b[0], b[1], b[2], b[3]});
}

// A rotation key set between two key times gives the block a key time of its own (docs/gltf.md,
// "Which keys are edits"); root motion edited in the same file takes, at the template's times,
// the file's values there and, at the added time, the file's channel sampled there.
TEST(GltfMotionImport, RootMotionEditsOnATimelineThatGainedAKeyTime) {
  const auto c = load_container(k_root);
  const auto before = clip_of(c);
  ASSERT_EQ(before.key_count(), 9u);
  ASSERT_EQ(before.key_times[2], 8u);
  ASSERT_EQ(before.key_times[3], 12u);
  ASSERT_EQ(before.root_motion.translations.size(), 9u);
  ASSERT_EQ(before.root_motion.rotations.size(), 9u);
  ASSERT_EQ(before.bones.at(0).kind(), mab::BoneKind::animated);
  auto m = exported(c);
  const std::string bone = bone_node(before.bones[0].hash);
  auto rot = keys_of(m, bone, "rotation");
  mab::test::insert_key(rot, 10.0f / 120.0f, 10.0);  // tick 10, between 8 and 12
  set_keys(m, bone, "rotation", rot);
  auto tr = keys_of(m, "trajectory", "translation");
  ASSERT_EQ(tr.t.size(), 9u);
  tr.v[3 * 5 + 2] += 0.5f;
  set_keys(m, "trajectory", "translation", tr);
  auto rr = keys_of(m, "trajectory", "rotation");
  ASSERT_EQ(rr.t.size(), 9u);
  const auto turned = mab::test::turned(&rr.v[4 * 4], 15.0);
  std::copy(turned.begin(), turned.end(), rr.v.begin() + 16);
  set_keys(m, "trajectory", "rotation", rr);

  auto r = import(m, c);
  ASSERT_TRUE(r.ok()) << r.error().message();
  const auto& a = r->report.animations.at(0);
  EXPECT_EQ(a.times_added, std::vector<std::uint32_t>{10});
  const auto after = clip_of(r->bytes);
  ASSERT_EQ(after.key_count(), 10u);
  ASSERT_EQ(after.key_times[3], 10u);
  // Template times: the template's values but the edited ones, which are the file's floats.
  EXPECT_EQ(after.root_motion.translations[6], (mab::Vec3{tr.v[15], tr.v[16], tr.v[17]}));
  EXPECT_EQ(after.root_motion.translations[4], before.root_motion.translations[3]);
  EXPECT_LE(angle_deg(after.root_motion.rotations[5], turned), 1e-3);
  // The added time: the file's channels there (LINEAR between ticks 8 and 12).
  const auto t_at = mab::test::lerp_at(tr, 10.0 / 120.0);
  for (unsigned i = 0; i < 3; ++i) EXPECT_NEAR(after.root_motion.translations[3][i], t_at[i], 1e-5) << i;
  EXPECT_LE(angle_deg(after.root_motion.rotations[3], mab::test::lerp_at(rr, 10.0 / 120.0)), 1e-2);
  EXPECT_NE(std::find(a.tracks_changed.begin(), a.tracks_changed.end(), "root motion translation"),
            a.tracks_changed.end());
  EXPECT_NE(std::find(a.tracks_changed.begin(), a.tracks_changed.end(), "root motion rotation"),
            a.tracks_changed.end());
}

// The trajectory's translation of k_root with a key at tick 10, between the key times 8 and 12
// and one unit off the line between them; with `edit_key_time`, the key at tick 20 moved too.
mab::Result<mab::GltfImport> root_key_between(bool edit_key_time) {
  const auto c = load_container(k_root);
  auto m = exported(c);
  auto tr = keys_of(m, "trajectory", "translation");
  EXPECT_EQ(tr.t.size(), 9u);
  if (edit_key_time) tr.v[3 * 5 + 2] += 0.5f;
  auto between = mab::test::lerp_at(tr, 10.0 / 120.0);
  between[2] += 1.0f;
  tr.t.insert(tr.t.begin() + 3, 10.0f / 120.0f);
  tr.v.insert(tr.v.begin() + 9, between.begin(), between.end());
  set_keys(m, "trajectory", "translation", tr);
  return import(m, c);
}

// An edited root-motion track with a key between two key times, and no rotation key there to
// give the block that time: the key cannot land (the block keys root motion on its key times
// only), so the import is refused, naming the track and the time (tick 10 at 120 per second),
// nothing written. The same key with every key time left as it was: the track changes nowhere
// the block keys it, but the file still moves the root there, so it is refused alike rather than
// written as the template (an edit dropped with exit 0, before stop 40).
TEST(GltfMotionImport, ARootMotionKeyBetweenTheKeyTimesIsRefused) {
  for (const bool edit_key_time : {true, false}) {
    auto r = root_key_between(edit_key_time);
    ASSERT_FALSE(r.ok()) << "the key at tick 10 was dropped (key time edited: " << edit_key_time << ")";
    EXPECT_EQ(r.error().code, mab::ErrorCode::not_decodable) << r.error().message();
    EXPECT_EQ(r.error().field, "animation");
    EXPECT_NE(r.error().detail.find("root motion translation has a key at 0.083 s"), std::string::npos)
        << r.error().message();
  }
}

// A bone's translation track edited only between two key times: refused the same way.
TEST(GltfMotionImport, ABoneTranslationKeyBetweenUnchangedKeyTimesIsRefused) {
  const auto c = load_container(mab::test::corpus_dir() / "wd1" / "translations_flag40.mab");
  const auto before = clip_of(c);
  std::size_t bone = before.bones.size();
  for (std::size_t b = 0; b < before.bones.size() && bone == before.bones.size(); ++b)
    if (!before.bones[b].translations.empty()) bone = b;
  ASSERT_LT(bone, before.bones.size());
  ASSERT_GE(before.key_times.size(), 3u);
  auto m = exported(c);
  const std::string node = bone_node(before.bones[bone].hash);
  auto k = keys_of(m, node, "translation");
  ASSERT_EQ(k.t.size(), before.key_times.size());
  // Halfway between the first two key times, one unit off the line between them.
  const double mid = (before.key_times[0] + before.key_times[1]) / 2.0 / before.key_rate;
  auto between = mab::test::lerp_at(k, mid);
  between[0] += 1.0f;
  k.t.insert(k.t.begin() + 1, static_cast<float>(mid));
  k.v.insert(k.v.begin() + 3, between.begin(), between.end());
  set_keys(m, node, "translation", k);
  auto r = import(m, c);
  ASSERT_FALSE(r.ok()) << "the key between the first two key times was dropped";
  EXPECT_EQ(r.error().field, "animation");
  EXPECT_NE(r.error().detail.find("translation has a key at"), std::string::npos) << r.error().message();
}

// A constant translation (format 10.2: one value for the clip) moved as a whole is still one
// value: it lands, as the f32 the file gives (constant translations are written bit for bit,
// docs/motion.md).
TEST(GltfMotionImport, AConstantTranslationMovedAsAWholeLands) {
  const auto c = load_container(k_root);
  const auto before = clip_of(c);
  ASSERT_TRUE(before.bones.at(1).constant_translation.has_value());
  auto m = exported(c);
  const std::string node = bone_node(before.bones[1].hash);
  auto k = keys_of(m, node, "translation");
  ASSERT_FALSE(k.t.empty());
  for (std::size_t i = 0; i < k.t.size(); ++i) k.v[3 * i] += 1.0f;
  set_keys(m, node, "translation", k);
  auto r = import(m, c);
  ASSERT_TRUE(r.ok()) << r.error().message();
  const auto after = clip_of(r->bytes);
  ASSERT_TRUE(after.bones.at(1).constant_translation.has_value());
  EXPECT_EQ(*after.bones[1].constant_translation, (mab::Vec3{k.v[0], k.v[1], k.v[2]}));
  EXPECT_EQ(after.bones[3].constant_translation, before.bones[3].constant_translation);
  const auto& changed = r->report.animations.at(0).tracks_changed;
  ASSERT_EQ(changed.size(), 1u);
  EXPECT_NE(changed[0].find("constant translation"), std::string::npos) << changed[0];
}

// A translation channel on a bone the block does not translate, holding the node's rest: nothing
// to store and nothing lost, so the template comes back as it was (one that moves is refused:
// GltfChannelsCli.TranslationsTheBlockCannotHoldAreRefusedByName).
TEST(GltfMotionImport, ATranslationAtRestOnABoneWithoutOneIsKeptOut) {
  const auto path = corpus_dir() / "wd2" / "long_k40.mab";
  const auto c = load_container(path);
  const auto before = clip_of(c);
  ASSERT_TRUE(before.bones.at(1).translations.empty());
  ASSERT_FALSE(before.bones[1].constant_translation.has_value());
  auto m = exported(c);
  const int node = mab::test::node_named(m, bone_node(before.bones[1].hash));
  ASSERT_GE(node, 0);
  ASSERT_LT(mab::test::sampler_of(m, 0, node, "translation"), 0);
  const auto& n = m.nodes.at(static_cast<std::size_t>(node));
  const std::vector<float> rest = mab::test::rest_translation(n);
  mab::test::SamplerKeys k;
  k.width = 3;
  k.t = {0.0f, 0.5f};
  k.v = {rest[0], rest[1], rest[2], rest[0], rest[1], rest[2]};
  mab::test::add_channel(m, 0, node, "translation", k);
  auto r = import(m, c);
  ASSERT_TRUE(r.ok()) << r.error().message();
  EXPECT_EQ(r->bytes, load(path));
}

// A channel on the rig's root, which is no bone of the block and not root motion, that moves it:
// refused naming the node; ignore_unmatched drops it and writes the template as it was.
TEST(GltfMotionImport, ATranslationOnANodeThatIsNoBoneIsRefusedOrDropped) {
  const auto c = load_container(k_root);
  auto m = exported(c);
  const int root = m.scenes.at(0).nodes.at(0);
  const std::string name = m.nodes.at(static_cast<std::size_t>(root)).name;
  ASSERT_NE(name, "trajectory");
  mab::test::SamplerKeys k;
  k.width = 3;
  k.t = {0.0f, 0.2f};
  k.v = {0, 0, 0, 0, 2, 0};
  mab::test::add_channel(m, 0, root, "translation", k);
  auto r = import(m, c);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, mab::ErrorCode::invalid_argument);
  EXPECT_NE(r.error().detail.find(name), std::string::npos) << r.error().message();
  EXPECT_NE(r.error().detail.find("matches no bone"), std::string::npos) << r.error().message();
  mab::GltfImportOptions o;
  o.ignore_unmatched = true;
  auto dropped = import(m, c, o);
  ASSERT_TRUE(dropped.ok()) << dropped.error().message();
  EXPECT_EQ(dropped->bytes, load(k_root));
}

// The template with the root-motion section of `slot` (WD: 2 DisplacementOrientations, 3
// DisplacementTranslations, docs/motion.md) filled with 0xFF: neither hypothesis reads it (NaN
// floats; a 6-byte code with bit 15 of its third word set), so the block keeps it as bytes and
// has root motion of the other kind only.
std::vector<std::uint8_t> with_opaque_root_section(std::size_t slot) {
  auto c = load_container(k_root);
  auto* s = c.blocks.at(0).section_mut(slot);
  EXPECT_NE(s, nullptr);
  if (s) std::fill(s->begin(), s->end(), std::uint8_t{0xFF});
  auto bytes = mab::write_container(c);
  EXPECT_TRUE(bytes.ok());
  return bytes ? *bytes : std::vector<std::uint8_t>{};
}

// Root motion of a kind the block does not store (its section did not decode): a trajectory
// channel at the node's rest is kept out silently; one that moves it is refused by name, and
// ignore_unmatched drops it, the template's bytes written.
TEST(GltfMotionImport, RootMotionTheBlockDoesNotStoreIsRefusedWhenItMoves) {
  struct Kind {
    std::size_t slot;
    const char* path;
    const char* refused;
  };
  for (const Kind& kind : {Kind{2, "rotation", "root motion rotation (the block stores none)"},
                           Kind{3, "translation", "root motion translation (the block stores none)"}}) {
    const auto bytes = with_opaque_root_section(kind.slot);
    auto c = mab::read_container(bytes);
    ASSERT_TRUE(c.ok());
    const auto clip = clip_of(*c);
    ASSERT_EQ(clip.root_motion.rotations.empty(), kind.slot == 2) << kind.path;
    ASSERT_EQ(clip.root_motion.translations.empty(), kind.slot == 3) << kind.path;
    const auto m = exported(*c);
    const int traj = mab::test::node_named(m, "trajectory");
    ASSERT_GE(traj, 0);
    ASSERT_LT(mab::test::sampler_of(m, 0, traj, kind.path), 0) << kind.path;
    const auto& n = m.nodes.at(static_cast<std::size_t>(traj));
    mab::test::SamplerKeys rest, moved;
    rest.width = moved.width = kind.slot == 2 ? 4 : 3;
    rest.t = moved.t = {0.0f, 8.0f / 120.0f};
    if (kind.slot == 2) {
      std::vector<float> q{0, 0, 0, 1};
      for (std::size_t i = 0; i < n.rotation.size() && i < 4; ++i) q[i] = static_cast<float>(n.rotation[i]);
      const auto t = mab::test::turned(q.data(), 30.0);
      rest.v = {q[0], q[1], q[2], q[3], q[0], q[1], q[2], q[3]};
      moved.v = {q[0], q[1], q[2], q[3], t[0], t[1], t[2], t[3]};
    } else {
      std::vector<float> p{0, 0, 0};
      for (std::size_t i = 0; i < n.translation.size() && i < 3; ++i) p[i] = static_cast<float>(n.translation[i]);
      rest.v = {p[0], p[1], p[2], p[0], p[1], p[2]};
      moved.v = {p[0], p[1], p[2], p[0] + 1.0f, p[1], p[2]};
    }
    auto at_rest = m;
    mab::test::add_channel(at_rest, 0, traj, kind.path, rest);
    auto r = import(at_rest, *c);
    ASSERT_TRUE(r.ok()) << kind.path << ": " << r.error().message();
    EXPECT_EQ(r->bytes, bytes) << kind.path;

    auto moving = m;
    mab::test::add_channel(moving, 0, traj, kind.path, moved);
    r = import(moving, *c);
    ASSERT_FALSE(r.ok()) << kind.path;
    EXPECT_EQ(r.error().code, mab::ErrorCode::invalid_argument) << kind.path;
    EXPECT_NE(r.error().detail.find(kind.refused), std::string::npos) << r.error().message();
    mab::GltfImportOptions o;
    o.ignore_unmatched = true;
    r = import(moving, *c, o);
    ASSERT_TRUE(r.ok()) << kind.path << ": " << r.error().message();
    EXPECT_EQ(r->bytes, bytes) << kind.path;
    EXPECT_EQ(r->report.animations.at(0).dropped_channels, std::vector<std::string>{kind.refused}) << kind.path;
  }
}

// Blender's "Always Sample Animations" at 24 frames per second: a grid that misses the clip's
// 30-per-second key times (docs/gltf.md, "Which keys are edits"). An edited root-motion key is
// then refused (the samples cannot tell it); accept_resample reads it from the samples, and
// the block's value at each key time is the file's samples interpolated there.
TEST(GltfMotionImport, ResampledRootMotionEditsNeedAcceptResample) {
  const auto c = load_container(k_root);
  const auto before = clip_of(c);
  auto m = exported(c);
  auto tr = keys_of(m, "trajectory", "translation");
  ASSERT_EQ(tr.t.size(), 9u);
  tr.v[3 * 5 + 2] += 0.5f;
  set_keys(m, "trajectory", "translation", tr);
  mab::test::resample_like_blender(m, 24.0);
  auto r = import(m, c);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, mab::ErrorCode::not_decodable) << r.error().message();
  mab::GltfImportOptions o;
  o.accept_resample = true;
  r = import(m, c, o);
  ASSERT_TRUE(r.ok()) << r.error().message();
  const auto after = clip_of(r->bytes);
  ASSERT_EQ(after.key_times, before.key_times);
  const auto samples = keys_of(m, "trajectory", "translation");
  const auto at5 = mab::test::lerp_at(samples, before.key_times[5] / before.key_rate);
  EXPECT_NEAR(after.root_motion.translations.at(5)[2], at5[2], 1e-5);
  EXPECT_GT(after.root_motion.translations[5][2], before.root_motion.translations[5][2] + 0.1f);
}

}  // namespace
