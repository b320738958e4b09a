// If a block decodes (of the first 4):
//  1. encoding the unedited clip gives the input bytes back;
//  2. (in one block, chosen by the input) one decoded rotation (an animated key or a constant), chosen and changed
//     deterministically from the input, encodes; the result parses and decodes; the edited
//     rotation comes back within EncodeReport::max_error_deg of what was asked, every other
//     key of its bone within that bone's reported error, every other bone bit for bit, and
//     every motion section with the same reading (but see parts_reading);
//  3. that output is a fixed point: encoding its decode against itself, and (at a fixed bit
//     depth) against the original, gives the same bytes again;
//  4. in the same block, one translation, constant translation, root-motion value or part entry
//     (docs/motion.md), where decoded, changed the same way, reads back with the same evidence and
//     within the reported error, nothing else moving (edit_motion_and_check).
// Aborts on any mismatch.
#include "harness_util.hpp"

#include <mab/decode_clip.hpp>
#include <mab/encode_clip.hpp>
#include <mab/requantise.hpp>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <optional>
#include <span>
#include <vector>

namespace {

using fuzz::check;

bool same_bits(const mab::Quat& a, const mab::Quat& b) { return std::memcmp(&a, &b, sizeof a) == 0; }

[[noreturn]] void fail_with(const char* what, const mab::Error& e) {
  std::fprintf(stderr, "%s\n", e.message().c_str());
  fuzz::fail(what);
}

mab::Quat normalised(double x, double y, double z, double w) {
  const double n = std::sqrt(x * x + y * y + z * z + w * w);
  return {static_cast<float>(x / n), static_cast<float>(y / n), static_cast<float>(z / n), static_cast<float>(w / n)};
}

mab::Quat random_unit(fuzz::Rng& rng) {
  for (;;) {
    const double x = 2 * rng.unit() - 1, y = 2 * rng.unit() - 1, z = 2 * rng.unit() - 1, w = 2 * rng.unit() - 1;
    const double n2 = x * x + y * y + z * z + w * w;
    if (n2 > 1e-3 && n2 <= 1) return normalised(x, y, z, w);
  }
}

// Hamilton product: applies a small rotation to a decoded key.
mab::Quat mul(const mab::Quat& a, const mab::Quat& b) {
  const double ax = a.x, ay = a.y, az = a.z, aw = a.w, bx = b.x, by = b.y, bz = b.z, bw = b.w;
  return normalised(aw * bx + ax * bw + ay * bz - az * by, aw * by - ax * bz + ay * bw + az * bx,
                    aw * bz + ax * by - ay * bx + az * bw, aw * bw - ax * bx - ay * by - az * bz);
}

bool usable(const mab::Quat& q) {
  double n2 = 0;
  for (unsigned i = 0; i < 4; ++i) n2 += double{q[i]} * double{q[i]};
  return std::isfinite(n2) && n2 > 0;
}

// The kinds of edit a user or a tool makes: tiny and large turns, a fresh rotation, the
// same rotation on the other hemisphere, a non-unit quaternion, a one-ulp change.
mab::Quat perturb(const mab::Quat& q, fuzz::Rng& rng) {
  switch (rng.below(6)) {
    case 0: {
      const double angle = std::pow(10.0, -1.0 - 6.0 * rng.unit());  // 1e-7 .. 1e-1 rad
      const mab::Quat axis = random_unit(rng);
      const double s = std::sin(angle / 2) /
                       std::sqrt(double{axis.x} * axis.x + double{axis.y} * axis.y + double{axis.z} * axis.z + 1e-30);
      return mul(normalised(axis.x * s, axis.y * s, axis.z * s, std::cos(angle / 2)), q);
    }
    case 1: return random_unit(rng);
    case 2: return {-q.x, -q.y, -q.z, -q.w};
    case 3: {
      const auto f = static_cast<float>(0.25 + 4.0 * rng.unit());
      return {q.x * f, q.y * f, q.z * f, q.w * f};
    }
    case 4: {
      mab::Quat r = q;
      const auto i = static_cast<unsigned>(rng.below(4));
      r[i] = std::nextafter(r[i], rng.below(2) ? 2.0f : -2.0f);
      return r;
    }
    default: return mul(random_unit(rng), q);
  }
}

// Allowance between two measurements of the same error: the quantiser measures on
// unnormalised floats, angular_error_deg normalises both sides first.
double slack(double bound) { return 1e-7 + 1e-6 * bound; }

// Whether the output holds a block or a section of `block` at another position than the input.
bool moved(const mab::Container& in, const mab::Container& out, std::size_t block) {
  if (in.blocks.size() != out.blocks.size()) return true;
  for (std::size_t k = 0; k < in.blocks.size(); ++k)
    if (in.blocks[k].original_base != out.blocks[k].original_base) return true;
  const mab::Block& a = in.blocks[block];
  const mab::Block& b = out.blocks[block];
  if (a.slot_segment.size() != b.slot_segment.size()) return true;
  auto at = [](const mab::Block& blk, std::size_t slot) -> std::int64_t {
    const int seg = blk.slot_segment[slot];
    return seg < 0 ? -1 : static_cast<std::int64_t>(blk.segments[static_cast<std::size_t>(seg)].original_offset);
  };
  for (std::size_t j = 0; j < a.slot_segment.size(); ++j)
    if (at(a, j) != at(b, j)) return true;
  return false;
}

// Translations and root motion read back with the hypothesis they were read with.
bool same_motion_reading(const mab::BlockEvidence& e1, const mab::BlockEvidence& e2) {
  return e1.translations.level == e2.translations.level && e1.translations.hypothesis == e2.translations.hypothesis &&
         e1.constant_translations.hypothesis == e2.constant_translations.hypothesis &&
         e1.root_rotations.hypothesis == e2.root_rotations.hypothesis &&
         e1.root_translations.hypothesis == e2.root_translations.hypothesis;
}

// How the output reads the edited block's part array. A non-zero nested offset must land
// exactly on a block (docs/motion.md, format 12), a test of absolute positions. An array the
// input left opaque is kept byte for byte and never relinked (decision 8: bytes not understood are
// kept; relinking needs a proven base), so once an edit moves blocks or sections, an offset
// that landed nowhere can land on a block by chance, and the output then reads parts the input
// did not have. That is the decoder reading new positions, not an encoder fault; those parts
// still cannot be written against the input (docs/motion.md: data is written only in a layout decoded
// from the block). Any other change of reading is a finding.
enum class PartsReading { same, opaque_array_now_reads };
PartsReading parts_reading(const mab::DecodedClip& d, const mab::DecodedClip& d2, const mab::Container& out) {
  const mab::Evidence& e1 = d.evidence.parts;
  const mab::Evidence& e2 = d2.evidence.parts;
  if (e1.level == e2.level && e1.hypothesis == e2.hypothesis) return PartsReading::same;
  if (e1.accepted() || !moved(d.container, out, d.block)) {
    std::fprintf(stderr, "part array: %s, after the edit: %s\n", e1.text().c_str(), e2.text().c_str());
    fuzz::fail("an edit changed how the part array reads back");
  }
  return PartsReading::opaque_array_now_reads;
}

struct Target {
  std::size_t bone;
  std::size_t key;  // animated: key index; constant: unused
  bool constant;
};

// One rotation of the clip, chosen by rng: a key of an animated bone or a constant.
std::optional<Target> pick_rotation(const mab::Clip& orig, fuzz::Rng& rng) {
  std::vector<Target> targets;
  for (std::size_t i = 0; i < orig.bones.size(); ++i) {
    const mab::ClipBone& b = orig.bones[i];
    if (b.kind() == mab::BoneKind::constant) targets.push_back({i, 0, true});
    if (b.kind() == mab::BoneKind::animated)
      for (std::size_t k = 0; k < b.keys.size(); ++k) targets.push_back({i, k, false});
  }
  if (targets.empty()) return std::nullopt;
  return targets[rng.below(targets.size())];
}

// True for the encoder's documented refusals of an edit; fails on an overlap refusal in a block
// whose sections share no bytes.
bool refused_as_documented(const mab::DecodedClip& d, const mab::Error& e) {
  // The edit would make the FC5 'aNi' scan (format 4.3) find other blocks in the written file.
  // The encoder checked that by reading its output back.
  if (e.code == mab::ErrorCode::ambiguous_layout) return true;
  // The other: sections that share bytes (equal offsets), which the edit would rewrite.
  if (e.code != mab::ErrorCode::overlap) return false;
  const mab::Block& b = d.container.blocks[d.block];
  bool shared = false;
  for (std::size_t i = 0; i < b.slot_segment.size(); ++i)
    for (std::size_t j = i + 1; j < b.slot_segment.size(); ++j)
      shared = shared || (b.slot_segment[i] >= 0 && b.slot_segment[i] == b.slot_segment[j]);
  check(shared, "edit refused as overlapping sections in a block without shared sections");
  return true;
}

// Every bone read back as edited: hash, kind and flags kept (choose_depth may re-pick the edited
// bone's depth only), rotations bit for bit but the edited bone's, within its reported bound.
void check_bones_read_back(const mab::Clip& edited, const mab::Clip& back, const Target& t,
                           const mab::EncodeOptions& opt, const mab::EncodeReport& rep) {
  for (std::size_t i = 0; i < back.bones.size(); ++i) {
    const mab::ClipBone& eb = edited.bones[i];
    const mab::ClipBone& bb = back.bones[i];
    check(bb.hash == eb.hash && bb.kind() == eb.kind(), "bone hash or kind changed by a rotation edit");
    check(bb.flags == eb.flags || (opt.choose_depth && i == t.bone && (bb.flags & 0xF0) == (eb.flags & 0xF0)),
          "bone flags changed by a rotation edit");
    const double bound = rep.bone_error_deg[i];
    auto within = [&](const mab::Quat& want, const mab::Quat& got, const char* what) {
      if (same_bits(want, got)) return;
      const double err = mab::angular_error_deg(want, got);
      if (i != t.bone || !(err <= bound + slack(bound))) {
        std::fprintf(stderr, "bone %zu (edited: bone %zu%s): error %.12g deg, bone bound %.12g deg\n", i, t.bone,
                     t.constant ? " constant" : "", err, bound);
        fuzz::fail(what);
      }
    };
    if (eb.kind() == mab::BoneKind::constant) within(eb.constant, bb.constant, "constant rotation off after an edit");
    if (eb.kind() == mab::BoneKind::animated) {
      check(bb.keys.size() == eb.keys.size(), "key count of a bone changed by a rotation edit");
      for (std::size_t k = 0; k < eb.keys.size(); ++k) within(eb.keys[k], bb.keys[k], "animated key off after an edit");
    }
  }
}

// Whether the second idempotence form applies: not when the edit decoded back to the original
// floats (the original codes are then, rightly, reused), nor when the re-quantiser's one
// documented exception (rotation_codec.hpp) holds: a chunk with a key renormalised by decision 2
// decodes off the code grid, so its re-quantisation may differ.
bool requantises_to_itself(const mab::Clip& orig, const mab::DecodedClip& d2, const Target& t) {
  const mab::Clip& back = d2.clip;
  const mab::Quat& got = t.constant ? back.bones[t.bone].constant : back.bones[t.bone].keys[t.key];
  const mab::Quat& orig_rot = t.constant ? orig.bones[t.bone].constant : orig.bones[t.bone].keys[t.key];
  if (t.constant) return !same_bits(got, orig_rot);
  const std::size_t first = t.key / mab::keys_per_chunk * mab::keys_per_chunk;
  const std::size_t last = std::min(first + mab::keys_per_chunk, orig.bones[t.bone].keys.size());
  bool back_to_original = true;
  for (std::size_t k = first; k < last; ++k)
    back_to_original = back_to_original && same_bits(back.bones[t.bone].keys[k], orig.bones[t.bone].keys[k]);
  bool renormalised = false;
  std::size_t anim = 0;
  for (std::size_t i = 0; i < t.bone; ++i) anim += back.bones[i].kind() == mab::BoneKind::animated;
  const std::size_t ch = t.key / mab::keys_per_chunk;
  if (ch < d2.rotations.chunks.size() && anim < d2.rotations.chunks[ch].size())
    for (std::size_t f = 0; f < mab::keys_per_chunk && ch * mab::keys_per_chunk + f < back.key_count(); ++f)
      renormalised = renormalised || mab::key_renormalised(d2.rotations.chunks[ch][anim], static_cast<unsigned>(f),
                                                           back.bones[t.bone].bit_depth());
  return !back_to_original && !renormalised;
}

// The output is a fixed point: decoded and encoded unedited it is itself, and (where
// requantises_to_itself) its floats encoded against the original re-quantise to the same codes.
void check_idempotent(const mab::DecodedClip& d, const mab::DecodedClip& d2, const Target& t,
                      const mab::EncodeOptions& opt, PartsReading parts, const std::vector<std::uint8_t>& bytes) {
  const mab::Clip& back = d2.clip;
  auto same = mab::encode_clip(d2, back);
  if (!same) fail_with("a decoded encoder output failed to encode", same.error());
  check(*same == bytes, "re-encoding a decoded encoder output changed its bytes");
  // With choose_depth the second form is skipped: it may settle on another depth.
  if (opt.choose_depth || !requantises_to_itself(d.clip, d2, t)) return;
  mab::EncodeReport rep2;
  // Parts that only the output reads (parts_reading) are not data of this edit: the clip
  // as the input reads it has none.
  mab::Clip back_as_input = back;
  if (parts == PartsReading::opaque_array_now_reads) back_as_input.parts = d.clip.parts;
  auto again = mab::encode_clip(d, back_as_input, opt, &rep2);
  if (!again) fail_with("the re-decoded clip failed to encode against the original", again.error());
  if (*again != bytes) {
    std::fprintf(stderr, "re-quantised %zu chunks and %zu constants\n", rep2.chunks_requantised,
                 rep2.constants_encoded);
    fuzz::fail("encode(original, decode(encode(original, edit))) != encode(original, edit)");
  }
}

void edit_and_check(const mab::DecodedClip& d, std::uint64_t seed, const mab::Limits& limits) {
  fuzz::Rng rng(seed);
  const mab::Clip& orig = d.clip;
  const auto picked = pick_rotation(orig, rng);
  if (!picked) return;
  const Target t = *picked;

  mab::Clip edited = orig;
  mab::Quat& slot = t.constant ? edited.bones[t.bone].constant : edited.bones[t.bone].keys[t.key];
  const mab::Quat before = slot;
  slot = perturb(slot, rng);
  if (!usable(slot) || same_bits(slot, before)) return;  // not an edit the encoder can take
  const mab::Quat asked = slot;

  mab::EncodeOptions opt;
  opt.choose_depth = rng.below(4) == 0;
  opt.max_error_deg = opt.choose_depth ? std::pow(10.0, -3.0 + 3.0 * rng.unit()) : 0.01;
  mab::EncodeReport rep;
  auto bytes = mab::encode_clip(d, edited, opt, &rep);
  if (!bytes && refused_as_documented(d, bytes.error())) return;
  if (!bytes) fail_with("an edited rotation failed to encode", bytes.error());
  check(rep.chunks_requantised + rep.constants_encoded > 0, "an edited rotation was not re-encoded");
  check(rep.bone_error_deg.size() == edited.bones.size(), "EncodeReport::bone_error_deg size");

  auto c2 = mab::read_container(*bytes, limits);
  if (!c2) fail_with("the encoder wrote a file that does not parse", c2.error());
  auto d2 = mab::decode_clip(*c2, d.block, limits);
  if (!d2) fail_with("the encoder wrote a block that does not decode", d2.error());
  const mab::Clip& back = d2->clip;

  // A rotation edit leaves the reading of every other section as it was, but for the one
  // documented exception of parts_reading.
  check(same_motion_reading(d.evidence, d2->evidence), "a rotation edit changed how a motion section reads back");
  const PartsReading parts = parts_reading(d, *d2, *c2);
  check(parts != PartsReading::same || back.parts == orig.parts, "part entries changed by a rotation edit");
  check(back.key_times == edited.key_times, "key times changed by a rotation edit");
  check(back.bones.size() == edited.bones.size(), "bone count changed by a rotation edit");
  check_bones_read_back(edited, back, t, opt, rep);
  const mab::Quat& got = t.constant ? back.bones[t.bone].constant : back.bones[t.bone].keys[t.key];
  const double err = mab::angular_error_deg(asked, got);
  if (!(err <= rep.max_error_deg + slack(rep.max_error_deg))) {
    std::fprintf(stderr, "edited rotation: error %.12g deg, EncodeReport::max_error_deg %.12g\n", err,
                 rep.max_error_deg);
    fuzz::fail("edited rotation is further off than EncodeReport::max_error_deg");
  }
  check_idempotent(d, *d2, t, opt, parts, *bytes);
}

bool same_vec(const mab::Vec3& a, const mab::Vec3& b) { return std::memcmp(a.data(), b.data(), sizeof a) == 0; }

// Translations, root motion and part entries (docs/motion.md), where the block decoded them: one value,
// chosen and changed from the input, encodes to a file that decodes with the same evidence for
// every section; the value comes back within the reported error (translation chunks), the
// 6-byte quaternion bound (root rotations) or bit for bit (floats); nothing else moves; and the
// output is a fixed point of decode + encode.
void edit_motion_and_check(const mab::DecodedClip& d, std::uint64_t seed, const mab::Limits& limits) {
  fuzz::Rng rng(seed ^ 0x16u);
  const mab::Clip& orig = d.clip;
  enum Kind { translation, constant, root_rotation, root_translation, part };
  struct MotionTarget {
    Kind kind;
    std::size_t index, key;
  };
  std::vector<MotionTarget> targets;
  for (std::size_t i = 0; i < orig.bones.size(); ++i) {
    for (std::size_t k = 0; k < orig.bones[i].translations.size(); ++k) targets.push_back({translation, i, k});
    if (orig.bones[i].constant_translation) targets.push_back({constant, i, 0});
  }
  for (std::size_t k = 0; k < orig.root_motion.rotations.size(); ++k) targets.push_back({root_rotation, k, 0});
  for (std::size_t k = 0; k < orig.root_motion.translations.size(); ++k) targets.push_back({root_translation, k, 0});
  for (std::size_t i = 0; i < orig.parts.size(); ++i) targets.push_back({part, i, 0});
  if (targets.empty()) return;
  const MotionTarget t = targets[rng.below(targets.size())];
  mab::Clip edited = orig;
  auto nudge = [&](float v, double scale) {
    switch (rng.below(4)) {
      case 0: return std::nextafter(v, rng.below(2) ? 1e9f : -1e9f);
      case 1: return static_cast<float>(v + (2 * rng.unit() - 1) * 1e-3 * scale);
      case 2: return static_cast<float>((2 * rng.unit() - 1) * scale);
      default: return static_cast<float>((2 * rng.unit() - 1) * 4 * scale);  // may widen the entry
    }
  };
  std::size_t slot = 0;  // the bone's place in the TranslationTable
  for (std::size_t i = 0; i < t.index && t.kind == translation; ++i) slot += !orig.bones[i].translations.empty();
  switch (t.kind) {
    case translation: {
      const double scale = d.motion.translation_table[slot].scale();
      auto& v = edited.bones[t.index].translations[t.key];
      v[rng.below(3)] = nudge(v[rng.below(3)], std::max(scale, 1e-3));
      break;
    }
    case constant: (*edited.bones[t.index].constant_translation)[rng.below(3)] = nudge(1.0f, 10.0); break;
    case root_translation: edited.root_motion.translations[t.index][rng.below(3)] = nudge(0.5f, 10.0); break;
    case root_rotation: edited.root_motion.rotations[t.index] = random_unit(rng); break;
    case part: {
      mab::ClipPart& p = edited.parts[t.index];
      p.start = static_cast<float>(p.end * rng.unit());
      p.type = static_cast<std::uint8_t>(1 + rng.below(8));
      break;
    }
  }
  mab::EncodeReport rep;
  auto bytes = mab::encode_clip(d, edited, {}, &rep);
  if (!bytes &&
      (bytes.error().code == mab::ErrorCode::ambiguous_layout || bytes.error().code == mab::ErrorCode::overlap))
    return;  // documented refusals, as for rotations
  // Another: a translation asked beyond the largest scale a TranslationTable entry holds
  // (2^24 - 1 steps, about 5000 units, format 10.1; translation_entry_for). `nudge` asks up to
  // 4 times the bone's scale, so an entry above 1250 units can be asked more than fits; and a
  // hostile file can decode to a key beyond it, which an edit elsewhere on the bone's track
  // makes the encoder write again (the track is re-quantised whole).
  if (!bytes && bytes.error().code == mab::ErrorCode::bad_value && t.kind == translation) {
    const double largest = mab::TranslationEntry::make(16, mab::translation_max_scale_code).scale() * (1 - 1e-6);
    for (const mab::Vec3& v : edited.bones[t.index].translations)
      if (std::fabs(v[0]) > largest || std::fabs(v[1]) > largest || std::fabs(v[2]) > largest) return;
  }
  if (!bytes) fail_with("an edited translation, root motion value or part failed to encode", bytes.error());
  auto c2 = mab::read_container(*bytes, limits);
  if (!c2) fail_with("the encoder wrote a file that does not parse", c2.error());
  auto d2 = mab::decode_clip(*c2, d.block, d.options, limits);
  if (!d2) fail_with("the encoder wrote a block that does not decode", d2.error());
  check(same_motion_reading(d.evidence, d2->evidence), "an edit changed how a section reads back");
  const PartsReading parts = parts_reading(d, *d2, *c2);
  const mab::Clip& back = d2->clip;
  check(back.bones.size() == edited.bones.size() && back.key_times == edited.key_times, "clip shape changed");
  for (std::size_t i = 0; i < back.bones.size(); ++i) {
    check(back.bones[i].keys == edited.bones[i].keys && back.bones[i].constant == edited.bones[i].constant,
          "a rotation changed with a translation edit");
    const auto& bt = back.bones[i].translations;
    const auto& et = edited.bones[i].translations;
    check(bt.size() == et.size(), "a translation track changed length");
    for (std::size_t k = 0; k < bt.size(); ++k)
      for (unsigned j = 0; j < 3; ++j)
        if (!(std::fabs(double{bt[k][j]} - double{et[k][j]}) <= rep.max_translation_error)) {
          std::fprintf(stderr, "bone %zu key %zu: %.9g vs %.9g, reported %.9g\n", i, k, double{bt[k][j]},
                       double{et[k][j]}, rep.max_translation_error);
          fuzz::fail("a translation is further off than EncodeReport::max_translation_error");
        }
    check(back.bones[i].constant_translation.has_value() == edited.bones[i].constant_translation.has_value() &&
              (!edited.bones[i].constant_translation ||
               same_vec(*back.bones[i].constant_translation, *edited.bones[i].constant_translation)),
          "a constant translation did not come back bit for bit");
  }
  check(back.root_motion.translations.size() == edited.root_motion.translations.size(), "root translations length");
  for (std::size_t k = 0; k < back.root_motion.translations.size(); ++k)
    check(same_vec(back.root_motion.translations[k], edited.root_motion.translations[k]),
          "a root translation did not come back bit for bit");
  check(back.root_motion.rotations.size() == edited.root_motion.rotations.size(), "root rotations length");
  for (std::size_t k = 0; k < back.root_motion.rotations.size(); ++k) {
    const bool f32 = d.motion.root_rotation_layout == mab::RootRotationLayout::f32x4;
    if (f32 || k != t.index || t.kind != root_rotation)
      check(same_bits(back.root_motion.rotations[k], edited.root_motion.rotations[k]) ||
                (f32 && mab::angular_error_deg(back.root_motion.rotations[k], edited.root_motion.rotations[k]) < 1e-4),
            "a root rotation changed");
    else
      check(mab::angular_error_deg(back.root_motion.rotations[k], edited.root_motion.rotations[k]) <= 0.0087,
            "an edited 6-byte root rotation is further off than its code's bound");
  }
  check(parts != PartsReading::same || back.parts == edited.parts, "part entries did not come back as edited");
  auto same = mab::encode_clip(*d2, back);
  if (!same) fail_with("a decoded encoder output failed to encode", same.error());
  check(*same == *bytes, "re-encoding a decoded encoder output changed its bytes");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  mab::Limits limits;
  limits.max_file_size = 1u << 20;
  const std::span<const std::uint8_t> in(data, size);
  auto c = mab::read_container(in, limits);
  if (!c) return 0;
  const std::uint64_t seed = fuzz::hash_bytes(data, size);
  // Every decodable block (of the first 4) is re-encoded unedited; one of them, chosen by
  // the input, is also edited: editing each would make many-block inputs several times
  // slower than the rest without reaching code the single edit does not.
  const std::size_t blocks = std::min<std::size_t>(c->blocks.size(), 4);
  const std::size_t edit = blocks ? static_cast<std::size_t>(seed % blocks) : 0;
  for (std::size_t k = 0; k < blocks; ++k) {
    auto d = mab::decode_clip(*c, k, limits);
    if (!d) continue;
    auto out = mab::encode_clip(*d, d->clip);
    if (!out) fail_with("unedited clip failed to encode", out.error());
    if (out->size() != size || std::memcmp(out->data(), data, size) != 0)
      fuzz::fail("unedited clip re-encoded to different bytes");
    if (k == edit) {
      edit_and_check(*d, seed, limits);
      edit_motion_and_check(*d, seed, limits);
    }
  }
  return 0;
}
