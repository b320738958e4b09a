// Far Cry 2/3 banks through glTF (docs/gltf.md, "Far Cry 2 and 3"): what export writes is the
// decoder's tracks (times and values), an unedited export imports back to the template's
// bytes, and an edit of one output value comes back in that track only.
#include <mab/gltf.hpp>
#include <mab/legacy.hpp>

#include "interchange/gltf_document.hpp"
#include "support/corpus.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <map>

namespace {

mab::Container load(const std::filesystem::path& p) {
  auto c = mab::read_container(mab::test::load(p));
  EXPECT_TRUE(c.ok()) << p;
  return std::move(c).value();
}

// Corpus banks whose masks never give one bone two rotations or two translations (glTF
// holds one channel per node and path).
bool exportable(const mab::Container& c) {
  for (std::size_t b = 0; b < c.blocks.size(); ++b) {
    const auto l = mab::decode_legacy_clip(c, b);
    if (!l) return false;
    for (const auto& r : l->constant_rotations)
      for (const auto& k : l->rotations)
        if (r.bone == k.bone) return false;
    for (const auto& r : l->constant_translations)
      for (const auto& k : l->translations)
        if (r.bone == k.bone) return false;
  }
  return true;
}

std::vector<std::filesystem::path> legacy_files() {
  std::vector<std::filesystem::path> out;
  for (const auto& p : mab::test::good_files())
    if (p.parent_path().filename() == "fc2" || p.parent_path().filename() == "fc3") out.push_back(p);
  return out;
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
const tinygltf::AnimationSampler* sampler(const tinygltf::Model& m, std::size_t anim, int node, const std::string& path) {
  for (const auto& ch : m.animations[anim].channels)
    if (ch.target_node == node && ch.target_path == path)
      return &m.animations[anim].samplers[static_cast<std::size_t>(ch.sampler)];
  return nullptr;
}

TEST(GltfLegacy, ExportHoldsTheDecodedTracksAndImportsBackByteForByte) {
  std::size_t files = 0;
  for (const auto& p : legacy_files()) {
    const auto c = load(p);
    if (!exportable(c)) {
      // Refused with the reason, not written wrong.
      auto r = mab::export_gltf(c);
      ASSERT_FALSE(r.ok()) << p;
      EXPECT_EQ(r.error().code, mab::ErrorCode::bad_value) << p;
      continue;
    }
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
      for (const auto& t : l->translations) {
        const auto* s = sampler(m, anim, node_named(m, "bone_" + std::to_string(t.bone)), "translation");
        ASSERT_NE(s, nullptr);
        ASSERT_EQ(m.accessors[static_cast<std::size_t>(s->output)].count, t.frames.size());
        EXPECT_EQ(std::memcmp(floats(m, s->output), t.frames.data(), 12 * t.frames.size()), 0);
      }
      if (l->present[0]) {
        const auto* s = sampler(m, anim, node_named(m, "trajectory"), "translation");
        ASSERT_NE(s, nullptr);
        EXPECT_EQ(std::memcmp(floats(m, s->output), l->trajectory_translation.data(), 12 * l->trajectory_translation.size()), 0);
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
  EXPECT_GE(files, 10u);
}

// One translation value and one rotation key changed in the glTF: only those tracks are
// rewritten, the translation exactly, the rotation within the reported error.
TEST(GltfLegacy, AnEditedValueComesBackInItsTrackOnly) {
  for (const char* game : {"fc2", "fc3"}) {
    const auto path = mab::test::corpus_dir() / game / "all_arrays.mab";
    const auto c = load(path);
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
      if (f == 5)
        EXPECT_EQ(after.translations[0].frames[f], (mab::Vec3{tr.frames[f][0], 7.5f, tr.frames[f][2]}));
      else
        EXPECT_EQ(after.translations[0].frames[f], tr.frames[f]) << f;
    EXPECT_LE(mab::angular_error_deg(mab::legacy_rotation_at(after.rotations[0], rt.frames[k]), turned),
              a.legacy_encode.max_error_deg + 1e-4);
    EXPECT_GT(mab::angular_error_deg(mab::legacy_rotation_at(after.rotations[0], rt.frames[k]), rt.keys[k]), 29.0);
    for (std::size_t t = 1; t < before.rotations.size(); ++t) EXPECT_EQ(after.rotations[t].codes, before.rotations[t].codes);
    for (std::size_t t = 1; t < before.translations.size(); ++t) EXPECT_EQ(after.translations[t].frames, before.translations[t].frames);
    EXPECT_EQ(after.trajectory_translation, before.trajectory_translation);
  }
}

TEST(GltfLegacy, OptionsThatDoNotApplyAreRefused) {
  const auto c = load(mab::test::corpus_dir() / "fc2" / "all_arrays.mab");
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
