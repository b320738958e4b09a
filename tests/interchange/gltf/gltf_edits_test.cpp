// docs/gltf.md, glTF side: what a modder does in Blender lands in the .mab or the import says why
// not. A key set on a frame the clip lacks gets a key time; a file resampled on another frame
// grid (Blender's default export) keeps every untouched bone and refuses to guess edited keys;
// a --skeleton export carries its rig; imports that would change nothing, or belong to another
// clip, fail. Blender itself runs the same cases in tests/blender (ctest label blender).
#include <mab/edit.hpp>
#include <mab/gltf.hpp>
#include <mab/legacy.hpp>

#include "interchange/gltf/gltf_timeline.hpp"
#include "interchange/gltf/gltf_tools.hpp"
#include "support/flags.hpp"
#include "support/corpus.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

namespace {

using mab::test::corpus_dir;
using mab::test::load;
using mab::test::load_container;
using mab::test::parse_gltf;
using mab::test::write_gltf;

const auto k_wdl = corpus_dir() / "wdl" / "long_k60_alias.mab";  // 60 keys at frames 0, 2, 4, 5, 8, ... (30/s)
const auto k_wd1 = corpus_dir() / "wd1" / "long_k100.mab";       // ticks 0, 4, 16, 28, ... (120/s)

mab::Clip clip_of(const std::vector<std::uint8_t>& bytes, std::size_t block = 0) {
  auto c = mab::read_container(bytes);
  EXPECT_TRUE(c.ok());
  auto d = mab::decode_clip(*c, block);
  EXPECT_TRUE(d.ok()) << (d ? "" : d.error().message());
  return d ? d->clip : mab::Clip{};
}

bool same_bits(const mab::Quat& a, const mab::Quat& b) { return std::memcmp(&a, &b, sizeof a) == 0; }

// The key of `clip`'s bone at key time `unit`, or identity when the clip has none there.
mab::Quat key_at(const mab::Clip& clip, std::size_t bone, std::uint32_t unit) {
  for (std::size_t k = 0; k < clip.key_count(); ++k)
    if (clip.key_times[k] == unit) return clip.bones[bone].keys[k];
  ADD_FAILURE() << "no key time " << unit;
  return {};
}

// The export of `path` with a key inserted into bone 0's rotation channel at `s` seconds,
// turned 20 degrees from what the channel plays there; `key` gets the inserted value.
std::vector<std::uint8_t> with_new_key(const std::filesystem::path& path, float s, std::vector<float>& key) {
  auto g = mab::export_gltf(load_container(path));
  EXPECT_TRUE(g.ok());
  auto m = parse_gltf(*g);
  auto& a = m.animations.at(0);
  const int sampler = a.channels.at(0).sampler;
  auto k = mab::test::read_sampler(m, a, sampler, 4);
  key = mab::test::insert_key(k, s, 20.0);
  mab::test::write_sampler(m, a, sampler, k);
  return write_gltf(m);
}

// Why: "A key set in Blender on a frame the clip does not have vanished ... reported 0 changed".
TEST(GltfEdits, AKeyOnAFrameTheClipLacksGetsAKeyTimeOfItsOwn) {
  const auto original = load(k_wdl);
  const auto c = load_container(k_wdl);
  const mab::Clip before = clip_of(original);
  ASSERT_EQ(before.key_times[1], 2u);
  ASSERT_EQ(before.key_times[2], 4u);
  std::vector<float> key;
  const auto g = with_new_key(k_wdl, 3.0f / 30.0f, key);  // frame 3 at 30 fps: between keys 2 and 4
  auto imported = mab::import_gltf(g, &c);
  ASSERT_TRUE(imported.ok()) << imported.error().message();
  const auto& rep = imported->report.animations.at(0);
  ASSERT_EQ(rep.times_added, std::vector<std::uint32_t>{3});
  EXPECT_FALSE(rep.times_from_template);
  ASSERT_EQ(rep.bones_changed, std::vector<std::uint32_t>{before.bones[0].hash});
  const mab::Clip after = clip_of(imported->bytes);
  ASSERT_EQ(after.key_count(), before.key_count() + 1);
  const double err = rep.encode.max_error_deg + 2e-5;
  EXPECT_LE(mab::angular_error_deg(key_at(after, 0, 3), {key[0], key[1], key[2], key[3]}), err);
  // Every other key of every bone, and the other bones at the new time, play as before (within
  // the re-quantisation the report states: the 8-key chunks after the new time regroup).
  for (std::size_t b = 0; b < before.bones.size(); ++b) {
    for (std::size_t k = 0; k < before.key_count(); ++k)
      EXPECT_LE(mab::angular_error_deg(key_at(after, b, before.key_times[k]), before.bones[b].keys[k]), err)
          << "bone " << b << " key " << k;
    if (b != 0) {
      EXPECT_LE(mab::angular_error_deg(key_at(after, b, 3), mab::sample_bone(before, before.bones[b], 3.0)), err);
    }
  }
  // --template-times: today's sampling, the key listed as not carried.
  mab::GltfImportOptions o;
  o.template_times = true;
  auto kept = mab::import_gltf(g, &c, o);
  ASSERT_TRUE(kept.ok()) << kept.error().message();
  EXPECT_EQ(kept->bytes, original);
  const auto& dropped = kept->report.animations.at(0).dropped;
  ASSERT_EQ(dropped.size(), 1u);
  EXPECT_NEAR(dropped[0].time_s, 0.1, 1e-6);
  EXPECT_NEAR(dropped[0].deviation, 20.0, 0.01);
}

// decision 7: WD1 keys are ticks at 120/s; a key at a 24 fps scene's frame 3 is tick 15.
TEST(GltfEdits, KeyTimesAddedInTheClipsOwnUnits) {
  const auto c = load_container(k_wd1);
  std::vector<float> key;
  const auto g = with_new_key(k_wd1, 3.0f / 24.0f, key);
  auto imported = mab::import_gltf(g, &c);
  ASSERT_TRUE(imported.ok()) << imported.error().message();
  const auto& rep = imported->report.animations.at(0);
  EXPECT_EQ(rep.times_added, std::vector<std::uint32_t>{15});
  EXPECT_LT(rep.max_added_shift_s, 1e-6);
  const mab::Clip after = clip_of(imported->bytes);
  EXPECT_LE(mab::angular_error_deg(key_at(after, 0, 15), {key[0], key[1], key[2], key[3]}),
            rep.encode.max_error_deg + 2e-5);
}

// A key between the clip's frames that rounds onto a key it already has cannot be held.
TEST(GltfEdits, AKeyThatCannotGetATimeOfItsOwnIsRefusedWithTheFix) {
  const auto c = load_container(k_wdl);
  std::vector<float> key;
  const auto g = with_new_key(k_wdl, 2.25f / 30.0f, key);  // frame 2.25: rounds onto key time 2
  auto imported = mab::import_gltf(g, &c);
  ASSERT_FALSE(imported.ok());
  const std::string msg = imported.error().message(mab::test::as_flag);
  EXPECT_EQ(imported.error().code, mab::ErrorCode::not_decodable);
  for (const char* part :
       {"0xB6C65665", "0.075 s", "rounds onto key time 2", "scene frame rate to 30 fps", "--template-times"})
    EXPECT_NE(msg.find(part), std::string::npos) << part << " in: " << msg;
}

// Why: "Blender's default export (Always Sample Animations, 24 fps scene) put every bone of a
// corpus clip up to 100 degrees off". Now no untouched bone moves: the file comes back exactly.
TEST(GltfEdits, AnUneditedFileResampledAtAnotherRateComesBackExactly) {
  for (const char* rel : {"wdl/long_k60_alias.mab", "wd1/long_k100.mab", "fc5/three_blocks.mab", "fc4/long_k45.mab"}) {
    const auto path = corpus_dir() / rel;
    const auto c = load_container(path);
    auto g = mab::export_gltf(c);
    ASSERT_TRUE(g.ok());
    auto m = parse_gltf(*g);
    mab::test::resample_like_blender(m, 24.0);
    const auto resampled = write_gltf(m);
    // Earlier versions: sampling at the template's times read the 24 fps samples' interpolation.
    auto naive = mab::import_gltf(resampled, &c, [] {
      mab::GltfImportOptions o;
      o.keep_times = true;
      return o;
    }());
    ASSERT_TRUE(naive.ok());
    EXPECT_NE(naive->bytes, load(path)) << rel;
    auto imported = mab::import_gltf(resampled, &c);
    ASSERT_TRUE(imported.ok()) << rel << ": " << imported.error().message();
    EXPECT_EQ(imported->bytes, load(path)) << rel;
    for (const auto& a : imported->report.animations) {
      EXPECT_TRUE(a.bones_changed.empty()) << rel;
      // A block of constant bones alone is one key long: nothing to resample.
      const mab::Clip block = clip_of(load(path), a.block);
      if (std::none_of(block.bones.begin(), block.bones.end(),
                       [](const mab::ClipBone& b) { return b.kind() == mab::BoneKind::animated; }))
        continue;
      EXPECT_NEAR(a.resampled_rate, 24.0, 1e-3) << rel;
      EXPECT_EQ(a.resampled_kept, a.bones_matched) << rel;
    }
  }
}

// The hard case: an edit on a resampled curve. Bones whose samples are the template's
// interpolation are untouched and kept; an edited key between samples cannot be told from
// resampling error, so it is refused with the grid, the clip's rate, the worst bone and the fix.
TEST(GltfEdits, AnEditedFileResampledAtAnotherRateIsRefusedUnlessAccepted) {
  const auto original = load(k_wdl);
  const auto c = load_container(k_wdl);
  const mab::Clip before = clip_of(original);
  auto g = mab::export_gltf(c);
  ASSERT_TRUE(g.ok());
  auto edited_at = [&](double fps) {
    auto m = parse_gltf(*g);
    auto& a = m.animations.at(0);
    const int sampler = a.channels.at(2).sampler;  // bone 2, key 30 turned 20 degrees
    auto k = mab::test::read_sampler(m, a, sampler, 4);
    const auto v = mab::test::turned(&k.v[4 * 30], 20.0);
    std::copy(v.begin(), v.end(), k.v.begin() + 4 * 30);
    mab::test::write_sampler(m, a, sampler, k);
    mab::test::resample_like_blender(m, fps);
    return write_gltf(m);
  };
  const auto at24 = edited_at(24.0);
  auto refused = mab::import_gltf(at24, &c);
  ASSERT_FALSE(refused.ok());
  const std::string msg = refused.error().message(mab::test::as_flag);
  for (const char* part : {"resampled at 24 keys per second", "key rate 30 per second", "3 track(s) match the template",
                           "0x530EC1CB", "Always Sample Animations", "scene frame rate to 30 fps", "--accept-resample"})
    EXPECT_NE(msg.find(part), std::string::npos) << part << " in: " << msg;
  mab::GltfImportOptions o;
  o.accept_resample = true;
  auto accepted = mab::import_gltf(at24, &c, o);
  ASSERT_TRUE(accepted.ok()) << accepted.error().message();
  const auto& rep = accepted->report.animations.at(0);
  EXPECT_EQ(rep.bones_changed, std::vector<std::uint32_t>{before.bones[2].hash});
  EXPECT_GT(rep.keys_between_samples, 0u);
  EXPECT_GT(rep.resample_error, 1.0);
  const mab::Clip after = clip_of(accepted->bytes);
  for (std::size_t b = 0; b < before.bones.size(); ++b)
    for (std::size_t k = 0; k < before.key_count(); ++k)
      if (b != 2) {
        EXPECT_TRUE(same_bits(after.bones[b].keys[k], before.bones[b].keys[k])) << b << " " << k;
      }
  // The README's way: the scene at the clip's rate. Every key of the clip is a sample, the
  // edit lands, nothing else moves.
  auto at30 = mab::import_gltf(edited_at(30.0), &c);
  ASSERT_TRUE(at30.ok()) << at30.error().message();
  const mab::Clip back = clip_of(at30->bytes);
  EXPECT_TRUE(at30->report.animations.at(0).times_added.empty());
  for (std::size_t b = 0; b < before.bones.size(); ++b)
    for (std::size_t k = 0; k < before.key_count(); ++k) {
      if (b == 2 && k == 30) {
        EXPECT_NEAR(mab::angular_error_deg(back.bones[b].keys[k], before.bones[b].keys[k]), 20.0,
                    at30->report.max_error_deg + 1e-3);
      } else if (b != 2) {
        EXPECT_TRUE(same_bits(back.bones[b].keys[k], before.bones[b].keys[k])) << b << " " << k;
      }
    }
}

// Far Cry 2/3: a resampled file keeps every track; a key on a frame a keyed track does not
// store lands there (the import samples every frame, the sparse writer keys what it needs).
TEST(GltfEdits, FarCry2TracksResampledAreKeptAndANewFrameKeyLands) {
  const auto path = corpus_dir() / "fc2" / "all_arrays.mab";
  const auto c = load_container(path);
  auto g = mab::export_gltf(c);
  ASSERT_TRUE(g.ok());
  {
    auto m = parse_gltf(*g);
    mab::test::resample_like_blender(m, 24.0);
    auto imported = mab::import_gltf(write_gltf(m), &c);
    ASSERT_TRUE(imported.ok()) << imported.error().message();
    EXPECT_EQ(imported->bytes, load(path));
    EXPECT_NEAR(imported->report.animations.at(0).resampled_rate, 24.0, 1e-3);
  }
  auto orig = mab::decode_legacy_clip(c, 0);
  ASSERT_TRUE(orig.ok());
  // The keyed track with the widest gap between stored frames; a key in the middle of it.
  std::size_t track = 0, gap_at = 0;
  std::uint16_t widest = 0;
  for (std::size_t t = 0; t < orig->rotations.size(); ++t)
    for (std::size_t k = 0; k + 1 < orig->rotations[t].frames.size(); ++k)
      if (orig->rotations[t].frames[k + 1] - orig->rotations[t].frames[k] > widest)
        widest = static_cast<std::uint16_t>(orig->rotations[t].frames[k + 1] - orig->rotations[t].frames[k]), track = t,
        gap_at = k;
  ASSERT_GE(widest, 2);
  const std::uint32_t frame = orig->rotations[track].frames[gap_at] + widest / 2u;
  auto m = parse_gltf(*g);
  auto& a = m.animations.at(0);
  const int sampler = mab::test::sampler_of(
      m, 0, mab::test::node_named(m, "bone_" + std::to_string(orig->rotations[track].bone)), "rotation");
  ASSERT_GE(sampler, 0);
  auto k = mab::test::read_sampler(m, a, sampler, 4);
  const auto key = mab::test::insert_key(k, static_cast<float>(frame / double{orig->frame_rate}), 20.0);
  mab::test::write_sampler(m, a, sampler, k);
  auto imported = mab::import_gltf(write_gltf(m), &c);
  ASSERT_TRUE(imported.ok()) << imported.error().message();
  auto after = mab::decode_legacy_clip(*mab::read_container(imported->bytes), 0);
  ASSERT_TRUE(after.ok());
  EXPECT_LE(
      mab::angular_error_deg(mab::legacy_rotation_at(after->rotations[track], frame), {key[0], key[1], key[2], key[3]}),
      imported->report.max_error_deg + 2e-5);
}

// --- The rig travels with the file (item 4) ---

struct SkeletonCase {
  std::vector<std::uint8_t> clip_bytes;
  mab::Container clip;
  mab::GltfSkeleton skeleton;
  std::vector<std::uint8_t> export_bytes;
};

SkeletonCase skeleton_case() {
  SkeletonCase s;
  const auto rig = load(corpus_dir() / "external" / "RiggedFigure.gltf");
  mab::GltfImportOptions o;
  o.game = mab::Game::watch_dogs_legion;
  auto made = mab::import_gltf(rig, nullptr, o);
  EXPECT_TRUE(made.ok());
  s.clip_bytes = made->bytes;
  s.clip = *mab::read_container(s.clip_bytes);
  s.skeleton = *mab::read_gltf_skeleton(rig);
  mab::GltfExportOptions eo;
  eo.skeleton = &s.skeleton;
  s.export_bytes = *mab::export_gltf(s.clip, eo);
  return s;
}

// Why: "A glb exported with --skeleton rig.gltf and imported back without --skeleton moved
// bones by up to 180 degrees, silently."
TEST(GltfRig, ASkeletonExportImportsWithoutTheFlagOrRefuses) {
  const auto s = skeleton_case();
  // As written by mab export: the file records the skeleton, which import uses.
  auto direct = mab::import_gltf(s.export_bytes, &s.clip);
  ASSERT_TRUE(direct.ok()) << direct.error().message();
  EXPECT_EQ(direct->bytes, s.clip_bytes);
  ASSERT_FALSE(direct->report.notes.empty());
  EXPECT_NE(direct->report.notes[0].find("skeleton the file records"), std::string::npos);
  // Through a tool that drops extras (Blender's defaults): the bones' hierarchy says it.
  auto m = parse_gltf(s.export_bytes);
  mab::test::drop_extras(m);
  const auto bare = write_gltf(m);
  auto refused = mab::import_gltf(bare, &s.clip);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.error().message(mab::test::as_flag).find("exported with --skeleton"), std::string::npos)
      << refused.error().message();
  EXPECT_NE(refused.error().message().find("hangs under"), std::string::npos) << refused.error().message();
  mab::GltfImportOptions with;
  with.skeleton = &s.skeleton;
  auto given = mab::import_gltf(bare, &s.clip, with);
  ASSERT_TRUE(given.ok()) << given.error().message();
  EXPECT_EQ(given->bytes, s.clip_bytes);
  // Another skeleton than the one recorded.
  mab::GltfSkeleton other = s.skeleton;
  other.nodes.back().rotation = mab::quat_mul(other.nodes.back().rotation, {0, 0, 0.7071068f, 0.7071068f});
  with.skeleton = &other;
  auto wrong = mab::import_gltf(s.export_bytes, &s.clip, with);
  ASSERT_FALSE(wrong.ok());
  EXPECT_NE(wrong.error().message(mab::test::as_flag).find("another --skeleton"), std::string::npos)
      << wrong.error().message();
  // The recorded data tampered with: the digest no longer matches, only --skeleton will do.
  m = parse_gltf(s.export_bytes);
  auto& rig = m.scenes[0].extras.Get<tinygltf::Value::Object>()["mabkit"].Get<tinygltf::Value::Object>()["rig"];
  rig.Get<tinygltf::Value::Object>()["names"] = tinygltf::Value(std::string("renamed"));
  auto tampered = mab::import_gltf(write_gltf(m), &s.clip);
  ASSERT_FALSE(tampered.ok());
  EXPECT_NE(tampered.error().message(mab::test::as_flag).find("give the same --skeleton"), std::string::npos);
}

// The record is file data: anything off in it (a cycle, counts that disagree, a number that is
// not one) leaves the data out, and only the digest asks for --skeleton.
TEST(GltfRig, ABrokenRecordIsNotUsed) {
  const auto s = skeleton_case();
  const auto good = mab::gltf::read_rig_record(parse_gltf(s.export_bytes));
  ASSERT_EQ(good.kind, mab::gltf::RigRecord::Kind::skeleton);
  ASSERT_TRUE(good.skeleton.has_value());
  EXPECT_EQ(mab::gltf::skeleton_digest(*good.skeleton), mab::gltf::skeleton_digest(s.skeleton));
  using Object = tinygltf::Value::Object;
  auto broken = [&](auto&& change) {
    auto m = parse_gltf(s.export_bytes);
    auto& rig = m.scenes[0].extras.Get<Object>()["mabkit"].Get<Object>()["rig"].Get<Object>();
    change(rig);
    return mab::gltf::read_rig_record(m);
  };
  const auto cycle = broken([](Object& r) {
    auto parents = r["parents"].Get<tinygltf::Value::Array>();
    parents[0] = tinygltf::Value(1);
    parents[1] = tinygltf::Value(0);
    r["parents"] = tinygltf::Value(parents);
  });
  const auto short_rotations = broken([](Object& r) {
    auto rot = r["rotations"].Get<tinygltf::Value::Array>();
    rot.pop_back();
    r["rotations"] = tinygltf::Value(rot);
  });
  const auto not_numbers = broken([](Object& r) { r["parents"] = tinygltf::Value(std::string("0,1")); });
  const auto out_of_range = broken([](Object& r) {
    auto parents = r["parents"].Get<tinygltf::Value::Array>();
    parents[0] = tinygltf::Value(1 << 20);
    r["parents"] = tinygltf::Value(parents);
  });
  for (const auto* rec : {&cycle, &short_rotations, &not_numbers, &out_of_range}) {
    EXPECT_EQ(rec->kind, mab::gltf::RigRecord::Kind::skeleton);
    EXPECT_FALSE(rec->skeleton.has_value());
  }
}

TEST(GltfRig, AFlatExportImportedWithASkeletonIsRefused) {
  const auto s = skeleton_case();
  auto flat = mab::export_gltf(s.clip);
  ASSERT_TRUE(flat.ok());
  mab::GltfImportOptions with;
  with.skeleton = &s.skeleton;
  auto recorded = mab::import_gltf(*flat, &s.clip, with);
  ASSERT_FALSE(recorded.ok());
  EXPECT_NE(recorded.error().message(mab::test::as_flag).find("without --skeleton"), std::string::npos)
      << recorded.error().message();
  auto m = parse_gltf(*flat);
  mab::test::drop_extras(m);
  auto shaped = mab::import_gltf(write_gltf(m), &s.clip, with);
  ASSERT_FALSE(shaped.ok());
  EXPECT_NE(shaped.error().message().find("flat rig"), std::string::npos) << shaped.error().message();
  auto plain = mab::import_gltf(write_gltf(m), &s.clip);
  ASSERT_TRUE(plain.ok()) << plain.error().message();
  EXPECT_EQ(plain->bytes, s.clip_bytes);
}

// --- No-op imports and other clips (item 7) ---

// Why: "A glTF with no animation, or whose nodes match no bone, or taken from another clip,
// imports with exit 0."
TEST(GltfNoOp, NoAnimationOrNoMatchingNodeIsRefused) {
  const auto original = load(k_wd1);
  const auto c = load_container(k_wd1);
  auto g = mab::export_gltf(c);
  ASSERT_TRUE(g.ok());
  auto m = parse_gltf(*g);
  m.animations.clear();
  const auto empty = write_gltf(m);
  auto refused = mab::import_gltf(empty, &c);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.error().message().find("no animations"), std::string::npos);
  mab::GltfImportOptions allow;
  allow.allow_no_op = true;
  auto allowed = mab::import_gltf(empty, &c, allow);
  ASSERT_TRUE(allowed.ok());
  EXPECT_EQ(allowed->bytes, original);
  // A clip with nothing rotated exports no animation and says so: its round trip still works.
  const auto zero = corpus_dir() / "wd1" / "zero_bones.mab";
  const auto zc = load_container(zero);
  auto zg = mab::export_gltf(zc);
  ASSERT_TRUE(zg.ok()) << zg.error().message();
  ASSERT_TRUE(parse_gltf(*zg).animations.empty());
  auto back = mab::import_gltf(*zg, &zc);
  ASSERT_TRUE(back.ok()) << back.error().message();
  EXPECT_EQ(back->bytes, load(zero));
  // Nodes renamed by a tool and their extras gone: nothing names a bone.
  m = parse_gltf(*g);
  mab::test::drop_extras(m);
  for (std::size_t i = 0; i < m.nodes.size(); ++i) m.nodes[i].name = "Joint" + std::to_string(i);
  const auto renamed = write_gltf(m);
  auto none = mab::import_gltf(renamed, &c);
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.error().code, mab::ErrorCode::not_found);
  EXPECT_NE(none.error().message().find("moves no bone"), std::string::npos) << none.error().message();
  EXPECT_NE(none.error().message().find("\"Joint1\""), std::string::npos) << none.error().message();
  auto as_is = mab::import_gltf(renamed, &c, allow);
  ASSERT_TRUE(as_is.ok()) << as_is.error().message();
  EXPECT_EQ(as_is->bytes, original);
}

TEST(GltfNoOp, AnotherClipsAnimationIsRefused) {
  const auto c = load_container(k_wd1);
  auto d = mab::decode_clip(c);
  ASSERT_TRUE(d.ok());
  // The same bones, a second long: another clip of the same skeleton.
  mab::Clip shorter = d->clip;
  ASSERT_TRUE(mab::edit::trim(shorter, 0.0, 1.0).ok());
  auto other_bytes = mab::encode_clip(*d, shorter);
  ASSERT_TRUE(other_bytes.ok()) << other_bytes.error().message();
  const auto other = *mab::read_container(*other_bytes);
  auto g = mab::export_gltf(c);  // 5.5 s
  ASSERT_TRUE(g.ok());
  auto recorded = mab::import_gltf(*g, &other);
  ASSERT_FALSE(recorded.ok());
  EXPECT_NE(recorded.error().message().find("was exported from a clip of 120 keys/s and 5.500 s"), std::string::npos)
      << recorded.error().message();
  auto m = parse_gltf(*g);
  mab::test::drop_extras(m);
  const auto bare = write_gltf(m);
  auto spanned = mab::import_gltf(bare, &other);
  ASSERT_FALSE(spanned.ok());
  EXPECT_NE(spanned.error().message().find("looks like another clip's animation"), std::string::npos)
      << spanned.error().message();
  mab::GltfImportOptions allow;
  allow.allow_other_clip = true;
  allow.template_times = true;
  EXPECT_TRUE(mab::import_gltf(bare, &other, allow).ok());
}

// --- The pieces (gltf_timeline.hpp) ---

TEST(GltfTimeline, TheTemplatesInterpolationExplainsSlerpAndNlerpNotAnEdit) {
  const auto m = mab::gltf::Metric::rotation(1e-3);
  mab::gltf::Keys k;
  k.t = {0.0, 1.0};
  const double h = 60.0 * 3.14159265358979323846 / 360.0;
  k.v = {{0, 0, 0, 1}, {0, 0, std::sin(h), std::cos(h)}};  // 60 degrees about z
  const double u = 0.25;
  const mab::gltf::Value slerp = m.interpolate(k.v[0], k.v[1], u);
  const double n = std::sqrt((1 - u) * (1 - u) + 2 * u * (1 - u) * std::cos(h) + u * u);
  const mab::gltf::Value nlerp{0, 0, u * std::sin(h) / n, ((1 - u) + u * std::cos(h)) / n};
  EXPECT_GT(m.distance(slerp, nlerp), 0.1);  // they differ by far more than the tolerance
  EXPECT_TRUE(k.explains(m, u, slerp));
  EXPECT_TRUE(k.explains(m, u, nlerp));
  EXPECT_FALSE(k.explains(m, u, m.interpolate(k.v[0], k.v[1], 0.3)));
  EXPECT_TRUE(k.explains(m, 2.0, k.v[1]));  // held after the last key
}

// A pose on the path through a track's keys, whatever the time (a bank bone held where another
// clip's track left it): at a key, on a step by slerp or nlerp (either sign), lerp for
// translations; off the path it is not.
TEST(GltfTimeline, APoseOnThePathThroughKeys) {
  const auto m = mab::gltf::Metric::rotation(1e-3);
  const double h = 60.0 * 3.14159265358979323846 / 360.0;
  const std::vector<mab::gltf::Value> keys = {
      {0, 0, 0, 1}, {0, 0, std::sin(h), std::cos(h)}, {std::sin(h), 0, 0, std::cos(h)}};
  const mab::gltf::Value slerp = m.interpolate(keys[0], keys[1], 0.37);
  const double u = 0.37, n = std::sqrt((1 - u) * (1 - u) + 2 * u * (1 - u) * std::cos(h) + u * u);
  const mab::gltf::Value nlerp{0, 0, u * std::sin(h) / n, ((1 - u) + u * std::cos(h)) / n};
  EXPECT_TRUE(mab::gltf::on_path(m, keys[2], keys));
  EXPECT_TRUE(mab::gltf::on_path(m, slerp, keys));
  EXPECT_TRUE(mab::gltf::on_path(m, nlerp, keys));
  EXPECT_TRUE(mab::gltf::on_path(m, {-slerp[0], -slerp[1], -slerp[2], -slerp[3]}, keys));
  EXPECT_TRUE(mab::gltf::on_path(m, m.interpolate(keys[1], keys[2], 0.5), keys));
  EXPECT_FALSE(mab::gltf::on_path(m, m.interpolate(keys[0], keys[2], 0.5), keys));  // a chord the path skips
  EXPECT_FALSE(mab::gltf::on_path(m, {0, std::sin(h), 0, std::cos(h)}, keys));
  const auto t = mab::gltf::Metric::translation(1e-6);
  const std::vector<mab::gltf::Value> moves = {{0, 0, 0, 0}, {2, 0, 0, 0}, {2, 4, 0, 0}};
  EXPECT_TRUE(mab::gltf::on_path(t, {1.5, 0, 0, 0}, moves));
  EXPECT_TRUE(mab::gltf::on_path(t, {2, 1, 0, 0}, moves));
  EXPECT_FALSE(mab::gltf::on_path(t, {1, 2, 0, 0}, moves));
  EXPECT_FALSE(mab::gltf::on_path(t, {3, 0, 0, 0}, moves));  // beyond the step's end
}

TEST(GltfTimeline, GridsAndWholeFrameRates) {
  const std::vector<double> grid{0.0, 1 / 24.0, 2 / 24.0, 3 / 24.0};
  const auto g = mab::gltf::uniform_grid(grid);
  ASSERT_TRUE(g.has_value());
  EXPECT_NEAR(1 / g->step, 24.0, 1e-9);
  EXPECT_FALSE(mab::gltf::uniform_grid(std::vector<double>{0.0, 0.1, 0.3}).has_value());
  EXPECT_FALSE(mab::gltf::uniform_grid(std::vector<double>{0.0, 0.1}).has_value());
  const std::vector<std::uint32_t> ticks{0, 4, 16, 28};
  EXPECT_EQ(mab::gltf::whole_frame_rate(ticks, 120.0), 30.0);
  const std::vector<std::uint32_t> odd{0, 4, 17};
  EXPECT_EQ(mab::gltf::whole_frame_rate(odd, 120.0), 120.0);
  EXPECT_EQ(mab::gltf::whole_frame_rate(ticks, 29.97), 29.97);
}

}  // namespace
