// Where a decodable block keeps its key times and rotations (format 4.4, 8.1, 8.2).
#include "container/clip_layout.hpp"

namespace mab::container {

std::optional<ClipLayout> clip_layout(const Block& b) noexcept {
  if (const auto* a = b.ani()) {
    if (a->shape == AniShape::fc5) return ClipLayout{-1, 3, 5, false};  // format 8.2
    return ClipLayout{0, 4, 6, true};                                   // format 8.1
  }
  if (b.fc4()) return ClipLayout{2, 0, 4, false};  // format 4.4
  return std::nullopt;
}

std::span<const std::uint8_t> key_time_bytes(const Block& b, const ClipLayout& l) noexcept {
  if (l.key_times_slot < 0) return b.segments.empty() ? std::span<const std::uint8_t>{} : b.segments[0].bytes;
  return b.section(static_cast<std::size_t>(l.key_times_slot));
}

}  // namespace mab::container
