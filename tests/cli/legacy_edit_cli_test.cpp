// `mab edit` on Far Cry 2/3 clips (issue 33 item 2; docs/edit.md, docs/legacy.md "Editing with
// mab edit"): each operation checked by decoding what it wrote, against the original decode,
// trim_legacy_clip, or the operation run twice; the other clips of a bank keep their bytes.
#include <mab/file_io.hpp>
#include <mab/legacy.hpp>

#include "support/cli_run.hpp"
#include "support/corpus.hpp"
#include "support/legacy_trim.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <functional>

namespace {

using mab::test::corpus_dir;
namespace fs = std::filesystem;

fs::path temp_dir() { return mab::test::test_temp_dir("mab_legacy_edit"); }

mab::test::CliRun run(const std::string& args, std::string* err = nullptr) {
  return mab::test::run_mab_split(args, err);
}

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

mab::LegacyClip decode(const fs::path& p, std::size_t block = 0) {
  const auto c = mab::test::load_container(p);
  EXPECT_LT(block, c.blocks.size()) << p;
  if (block >= c.blocks.size()) return {};
  auto d = mab::decode_legacy_clip(c, block);
  EXPECT_TRUE(d.ok()) << p << " " << (d ? "" : d.error().message());
  return d ? std::move(d).value() : mab::LegacyClip{};
}

const mab::LegacyRotationTrack* track(const mab::LegacyClip& c, std::uint32_t bone) {
  for (const auto& t : c.rotations)
    if (t.bone == bone) return &t;
  return nullptr;
}

// The largest angle, over every keyed track of `a` and every frame of `a`, between `a` at frame
// f and `b` at frame map(f) (each by legacy_rotation_at); `turn` pre-multiplies b's rotation.
double max_rotation_diff(const mab::LegacyClip& a, const mab::LegacyClip& b,
                         const std::function<std::uint32_t(std::uint32_t)>& map, const mab::Quat& turn = {}) {
  double worst = 0;
  for (const auto& ta : a.rotations) {
    const auto* tb = track(b, ta.bone);
    EXPECT_NE(tb, nullptr) << "bone " << ta.bone;
    if (tb == nullptr) continue;
    for (std::uint32_t f = 0; f <= a.last_frame; ++f)
      worst = std::max(worst, mab::angular_error_deg(mab::legacy_rotation_at(ta, f),
                                                     mab::quat_mul(turn, mab::legacy_rotation_at(*tb, map(f)))));
  }
  return worst;
}

std::uint32_t same(std::uint32_t f) { return f; }

bool same_sections(const mab::Block& a, const mab::Block& b, std::size_t slot) {
  const auto x = a.section(slot), y = b.section(slot);
  return std::equal(x.begin(), x.end(), y.begin(), y.end());
}

// Why: `mab edit` refused every Far Cry 2/3 clip. Operations that change nothing must give the
// file back byte for byte, for every clip of every bank.
TEST(LegacyEditCli, AnUneditedPassIsByteIdentical) {
  const auto dir = temp_dir();
  std::size_t runs = 0;
  for (const auto& p : mab::test::legacy_files()) {
    const auto bytes = mab::test::load(p);
    const auto blocks = mab::test::load_container(p).blocks.size();
    for (std::size_t b = 0; b < blocks; ++b)
      for (const char* ops : {"--speed 1", "--reverse --reverse", "--trim 0 1000"}) {
        const auto out = dir / "out.mab";
        std::string err;
        auto r = run("edit " + p.string() + " --block " + std::to_string(b) + " -o " + out.string() + " " + ops, &err);
        // A clip of constant sections alone has no frames to trim.
        if (std::string(ops) == "--trim 0 1000" && decode(p, b).last_frame == 0) continue;
        ASSERT_EQ(r.status, 0) << p << " block " << b << " " << ops << "\n" << r.out << err;
        EXPECT_EQ(mab::test::load(out), bytes) << p << " block " << b << " " << ops << "\n" << r.out;
        EXPECT_TRUE(has(r.out, "0 rewritten")) << r.out;
        ++runs;
      }
  }
  EXPECT_GE(runs, 50u);
}

// --reverse: frame f holds what frame lastFrame - f held (rotations within --max-error,
// translations and trajectory exactly); events mirror; reversed again, the frames come back.
TEST(LegacyEditCli, ReverseMirrorsTheFramesAndTwiceGivesThemBack) {
  const auto dir = temp_dir();
  for (const char* game : {"fc2", "fc3"}) {
    const auto in = corpus_dir() / game / "retail_bank.mab";
    const auto once = dir / (std::string(game) + "_once.mab"), twice = dir / (std::string(game) + "_twice.mab");
    auto r = run("edit " + in.string() + " -o " + once.string() + " --reverse");
    ASSERT_EQ(r.status, 0) << r.out;
    const auto a = decode(in), b = decode(once);
    ASSERT_EQ(b.last_frame, a.last_frame);
    const std::uint32_t last = a.last_frame;
    EXPECT_LE(max_rotation_diff(b, a, [&](std::uint32_t f) { return last - f; }), 0.01) << game;
    for (std::uint32_t f = 0; f <= last; ++f) {
      EXPECT_EQ(b.trajectory_translation[f], a.trajectory_translation[last - f]);
      EXPECT_EQ(b.trajectory_rotation_codes[f], a.trajectory_rotation_codes[last - f]);
      EXPECT_EQ(b.translations[0].frames[f], a.translations[0].frames[last - f]);
    }
    ASSERT_TRUE(a.events && b.events);
    ASSERT_EQ(a.events->size(), b.events->size());
    for (std::size_t i = 0; i < a.events->size(); ++i)
      EXPECT_FLOAT_EQ((*b.events)[i].time, static_cast<float>(last / double{a.frame_rate} - (*a.events)[i].time));
    EXPECT_TRUE(has(r.out, "events") && has(r.out, "moved")) << r.out;
    EXPECT_TRUE(has(r.out, "moved keys")) << r.out;
    // Every stored key of the original is a key of the reversed clip, with its code.
    for (const auto& t : a.rotations)
      for (std::size_t k = 0; k < t.frames.size(); ++k) {
        const auto* tb = track(b, t.bone);
        ASSERT_NE(tb, nullptr);
        const auto it = std::find(tb->frames.begin(), tb->frames.end(), last - t.frames[k]);
        ASSERT_NE(it, tb->frames.end()) << game << " bone " << t.bone << " frame " << t.frames[k];
        EXPECT_EQ(tb->codes[static_cast<std::size_t>(it - tb->frames.begin())], t.codes[k]);
      }

    r = run("edit " + once.string() + " -o " + twice.string() + " --reverse");
    ASSERT_EQ(r.status, 0) << r.out;
    const auto c = decode(twice);
    EXPECT_LE(max_rotation_diff(c, a, same), 0.01) << game;
    EXPECT_EQ(c.trajectory_translation, a.trajectory_translation);
    EXPECT_EQ(c.translations[0].frames, a.translations[0].frames);
    for (std::size_t i = 0; i < a.events->size(); ++i) EXPECT_NEAR((*c.events)[i].time, (*a.events)[i].time, 1e-6);
  }
}

// --trim START END equals the library's trim_legacy_clip over the same frames: lastFrame,
// duration, translations, trajectory, event times; rotations within --max-error. The bank's
// other clips keep their bytes and the tag records still reach them.
TEST(LegacyEditCli, TrimEqualsTrimLegacyClipAndTheBankFollows) {
  const auto dir = temp_dir();
  for (const char* game : {"fc2", "fc3"}) {
    const auto in = corpus_dir() / game / "retail_bank.mab";
    const auto out = dir / (std::string(game) + ".mab");
    auto r = run("edit " + in.string() + " -o " + out.string() + " --trim 0.1 0.5");
    ASSERT_EQ(r.status, 0) << r.out;
    const auto a = decode(in), b = decode(out);
    ASSERT_EQ(a.frame_rate, 30.0f);
    mab::test::LegacyTrimReport tr;
    auto want = mab::test::trim_legacy_clip(a, 3, 15, &tr);
    ASSERT_TRUE(want.ok());
    EXPECT_EQ(b.last_frame, want->last_frame);
    EXPECT_EQ(std::bit_cast<std::uint32_t>(b.duration), std::bit_cast<std::uint32_t>(want->duration));
    EXPECT_EQ(b.trajectory_translation, want->trajectory_translation);
    EXPECT_EQ(b.trajectory_rotation_codes, want->trajectory_rotation_codes);
    ASSERT_EQ(b.translations.size(), want->translations.size());
    for (std::size_t t = 0; t < b.translations.size(); ++t)
      EXPECT_EQ(b.translations[t].frames, want->translations[t].frames);
    EXPECT_LE(max_rotation_diff(b, *want, same), 0.01) << game;
    ASSERT_TRUE(b.events && want->events);
    for (std::size_t i = 0; i < b.events->size(); ++i)
      EXPECT_NEAR((*b.events)[i].time, (*want->events)[i].time, 1e-6) << i;

    const auto ca = mab::test::load_container(in), cb = mab::test::load_container(out);
    ASSERT_EQ(ca.blocks.size(), cb.blocks.size());
    for (std::size_t k = 1; k < ca.blocks.size(); ++k)
      for (std::size_t slot = 0; slot < 9; ++slot)
        EXPECT_TRUE(same_sections(ca.blocks[k], cb.blocks[k], slot)) << k << " " << slot;
    auto ta = mab::decode_legacy_tags(ca, 0), tb = mab::decode_legacy_tags(cb, 0);
    ASSERT_TRUE(ta.ok() && tb.ok() && ta->tag_table && tb->tag_table);
    for (std::size_t i = 0; i < ta->tag_table->size(); ++i)
      EXPECT_EQ((*tb->tag_table)[i].clip_block, (*ta->tag_table)[i].clip_block) << i;

    // A chained clip trimmed: the clips after it move, and clip 0's tag records follow them.
    const auto out1 = dir / (std::string(game) + "_block1.mab");
    r = run("edit " + in.string() + " --block 1 -o " + out1.string() + " --trim 0.1 0.3");
    ASSERT_EQ(r.status, 0) << r.out;
    EXPECT_TRUE(has(r.out, "tag record")) << r.out;
    const auto cc = mab::test::load_container(out1);
    auto tc = mab::decode_legacy_tags(cc, 0);
    ASSERT_TRUE(tc.ok() && tc->tag_table);
    for (std::size_t i = 0; i < ta->tag_table->size(); ++i) {
      EXPECT_EQ((*tc->tag_table)[i].clip_block, (*ta->tag_table)[i].clip_block) << i;
      EXPECT_GE((*tc->tag_table)[i].clip_block, 1) << i;
    }
    for (std::size_t slot = 0; slot < 9; ++slot)
      if (slot != 6) {
        EXPECT_TRUE(same_sections(ca.blocks[0], cc.blocks[0], slot)) << slot;
      }
    for (std::size_t slot = 0; slot < 9; ++slot) EXPECT_TRUE(same_sections(ca.blocks[2], cc.blocks[2], slot)) << slot;
    auto want1 = mab::test::trim_legacy_clip(decode(in, 1), 3, 9);
    ASSERT_TRUE(want1.ok());
    const auto b1 = decode(out1, 1);
    EXPECT_EQ(b1.last_frame, want1->last_frame);
    EXPECT_LE(max_rotation_diff(b1, *want1, same), 0.01) << game;
  }
}

// --rotate-bone on a keyed and on a constant bone: that bone turned (within --max-error, a
// 6-byte key's rounding), every other section byte-identical.
TEST(LegacyEditCli, RotateBoneTurnsThatBoneAndNothingElse) {
  const auto dir = temp_dir();
  const mab::Quat turn{0.0f, 0.0f, static_cast<float>(std::sin(7.5 * 3.14159265358979 / 180)),
                       static_cast<float>(std::cos(7.5 * 3.14159265358979 / 180))};
  for (const char* game : {"fc2", "fc3"}) {
    const auto in = corpus_dir() / game / "many_tracks.mab";
    const auto a = decode(in);
    const std::uint32_t keyed = a.rotations[1].bone, constant = a.constant_rotations[2].bone;
    const auto out = dir / (std::string(game) + ".mab");
    auto r = run("edit " + in.string() + " -o " + out.string() + " --rotate-bone bone_" + std::to_string(keyed) +
                 " 0,0,1@15 --rotate-bone " + std::to_string(constant) + " 0,0,1@15");
    ASSERT_EQ(r.status, 0) << r.out;
    const auto b = decode(out);
    for (const auto& tb : b.rotations) {
      const auto* ta = track(a, tb.bone);
      ASSERT_NE(ta, nullptr);
      for (std::uint32_t f = 0; f <= a.last_frame; ++f) {
        const mab::Quat want =
            tb.bone == keyed ? mab::quat_mul(turn, mab::legacy_rotation_at(*ta, f)) : mab::legacy_rotation_at(*ta, f);
        EXPECT_LE(mab::angular_error_deg(mab::legacy_rotation_at(tb, f), want), 0.01) << tb.bone << " " << f;
      }
      if (tb.bone != keyed) {
        EXPECT_EQ(tb.codes, ta->codes) << tb.bone;
      }
    }
    for (std::size_t i = 0; i < a.constant_rotations.size(); ++i) {
      const auto& ka = a.constant_rotations[i];
      const auto& kb = b.constant_rotations[i];
      if (ka.bone == constant) EXPECT_LE(mab::angular_error_deg(kb.rotation, mab::quat_mul(turn, ka.rotation)), 0.01);
      else EXPECT_EQ(kb.code, ka.code);
    }
    const auto ca = mab::test::load_container(in), cb = mab::test::load_container(out);
    for (std::size_t slot : {0u, 1u, 4u, 5u, 6u, 7u})
      EXPECT_TRUE(same_sections(ca.blocks[0], cb.blocks[0], slot)) << slot;
  }
}

// --speed 0.5 doubles the frames (frame 2f is the old frame f) and the event times; --speed 2
// keeps every other frame.
TEST(LegacyEditCli, SpeedResamplesOntoWholeFrames) {
  const auto dir = temp_dir();
  const auto in = corpus_dir() / "fc3" / "retail_bank.mab";
  const auto a = decode(in);
  const auto slow = dir / "slow.mab", fast = dir / "fast.mab";
  auto r = run("edit " + in.string() + " -o " + slow.string() + " --speed 0.5");
  ASSERT_EQ(r.status, 0) << r.out;
  const auto b = decode(slow);
  ASSERT_EQ(b.last_frame, 2 * a.last_frame);
  EXPECT_FLOAT_EQ(b.duration, 2 * a.duration);
  double worst = 0;
  for (const auto& tb : b.rotations)
    for (std::uint32_t f = 0; f <= a.last_frame; ++f)
      worst = std::max(worst, mab::angular_error_deg(mab::legacy_rotation_at(tb, 2 * f),
                                                     mab::legacy_rotation_at(*track(a, tb.bone), f)));
  EXPECT_LE(worst, 0.01);
  for (std::uint32_t f = 0; f <= a.last_frame; ++f)
    EXPECT_EQ(b.translations[0].frames[2 * f], a.translations[0].frames[f]);
  for (std::size_t i = 0; i < a.events->size(); ++i) EXPECT_FLOAT_EQ((*b.events)[i].time, 2 * (*a.events)[i].time);

  // --speed 2: docs/edit.md's rule, shared with the 'aNi' games: frame k goes to round(k / 2);
  // of the frames that meet on one, the first is kept.
  r = run("edit " + in.string() + " -o " + fast.string() + " --speed 2");
  ASSERT_EQ(r.status, 0) << r.out;
  std::vector<std::uint32_t> from;
  for (std::uint32_t k = 0; k <= a.last_frame; ++k)
    if (const auto t = static_cast<std::uint32_t>(std::round(k / 2.0)); t == from.size()) from.push_back(k);
  const auto c = decode(fast);
  ASSERT_EQ(std::size_t{c.last_frame} + 1, from.size());
  EXPECT_LE(max_rotation_diff(c, a, [&](std::uint32_t f) { return from[f]; }), 0.01);
  for (std::uint32_t f = 0; f <= c.last_frame; ++f)
    EXPECT_EQ(c.translations[1].frames[f], a.translations[1].frames[from[f]]);
}

// --loop-fix: the last frame of every keyed track and translation is its first.
TEST(LegacyEditCli, LoopFixMakesTheLastFrameTheFirst) {
  const auto dir = temp_dir();
  const auto in = corpus_dir() / "fc2" / "all_arrays.mab";
  const auto out = dir / "loop.mab";
  auto r = run("edit " + in.string() + " -o " + out.string() + " --loop-fix");
  ASSERT_EQ(r.status, 0) << r.out;
  const auto a = decode(in), b = decode(out);
  for (const auto& t : b.rotations) {
    EXPECT_LE(mab::angular_error_deg(mab::legacy_rotation_at(t, b.last_frame), mab::legacy_rotation_at(t, 0)), 0.01);
    EXPECT_LE(max_rotation_diff(b, a, same), 360.0);
  }
  for (const auto& t : b.translations) EXPECT_EQ(t.frames.back(), t.frames.front());
  EXPECT_EQ(b.trajectory_translation, a.trajectory_translation);  // root motion goes on from loop to loop
}

// --rename-bone moves a track to another skeleton id with its stored keys and codes;
// --remove-bone and --add-bone (by id) change the masks.
TEST(LegacyEditCli, BoneIdsAreRenamedRemovedAndAdded) {
  const auto dir = temp_dir();
  const auto in = corpus_dir() / "fc2" / "many_tracks.mab";
  const auto a = decode(in);
  const std::uint32_t from = a.rotations[0].bone;
  std::uint32_t to = 0;
  auto used = [&](std::uint32_t id) {
    for (const auto& t : a.rotations)
      if (t.bone == id) return true;
    for (const auto& t : a.constant_rotations)
      if (t.bone == id) return true;
    for (const auto& t : a.constant_translations)
      if (t.bone == id) return true;
    return false;
  };
  while (used(to)) ++to;
  const auto out = dir / "renamed.mab";
  auto r = run("edit " + in.string() + " -o " + out.string() + " --rename-bone bone_" + std::to_string(from) +
               " bone_" + std::to_string(to));
  ASSERT_EQ(r.status, 0) << r.out;
  const auto b = decode(out);
  ASSERT_EQ(track(b, from), nullptr);
  ASSERT_NE(track(b, to), nullptr);
  EXPECT_EQ(track(b, to)->frames, a.rotations[0].frames);
  EXPECT_EQ(track(b, to)->codes, a.rotations[0].codes);

  const std::uint32_t gone = a.constant_rotations[0].bone;
  const auto out2 = dir / "removed.mab";
  r = run("edit " + in.string() + " -o " + out2.string() + " --remove-bone " + std::to_string(gone) +
          " --add-bone bone_" + std::to_string(to) + " 0,1,0@90");
  ASSERT_EQ(r.status, 0) << r.out;
  const auto c = decode(out2);
  EXPECT_EQ(c.constant_rotations.size(), a.constant_rotations.size());  // one removed, one added
  bool added = false, removed = true;
  for (const auto& k : c.constant_rotations) {
    removed = removed && k.bone != gone;
    if (k.bone == to)
      added = mab::angular_error_deg(k.rotation, mab::Quat{0.0f, 0.70710678f, 0.0f, 0.70710678f}) <= 0.01;
  }
  EXPECT_TRUE(added && removed);
}

// --reduce DEG re-keys every keyed track from its group starts: fewer stored keys, every frame
// within DEG of the original. The corpus tracks are random keys (each needed), so one track is
// first stored with a key at every frame of a smooth turn.
TEST(LegacyEditCli, ReduceReKeysEveryTrackWithinTheBound) {
  const auto dir = temp_dir();
  for (const char* game : {"fc2", "fc3"}) {
    const auto c = mab::test::load_container(corpus_dir() / game / "many_tracks.mab");
    auto d = mab::decode_legacy_clip(c, 0);
    ASSERT_TRUE(d.ok());
    auto& smooth = d->rotations[0];
    smooth.frames.clear();
    smooth.keys.clear();
    for (std::uint16_t f = 0; f <= d->last_frame; ++f) {
      const double h = f * 1.5 * 3.14159265358979 / 360;  // 1.5 degrees a frame about z
      smooth.frames.push_back(f);
      smooth.keys.push_back(mab::Quat{0.0f, 0.0f, static_cast<float>(std::sin(h)), static_cast<float>(std::cos(h))});
    }
    mab::LegacyEncodeOptions every;
    every.max_error_deg = 0;  // every frame a key
    auto dense = mab::encode_legacy_clip(c, 0, *d, every);
    ASSERT_TRUE(dense.ok()) << dense.error().message();
    const auto in = dir / (std::string(game) + "_dense.mab");
    auto bytes = mab::write_container(*dense);
    ASSERT_TRUE(bytes.ok());
    ASSERT_TRUE(mab::write_file_atomic(in, *bytes).ok());
    ASSERT_GE(decode(in).rotations[0].frames.size(), std::size_t{d->last_frame});
    const auto out = dir / (std::string(game) + ".mab");
    auto r = run("edit " + in.string() + " -o " + out.string() + " --reduce 2");
    ASSERT_EQ(r.status, 0) << r.out;
    const auto a = decode(in), b = decode(out);
    std::size_t before = 0, after = 0;
    for (const auto& t : a.rotations) before += t.frames.size();
    for (const auto& t : b.rotations) after += t.frames.size();
    EXPECT_LT(after, before) << game;
    EXPECT_LE(max_rotation_diff(b, a, same), 2.0) << game;
    EXPECT_TRUE(has(r.out, "--reduce 2")) << r.out;
    std::printf("%s many_tracks --reduce 2: %zu stored keys -> %zu, max %.4f degrees\n", game, before, after,
                max_rotation_diff(b, a, same));
    // Random keys, each needed: a reduction never stores more keys than the clip has.
    const auto plain = corpus_dir() / game / "retail_bank.mab", reduced = dir / (std::string(game) + "_bank.mab");
    r = run("edit " + plain.string() + " -o " + reduced.string() + " --reduce 0.5");
    ASSERT_EQ(r.status, 0) << r.out;
    std::size_t keys_in = 0, keys_out = 0;
    for (const auto& t : decode(plain).rotations) keys_in += t.frames.size();
    for (const auto& t : decode(reduced).rotations) keys_out += t.frames.size();
    EXPECT_LE(keys_out, keys_in) << game;
    EXPECT_LE(max_rotation_diff(decode(reduced), decode(plain), same), 0.5) << game;
  }
}

// What the format cannot carry is refused by name, nothing written: no bit depths, one frame
// rate, bones by skeleton id; an edit that misses --max-error names the option.
TEST(LegacyEditCli, WhatTheFormatCannotCarryIsRefusedByName) {
  const auto dir = temp_dir();
  const auto in = corpus_dir() / "fc2" / "many_tracks.mab";
  const auto out = dir / "out.mab";
  const auto a = decode(in);
  const std::string keyed = "bone_" + std::to_string(a.rotations[0].bone);
  struct Case {
    std::string args, says;
    int status;
  };
  const std::vector<Case> cases = {
      {"--bits " + keyed + " 8", "no bit depth", 1},
      {"--requantise", "no bit depth", 1},
      {"--resample 15", "frame rate", 1},
      {"--rotate-bone Root 0,0,1@15", "skeleton id", 1},
      {"--rename-bone " + keyed + " Bip01", "skeleton id", 2},
      {"--add-bone " + keyed + " 0,0,0,1", "already has " + keyed, 1},
      {"--copy-track " + (corpus_dir() / "wd2" / "long_k40.mab").string() + " Root", "not a Far Cry 2/3 clip", 1},
      {"--rotate-bone " + keyed + " 0,0,1@15 --max-error 0.0001", "--max-error", 1},
  };
  for (const auto& c : cases) {
    std::string err;
    auto r = run("edit " + in.string() + " -o " + out.string() + " " + c.args, &err);
    EXPECT_EQ(r.status, c.status) << c.args << "\n" << r.out << err;
    EXPECT_TRUE(has(err, c.says)) << c.args << "\n" << err;
    EXPECT_TRUE(has(err, "nothing written")) << c.args << "\n" << err;
    EXPECT_FALSE(fs::exists(out)) << c.args;
  }
}

// --copy-track FROM BONE from another Far Cry 2/3 clip: the bone's rotation at this clip's frames.
TEST(LegacyEditCli, CopyTrackTakesABoneOfAnotherClip) {
  const auto dir = temp_dir();
  const auto in = corpus_dir() / "fc2" / "all_arrays.mab", from = corpus_dir() / "fc2" / "many_tracks.mab";
  const auto a = decode(in), s = decode(from);
  const std::uint32_t bone = s.rotations.back().bone;
  const auto out = dir / "copied.mab";
  auto r = run("edit " + in.string() + " -o " + out.string() + " --copy-track " + from.string() + " bone_" +
               std::to_string(bone));
  ASSERT_EQ(r.status, 0) << r.out;
  const auto b = decode(out);
  const auto* t = track(b, bone);
  ASSERT_NE(t, nullptr);
  for (std::uint32_t f = 0; f <= b.last_frame; ++f)
    EXPECT_LE(
        mab::angular_error_deg(mab::legacy_rotation_at(*t, f),
                               mab::legacy_rotation_at(s.rotations.back(), std::min<std::uint32_t>(f, s.last_frame))),
        0.01)
        << f;
  for (const auto& ta : a.rotations)
    if (ta.bone != bone) {
      EXPECT_EQ(track(b, ta.bone)->codes, ta.codes);
    }
}

}  // namespace
