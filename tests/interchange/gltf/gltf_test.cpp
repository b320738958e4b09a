// glTF 2.0: what export writes, exact round trips through import, edits, frame changes such
// as Blender's, new clips, third-party rigs, sampling and hostile documents.
#include <mab/gltf.hpp>
#include <mab/validate.hpp>

#include "interchange/gltf/gltf_document.hpp"
#include "interchange/gltf/gltf_rig.hpp"
#include "interchange/gltf/gltf_sample.hpp"
#include "support/flags.hpp"
#include "support/corpus.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <map>

namespace {

using mab::test::good_files;
using mab::test::load;
using mab::test::name_of;

constexpr double pi = 3.14159265358979323846;

std::vector<std::filesystem::path> decodable_files() {
  std::vector<std::filesystem::path> out;
  for (const auto& p : good_files()) {
    auto c = mab::read_container(load(p));
    if (!c) continue;
    for (std::size_t b = 0; b < c->blocks.size(); ++b)
      if (mab::decode_clip(*c, b)) {
        out.push_back(p);
        break;
      }
  }
  return out;
}

mab::Container container_of(const std::filesystem::path& p) {
  auto c = mab::read_container(load(p));
  EXPECT_TRUE(c.ok()) << name_of(p);
  return c ? std::move(c).value() : mab::Container{};
}

tinygltf::Model parse(const std::vector<std::uint8_t>& bytes) {
  auto m = mab::gltf::parse(bytes, {}, mab::default_limits);
  EXPECT_TRUE(m.ok()) << (m ? "" : m.error().message());
  return m ? std::move(m).value() : tinygltf::Model{};
}

std::vector<std::uint8_t> serialize(const tinygltf::Model& m, bool binary) {
  auto b = mab::gltf::serialize(m, binary);
  EXPECT_TRUE(b.ok());
  return b ? std::move(b).value() : std::vector<std::uint8_t>{};
}

// The floats of accessor `a`, writable in place (our exports use one tightly packed buffer).
float* accessor_floats(tinygltf::Model& m, int a) {
  const auto& acc = m.accessors[static_cast<std::size_t>(a)];
  const auto& view = m.bufferViews[static_cast<std::size_t>(acc.bufferView)];
  auto& data = m.buffers[static_cast<std::size_t>(view.buffer)].data;
  return reinterpret_cast<float*>(data.data() + view.byteOffset + acc.byteOffset);
}

mab::gltf::QuatD axis_angle(double x, double y, double z, double deg) {
  const double n = std::sqrt(x * x + y * y + z * z);
  const double h = deg * pi / 360.0;
  return {x / n * std::sin(h), y / n * std::sin(h), z / n * std::sin(h), std::cos(h)};
}

void expect_same_rotations(const mab::Clip& a, const mab::Clip& b, double bound_deg, const std::string& what) {
  ASSERT_EQ(a.bones.size(), b.bones.size()) << what;
  for (std::size_t i = 0; i < a.bones.size(); ++i) {
    ASSERT_EQ(a.bones[i].kind(), b.bones[i].kind()) << what << " bone " << i;
    if (a.bones[i].kind() == mab::BoneKind::constant) {
      EXPECT_LE(mab::angular_error_deg(a.bones[i].constant, b.bones[i].constant), bound_deg) << what << " bone " << i;
    }
    for (std::size_t k = 0; k < a.bones[i].keys.size(); ++k)
      EXPECT_LE(mab::angular_error_deg(a.bones[i].keys[k], b.bones[i].keys[k]), bound_deg)
          << what << " bone " << i << " key " << k;
  }
}

// --- Export ---

TEST(GltfExport, OneNodePerBoneOneAnimationPerBlockRotationsAtTheKeyTimes) {
  std::size_t files = 0, channels = 0;
  for (const auto& p : decodable_files()) {
    const mab::Container c = container_of(p);
    mab::GltfExportReport rep;
    auto bytes = mab::export_gltf(c, {}, &rep);
    ASSERT_TRUE(bytes.ok()) << name_of(p) << ": " << bytes.error().message();
    const tinygltf::Model m = parse(*bytes);
    ++files;
    std::size_t anim = 0;
    for (std::size_t b = 0; b < c.blocks.size(); ++b) {
      auto d = mab::decode_clip(c, b);
      ASSERT_TRUE(d.ok());
      std::size_t rotated = 0;
      for (const auto& bone : d->clip.bones) rotated += bone.kind() != mab::BoneKind::none;
      if (rotated == 0) continue;
      ASSERT_LT(anim, m.animations.size()) << name_of(p);
      const auto& a = m.animations[anim++];
      EXPECT_EQ(a.name, "block_" + std::to_string(b));
      // Rotation channels first, one per rotated bone; translations and root motion (docs/motion.md,
      // gltf_motion_test.cpp) after them.
      std::size_t motion = 0;
      for (const auto& bone : d->clip.bones)
        motion += !bone.translations.empty() || bone.constant_translation.has_value();
      motion += !d->clip.root_motion.rotations.empty();
      motion += !d->clip.root_motion.translations.empty();
      ASSERT_EQ(a.channels.size(), rotated + motion) << name_of(p);
      std::size_t ch = 0;
      for (const auto& bone : d->clip.bones) {
        if (bone.kind() == mab::BoneKind::none) continue;
        const auto& channel = a.channels[ch++];
        EXPECT_EQ(channel.target_path, "rotation");
        const auto& node = m.nodes[static_cast<std::size_t>(channel.target_node)];
        char name[32];
        std::snprintf(name, sizeof name, "bone_0x%08X", bone.hash);
        EXPECT_EQ(node.name.substr(0, 15), name) << name_of(p);
        auto curve = mab::gltf::read_curve(m, a, channel.sampler, 4, "sampler");
        ASSERT_TRUE(curve.ok()) << curve.error().message();
        EXPECT_EQ(curve->interpolation, mab::gltf::Interpolation::linear);
        if (bone.kind() == mab::BoneKind::constant) {
          ASSERT_EQ(curve->keys(), 1u) << "constant bones are one key";
          EXPECT_LE(mab::angular_error_deg(mab::gltf::normalised(bone.constant),
                                           {curve->values[0], curve->values[1], curve->values[2], curve->values[3]}),
                    1e-4);
          continue;
        }
        ASSERT_EQ(curve->keys(), d->clip.key_count());
        for (std::size_t k = 0; k < curve->keys(); ++k) {
          EXPECT_EQ(curve->times[k], static_cast<float>(d->clip.key_times[k] / d->clip.key_rate));
          const float* v = curve->key(k);
          const mab::Quat q{v[0], v[1], v[2], v[3]};
          EXPECT_LE(mab::angular_error_deg(q, bone.keys[k]), 1e-4) << name_of(p) << " key " << k;
          EXPECT_NEAR(q.x * q.x + q.y * q.y + q.z * q.z + q.w * q.w, 1.0, 1e-6) << "unit quaternions";
          if (k > 0) {
            const float* u = curve->key(k - 1);
            EXPECT_GE(u[0] * v[0] + u[1] * v[1] + u[2] * v[2] + u[3] * v[3], 0.0f)
                << "hemisphere kept continuous, key " << k;
          }
        }
        ++channels;
      }
    }
    EXPECT_EQ(anim, m.animations.size()) << name_of(p);
    EXPECT_EQ(rep.animations, m.animations.size());
  }
  EXPECT_GE(files, 40u);
  EXPECT_GT(channels, 100u);
}

TEST(GltfExport, NamesFromTheNamesListAndTheHashInExtras) {
  const mab::Container c = container_of(mab::test::corpus_dir() / "wd1" / "long_k100.mab");
  mab::GltfExportOptions o;
  o.names = {"Root", "Pelvis", "NotInTheClip"};
  mab::GltfExportReport rep;
  auto bytes = mab::export_gltf(c, o, &rep);
  ASSERT_TRUE(bytes.ok());
  const auto m = parse(*bytes);
  std::map<std::string, std::string> hash_of;
  for (const auto& n : m.nodes) {
    const auto& ex = n.extras;
    if (ex.IsObject() && ex.Has("mabkit")) hash_of[n.name] = ex.Get("mabkit").Get("hash").Get<std::string>();
  }
  EXPECT_EQ(hash_of["Root"], "0xB6C65665");
  EXPECT_EQ(hash_of["Pelvis"], "0xB021FD58");
  EXPECT_EQ(rep.named, 2u);
  // The root turns Dunia's Z-up into glTF's Y-up.
  ASSERT_EQ(m.nodes[0].rotation.size(), 4u);
  EXPECT_NEAR(m.nodes[0].rotation[0], -std::sqrt(0.5), 1e-12);
  EXPECT_NEAR(m.nodes[0].rotation[3], std::sqrt(0.5), 1e-12);
  ASSERT_EQ(m.skins.size(), 1u);
  EXPECT_EQ(m.skins[0].skeleton, 0);
  EXPECT_EQ(m.skins[0].joints.size(), c.blocks[0].bones.size());
}

TEST(GltfExport, RefusesClipsThatDoNotDecodeOrHaveDecreasingTimes) {
  const mab::Container opaque = container_of(mab::test::corpus_dir() / "primal" / "opaque_33.mab");
  auto r = mab::export_gltf(opaque);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, mab::ErrorCode::not_decodable);
  EXPECT_NE(r.error().message().find("opaque"), std::string::npos) << r.error().message();

  mab::Container c = container_of(mab::test::corpus_dir() / "wd1" / "long_k100.mab");
  auto d = mab::decode_clip(c);
  ASSERT_TRUE(d.ok());
  mab::Clip clip = d->clip;
  std::swap(clip.key_times[3], clip.key_times[4]);
  auto bytes = mab::encode_clip(*d, clip);
  ASSERT_TRUE(bytes.ok()) << bytes.error().message();
  auto swapped = mab::export_gltf(*mab::read_container(*bytes));
  ASSERT_FALSE(swapped.ok());
  EXPECT_EQ(swapped.error().code, mab::ErrorCode::bad_value);
  EXPECT_NE(swapped.error().message().find("key 4"), std::string::npos) << swapped.error().message();
}

// --- Import: exact round trips ---

TEST(GltfImport, UneditedExportImportsToTheTemplateBytes) {
  std::size_t n = 0;
  for (const auto& p : decodable_files()) {
    const auto original = load(p);
    const mab::Container c = container_of(p);
    for (const bool binary : {false, true}) {
      mab::GltfExportOptions o;
      o.binary = binary;
      auto g = mab::export_gltf(c, o);
      ASSERT_TRUE(g.ok()) << name_of(p);
      auto imported = mab::import_gltf(*g, &c);
      ASSERT_TRUE(imported.ok()) << name_of(p) << ": " << imported.error().message();
      EXPECT_EQ(imported->bytes, original) << name_of(p) << (binary ? " (glb)" : " (gltf)");
      for (const auto& a : imported->report.animations) {
        EXPECT_EQ(a.encode.chunks_requantised, 0u) << name_of(p);
        EXPECT_EQ(a.keys_changed, 0u) << name_of(p);
      }
      ++n;
    }
  }
  EXPECT_GE(n, 80u);
}

// Blender re-expresses joints in frames of its own: node rotation q becomes F_p^-1 q F_b with
// rest F_p^-1 F_b. This applies such frame changes (arbitrary, per bone) and also rotates the
// rig's root; rest-relative import must give the template's bytes back, local import must not.
TEST(GltfImport, JointFrameChangesLikeBlendersComeBackByteForByte) {
  for (const char* rel : {"wd1/long_k100.mab", "wdl/many_bones_120.mab", "fc5/three_blocks.mab"}) {
    const auto path = mab::test::corpus_dir() / rel;
    const auto original = load(path);
    const mab::Container c = container_of(path);
    auto g = mab::export_gltf(c);
    ASSERT_TRUE(g.ok());
    tinygltf::Model m = parse(*g);
    std::vector<mab::gltf::QuatD> frame(m.nodes.size());
    for (std::size_t i = 1; i < m.nodes.size(); ++i) {
      const double x = static_cast<double>(i);
      frame[i] = axis_angle(std::sin(x), std::cos(2.0 * x), 0.5, 37.0 * x);
    }
    // Root: an extra rotation of the whole rig (as when the armature object is turned).
    const auto extra = axis_angle(0, 0, 1, 30);
    auto root = mab::gltf::to_double(
        mab::Quat{static_cast<float>(m.nodes[0].rotation[0]), 0, 0, static_cast<float>(m.nodes[0].rotation[3])});
    root = mab::gltf::mul(extra, root);
    m.nodes[0].rotation = {root.x, root.y, root.z, root.w};
    for (std::size_t i = 1; i < m.nodes.size(); ++i) {
      const auto& f = frame[i];
      m.nodes[i].rotation = {f.x, f.y, f.z, f.w};  // rest: F_b (the parent is the root, F = 1)
    }
    for (auto& a : m.animations)
      for (auto& ch : a.channels) {
        const auto& s = a.samplers[static_cast<std::size_t>(ch.sampler)];
        float* v = accessor_floats(m, s.output);
        const std::size_t count = m.accessors[static_cast<std::size_t>(s.output)].count;
        for (std::size_t k = 0; k < count; ++k) {
          const auto q = mab::gltf::mul(mab::gltf::to_double({v[4 * k], v[4 * k + 1], v[4 * k + 2], v[4 * k + 3]}),
                                        frame[static_cast<std::size_t>(ch.target_node)]);
          const mab::Quat f = mab::gltf::to_float(q);
          std::memcpy(v + 4 * k, &f, sizeof f);
        }
      }
    const auto changed = serialize(m, true);
    auto back = mab::import_gltf(changed, &c);
    ASSERT_TRUE(back.ok()) << rel << ": " << back.error().message();
    EXPECT_EQ(back->bytes, original) << rel;
    mab::GltfImportOptions local;
    local.rotations = mab::GltfRotations::local;
    // Read locally, every bone's rotations disagree with the template: another clip's content.
    auto refused = mab::import_gltf(changed, &c, local);
    ASSERT_FALSE(refused.ok()) << rel;
    EXPECT_NE(refused.error().message(mab::test::as_flag).find("--allow-other-clip"), std::string::npos)
        << refused.error().message();
    local.allow_other_clip = true;
    auto naive = mab::import_gltf(changed, &c, local);
    ASSERT_TRUE(naive.ok()) << naive.error().message();
    EXPECT_NE(naive->bytes, original) << rel << ": the frame change must matter to a local read";
  }
}

// One key of one bone moved: only its chunk is re-quantised, and the key decodes to the new
// rotation within the reported error.
TEST(GltfImport, AnEditedKeyChangesOnlyItsChunk) {
  const auto path = mab::test::corpus_dir() / "wd1" / "long_k100.mab";
  const mab::Container c = container_of(path);
  auto before = mab::decode_clip(c);
  ASSERT_TRUE(before.ok());
  auto g = mab::export_gltf(c);
  ASSERT_TRUE(g.ok());
  tinygltf::Model m = parse(*g);
  auto& a = m.animations[0];
  const auto& ch = a.channels[1];  // bone 1
  float* v = accessor_floats(m, a.samplers[static_cast<std::size_t>(ch.sampler)].output);
  const std::size_t key = 37;
  const auto turned = mab::gltf::mul(mab::gltf::to_double({v[4 * key], v[4 * key + 1], v[4 * key + 2], v[4 * key + 3]}),
                                     axis_angle(1, 0, 0, 10));
  const mab::Quat target = mab::gltf::to_float(turned);
  std::memcpy(v + 4 * key, &target, sizeof target);
  // A bound the bone's own depth meets: the depth is kept and one chunk re-quantised. (With
  // the default 0.01 degree a coarse bone is re-quantised whole at a finer depth; the Blender
  // test covers that case.)
  mab::GltfImportOptions o;
  o.max_error_deg = 1.0;
  auto imported = mab::import_gltf(serialize(m, true), &c, o);
  ASSERT_TRUE(imported.ok()) << imported.error().message();
  const auto& rep = imported->report.animations.at(0);
  EXPECT_EQ(rep.encode.chunks_requantised, 1u);
  EXPECT_EQ(rep.keys_changed, 1u);
  ASSERT_EQ(rep.bones_changed.size(), 1u);
  EXPECT_EQ(rep.bones_changed[0], before->clip.bones[1].hash);
  auto after = mab::decode_clip(*mab::read_container(imported->bytes));
  ASSERT_TRUE(after.ok());
  EXPECT_LE(mab::angular_error_deg(after->clip.bones[1].keys[key], target), rep.encode.max_error_deg + 2e-5);
  EXPECT_NEAR(mab::angular_error_deg(after->clip.bones[1].keys[key], before->clip.bones[1].keys[key]), 10.0,
              rep.encode.max_error_deg + 2e-5);
  for (std::size_t i = 0; i < before->clip.bones.size(); ++i)
    for (std::size_t k = 0; k < before->clip.bones[i].keys.size(); ++k) {
      if (i == 1 && k / 8 == key / 8) continue;
      EXPECT_EQ(std::memcmp(&before->clip.bones[i].keys[k], &after->clip.bones[i].keys[k], sizeof(mab::Quat)), 0)
          << "bone " << i << " key " << k;
    }
  for (const auto& f : mab::validate(*mab::read_container(imported->bytes)))
    EXPECT_NE(f.severity, mab::Severity::error) << f.message;
}

TEST(GltfImport, ConstantBoneThatNowMovesBecomesAnimatedWithinTheBound) {
  const auto path = mab::test::corpus_dir() / "wd1" / "mixed_k17_padded_markup.mab";
  const mab::Container c = container_of(path);
  auto d = mab::decode_clip(c);
  ASSERT_TRUE(d.ok());
  int bone = -1;
  for (std::size_t i = 0; i < d->clip.bones.size(); ++i)
    if (d->clip.bones[i].kind() == mab::BoneKind::constant) bone = static_cast<int>(i);
  ASSERT_GE(bone, 0);
  mab::Clip clip = d->clip;
  auto& b = clip.bones[static_cast<std::size_t>(bone)];
  const mab::Quat base = b.constant;
  b.set_kind(mab::BoneKind::animated);
  b.set_bit_depth(16);
  b.keys.clear();
  for (std::size_t k = 0; k < clip.key_count(); ++k)
    b.keys.push_back(mab::gltf::to_float(
        mab::gltf::mul(mab::gltf::to_double(base), axis_angle(0, 1, 0, 3.0 * static_cast<double>(k)))));
  // Write the moving bone as a glTF (from a file where it is animated), import against the
  // original where it is constant.
  auto moved = mab::encode_clip(*d, clip);
  ASSERT_TRUE(moved.ok()) << moved.error().message();
  auto g = mab::export_gltf(*mab::read_container(*moved));
  ASSERT_TRUE(g.ok());
  mab::GltfImportOptions o;
  o.max_error_deg = 0.02;
  auto imported = mab::import_gltf(*g, &c, o);
  ASSERT_TRUE(imported.ok()) << imported.error().message();
  const auto& rep = imported->report.animations.at(0);
  ASSERT_EQ(rep.constant_to_animated.size(), 1u);
  auto back = mab::decode_clip(*mab::read_container(imported->bytes));
  ASSERT_TRUE(back.ok());
  const auto& nb = back->clip.bones[static_cast<std::size_t>(bone)];
  ASSERT_EQ(nb.kind(), mab::BoneKind::animated);
  EXPECT_LE(rep.encode.max_error_deg, 0.02);
  auto src = mab::decode_clip(*mab::read_container(*moved));
  for (std::size_t k = 0; k < nb.keys.size(); ++k)
    EXPECT_LE(mab::angular_error_deg(nb.keys[k], src->clip.bones[static_cast<std::size_t>(bone)].keys[k]),
              rep.encode.max_error_deg + 2e-5);
}

TEST(GltfImport, KeepTimesRoundsTheGltfTimesToTheKeyRate) {
  const auto path = mab::test::corpus_dir() / "wdl" / "long_k60_alias.mab";
  const mab::Container c = container_of(path);
  auto d = mab::decode_clip(c);
  ASSERT_TRUE(d.ok());
  auto g = mab::export_gltf(c);
  ASSERT_TRUE(g.ok());
  tinygltf::Model m = parse(*g);
  // Stretch the animation by 2x (as retiming in a tool would), times nudged off the grid.
  for (auto& acc : m.accessors) {
    if (acc.type != TINYGLTF_TYPE_SCALAR) continue;
    float* t = accessor_floats(m, static_cast<int>(&acc - m.accessors.data()));
    for (std::size_t k = 0; k < acc.count; ++k) t[k] = 2.0f * t[k] + 0.004f;
    acc.minValues = {t[0]};
    acc.maxValues = {t[acc.count - 1]};
  }
  mab::GltfImportOptions o;
  o.keep_times = true;
  auto imported = mab::import_gltf(serialize(m, false), &c, o);
  ASSERT_TRUE(imported.ok()) << imported.error().message();
  auto back = mab::decode_clip(*mab::read_container(imported->bytes));
  ASSERT_TRUE(back.ok());
  ASSERT_EQ(back->clip.key_count(), d->clip.key_count());
  for (std::size_t k = 0; k < d->clip.key_count(); ++k)
    EXPECT_EQ(back->clip.key_times[k],
              static_cast<std::uint32_t>(std::lround(2.0 * d->clip.key_times[k] + 0.004 * d->clip.key_rate)));
  // Same rotations at the (moved) keys.
  expect_same_rotations(d->clip, back->clip, imported->report.max_error_deg + 2e-5, "stretched");
  EXPECT_FALSE(imported->report.animations[0].times_from_template);
}

TEST(GltfImport, UnmatchedNodesAreRefusedOrDroppedAndBonesWithoutChannelsKept) {
  const auto path = mab::test::corpus_dir() / "wd1" / "long_k100.mab";
  const auto original = load(path);
  const mab::Container c = container_of(path);
  auto g = mab::export_gltf(c);
  ASSERT_TRUE(g.ok());
  tinygltf::Model m = parse(*g);
  // Bone 2's channel now targets a node no template bone matches; bone 2 has no channel left.
  tinygltf::Node stranger;
  stranger.name = "SomeoneElse";
  m.nodes.push_back(stranger);
  m.nodes[0].children.push_back(static_cast<int>(m.nodes.size() - 1));
  m.animations[0].channels[2].target_node = static_cast<int>(m.nodes.size() - 1);
  // It moves: refused by name, as it may hold an edit (issue 31); dropped on purpose, listed.
  auto refused = mab::import_gltf(serialize(m, true), &c);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.error().message().find("SomeoneElse (matches no bone of the block)"), std::string::npos)
      << refused.error().message();
  mab::GltfImportOptions drop;
  drop.ignore_unmatched = true;
  auto imported = mab::import_gltf(serialize(m, true), &c, drop);
  ASSERT_TRUE(imported.ok()) << imported.error().message();
  const auto& rep = imported->report.animations.at(0);
  ASSERT_EQ(rep.dropped_channels.size(), 1u);
  ASSERT_EQ(rep.nodes_unmatched.size(), 1u);
  EXPECT_EQ(rep.nodes_unmatched[0], "SomeoneElse");
  ASSERT_EQ(rep.bones_kept.size(), 1u);
  EXPECT_EQ(rep.bones_kept[0], c.blocks[0].bones[2].hash);
  EXPECT_EQ(imported->bytes, original) << "a bone without a channel is kept as it was";
}

TEST(GltfImport, TranslationAndScaleChannelsAreReportedNotDropped) {
  const auto rig = load(mab::test::corpus_dir() / "external" / "RiggedFigure.gltf");
  mab::GltfImportOptions o;
  o.game = mab::Game::watch_dogs;
  auto imported = mab::import_gltf(rig, nullptr, o);
  ASSERT_TRUE(imported.ok()) << imported.error().message();
  const auto& lines = imported->report.ignored_channels;
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[0].rfind("19 translation channel(s) not stored", 0), 0u) << lines[0];
  EXPECT_EQ(lines[1].rfind("19 scale channel(s) not stored", 0), 0u) << lines[1];
  EXPECT_FALSE(imported->report.defaults.empty());
}

// --- New clips and third-party rigs ---

// A glTF animation into a new clip of every game whose layout is specified; the rotations
// come back within the error the encoder reports.
TEST(GltfImport, NewClipOfEveryGameFromAnExport) {
  const mab::Container c = container_of(mab::test::corpus_dir() / "wd1" / "long_k100.mab");
  auto d = mab::decode_clip(c);
  ASSERT_TRUE(d.ok());
  auto g = mab::export_gltf(c);
  ASSERT_TRUE(g.ok());
  for (const auto game :
       {mab::Game::watch_dogs, mab::Game::watch_dogs_2, mab::Game::watch_dogs_legion, mab::Game::far_cry_5}) {
    mab::GltfImportOptions o;
    o.game = game;
    auto imported = mab::import_gltf(*g, nullptr, o);
    ASSERT_TRUE(imported.ok()) << mab::to_string(game) << ": " << imported.error().message();
    auto nc = mab::read_container(imported->bytes);
    ASSERT_TRUE(nc.ok()) << nc.error().message();
    EXPECT_EQ(nc->variant->game, game);
    auto w = mab::write_container(*nc);
    ASSERT_TRUE(w.ok());
    EXPECT_EQ(*w, imported->bytes);
    for (const auto& f : mab::validate(*nc)) EXPECT_NE(f.severity, mab::Severity::error) << f.message;
    auto back = mab::decode_clip(*nc);
    ASSERT_TRUE(back.ok());
    ASSERT_EQ(back->clip.bones.size(), d->clip.bones.size());
    const double bound = imported->report.max_error_deg + 2e-5;
    EXPECT_LE(imported->report.max_error_deg, 0.01);
    for (std::size_t i = 0; i < d->clip.bones.size(); ++i) {
      EXPECT_EQ(back->clip.bones[i].hash, d->clip.bones[i].hash);
      // Same times in seconds: WD1 ticks at 120/s, the others at 30 frames/s (decision 7).
      for (std::size_t k = 0; k < d->clip.key_count(); ++k) {
        const double t = d->clip.key_seconds(k);
        std::size_t j = 0;
        while (j < back->clip.key_count() && std::abs(back->clip.key_seconds(j) - t) > 0.5 / back->clip.key_rate) ++j;
        ASSERT_LT(j, back->clip.key_count()) << "time " << t;
        if (std::abs(back->clip.key_seconds(j) - t) > 1e-6) continue;  // not on the 30/s grid
        EXPECT_LE(mab::angular_error_deg(back->clip.bones[i].keys[j], d->clip.bones[i].keys[k]), bound)
            << mab::to_string(game) << " bone " << i << " key " << k;
      }
    }
  }
}

// Item 5 of the issue: each Khronos sample rig into a new WD1 and a new WDL clip, verified,
// exported back, every joint at every key compared with the source sampled at that time.
TEST(GltfImport, KhronosRigsRoundTripWithinTheReportedBound) {
  for (const char* rig : {"RiggedSimple.gltf", "RiggedFigure.gltf"}) {
    const auto src_bytes = load(mab::test::corpus_dir() / "external" / rig);
    const tinygltf::Model src = parse(src_bytes);
    for (const auto game : {mab::Game::watch_dogs, mab::Game::watch_dogs_legion}) {
      const std::string what = std::string(rig) + " -> " + std::string(mab::to_string(game));
      mab::GltfImportOptions o;
      o.game = game;
      auto imported = mab::import_gltf(src_bytes, nullptr, o);
      ASSERT_TRUE(imported.ok()) << what << ": " << imported.error().message();
      auto nc = mab::read_container(imported->bytes);
      ASSERT_TRUE(nc.ok()) << what;
      EXPECT_EQ(*mab::write_container(*nc), imported->bytes) << what;
      for (const auto& f : mab::validate(*nc)) EXPECT_NE(f.severity, mab::Severity::error) << what << f.message;
      // Export back, named as the source names its nodes.
      mab::GltfExportOptions eo;
      for (std::size_t i = 0; i < src.nodes.size(); ++i)
        eo.names.push_back(src.nodes[i].name.empty() ? "node_" + std::to_string(i) : src.nodes[i].name);
      auto again = mab::export_gltf(*nc, eo);
      ASSERT_TRUE(again.ok()) << what;
      const tinygltf::Model out = parse(*again);
      std::map<std::string, int> src_node;
      for (std::size_t i = 0; i < src.nodes.size(); ++i)
        src_node[src.nodes[i].name.empty() ? "node_" + std::to_string(i) : src.nodes[i].name] = static_cast<int>(i);
      std::map<int, mab::gltf::Curve> src_rot;
      for (const auto& ch : src.animations[0].channels)
        if (ch.target_path == "rotation")
          src_rot[ch.target_node] = *mab::gltf::read_curve(src, src.animations[0], ch.sampler, 4, "src");
      ASSERT_EQ(out.animations.size(), 1u);
      double worst = 0;
      std::size_t compared = 0;
      for (const auto& ch : out.animations[0].channels) {
        const auto& name = out.nodes[static_cast<std::size_t>(ch.target_node)].name;
        ASSERT_TRUE(src_node.count(name)) << what << ": " << name;
        const auto& sc = src_rot.at(src_node[name]);
        auto oc = mab::gltf::read_curve(out, out.animations[0], ch.sampler, 4, "out");
        ASSERT_TRUE(oc.ok());
        for (std::size_t k = 0; k < oc->keys(); ++k) {
          const float* v = oc->key(k);
          // A source key moves onto the game's time grid with its value (half a tick away
          // at most); between keys the source is interpolated.
          const double rate = game == mab::Game::watch_dogs ? 120.0 : 30.0;
          const mab::Quat expected = mab::gltf::sample_rotation(sc, oc->times[k], 0.5 / rate);
          worst = std::max(worst, mab::angular_error_deg({v[0], v[1], v[2], v[3]}, expected));
          ++compared;
        }
      }
      EXPECT_EQ(out.animations[0].channels.size(), src_rot.size()) << what;
      // The bound the encoder reports, plus float32 precision of the two unit quaternions.
      EXPECT_LE(worst, imported->report.max_error_deg + 2e-5) << what;
      std::printf("[ rig      ] %s: %zu joint keys, max error %.6f deg (reported bound %.6f)\n", what.c_str(), compared,
                  worst, imported->report.max_error_deg);
    }
  }
}

// Export with the rig as --skeleton: its hierarchy and rest pose are used, every bone finds
// its node, and importing with the same skeleton gives the clip back exactly.
TEST(GltfImport, SkeletonExportKeepsTheHierarchyAndComesBack) {
  const auto rig_path = mab::test::corpus_dir() / "external" / "RiggedFigure.gltf";
  const auto rig = load(rig_path);
  mab::GltfImportOptions o;
  o.game = mab::Game::watch_dogs_legion;
  auto made = mab::import_gltf(rig, nullptr, o);
  ASSERT_TRUE(made.ok()) << made.error().message();
  const mab::Container clip = *mab::read_container(made->bytes);
  auto sk = mab::read_gltf_skeleton(rig);
  ASSERT_TRUE(sk.ok()) << sk.error().message();
  mab::GltfExportOptions eo;
  eo.skeleton = &*sk;
  mab::GltfExportReport rep;
  auto g = mab::export_gltf(clip, eo, &rep);
  ASSERT_TRUE(g.ok()) << g.error().message();
  EXPECT_TRUE(rep.bones_without_node.empty());
  EXPECT_EQ(rep.nodes, sk->nodes.size());
  const tinygltf::Model m = parse(*g);
  for (std::size_t i = 0; i < sk->nodes.size(); ++i) {
    EXPECT_EQ(m.nodes[i].name, sk->nodes[i].name);
    EXPECT_EQ(m.nodes[i].children, sk->nodes[i].children);
  }
  mab::GltfImportOptions io;
  io.skeleton = &*sk;
  auto back = mab::import_gltf(*g, &clip, io);
  ASSERT_TRUE(back.ok()) << back.error().message();
  EXPECT_EQ(back->bytes, made->bytes);
}

// --- Sampling (glTF appendix C) ---

mab::gltf::Curve curve(mab::gltf::Interpolation in, std::vector<float> times, std::vector<float> values) {
  mab::gltf::Curve c;
  c.interpolation = in;
  c.times = std::move(times);
  c.values = std::move(values);
  return c;
}

TEST(GltfSample, LinearIsSlerpOnTheShortestArc) {
  const float s = static_cast<float>(std::sqrt(0.5));
  // Identity to 90 degrees about Z; the second key given on the far hemisphere.
  auto c = curve(mab::gltf::Interpolation::linear, {0, 1}, {0, 0, 0, 1, 0, 0, -s, -s});
  const mab::Quat mid = mab::gltf::sample_rotation(c, 0.5);
  EXPECT_NEAR(mab::angular_error_deg(mid, mab::gltf::to_float(axis_angle(0, 0, 1, 45))), 0, 1e-4);
  const mab::Quat quarter = mab::gltf::sample_rotation(c, 0.25);
  EXPECT_NEAR(mab::angular_error_deg(quarter, mab::gltf::to_float(axis_angle(0, 0, 1, 22.5))), 0, 1e-4);
  // Clamped outside the keys.
  EXPECT_EQ(mab::gltf::sample_rotation(c, -1), (mab::Quat{0, 0, 0, 1}));
  EXPECT_NEAR(mab::angular_error_deg(mab::gltf::sample_rotation(c, 5), mab::gltf::to_float(axis_angle(0, 0, 1, 90))), 0,
              1e-4);
}

TEST(GltfSample, StepHoldsAndCubicUsesTheTangents) {
  const float s = static_cast<float>(std::sqrt(0.5));
  auto step = curve(mab::gltf::Interpolation::step, {0, 1}, {0, 0, 0, 1, 0, 0, s, s});
  EXPECT_EQ(mab::gltf::sample_rotation(step, 0.99), (mab::Quat{0, 0, 0, 1}));
  // Cubic with zero tangents: at u = 0.5 the Hermite weights are 1/2 and 1/2.
  auto cubic = curve(mab::gltf::Interpolation::cubic, {0, 2},
                     {0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, s, s, 0, 0, 0, 0});
  EXPECT_NEAR(
      mab::angular_error_deg(mab::gltf::sample_rotation(cubic, 1.0), mab::gltf::to_float(axis_angle(0, 0, 1, 45))), 0,
      1e-4);
  // Non-zero out-tangent: the curve leaves the first key along it.
  auto bent = cubic;
  bent.values[8 + 2] = 1.0f;  // out-tangent of key 0, z component
  const mab::Quat early = mab::gltf::sample_rotation(bent, 0.2);
  EXPECT_GT(early.z, mab::gltf::sample_rotation(cubic, 0.2).z);
}

TEST(GltfSample, KeysWithinTheSnapAreReturnedExactly) {
  auto c =
      curve(mab::gltf::Interpolation::linear, {0.0f, 1.0f, 2.0f}, {0, 0, 0, 1, 0.6f, 0, 0, 0.8f, 0, 0.6f, 0, 0.8f});
  const mab::Quat k1{0.6f, 0, 0, 0.8f};
  EXPECT_EQ(mab::gltf::sample_rotation(c, 1.0 + 1e-5, 1e-4), k1);
  EXPECT_NE(mab::gltf::sample_rotation(c, 1.0 + 1e-3, 1e-4), k1);
}

// --- Hostile or wrong input: one-line errors naming the field ---

TEST(GltfErrors, BadInputGetsAClearError) {
  const mab::Container c = container_of(mab::test::corpus_dir() / "wd1" / "long_k100.mab");
  mab::GltfExportOptions bo;
  bo.binary = true;
  const auto glb = *mab::export_gltf(c, bo);
  auto expect_error = [&](std::vector<std::uint8_t> bytes, mab::ErrorCode code, const std::string& field) {
    auto r = mab::import_gltf(bytes, &c);
    ASSERT_FALSE(r.ok()) << field;
    EXPECT_EQ(r.error().code, code) << r.error().message();
    EXPECT_NE(r.error().message().find(field), std::string::npos) << r.error().message();
    EXPECT_EQ(r.error().message().find('\n'), std::string::npos);
  };
  auto cut = glb;
  cut.resize(cut.size() - 7);
  expect_error(cut, mab::ErrorCode::size_mismatch, "GLB length");
  auto version = glb;
  version[4] = 3;
  expect_error(version, mab::ErrorCode::unsupported_version, "GLB version");
  expect_error({'{', '"', 'a', '"', ':'}, mab::ErrorCode::parse_error, "glTF");

  tinygltf::Model m = parse(glb);
  auto oob = m;
  oob.accessors[1].count = 100000;
  expect_error(serialize(oob, true), mab::ErrorCode::out_of_bounds, "/accessors/1");
  auto decreasing = m;
  accessor_floats(decreasing, 0)[5] = 0.0f;
  expect_error(serialize(decreasing, true), mab::ErrorCode::bad_value, "/animations/0/samplers/0/input");
  auto sampler = m;
  sampler.animations[0].channels[0].sampler = 99;
  expect_error(serialize(sampler, true), mab::ErrorCode::out_of_bounds, "/animations/0/samplers/99");
  auto node = m;
  node.animations[0].channels[0].target_node = -3;
  expect_error(serialize(node, true), mab::ErrorCode::out_of_bounds, "/animations/0/channels/0/target/node");
  auto interp = m;
  interp.animations[0].samplers[0].interpolation = "BEZIER";
  expect_error(serialize(interp, true), mab::ErrorCode::bad_value, "interpolation");
  auto cyc = m;
  cyc.nodes[1].children.push_back(0);
  expect_error(serialize(cyc, true), mab::ErrorCode::bad_value, "/nodes");

  mab::GltfImportOptions pick;
  pick.animation = 4;
  auto r = mab::import_gltf(glb, &c, pick);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, mab::ErrorCode::not_found);
  mab::GltfImportOptions fc2;
  fc2.game = mab::Game::far_cry_2;
  r = mab::import_gltf(glb, nullptr, fc2);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, mab::ErrorCode::invalid_argument);
  r = mab::import_gltf(glb, nullptr, {});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, mab::ErrorCode::invalid_argument);
}

}  // namespace
