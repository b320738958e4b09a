// Legacy 'AnD' clips (spec 13): every block of a file that parses is handed to
// decode_legacy_clip, which must return an error or a clip whose tracks agree with the masks
// and the frame range. Aborts on any disagreement (sanitizers catch the rest).
#include "harness_util.hpp"

#include <mab/legacy.hpp>

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <span>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  mab::Limits limits;
  limits.max_file_size = 1u << 20;
  auto c = mab::read_container(std::span<const std::uint8_t>(data, size), limits);
  if (!c) return 0;
  for (std::size_t b = 0; b < c->blocks.size() && b < 16; ++b) {
    const auto* h = c->blocks[b].legacy();
    auto d = mab::decode_legacy_clip(*c, b, limits);
    if (h == nullptr) {
      fuzz::check(!d.ok(), "an 'aNi' block decoded as legacy");
      continue;
    }
    if (!d) continue;
    std::size_t bits[4] = {};
    for (std::size_t m = 0; m < 4; ++m)
      for (std::uint32_t w = 0; w < h->mask_words; ++w)
        bits[m] += static_cast<std::size_t>(std::popcount(h->masks[m * h->mask_words + w]));
    fuzz::check(d->constant_rotations.size() == bits[0], "constant rotations != mask bits");
    fuzz::check(d->rotations.size() == bits[1], "rotation tracks != mask bits");
    fuzz::check(d->constant_translations.size() == bits[2], "constant translations != mask bits");
    fuzz::check(d->translations.size() == bits[3], "translation tracks != mask bits");
    for (const auto& t : d->rotations) {
      fuzz::check(!t.frames.empty() && t.frames.front() == 0, "a rotation track without a key at frame 0");
      fuzz::check(std::is_sorted(t.frames.begin(), t.frames.end()), "rotation frames out of order");
      fuzz::check(t.frames.back() <= d->last_frame, "a rotation key past lastFrame");
      fuzz::check(t.codes.size() == t.frames.size() && t.keys.size() == t.frames.size(), "track arrays disagree");
      (void)mab::legacy_rotation_at(t, d->last_frame / 2u + 1u);
    }
    for (const auto& t : d->translations)
      fuzz::check(t.frames.size() == std::size_t{d->last_frame} + 1, "translation track not dense");
  }
  return 0;
}
