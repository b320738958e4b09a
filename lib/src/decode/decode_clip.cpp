// Container + codecs -> editable clip (format 9.1, 9.2, 9.4; decisions 1-3, 6, 7).
#include <mab/decode_clip.hpp>

#include "container/clip_layout.hpp"
#include "decode/clip_parts.hpp"
#include "decode/decode_motion.hpp"
#include "io/bytes.hpp"

#include <algorithm>
#include <cmath>

namespace mab {

double key_rate(const Container& c, std::size_t block) noexcept {
  if (block >= c.blocks.size()) return 30.0;
  const Block& b = c.blocks[block];
  if (const auto* a = b.ani()) {
    if (a->shape == AniShape::wd1) return 120.0;  // decision 7
    const float fr = a->frame_rate();
    return std::isfinite(fr) && fr > 0 ? fr : 30.0;
  }
  return 30.0;
}

namespace decode {

Result<ClipParts> decode_parts(const Container& container, std::size_t block, const Limits& limits, bool keys_wanted,
                               const DecodeOptions* motion) {
  if (block >= container.blocks.size())
    return make_error(
        ErrorCode::not_decodable, 0x10, "body",
        container.is_opaque() ? "kept opaque: " + container.opaque_reason : "no block " + std::to_string(block));
  const Block& b = container.blocks[block];
  const auto layout = container::clip_layout(b);
  if (!layout)
    return make_error(ErrorCode::not_decodable, b.original_base, "layout",
                      "rotations of this layout are not specified (legacy 'AnD' clips: format 13)");
  MAB_ASSIGN(const Placement pl, place(container));
  const PlacedBlock& pb = pl.blocks[block];
  auto section_at = [&](int slot) -> std::uint64_t {
    if (slot < 0) return pb.base + pb.segments[0].offset;
    const int s = b.slot_segment[static_cast<std::size_t>(slot)];
    return s < 0 ? no_offset : pb.base + pb.segments[static_cast<std::size_t>(s)].offset;
  };

  ClipParts d;
  Clip& clip = d.clip;
  clip.key_rate = key_rate(container, block);
  if (const auto* a = b.ani()) clip.duration = a->duration();
  if (const auto* f = b.fc4()) clip.duration = f->duration();

  // Key times (format 9.4): the count comes from m_lastFrame where there is one,
  // otherwise from the size of the KeyTimes region.
  const auto kt = container::key_time_bytes(b, *layout);
  std::size_t keys = kt.size() / 2;
  if (layout->has_last_frame) keys = std::size_t{b.ani()->last_frame} + 1;
  if (keys > limits.max_keys)
    return make_error(ErrorCode::limit_exceeded, section_at(layout->key_times_slot), "KeyTimes",
                      std::to_string(keys) + " keys exceeds the limit");
  if (!kt.empty() || layout->key_times_slot < 0) {
    if (2 * keys > kt.size())
      return make_error(ErrorCode::overlap, section_at(layout->key_times_slot), "KeyTimes",
                        std::to_string(keys) + " keys need " + std::to_string(2 * keys) + " bytes, the section has " +
                            std::to_string(kt.size()));
    io::ByteReader r(kt, section_at(layout->key_times_slot));
    clip.key_times.resize(keys);
    for (auto& t : clip.key_times) t = r.u16("KeyTimes").value();
  } else {
    // No KeyTimes section: one key per frame (what OSM-WDL synthesises, format 16 (C2)).
    clip.key_times.resize(keys);
    for (std::size_t i = 0; i < keys; ++i) clip.key_times[i] = static_cast<std::uint32_t>(i);
  }

  // Bones, constant rotations (format 9.1) and the animated stream (format 9.2).
  const auto consts = layout->constant_slot >= 0 ? b.section(static_cast<std::size_t>(layout->constant_slot))
                                                 : std::span<const std::uint8_t>{};
  std::vector<std::uint8_t>& depths = d.bit_depths;
  std::size_t next_const = 0;
  clip.bones.resize(b.bones.size());
  for (std::size_t i = 0; i < b.bones.size(); ++i) {
    ClipBone& cb = clip.bones[i];
    cb.hash = b.bones[i].hash;
    cb.flags = b.bones[i].flags;
    if (cb.kind() == BoneKind::constant) {
      if (6 * (next_const + 1) > consts.size())
        return make_error(ErrorCode::overlap, section_at(layout->constant_slot),
                          b.slot_field_name(static_cast<std::size_t>(layout->constant_slot)),
                          "JointConstantRotations holds " + std::to_string(consts.size() / 6) + " quaternions, bone " +
                              std::to_string(i) + " needs more");
      std::array<std::uint8_t, 6> code;
      std::copy_n(consts.begin() + static_cast<std::ptrdiff_t>(6 * next_const), 6, code.begin());
      cb.constant = decode_quat48(std::span<const std::uint8_t, 6>(code));
      d.constant_codes.push_back(code);
      ++next_const;
    } else if (cb.kind() == BoneKind::animated) {
      depths.push_back(static_cast<std::uint8_t>(cb.bit_depth()));
    }
  }
  if (!depths.empty()) {
    const int slot = layout->rotations_slot;
    if (b.slot_segment[static_cast<std::size_t>(slot)] < 0)
      return make_error(ErrorCode::count_mismatch, pb.base, b.slot_field_name(static_cast<std::size_t>(slot)),
                        std::to_string(depths.size()) + " animated bones but no JointRotations section");
    MAB_ASSIGN(d.rotations, decode_rotation_stream(b.section(static_cast<std::size_t>(slot)),
                                                   static_cast<std::uint32_t>(keys), depths, section_at(slot), limits));
    if (keys_wanted) {
      // Straight into each bone's keys: no bone-major copy of the whole clip on the way.
      std::vector<std::span<Quat>> tracks;
      tracks.reserve(depths.size());
      for (auto& cb : clip.bones) {
        if (cb.kind() != BoneKind::animated) continue;
        cb.keys.resize(keys);
        tracks.emplace_back(cb.keys);
      }
      MAB_TRY(decode_rotations_into(d.rotations, static_cast<std::uint32_t>(keys), depths, tracks));
    }
  }
  if (motion != nullptr) {
    // docs/motion.md: translations, root motion and part entries, each decoded only where the bytes
    // prove a reading (format 10, 12); never a reason to fail the rotations' decode.
    decode_motion(container, block, pl, MotionOut{clip, d.evidence, d.motion}, *motion, limits);
  }
  return d;
}

}  // namespace decode

Result<DecodedClip> decode_clip(Container container, std::size_t block, const Limits& limits) {
  return decode_clip(std::move(container), block, DecodeOptions{}, limits);
}

Result<DecodedClip> decode_clip(Container container, std::size_t block, const DecodeOptions& options,
                                const Limits& limits) {
  MAB_ASSIGN(decode::ClipParts parts, decode::decode_parts(container, block, limits, options.keys, &options));
  DecodedClip d;
  d.block = block;
  d.clip = std::move(parts.clip);
  d.constant_codes = std::move(parts.constant_codes);
  d.rotations = std::move(parts.rotations);
  d.evidence = std::move(parts.evidence);
  d.motion = std::move(parts.motion);
  d.options = options;
  d.container = std::move(container);
  return d;
}

}  // namespace mab
