// The editable clip. Depends on nothing but the Quat vocabulary type.
#include <mab/clip.hpp>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>

namespace mab {

BoneKind ClipBone::kind() const noexcept {
  switch (flags & 0x30) {
    case 0x30: return BoneKind::constant;  // format 5.3
    case 0x10: return BoneKind::animated;
    default: return BoneKind::none;
  }
}

void ClipBone::set_kind(BoneKind k) noexcept {
  flags = static_cast<std::uint8_t>(flags & ~0x30);
  if (k == BoneKind::constant) flags = static_cast<std::uint8_t>(flags | 0x30);
  if (k == BoneKind::animated) flags = static_cast<std::uint8_t>(flags | 0x10);
}

void ClipBone::set_bit_depth(unsigned nbits) noexcept {
  nbits = std::clamp(nbits, 1u, 16u);
  flags = static_cast<std::uint8_t>((flags & 0xF0) | (nbits - 1));
}

std::optional<std::size_t> first_unordered_key(std::span<const std::uint32_t> key_times) noexcept {
  for (std::size_t k = 1; k < key_times.size(); ++k)
    if (key_times[k] <= key_times[k - 1]) return k;
  return std::nullopt;
}

Status check_key_times(std::span<const std::uint32_t> key_times) {
  if (const auto at = first_unordered_key(key_times)) {
    const std::size_t k = *at;
    return make_error(ErrorCode::bad_value, no_offset, "key_times",
                      "key times do not increase at key " + std::to_string(k) + ": key_times[" + std::to_string(k) +
                          "] = " + std::to_string(key_times[k]) + " does not come after key_times[" +
                          std::to_string(k - 1) + "] = " + std::to_string(key_times[k - 1]) + " (format 9.4)");
  }
  return {};
}

double whole_frame_rate(std::span<const std::uint32_t> key_times, double key_rate) noexcept {
  if (!(key_rate >= 1 && key_rate <= 65535) || std::floor(key_rate) != key_rate) return key_rate;
  auto g = static_cast<std::uint32_t>(key_rate);
  for (const auto u : key_times) g = std::gcd(g, u);
  return g > 0 ? key_rate / g : key_rate;
}

double Clip::key_seconds(std::size_t key) const noexcept {
  if (key >= key_times.size() || !(key_rate > 0)) return std::nan("");
  return key_times[key] / key_rate;
}

int Clip::find_bone(std::uint32_t hash) const noexcept {
  for (std::size_t i = 0; i < bones.size(); ++i)
    if (bones[i].hash == hash) return static_cast<int>(i);
  return -1;
}

Status Clip::set_rotation(std::size_t bone, std::size_t key, const Quat& q) {
  if (bone >= bones.size())
    return make_error(ErrorCode::not_found, no_offset, "bone", "no bone " + std::to_string(bone));
  if (!std::isfinite(q.x) || !std::isfinite(q.y) || !std::isfinite(q.z) || !std::isfinite(q.w))
    return make_error(ErrorCode::bad_value, no_offset, "rotation", "non-finite quaternion");
  ClipBone& b = bones[bone];
  if (b.kind() == BoneKind::constant) {
    b.constant = q;
    return {};
  }
  if (b.kind() != BoneKind::animated || key >= b.keys.size())
    return make_error(ErrorCode::not_found, no_offset, "key",
                      "bone " + std::to_string(bone) + " has no key " + std::to_string(key));
  b.keys[key] = q;
  return {};
}

Status Clip::insert_key(std::size_t at, std::uint32_t time) {
  if (at > key_times.size()) return make_error(ErrorCode::invalid_argument, no_offset, "key", "index past the end");
  if ((at > 0 && key_times[at - 1] >= time) || (at < key_times.size() && key_times[at] <= time))
    return make_error(ErrorCode::invalid_argument, no_offset, "key_times", "times must stay ascending");
  key_times.insert(key_times.begin() + static_cast<std::ptrdiff_t>(at), time);
  // Per-key tracks get a copy of the neighbouring key; an empty track (no such data) stays empty.
  auto grow = [at](auto& track) {
    if (track.empty()) return;
    const auto copy = track[std::min(at > 0 ? at - 1 : 0, track.size() - 1)];
    track.insert(track.begin() + static_cast<std::ptrdiff_t>(std::min(at, track.size())), copy);
  };
  for (auto& b : bones) {
    grow(b.translations);
    if (b.kind() != BoneKind::animated) continue;
    const Quat copy = b.keys.empty() ? Quat{} : b.keys[at > 0 ? at - 1 : 0];
    b.keys.insert(b.keys.begin() + static_cast<std::ptrdiff_t>(std::min(at, b.keys.size())), copy);
  }
  grow(root_motion.rotations);
  grow(root_motion.translations);
  return {};
}

Status Clip::remove_key(std::size_t at) {
  if (at >= key_times.size()) return make_error(ErrorCode::not_found, no_offset, "key", "no key " + std::to_string(at));
  if (key_times.size() == 1)
    return make_error(ErrorCode::invalid_argument, no_offset, "key", "a clip keeps at least one key");
  key_times.erase(key_times.begin() + static_cast<std::ptrdiff_t>(at));
  auto shrink = [at](auto& track) {
    if (at < track.size()) track.erase(track.begin() + static_cast<std::ptrdiff_t>(at));
  };
  for (auto& b : bones) {
    if (b.kind() == BoneKind::animated) shrink(b.keys);
    shrink(b.translations);
  }
  shrink(root_motion.rotations);
  shrink(root_motion.translations);
  return {};
}

std::size_t Clip::add_bone(ClipBone bone) {
  if (bone.kind() == BoneKind::animated) bone.keys.resize(key_count(), bone.keys.empty() ? Quat{} : bone.keys.back());
  bones.push_back(std::move(bone));
  return bones.size() - 1;
}

Status Clip::remove_bone(std::size_t index) {
  if (index >= bones.size())
    return make_error(ErrorCode::not_found, no_offset, "bone", "no bone " + std::to_string(index));
  bones.erase(bones.begin() + static_cast<std::ptrdiff_t>(index));
  return {};
}

Status Clip::check() const {
  // FC4 and FC5 take the key count from the KeyTimes bytes (format 8.2, 4.4), which a file
  // may lack; such a clip is valid as long as nothing is animated, so it writes back as read.
  if (key_times.empty())
    for (std::size_t i = 0; i < bones.size(); ++i)
      if (bones[i].kind() == BoneKind::animated)
        return make_error(ErrorCode::invalid_argument, no_offset, "key_times",
                          "bones[" + std::to_string(i) + "] is animated but the clip has no keys");
  if (key_times.size() > 65536)
    return make_error(ErrorCode::limit_exceeded, no_offset, "key_times", "more than 65536 keys");
  // Key times are not required to ascend: files may hold any order (format 9.4 says only
  // "usually linear"), and an unedited clip must write back as read. insert_key keeps
  // edits ordered.
  for (std::size_t i = 0; i < bones.size(); ++i)
    if (bones[i].kind() == BoneKind::animated && bones[i].keys.size() != key_times.size())
      return make_error(ErrorCode::count_mismatch, no_offset, "bones[" + std::to_string(i) + "].keys",
                        std::to_string(bones[i].keys.size()) + " keys, clip has " + std::to_string(key_times.size()));
  // Translations and root motion are per stored key (format 10.1, 10.3), or absent.
  auto per_key = [&](std::size_t n, std::string field) -> Status {
    if (n == 0 || n == key_times.size()) return {};
    return make_error(ErrorCode::count_mismatch, no_offset, std::move(field),
                      std::to_string(n) + " values, clip has " + std::to_string(key_times.size()) + " keys");
  };
  for (std::size_t i = 0; i < bones.size(); ++i)
    MAB_TRY(per_key(bones[i].translations.size(), "bones[" + std::to_string(i) + "].translations"));
  MAB_TRY(per_key(root_motion.rotations.size(), "root_motion.rotations"));
  MAB_TRY(per_key(root_motion.translations.size(), "root_motion.translations"));
  return {};
}

}  // namespace mab
