// The writer recomputes offsets and sizes when a section changes size, and keeps
// everything else (docs/library.md, item 4).
#include <mab/container.hpp>
#include <mab/validate.hpp>

#include "support/corpus.hpp"

#include <gtest/gtest.h>

namespace {

// Grow (or shrink) one segment of the first block and check the result reads back
// with every section's bytes intact and every dependent field updated.
void resize_and_check(const std::filesystem::path& path, std::ptrdiff_t delta) {
  SCOPED_TRACE(mab::test::name_of(path) + " delta " + std::to_string(delta));
  const auto bytes = mab::test::load(path);
  auto c = mab::read_container(bytes);
  ASSERT_TRUE(c.ok()) << c.error().message();
  if (c->is_opaque()) return;
  auto& b = c->blocks[0];
  // Pick the segment of the lowest-numbered present slot that is not a chained clip.
  int target = -1;
  for (std::size_t slot = 0; slot < b.slot_segment.size() && target < 0; ++slot) {
    const int s = b.slot_segment[slot];
    if (s >= 0 && b.segments[static_cast<std::size_t>(s)].child_block < 0 &&
        b.segments[static_cast<std::size_t>(s)].bytes.size() >= 8)
      target = s;
  }
  if (target < 0) return;
  auto& seg = b.segments[static_cast<std::size_t>(target)].bytes;
  if (delta > 0) seg.insert(seg.end(), static_cast<std::size_t>(delta), 0xAB);
  else seg.resize(seg.size() - static_cast<std::size_t>(-delta));
  const auto edited = *c;

  auto w = mab::write_container(edited);
  ASSERT_TRUE(w.ok()) << w.error().message();
  EXPECT_EQ(static_cast<std::ptrdiff_t>(w->size()), static_cast<std::ptrdiff_t>(bytes.size()) + delta);
  auto back = mab::read_container(*w);
  ASSERT_TRUE(back.ok()) << back.error().message();
  ASSERT_EQ(back->blocks.size(), edited.blocks.size());
  // Every slot of every block holds the same bytes as the edited model.
  for (std::size_t k = 0; k < edited.blocks.size(); ++k) {
    const auto& eb = edited.blocks[k];
    const auto& bb = back->blocks[k];
    ASSERT_EQ(bb.slot_segment.size(), eb.slot_segment.size());
    for (std::size_t slot = 0; slot < eb.slot_segment.size(); ++slot) {
      const auto want = eb.section(slot);
      const auto got = bb.section(slot);
      EXPECT_TRUE(std::equal(want.begin(), want.end(), got.begin(), got.end())) << "block " << k << " slot " << slot;
    }
    EXPECT_EQ(bb.bones.size(), eb.bones.size());
  }
  // The outer header is untouched (decision 9).
  EXPECT_TRUE(std::equal(bytes.begin(), bytes.begin() + 16, w->begin()));
  if (const auto* a = back->blocks[0].ani()) {
    if (edited.blocks[0].size_rule == mab::SizeRule::file_minus_16) EXPECT_EQ(a->animation_data_size, w->size() - 16);
    else EXPECT_EQ(a->animation_data_size, edited.blocks[0].ani()->animation_data_size);
  }
  // Writing the re-read model again is stable.
  auto again = mab::write_container(*back);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(*again, *w);
}

TEST(Writer, RecomputesOffsetsWhenASectionGrows) {
  for (const auto& p : mab::test::good_files()) resize_and_check(p, 13);
}

TEST(Writer, RecomputesOffsetsWhenASectionShrinks) {
  for (const auto& p : mab::test::good_files()) resize_and_check(p, -3);
}

TEST(Writer, AddingABoneMovesEverySection) {
  for (const auto& p : mab::test::good_files()) {
    const auto bytes = mab::test::load(p);
    auto c = mab::read_container(bytes);
    ASSERT_TRUE(c.ok());
    if (c->is_opaque() || !c->blocks[0].ani()) continue;
    SCOPED_TRACE(mab::test::name_of(p));
    auto edited = *c;
    edited.blocks[0].bones.push_back({mab::bone_hash("Added"), 0x00});
    auto w = mab::write_container(edited);
    ASSERT_TRUE(w.ok()) << w.error().message();
    EXPECT_EQ(w->size(), bytes.size() + 5);
    auto back = mab::read_container(*w);
    ASSERT_TRUE(back.ok()) << back.error().message();
    EXPECT_EQ(back->blocks[0].bones.size(), c->blocks[0].bones.size() + 1);
    EXPECT_EQ(back->blocks[0].bones.back().hash, mab::bone_hash("Added"));
    const auto* a0 = c->blocks[0].ani();
    const auto* a1 = back->blocks[0].ani();
    // Flag bits above the count survive (decision 5).
    EXPECT_EQ(a1->bone_count_field & ~a1->bone_count_mask(), a0->bone_count_field & ~a0->bone_count_mask());
    for (std::size_t slot = 0; slot < a0->offsets.size(); ++slot) {
      if (a0->offsets[slot] == 0) {
        EXPECT_EQ(a1->offsets[slot], 0u);
      } else {
        EXPECT_EQ(a1->offsets[slot], a0->offsets[slot] + 5) << slot;
      }
    }
  }
}

TEST(Writer, OffsetThatNoLongerFitsItsFieldIsAnError) {
  for (const auto& p : mab::test::good_files()) {
    auto c = mab::read_container(mab::test::load(p));
    ASSERT_TRUE(c.ok());
    if (c->is_opaque() || !c->blocks[0].fc4()) continue;
    auto& b = c->blocks[0];
    bool grown = false;
    // Grow the preamble past 64 KiB: FC4 offsets are u16 (format 4.4).
    for (std::size_t slot = 0; slot < b.slot_segment.size(); ++slot)
      if (b.slot_segment[slot] >= 0) grown = true;
    if (!grown) continue;
    b.segments[0].bytes.resize(b.segments[0].bytes.size() + 70000);
    auto w = mab::write_container(*c);
    ASSERT_FALSE(w.ok());
    EXPECT_EQ(w.error().code, mab::ErrorCode::limit_exceeded);
    return;
  }
  GTEST_SKIP() << "no FC4 file with sections in the corpus";
}

}  // namespace
