// Clip edits (edit.hpp). Pure functions of the editable clip: no codec, no container.
#include <mab/edit.hpp>

#include "model/sampling.hpp"

#include <mab/bone_hash.hpp>
#include <mab/quat.hpp>
#include <mab/text.hpp>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <functional>
#include <iterator>
#include <map>
#include <unordered_map>

namespace mab {

namespace model {

Status check_increasing(const Clip& c, const char* what) {
  auto s = check_key_times(c.key_times);
  if (s) return s;
  Error e = std::move(s).error();
  e.detail = std::string(what) + " needs increasing key times; " + e.detail;
  return e;
}

Status check_rate(const Clip& c) {
  if (!(c.key_rate > 0) || !std::isfinite(c.key_rate))
    return make_error(ErrorCode::bad_value, no_offset, "key_rate", "the clip has no usable key rate");
  return {};
}

}  // namespace model

using model::check_increasing;
using model::check_rate;
using model::lerp;
using model::sample_track;

namespace {

constexpr std::uint32_t max_time = 0xFFFF;  // u16 key times (format 9.4)

Error bad(std::string field, std::string detail) {
  return make_error(ErrorCode::invalid_argument, no_offset, std::move(field), std::move(detail));
}

Status check_bone(const Clip& c, std::size_t bone) {
  if (bone >= c.bones.size())
    return make_error(ErrorCode::not_found, no_offset, "bone", "no bone " + std::to_string(bone));
  return {};
}

// Per-key tracks besides rotations (docs/motion.md): a bone's translations and the root motion.
// Each helper applies one operation to every such track that is not empty.
template <class F>
void for_each_motion_track(Clip& c, F&& f) {
  for (auto& b : c.bones)
    if (!b.translations.empty()) f(b.translations);
  if (!c.root_motion.rotations.empty()) f(c.root_motion.rotations);
  if (!c.root_motion.translations.empty()) f(c.root_motion.translations);
}

// Keys `kept` (ascending indices) of every per-key track.
void keep_keys(Clip& c, const std::vector<std::size_t>& kept) {
  auto pick = [&](auto& track) {
    std::remove_reference_t<decltype(track)> out;
    for (const std::size_t k : kept) out.push_back(track[k]);
    track = std::move(out);
  };
  for (auto& b : c.bones)
    if (b.kind() == BoneKind::animated) pick(b.keys);
  for_each_motion_track(c, pick);
}

// A new timeline: every animated bone, translation and root-motion track sampled at `times`
// (key units; translations linearly, rotations by slerp).
void retime(Clip& c, const std::vector<std::uint32_t>& times) {
  for (auto& b : c.bones) {
    if (b.kind() != BoneKind::animated) continue;
    std::vector<Quat> keys(times.size());
    for (std::size_t k = 0; k < times.size(); ++k) keys[k] = sample_bone(c, b, times[k]);
    b.keys = std::move(keys);
  }
  const std::vector<std::uint32_t> old = c.key_times;
  auto sample = [&](auto& track) {
    std::remove_reference_t<decltype(track)> out(times.size());
    for (std::size_t k = 0; k < times.size(); ++k) out[k] = sample_track(old, track, times[k]);
    track = std::move(out);
  };
  for_each_motion_track(c, sample);
  c.key_times = times;
}

double angle_deg(const Quat& a, const Quat& b) noexcept { return angular_error_deg(a, b); }

}  // namespace

Result<std::size_t> find_bone(const Clip& clip, std::string_view arg) {
  for (std::size_t i = 0; i < clip.bones.size(); ++i)
    if (!clip.bones[i].name.empty() && clip.bones[i].name == arg) return i;
  const std::uint32_t by_name = bone_hash(arg);
  std::optional<std::uint32_t> by_number;
  {
    std::string_view s = arg;
    int base = 10;
    if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) s.remove_prefix(2), base = 16;
    std::uint32_t v = 0;
    const auto r = std::from_chars(s.data(), s.data() + s.size(), v, base);
    if (!s.empty() && r.ec == std::errc() && r.ptr == s.data() + s.size()) by_number = v;
  }
  for (std::size_t i = 0; i < clip.bones.size(); ++i)
    if (clip.bones[i].hash == by_name) return i;
  if (by_number)
    for (std::size_t i = 0; i < clip.bones.size(); ++i)
      if (clip.bones[i].hash == *by_number) return i;
  // A number that names no bone is reported as the hash it is, not only as a name's CRC-32.
  if (by_number)
    return make_error(ErrorCode::not_found, no_offset, "bone",
                      "no bone with hash " + hex(*by_number, 8) + " (nor one named \"" + std::string(arg) +
                          "\", hash " + hex(by_name, 8) + ") in the clip");
  return make_error(ErrorCode::not_found, no_offset, "bone",
                    "no bone \"" + std::string(arg) + "\" (hash " + hex(by_name, 8) + ") in the clip");
}

Result<BoneId> parse_bone_id(std::string_view arg) {
  if (arg.empty()) return bad("bone", "a bone needs a name or a hash");
  if (arg.size() > 2 && arg[0] == '0' && (arg[1] == 'x' || arg[1] == 'X')) {
    const std::string_view digits = arg.substr(2);
    std::uint32_t v = 0;
    const auto r = std::from_chars(digits.data(), digits.data() + digits.size(), v, 16);
    if (digits.size() > 8 || r.ec != std::errc() || r.ptr != digits.data() + digits.size())
      return bad("bone", "\"" + std::string(arg) + "\" is not a hash (\"0x\" and at most 8 hex digits)");
    return BoneId{v, {}};
  }
  return BoneId{bone_hash(arg), std::string(arg)};
}

Quat sample_bone(const Clip& c, const ClipBone& b, double t) noexcept {
  if (b.kind() == BoneKind::constant) return b.constant;
  if (b.kind() != BoneKind::animated || b.keys.empty() || c.key_times.size() != b.keys.size()) return Quat{};
  const auto& ts = c.key_times;
  if (t <= ts.front()) return b.keys.front();
  if (t >= ts.back()) return b.keys.back();
  const auto it = std::upper_bound(ts.begin(), ts.end(), t, [](double v, std::uint32_t k) { return v < k; });
  const std::size_t k = static_cast<std::size_t>(it - ts.begin());  // ts[k-1] <= t < ts[k]
  const double t0 = ts[k - 1], t1 = ts[k];
  if (t == t0) return b.keys[k - 1];
  return quat_slerp(b.keys[k - 1], b.keys[k], (t - t0) / (t1 - t0));
}

void resample_motion(Clip& clip, const Clip& from) {
  auto at = [&](std::size_t k) { return clip.key_times[k] / clip.key_rate * from.key_rate; };
  auto resampled = [&](const auto& track) {
    std::remove_cvref_t<decltype(track)> out(clip.key_count());
    for (std::size_t k = 0; k < out.size(); ++k) out[k] = sample_track(from.key_times, track, at(k));
    return out;
  };
  std::unordered_map<std::uint32_t, unsigned> seen;
  for (auto& b : clip.bones) {
    const unsigned occ = seen[b.hash]++;
    unsigned n = 0;
    for (const auto& fb : from.bones) {
      if (fb.hash != b.hash || n++ != occ) continue;
      b.translations = fb.translations.empty() ? std::vector<Vec3>{} : resampled(fb.translations);
      b.constant_translation = fb.constant_translation;
      break;
    }
  }
  clip.root_motion.rotations =
      from.root_motion.rotations.empty() ? std::vector<Quat>{} : resampled(from.root_motion.rotations);
  clip.root_motion.translations =
      from.root_motion.translations.empty() ? std::vector<Vec3>{} : resampled(from.root_motion.translations);
}

namespace edit {

Status speed(Clip& c, double factor, Notes* notes) {
  if (!(factor > 0) || !std::isfinite(factor)) return bad("speed", "the factor must be a positive number");
  MAB_TRY(check_increasing(c, "{opt:speed}"));
  std::vector<std::uint32_t> times;
  std::vector<std::size_t> kept;
  std::size_t dropped = 0;
  for (std::size_t k = 0; k < c.key_times.size(); ++k) {
    const double t = std::round(c.key_times[k] / factor);
    if (t > max_time)
      return bad("speed", "key " + std::to_string(k) + " would be at " + std::to_string(t) +
                              " key-time units; the format stores at most 65535 (format 9.4)");
    const auto ut = static_cast<std::uint32_t>(t);
    if (!times.empty() && ut <= times.back()) {
      ++dropped;
      continue;
    }
    times.push_back(ut);
    kept.push_back(k);
  }
  keep_keys(c, kept);
  c.key_times = std::move(times);
  c.duration = static_cast<float>(c.duration / factor);
  if (notes && dropped)
    notes->push_back("{opt:speed}: " + std::to_string(dropped) +
                     " key(s) fell on the time of the key before and were dropped");
  return {};
}

Status trim(Clip& c, double start_s, double end_s, Notes* notes) {
  MAB_TRY(check_rate(c));
  MAB_TRY(check_increasing(c, "{opt:trim}"));
  if (!(start_s >= 0) || !(end_s > start_s)) return bad("trim", "needs 0 <= START < END (seconds)");
  if (c.key_times.empty()) return bad("trim", "the clip has no keys");
  const double first = c.key_times.front(), last = c.key_times.back();
  const double a = std::clamp(std::round(start_s * c.key_rate), first, last);
  const double z = std::clamp(std::round(end_s * c.key_rate), first, last);
  if (!(z > a))
    return bad("trim", "the range holds no time of the clip (keys span " + std::to_string(first / c.key_rate) + " to " +
                           std::to_string(last / c.key_rate) + " s)");
  std::vector<std::uint32_t> times{static_cast<std::uint32_t>(a)};
  for (const auto t : c.key_times)
    if (t > a && t < z) times.push_back(t);
  times.push_back(static_cast<std::uint32_t>(z));
  const std::size_t before = c.key_times.size();
  retime(c, times);
  for (auto& t : c.key_times) t -= static_cast<std::uint32_t>(a);
  c.duration = static_cast<float>((z - a) / c.key_rate);
  if (notes)
    notes->push_back("{opt:trim}: " + std::to_string(before) + " keys -> " + std::to_string(c.key_times.size()) +
                     ", starting at time 0");
  return {};
}

Status reverse(Clip& c) {
  MAB_TRY(check_increasing(c, "{opt:reverse}"));
  if (c.key_times.empty()) return {};
  const std::uint32_t sum = c.key_times.front() + c.key_times.back();
  std::reverse(c.key_times.begin(), c.key_times.end());
  for (auto& t : c.key_times) t = sum - t;
  for (auto& b : c.bones)
    if (b.kind() == BoneKind::animated) std::reverse(b.keys.begin(), b.keys.end());
  for_each_motion_track(c, [](auto& track) { std::reverse(track.begin(), track.end()); });
  return {};
}

Status loop_fix(Clip& c) {
  // Bone translations loop with the rotations; root motion is a displacement that goes on from
  // loop to loop, so it is left as it is.
  for (auto& b : c.bones) {
    if (b.kind() == BoneKind::animated && !b.keys.empty()) b.keys.back() = b.keys.front();
    if (!b.translations.empty()) b.translations.back() = b.translations.front();
  }
  return {};
}

Status resample(Clip& c, double fps, Notes* notes) {
  MAB_TRY(check_rate(c));
  if (!(fps > 0) || !std::isfinite(fps)) return bad("resample", "the frame rate must be a positive number");
  MAB_TRY(check_increasing(c, "{opt:resample}"));
  if (c.key_times.empty()) return {};
  const double step = c.key_rate / fps, first = c.key_times.front(), last = c.key_times.back();
  if ((last - first) / step + 2 > 65536) return bad("resample", "more than 65536 keys");
  // Key times are whole units of the key rate (decision 7): finer keys would be rounded onto
  // one another and the clip would keep its old spacing while the report said FPS.
  if (fps > c.key_rate) {
    char buf[160];
    std::snprintf(buf, sizeof buf,
                  "%g keys per second is finer than the clip's key times, whole units at %g per second "
                  "(decision 7): at most %g",
                  fps, c.key_rate, c.key_rate);
    return bad("resample", buf);
  }
  std::vector<std::uint32_t> times;
  for (std::size_t k = 0;; ++k) {
    const double t = std::round(first + static_cast<double>(k) * step);
    if (t >= last) break;
    if (times.empty() || t > times.back()) times.push_back(static_cast<std::uint32_t>(t));
  }
  if (times.empty() || times.back() < last) times.push_back(static_cast<std::uint32_t>(last));
  const std::size_t before = c.key_times.size();
  retime(c, times);
  if (notes) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%g", fps);
    notes->push_back("{opt:resample} " + std::string(buf) + ": " + std::to_string(before) + " keys -> " +
                     std::to_string(times.size()) +
                     (std::fmod(c.key_rate, fps) != 0 ? " (times rounded to key units)" : ""));
  }
  return {};
}

Status rotate_bone(Clip& c, std::size_t bone, const Quat& q) {
  MAB_TRY(check_bone(c, bone));
  ClipBone& b = c.bones[bone];
  const Quat r = quat_normalised(q);
  switch (b.kind()) {
    case BoneKind::constant: b.constant = quat_mul(r, b.constant); break;
    case BoneKind::animated:
      for (auto& k : b.keys) k = quat_mul(r, k);
      break;
    case BoneKind::none:
      return bad("rotate-bone", bone_label(b.hash) + " has no rotation to turn (use {opt:set_constant})");
  }
  return {};
}

Status set_constant(Clip& c, std::size_t bone, const Quat& q) {
  MAB_TRY(check_bone(c, bone));
  ClipBone& b = c.bones[bone];
  b.set_kind(BoneKind::constant);
  b.constant = quat_normalised(q);
  b.keys.clear();
  return {};
}

Status copy_track(Clip& c, const Clip& from, std::uint32_t hash, Notes* notes) {
  const int src = from.find_bone(hash);
  if (src < 0)
    return make_error(ErrorCode::not_found, no_offset, "copy-track", "the source clip has no " + bone_label(hash));
  const ClipBone& sb = from.bones[static_cast<std::size_t>(src)];
  if (sb.kind() == BoneKind::none) return bad("copy-track", bone_label(hash) + " has no rotation in the source clip");
  ClipBone nb;
  nb.hash = sb.hash;
  nb.name = sb.name;
  nb.flags = sb.flags;
  if (sb.kind() == BoneKind::constant) {
    nb.constant = sb.constant;
  } else {
    MAB_TRY(check_rate(c));
    MAB_TRY(check_rate(from));
    MAB_TRY(check_increasing(from, "{opt:copy_track} (source)"));
    nb.keys.resize(c.key_count());
    for (std::size_t k = 0; k < c.key_count(); ++k)
      nb.keys[k] = sample_bone(from, sb, c.key_times[k] / c.key_rate * from.key_rate);
  }
  const int dst = c.find_bone(hash);
  if (dst >= 0) {
    ClipBone& old = c.bones[static_cast<std::size_t>(dst)];
    const std::uint8_t keep_high = old.flags & 0xC0;
    nb.flags = static_cast<std::uint8_t>((nb.flags & 0x3F) | keep_high);  // bits 0x40/0x80: not ours (format 5.3)
    // The bone keeps its own depth, which the error policy raises if the copied track needs
    // it (a changed depth would read as the user's request, decision 21).
    if (old.kind() == BoneKind::animated && nb.kind() == BoneKind::animated)
      nb.flags = static_cast<std::uint8_t>((nb.flags & 0xF0) | (old.flags & 0x0F));
    // The rotation track is copied; the bone's own translations stay (docs/motion.md), which
    // the report says when the source's differ, so a user expecting them is not left guessing.
    const bool differ = sb.translations != old.translations || sb.constant_translation != old.constant_translation;
    if (notes && differ && (!sb.translations.empty() || sb.constant_translation))
      notes->push_back("{opt:copy_track}: " + bone_label(hash) +
                       ": its rotation track copied; its translations are this clip's own, not the source's "
                       "(docs/motion.md)");
    nb.translations = std::move(old.translations);
    nb.constant_translation = old.constant_translation;
    nb.renamed_from = old.renamed_from;
    old = std::move(nb);
  } else {
    c.bones.push_back(std::move(nb));
    if (notes) notes->push_back("{opt:copy_track}: " + bone_label(hash) + " was not in the clip; added");
  }
  return {};
}

Status remove_bone(Clip& c, std::size_t bone) {
  MAB_TRY(check_bone(c, bone));
  return c.remove_bone(bone);
}

Status add_bone(Clip& c, std::string name, const Quat& q) {
  if (name.empty()) return bad("add-bone", "a bone needs a name");
  const std::uint32_t h = bone_hash(name);
  if (c.find_bone(h) >= 0)
    return bad("add-bone", "the clip already has a bone with hash " + hex(h, 8) + " (\"" + name + "\")");
  ClipBone b;
  b.hash = h;
  b.name = std::move(name);
  b.set_kind(BoneKind::constant);
  b.constant = quat_normalised(q);
  c.bones.push_back(std::move(b));
  return {};
}

Status rename_bone(Clip& c, std::size_t bone, std::string_view to) {
  MAB_TRY(check_bone(c, bone));
  MAB_ASSIGN(BoneId id, parse_bone_id(to));
  ClipBone& b = c.bones[bone];
  if (id.hash == b.hash) return bad("rename-bone", "the bone already has hash " + hex(id.hash, 8));
  if (const int other = c.find_bone(id.hash); other >= 0)
    return bad("rename-bone",
               "the clip already has a bone with hash " + hex(id.hash, 8) + " (bone " + std::to_string(other) + ")");
  if (!b.renamed_from) b.renamed_from = b.hash;
  if (*b.renamed_from == id.hash) b.renamed_from.reset();  // renamed back
  b.hash = id.hash;
  b.name = std::move(id.name);
  return {};
}

Status set_bits(Clip& c, std::size_t bone, unsigned nbits) {
  MAB_TRY(check_bone(c, bone));
  if (nbits < 1 || nbits > 16) return bad("bits", "a bit depth is 1..16 (format 5.3)");
  ClipBone& b = c.bones[bone];
  if (b.kind() != BoneKind::animated) return bad("bits", bone_label(b.hash) + " is not animated: it has no bit depth");
  b.set_bit_depth(nbits);
  return {};
}

Result<ReduceReport> reduce(Clip& c, double max_deg) {
  if (!(max_deg >= 0) || !std::isfinite(max_deg))
    return bad("reduce", "the tolerance must be a number of degrees >= 0");
  MAB_TRY(check_increasing(c, "{opt:reduce}"));
  ReduceReport rep;
  const std::size_t n = c.key_count();
  rep.keys_before = rep.keys_after = n;
  std::vector<const ClipBone*> animated;
  for (const auto& b : c.bones)
    if (b.kind() == BoneKind::animated) animated.push_back(&b);
  if (n <= 2 || animated.empty()) return rep;
  // Worst deviation of the keys strictly between i and j from the slerp of keys i and j.
  auto span_error = [&](std::size_t i, std::size_t j, double limit) {
    double worst = 0;
    const double ti = c.key_times[i], tj = c.key_times[j];
    for (std::size_t k = i + 1; k < j; ++k) {
      const double u = (c.key_times[k] - ti) / (tj - ti);
      for (const ClipBone* b : animated) {
        const double e = angle_deg(b->keys[k], quat_slerp(b->keys[i], b->keys[j], u));
        worst = std::max(worst, e);
        if (worst > limit) return worst;
      }
    }
    return worst;
  };
  // Shortest path over spans: from each kept key, every later key reachable by spans that
  // stay within the tolerance as they grow key by key.
  std::vector<std::size_t> count(n, ~std::size_t{0}), prev(n, 0);
  std::vector<double> err(n, 0);
  count[0] = 1;
  for (std::size_t i = 0; i + 1 < n; ++i) {
    if (count[i] == ~std::size_t{0}) continue;
    for (std::size_t j = i + 1; j < n; ++j) {
      const double e = j == i + 1 ? 0.0 : span_error(i, j, max_deg);
      if (e > max_deg) break;
      if (count[i] + 1 < count[j]) {
        count[j] = count[i] + 1;
        prev[j] = i;
        err[j] = std::max(err[i], e);
      }
    }
  }
  std::vector<std::size_t> keep;
  for (std::size_t k = n - 1;; k = prev[k]) {
    keep.push_back(k);
    if (k == 0) break;
  }
  std::reverse(keep.begin(), keep.end());
  rep.max_error_deg = err[n - 1];
  // Translations and root motion follow the kept keys; how far a dropped one is from the
  // interpolation is reported, not bounded (the tolerance is in degrees).
  for (std::size_t s = 0; s + 1 < keep.size(); ++s) {
    const std::size_t i = keep[s], j = keep[s + 1];
    const double ti = c.key_times[i], tj = c.key_times[j];
    for (std::size_t k = i + 1; k < j; ++k) {
      const double u = (c.key_times[k] - ti) / (tj - ti);
      auto deviation = [&](const std::vector<Vec3>& t) {
        const Vec3 m = lerp(t[i], t[j], u);
        for (unsigned a = 0; a < 3; ++a)
          rep.max_translation_error = std::max(rep.max_translation_error, std::fabs(double{t[k][a]} - double{m[a]}));
      };
      for (const auto& b : c.bones)
        if (!b.translations.empty()) deviation(b.translations);
      if (!c.root_motion.translations.empty()) deviation(c.root_motion.translations);
      if (!c.root_motion.rotations.empty())
        rep.max_root_rotation_error_deg =
            std::max(rep.max_root_rotation_error_deg,
                     angle_deg(c.root_motion.rotations[k],
                               quat_slerp(c.root_motion.rotations[i], c.root_motion.rotations[j], u)));
    }
  }
  std::vector<std::uint32_t> times;
  for (const auto k : keep) times.push_back(c.key_times[k]);
  keep_keys(c, keep);
  c.key_times = std::move(times);
  rep.keys_after = c.key_count();
  return rep;
}

}  // namespace edit

}  // namespace mab
