// Internal: helpers shared by the clip encoders (encode_clip.cpp, encode_motion.cpp).
#pragma once

#include <mab/clip.hpp>
#include <mab/container.hpp>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <limits>
#include <span>
#include <vector>

namespace mab::encode {

// Replaces the first `old_used` bytes of a section with `fresh`, keeping what
// follows (padding, bytes we do not understand: decision 8). Creates the section if needed. Returns
// whether the section's bytes changed.
inline bool splice_section(Block& b, int slot, std::size_t old_used, std::span<const std::uint8_t> fresh) {
  std::vector<std::uint8_t>* sec = nullptr;
  if (slot < 0) {
    sec = &b.segments[0].bytes;
  } else if (b.slot_segment[static_cast<std::size_t>(slot)] >= 0) {
    sec = b.section_mut(static_cast<std::size_t>(slot));
  } else {
    if (fresh.empty()) return false;
    Segment s;
    s.original_offset = std::numeric_limits<std::uint64_t>::max();  // new: no original place
    b.segments.push_back(std::move(s));
    b.slot_segment[static_cast<std::size_t>(slot)] = static_cast<int>(b.segments.size() - 1);
    sec = &b.segments.back().bytes;
  }
  const std::size_t keep_from = std::min(old_used, sec->size());
  std::vector<std::uint8_t> out(fresh.begin(), fresh.end());
  out.insert(out.end(), sec->begin() + static_cast<std::ptrdiff_t>(keep_from), sec->end());
  if (out == *sec) return false;
  *sec = std::move(out);
  return true;
}

// The original of edited bone i: the bone at the same position when it has the same
// hash (so duplicate hashes, which validate only warns about, still pair up), else the
// first bone with that hash. A renamed bone is its original's under the hash it had there.
inline int original_index(const Clip& orig, std::size_t i, const ClipBone& edited) noexcept {
  const std::uint32_t hash = edited.renamed_from.value_or(edited.hash);
  if (i < orig.bones.size() && orig.bones[i].hash == hash) return static_cast<int>(i);
  return orig.find_bone(hash);
}

// Duration (format 9.4) the encoded header holds: a value the user set wins; otherwise, where
// the input's duration was its last key time (FC4: "duration == last_key / 30"), it follows
// the new last key; otherwise it is kept as read.
inline float encoded_duration(const Clip& orig, const Clip& edited) noexcept {
  const auto bits = [](float f) {
    std::uint32_t u;
    std::memcpy(&u, &f, sizeof u);
    return u;
  };
  if (bits(edited.duration) != bits(orig.duration)) return edited.duration;
  const auto last_seconds = [](const Clip& c) {
    return static_cast<float>(c.key_times.empty() ? 0.0 : c.key_times.back() / c.key_rate);
  };
  if (!orig.key_times.empty() && bits(last_seconds(orig)) == bits(orig.duration)) return last_seconds(edited);
  return orig.duration;
}

}  // namespace mab::encode
