// The editable clip (ozz-animation's "raw animation" idea): format-agnostic bones,
// key times and float rotations. Decoding fills it; encoding re-quantises what changed.
#pragma once

#include <mab/quat.hpp>
#include <mab/result.hpp>

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace mab {

enum class BoneKind : std::uint8_t { none = 0, constant = 1, animated = 2 };

struct ClipBone {
  std::uint32_t hash = 0;  // CRC-32 of the name (decision 11)
  std::string name;        // empty when unknown
  std::uint8_t flags = 0;  // format 5.3, kept verbatim; kind and bit depth derive from it
  Quat constant{};         // BoneKind::constant: the rotation
  std::vector<Quat> keys;  // BoneKind::animated: one per stored key
  // Animated translation (format 10.1): one per stored key when the block's JointTranslations
  // decoded and this bone is one of the translated bones; empty otherwise. Which bones carry
  // it is the accepted hypothesis's rule (DecodedClip::evidence), not a flag of this bone.
  std::vector<Vec3> translations;
  // Constant translation (format 10.2), when JointConstantTranslations decoded for this bone.
  std::optional<Vec3> constant_translation;
  // The hash this bone has in the original clip, when an explicit rename gave it a new one
  // (edit::rename_bone, a JSON bone's "rename_to"; decision 24): encode_clip pairs the bone with
  // that original bone, so its codes are kept and only the bone table's hash changes.
  std::optional<std::uint32_t> renamed_from;

  // flags & 0x30: 0x30 constant, 0x10 animated, otherwise no rotation (format 5.3).
  BoneKind kind() const noexcept;
  unsigned bit_depth() const noexcept { return (flags & 0x0Fu) + 1u; }
  void set_kind(BoneKind k) noexcept;
  void set_bit_depth(unsigned nbits) noexcept;  // 1..16, clamped
};

// Root motion (format 10.3): DisplacementOrientations and DisplacementTranslations, one value
// per stored key each when decoded; empty when the section is absent or kept opaque.
struct RootMotion {
  std::vector<Quat> rotations;
  std::vector<Vec3> translations;
  bool empty() const noexcept { return rotations.empty() && translations.empty(); }
};

// One part animation entry (format 12): a prop, attachment or anchor animated with the clip.
struct ClipPart {
  float start = 0.0f;                 // seconds
  float end = 0.0f;                   // seconds
  std::uint32_t parent_hash = 0;      // the bone it hangs from (CRC-32, decision 11)
  std::uint32_t attachment_hash = 0;  // the bone / attachment name (CRC-32)
  std::uint8_t type = 0;              // PartEventType: 1 InPossession, 6 IKPath, 7 Anchor, 8 SubPartInPossession
  int nested_block = -1;              // the container block holding its nested CAnimData, -1 none
  friend bool operator==(const ClipPart&, const ClipPart&) = default;
};

struct Clip {
  double key_rate = 30.0;                // key time units per second (decision 7)
  std::vector<std::uint32_t> key_times;  // one per stored key, in key_rate units
  float duration = 0.0f;                 // seconds, as the header stores it
  std::vector<ClipBone> bones;
  RootMotion root_motion;       // format 10.3, when decoded
  std::vector<ClipPart> parts;  // format 12, when decoded

  std::size_t key_count() const noexcept { return key_times.size(); }
  double key_seconds(std::size_t key) const noexcept;

  int find_bone(std::uint32_t hash) const noexcept;  // -1 when absent
  Status set_rotation(std::size_t bone, std::size_t key, const Quat& q);
  // Inserts a key at index `at` with time `time`; animated bones, translations and root
  // motion get a copy of the neighbouring key (the previous one, or the next for at == 0).
  Status insert_key(std::size_t at, std::uint32_t time);
  Status remove_key(std::size_t at);
  std::size_t add_bone(ClipBone bone);  // animated bones are resized to key_count()
  Status remove_bone(std::size_t index);
  // Checks the shape: at least one key if a bone is animated, keys per animated bone ==
  // key_count, translations and root motion empty or one per key, counts in range.
  Status check() const;
};

// Format 9.4: key times increase strictly. The one rule `mab import` (a JSON document's edited
// times), `mab verify` and `mab survey` (a file's), `mab diff` and the timing edits apply: ok, or
// bad_value (field "key_times") whose detail starts "key times do not increase at key K" and names
// both keys' values. first_unordered_key: that K, nullopt when the times increase.
Status check_key_times(std::span<const std::uint32_t> key_times);
std::optional<std::size_t> first_unordered_key(std::span<const std::uint32_t> key_times) noexcept;

// The frame rate at which every one of `key_times` (units at `key_rate` per second, decision 7)
// is a whole frame: key_rate / gcd(key_rate, times) for a whole rate (WD1 ticks every 4 of 120
// per second: 30), else the rate itself. The scene rate `mab export` tells Blender to use, so a
// key's frame in `mab dump` is its frame in Blender.
double whole_frame_rate(std::span<const std::uint32_t> key_times, double key_rate) noexcept;

}  // namespace mab
