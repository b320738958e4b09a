// Far Cry 2/3 banks through glTF (docs/gltf.md, "Far Cry 2 and 3"): what export writes is the
// decoder's tracks (times and values), an unedited export imports back to the template's
// bytes, and an edit of one output value comes back in that track only.
#include <mab/gltf.hpp>
#include <mab/legacy.hpp>

#include "interchange/gltf/gltf_document.hpp"
#include "support/corpus.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <map>

namespace {

using mab::test::load_container;

// Every Far Cry 2/3 corpus bank, and the Blood Dragon files whose clips decode.
std::vector<std::filesystem::path> legacy_files() {
  std::vector<std::filesystem::path> out;
  for (const auto& p : mab::test::good_files()) {
    const auto dir = p.parent_path().filename();
    if (dir != "fc2" && dir != "fc3" && dir != "fc3bd") continue;
    auto c = mab::read_container(mab::test::load(p));
    if (!c || c->is_opaque() || !mab::decode_legacy_clip(*c, 0)) continue;
    out.push_back(p);
  }
  return out;
}

// The node holding bone `bone`'s constant value in a clip: its own node when the clip also
// animates that bone (gltf_names.hpp), bone_<id> otherwise.
template <class Tracks>
std::string constant_node(std::uint32_t bone, const Tracks& animated) {
  for (const auto& t : animated)
    if (t.bone == bone) return "bone_" + std::to_string(bone) + "_constant";
  return "bone_" + std::to_string(bone);
}

tinygltf::Model parse(const std::vector<std::uint8_t>& bytes) {
  auto m = mab::gltf::parse(bytes, {}, mab::default_limits);
  EXPECT_TRUE(m.ok()) << m.error().message();
  return std::move(m).value();
}

const float* floats(tinygltf::Model& m, int accessor) {
  const auto& a = m.accessors[static_cast<std::size_t>(accessor)];
  const auto& v = m.bufferViews[static_cast<std::size_t>(a.bufferView)];
  return reinterpret_cast<const float*>(m.buffers[0].data.data() + v.byteOffset + a.byteOffset);
}
float* floats_mut(tinygltf::Model& m, int accessor) { return const_cast<float*>(floats(m, accessor)); }

int node_named(const tinygltf::Model& m, const std::string& name) {
  for (std::size_t i = 0; i < m.nodes.size(); ++i)
    if (m.nodes[i].name == name) return static_cast<int>(i);
  return -1;
}

// The sampler of `path` on `node` in animation `anim`.
const tinygltf::AnimationSampler* sampler(const tinygltf::Model& m, std::size_t anim, int node,
                                          const std::string& path) {
  for (const auto& ch : m.animations[anim].channels)
    if (ch.target_node == node && ch.target_path == path)
      return &m.animations[anim].samplers[static_cast<std::size_t>(ch.sampler)];
  return nullptr;
}

TEST(GltfLegacy, ExportHoldsTheDecodedTracksAndImportsBackByteForByte) {
  std::size_t files = 0;
  for (const auto& p : legacy_files()) {
    const auto c = load_container(p);
    mab::GltfExportReport rep;
    auto bytes = mab::export_gltf(c, {}, &rep);
    ASSERT_TRUE(bytes.ok()) << p << " " << bytes.error().message();
    auto m = parse(*bytes);
    std::size_t expected_channels = 0;
    for (std::size_t b = 0; b < c.blocks.size(); ++b) {
      const auto l = mab::decode_legacy_clip(c, b);
      expected_channels += l->constant_rotations.size() + l->rotations.size() + l->constant_translations.size() +
                           l->translations.size() + l->present[0] + l->present[1];
      std::size_t anim = m.animations.size();
      for (std::size_t a = 0; a < m.animations.size(); ++a)
        if (m.animations[a].name == "block_" + std::to_string(b)) anim = a;
      if (anim == m.animations.size()) continue;  // a clip without tracks
      // A keyed track: its own frames, in seconds, and its keys (up to sign).
      for (const auto& t : l->rotations) {
        const auto* s = sampler(m, anim, node_named(m, "bone_" + std::to_string(t.bone)), "rotation");
        ASSERT_NE(s, nullptr) << p << " bone " << t.bone;
        ASSERT_EQ(m.accessors[static_cast<std::size_t>(s->input)].count, t.frames.size());
        const float* times = floats(m, s->input);
        const float* keys = floats(m, s->output);
        for (std::size_t k = 0; k < t.frames.size(); ++k) {
          EXPECT_FLOAT_EQ(times[k], static_cast<float>(t.frames[k] / static_cast<double>(l->frame_rate)));
          const mab::Quat q{keys[4 * k], keys[4 * k + 1], keys[4 * k + 2], keys[4 * k + 3]};
          EXPECT_LT(mab::angular_error_deg(q, t.keys[k]), 1e-4);
        }
      }
      // Constant values: one key at time 0, on the bone's node or its constant node.
      for (const auto& r : l->constant_rotations) {
        const auto* s = sampler(m, anim, node_named(m, constant_node(r.bone, l->rotations)), "rotation");
        ASSERT_NE(s, nullptr) << p << " bone " << r.bone;
        ASSERT_EQ(m.accessors[static_cast<std::size_t>(s->output)].count, 1u);
        const float* q = floats(m, s->output);
        EXPECT_LT(mab::angular_error_deg({q[0], q[1], q[2], q[3]}, r.rotation), 1e-4);
      }
      for (const auto& t : l->constant_translations) {
        const auto* s = sampler(m, anim, node_named(m, constant_node(t.bone, l->translations)), "translation");
        ASSERT_NE(s, nullptr) << p << " bone " << t.bone;
        EXPECT_EQ(std::memcmp(floats(m, s->output), t.translation.data(), 12), 0);
      }
      for (const auto& t : l->translations) {
        const auto* s = sampler(m, anim, node_named(m, "bone_" + std::to_string(t.bone)), "translation");
        ASSERT_NE(s, nullptr);
        ASSERT_EQ(m.accessors[static_cast<std::size_t>(s->output)].count, t.frames.size());
        EXPECT_EQ(std::memcmp(floats(m, s->output), t.frames.data(), 12 * t.frames.size()), 0);
      }
      if (l->present[0]) {
        const auto* s = sampler(m, anim, node_named(m, "trajectory"), "translation");
        ASSERT_NE(s, nullptr);
        EXPECT_EQ(
            std::memcmp(floats(m, s->output), l->trajectory_translation.data(), 12 * l->trajectory_translation.size()),
            0);
      }
    }
    EXPECT_EQ(rep.channels, expected_channels) << p;

    auto back = mab::import_gltf(*bytes, &c);
    ASSERT_TRUE(back.ok()) << p << " " << back.error().message();
    EXPECT_EQ(back->bytes, mab::test::load(p)) << p;
    for (const auto& a : back->report.animations) {
      EXPECT_TRUE(a.legacy);
      EXPECT_EQ(a.legacy_encode.sections_rewritten, 0u) << p;
      EXPECT_TRUE(a.tracks_changed.empty()) << p;
    }
    ++files;
  }
  EXPECT_GE(files, 16u);
}

// One translation value and one rotation key changed in the glTF: only those tracks are
// rewritten, the translation exactly, the rotation within the reported error.
TEST(GltfLegacy, AnEditedValueComesBackInItsTrackOnly) {
  for (const char* game : {"fc2", "fc3"}) {
    const auto path = mab::test::corpus_dir() / game / "all_arrays.mab";
    const auto c = load_container(path);
    const auto before = *mab::decode_legacy_clip(c, 0);
    auto bytes = mab::export_gltf(c);
    ASSERT_TRUE(bytes.ok());
    auto m = parse(*bytes);
    const auto& tr = before.translations.at(0);
    const auto* ts = sampler(m, 0, node_named(m, "bone_" + std::to_string(tr.bone)), "translation");
    ASSERT_NE(ts, nullptr);
    floats_mut(m, ts->output)[3 * 5 + 1] = 7.5f;  // frame 5, y
    const auto& rt = before.rotations.at(0);
    const auto* rs = sampler(m, 0, node_named(m, "bone_" + std::to_string(rt.bone)), "rotation");
    ASSERT_NE(rs, nullptr);
    const std::size_t k = rt.frames.size() / 2;
    const mab::Quat turned = mab::quat_mul(mab::quat_normalised({0.0f, 0.0f, 0.2588190f, 0.9659258f}), rt.keys[k]);
    std::memcpy(floats_mut(m, rs->output) + 4 * k, &turned, sizeof turned);
    auto edited = mab::gltf::serialize(std::move(m), true);
    ASSERT_TRUE(edited.ok());

    auto back = mab::import_gltf(*edited, &c);
    ASSERT_TRUE(back.ok()) << back.error().message();
    const auto& a = back->report.animations.at(0);
    EXPECT_EQ(a.translations_changed, 1u) << game;
    EXPECT_EQ(a.tracks_changed.size(), 2u) << game;
    EXPECT_EQ(a.legacy_encode.sections_rewritten, 2u) << game;
    auto out = mab::read_container(back->bytes);
    ASSERT_TRUE(out.ok());
    const auto after = *mab::decode_legacy_clip(*out, 0);
    for (std::size_t f = 0; f < tr.frames.size(); ++f)
      if (f == 5) EXPECT_EQ(after.translations[0].frames[f], (mab::Vec3{tr.frames[f][0], 7.5f, tr.frames[f][2]}));
      else EXPECT_EQ(after.translations[0].frames[f], tr.frames[f]) << f;
    EXPECT_LE(mab::angular_error_deg(mab::legacy_rotation_at(after.rotations[0], rt.frames[k]), turned),
              a.legacy_encode.max_error_deg + 1e-4);
    EXPECT_GT(mab::angular_error_deg(mab::legacy_rotation_at(after.rotations[0], rt.frames[k]), rt.keys[k]), 29.0);
    for (std::size_t t = 1; t < before.rotations.size(); ++t)
      EXPECT_EQ(after.rotations[t].codes, before.rotations[t].codes);
    for (std::size_t t = 1; t < before.translations.size(); ++t)
      EXPECT_EQ(after.translations[t].frames, before.translations[t].frames);
    EXPECT_EQ(after.trajectory_translation, before.trajectory_translation);
  }
}

// A clip of untimed constant sections whose header stores a lastFrame above 0
// (corpus const_rotations_only: 9): every value plays at time 0 alone. An edited constant lands
// in its bone alone; the import once planned it at ten frames of one time and crashed.
TEST(GltfLegacy, AnEditedConstantOfAnUntimedClipLandsAlone) {
  for (const char* game : {"fc2", "fc3"}) {
    const auto path = mab::test::corpus_dir() / game / "const_rotations_only.mab";
    const auto c = load_container(path);
    const auto before = *mab::decode_legacy_clip(c, 0);
    ASSERT_GT(before.last_frame, 0u) << game;
    ASSERT_GE(before.constant_rotations.size(), 2u) << game;
    auto bytes = mab::export_gltf(c);
    ASSERT_TRUE(bytes.ok()) << bytes.error().message();
    auto m = parse(*bytes);
    const auto& r = before.constant_rotations.at(0);
    const auto* s = sampler(m, 0, node_named(m, "bone_" + std::to_string(r.bone)), "rotation");
    ASSERT_NE(s, nullptr);
    const mab::Quat turned = mab::quat_mul(mab::quat_normalised({0.0f, 0.0f, 0.1736482f, 0.9848078f}), r.rotation);
    std::memcpy(floats_mut(m, s->output), &turned, sizeof turned);
    auto edited = mab::gltf::serialize(std::move(m), true);
    ASSERT_TRUE(edited.ok());

    auto back = mab::import_gltf(*edited, &c);
    ASSERT_TRUE(back.ok()) << game << " " << back.error().message();
    EXPECT_EQ(back->report.animations.at(0).tracks_changed,
              std::vector<std::string>{"bone_" + std::to_string(r.bone) + " rotation"});
    auto out = mab::read_container(back->bytes);
    ASSERT_TRUE(out.ok());
    const auto after = *mab::decode_legacy_clip(*out, 0);
    ASSERT_EQ(after.constant_rotations.size(), before.constant_rotations.size());
    EXPECT_LT(mab::angular_error_deg(after.constant_rotations[0].rotation, turned), 0.01) << game;
    for (std::size_t i = 1; i < before.constant_rotations.size(); ++i)
      EXPECT_EQ(after.constant_rotations[i].code, before.constant_rotations[i].code) << game << " " << i;
  }
}

// A bone a clip holds constant and keys at once (corpus many_tracks): the keyed track drives
// bone_<id>, the constant rotation its own node bone_<id>_constant. Both come back unedited;
// an edit of the constant node changes the constant rotation alone; a constant node made to
// vary is refused, naming it.
TEST(GltfLegacy, ABoneBothConstantAndKeyedHasAConstantNode) {
  for (const char* game : {"fc2", "fc3"}) {
    const auto path = mab::test::corpus_dir() / game / "many_tracks.mab";
    const auto c = load_container(path);
    const auto before = *mab::decode_legacy_clip(c, 0);
    std::size_t doubled = 0, index = 0;
    for (std::size_t i = 0; i < before.constant_rotations.size(); ++i)
      for (const auto& k : before.rotations)
        if (k.bone == before.constant_rotations[i].bone) ++doubled, index = i;
    ASSERT_GT(doubled, 0u) << game << ": the corpus file should hold the case";
    const std::uint32_t bone = before.constant_rotations[index].bone;
    auto bytes = mab::export_gltf(c);
    ASSERT_TRUE(bytes.ok()) << bytes.error().message();
    auto m = parse(*bytes);
    const int keyed = node_named(m, "bone_" + std::to_string(bone));
    const int constant = node_named(m, "bone_" + std::to_string(bone) + "_constant");
    ASSERT_GE(keyed, 0);
    ASSERT_GE(constant, 0);
    const auto* cs = sampler(m, 0, constant, "rotation");
    const auto* ks = sampler(m, 0, keyed, "rotation");
    ASSERT_NE(cs, nullptr);
    ASSERT_NE(ks, nullptr);
    EXPECT_GT(m.accessors[static_cast<std::size_t>(ks->input)].count, 1u);

    // The constant node turned 30 degrees: only that constant rotation changes.
    auto edited_model = m;
    const float* q = floats(edited_model, cs->output);
    const mab::Quat turned =
        mab::quat_mul(mab::quat_normalised({0.0f, 0.0f, 0.2588190f, 0.9659258f}), {q[0], q[1], q[2], q[3]});
    std::memcpy(floats_mut(edited_model, cs->output), &turned, sizeof turned);
    auto edited = mab::gltf::serialize(std::move(edited_model), true);
    ASSERT_TRUE(edited.ok());
    auto back = mab::import_gltf(*edited, &c);
    ASSERT_TRUE(back.ok()) << back.error().message();
    const auto after = *mab::decode_legacy_clip(*mab::read_container(back->bytes), 0);
    ASSERT_EQ(after.constant_rotations.size(), before.constant_rotations.size());
    for (std::size_t i = 0; i < before.constant_rotations.size(); ++i) {
      if (i == index) {
        EXPECT_LT(mab::angular_error_deg(after.constant_rotations[i].rotation, turned), 0.01) << game;
      } else {
        EXPECT_EQ(after.constant_rotations[i].code, before.constant_rotations[i].code) << game << " " << i;
      }
    }
    for (std::size_t t = 0; t < before.rotations.size(); ++t)
      EXPECT_EQ(after.rotations[t].codes, before.rotations[t].codes);

    // The constant node given the keyed track's sampler: it varies, which the file cannot hold.
    auto varying = m;
    for (auto& ch : varying.animations[0].channels)
      if (ch.target_node == constant && ch.target_path == "rotation")
        for (const auto& other : varying.animations[0].channels)
          if (other.target_node == keyed && other.target_path == "rotation") ch.sampler = other.sampler;
    auto vbytes = mab::gltf::serialize(std::move(varying), true);
    ASSERT_TRUE(vbytes.ok());
    auto refused = mab::import_gltf(*vbytes, &c);
    ASSERT_FALSE(refused.ok()) << game;
    EXPECT_EQ(refused.error().code, mab::ErrorCode::invalid_argument);
    EXPECT_NE(refused.error().message().find("bone_" + std::to_string(bone) + "_constant"), std::string::npos)
        << refused.error().message();
    EXPECT_NE(refused.error().message().find("cannot vary"), std::string::npos) << refused.error().message();
  }
}

TEST(GltfLegacy, OptionsThatDoNotApplyAreRefused) {
  const auto c = load_container(mab::test::corpus_dir() / "fc2" / "all_arrays.mab");
  mab::GltfExportOptions o;
  o.names = {"Root"};
  auto r = mab::export_gltf(c, o);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, mab::ErrorCode::invalid_argument);
  auto bytes = mab::export_gltf(c);
  ASSERT_TRUE(bytes.ok());
  mab::GltfImportOptions io;
  io.keep_times = true;
  auto back = mab::import_gltf(*bytes, &c, io);
  ASSERT_FALSE(back.ok());
  EXPECT_EQ(back.error().code, mab::ErrorCode::invalid_argument);
}

}  // namespace
