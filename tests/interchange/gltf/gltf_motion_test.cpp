// glTF export of translations, root motion and part entries (docs/motion.md, docs/gltf.md): a
// translation channel per translated bone at the key times, one key for a constant translation,
// root motion on the "trajectory" node, part entries in the animation's extras.
#include <mab/gltf.hpp>

#include "interchange/gltf/gltf_document.hpp"
#include "interchange/gltf/gltf_sample.hpp"
#include "support/corpus.hpp"

#include <gtest/gtest.h>

#include <cstring>

namespace {

using mab::test::load;

struct Exported {
  mab::Container container;
  tinygltf::Model model;
};

Exported exported(const char* rel) {
  auto c = mab::read_container(load(mab::test::corpus_dir() / rel));
  EXPECT_TRUE(c.ok());
  auto bytes = mab::export_gltf(*c);
  EXPECT_TRUE(bytes.ok()) << (bytes ? "" : bytes.error().message());
  auto m = mab::gltf::parse(*bytes, {}, mab::default_limits);
  EXPECT_TRUE(m.ok());
  return {std::move(c).value(), std::move(m).value()};
}

const tinygltf::Animation& animation(const tinygltf::Model& m, std::size_t block) {
  for (const auto& a : m.animations)
    if (a.name == "block_" + std::to_string(block)) return a;
  ADD_FAILURE() << "no animation for block " << block;
  return m.animations.front();
}

std::string node_name(std::uint32_t hash) {
  char name[32];
  std::snprintf(name, sizeof name, "bone_0x%08X", hash);
  return name;
}

TEST(GltfMotion, TranslationsAndRootMotionAreChannels) {
  std::size_t checked = 0;
  for (const char* rel : {"wd1/translations_flag40.mab", "wdl/translations_flag80_constants40.mab",
                          "wd2/translations_all_bones_root_motion.mab", "wd1/root_motion_f32x4_constants80.mab",
                          "fc5/root_translation_block.mab"}) {
    SCOPED_TRACE(rel);
    const auto e = exported(rel);
    for (std::size_t b = 0; b < e.container.blocks.size(); ++b) {
      auto d = mab::decode_clip(e.container, b);
      ASSERT_TRUE(d.ok());
      const auto& a = animation(e.model, b);
      auto channel_of = [&](const std::string& node, const char* path) -> const tinygltf::AnimationChannel* {
        for (const auto& ch : a.channels)
          if (ch.target_path == path && e.model.nodes[static_cast<std::size_t>(ch.target_node)].name == node)
            return &ch;
        return nullptr;
      };
      for (const auto& bone : d->clip.bones) {
        const auto* ch = channel_of(node_name(bone.hash), "translation");
        if (bone.translations.empty() && !bone.constant_translation) {
          EXPECT_EQ(ch, nullptr);
          continue;
        }
        ASSERT_NE(ch, nullptr) << node_name(bone.hash);
        auto curve = mab::gltf::read_curve(e.model, a, ch->sampler, 3, "sampler");
        ASSERT_TRUE(curve.ok()) << curve.error().message();
        const std::vector<mab::Vec3> want =
            bone.translations.empty() ? std::vector<mab::Vec3>{*bone.constant_translation} : bone.translations;
        ASSERT_EQ(curve->keys(), want.size());
        for (std::size_t k = 0; k < want.size(); ++k) {
          EXPECT_EQ(curve->times[k], static_cast<float>(d->clip.key_times[k] / d->clip.key_rate));
          EXPECT_EQ(std::memcmp(curve->key(k), want[k].data(), sizeof(mab::Vec3)), 0) << "bit for bit, key " << k;
          ++checked;
        }
      }
      const auto& rm = d->clip.root_motion;
      const auto* rot = channel_of("trajectory", "rotation");
      const auto* tr = channel_of("trajectory", "translation");
      EXPECT_EQ(rot != nullptr, !rm.rotations.empty());
      EXPECT_EQ(tr != nullptr, !rm.translations.empty());
      if (rot) {
        auto curve = mab::gltf::read_curve(e.model, a, rot->sampler, 4, "sampler");
        ASSERT_TRUE(curve.ok());
        ASSERT_EQ(curve->keys(), rm.rotations.size());
        for (std::size_t k = 0; k < rm.rotations.size(); ++k) {
          const float* v = curve->key(k);
          EXPECT_LE(mab::angular_error_deg({v[0], v[1], v[2], v[3]}, rm.rotations[k]), 1e-4);
        }
      }
      if (tr) {
        auto curve = mab::gltf::read_curve(e.model, a, tr->sampler, 3, "sampler");
        ASSERT_TRUE(curve.ok());
        ASSERT_EQ(curve->keys(), rm.translations.size());
        for (std::size_t k = 0; k < rm.translations.size(); ++k)
          EXPECT_EQ(std::memcmp(curve->key(k), rm.translations[k].data(), sizeof(mab::Vec3)), 0);
      }
    }
  }
  EXPECT_GT(checked, 100u);
}

TEST(GltfMotion, PartEntriesAreInTheAnimationExtras) {
  const auto e = exported("fc5/parts_nested.mab");
  const auto& a = animation(e.model, 1);
  const auto& parts = a.extras.Get("mabkit").Get("parts");
  ASSERT_TRUE(parts.IsArray());
  ASSERT_EQ(parts.ArrayLen(), 3u);
  EXPECT_EQ(parts.Get(0).Get("nested_animation").Get<std::string>(), "block_0");
  EXPECT_EQ(parts.Get(1).Get("nested_animation").Get<std::string>(), "block_2");
  EXPECT_FALSE(parts.Get(2).Has("nested_animation"));
  EXPECT_EQ(parts.Get(1).Get("type").GetNumberAsInt(), 7);
  EXPECT_EQ(parts.Get(1).Get("attachment").Get<std::string>(), "0xB6C65665");
  // Blocks without parts keep their extras as before.
  EXPECT_FALSE(animation(e.model, 0).extras.Get("mabkit").Has("parts"));
}

}  // namespace
