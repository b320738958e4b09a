// Legacy 'AnD' clips (spec 13): every block of a file that parses is handed to
// decode_legacy_clip, which must return an error or a clip whose tracks agree with the masks
// and the frame range. A clip that decodes must encode back to the same bytes unedited, and,
// with one keyed track turned, to a file that parses, decodes, and reads back within the
// reported error. Aborts on any disagreement (sanitizers catch the rest).
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

    const auto original = mab::write_container(*c);
    if (!original) continue;
    auto same = mab::encode_legacy_clip(*c, b, *d);
    fuzz::check(same.ok(), "an unedited clip does not encode");
    const auto same_bytes = mab::write_container(*same);
    fuzz::check(same_bytes.ok() && *same_bytes == *original, "an unedited clip changed bytes");
    if (d->rotations.empty()) continue;

    auto edited = *d;
    auto& track = edited.rotations[b % edited.rotations.size()];
    const mab::Quat tilt = mab::quat_normalised({0.03f, 0.01f, -0.04f, 1.0f});
    for (auto& q : track.keys) q = mab::quat_mul(tilt, q);
    mab::LegacyEncodeReport rep;
    auto e = mab::encode_legacy_clip(*c, b, edited, {}, &rep);
    fuzz::check(e.ok(), "an edited clip does not encode");
    const auto bytes = mab::write_container(*e);
    if (!bytes) continue;  // e.g. a grown bank past a limit of the container writer
    auto back = mab::read_container(*bytes, limits);
    fuzz::check(back.ok() && back->blocks.size() == c->blocks.size(), "an edited bank does not read back");
    auto r = mab::decode_legacy_clip(*back, b, limits);
    fuzz::check(r.ok(), "an edited clip does not decode");
    const auto& got = r->rotations[b % edited.rotations.size()];
    for (std::uint32_t f = 0; f <= d->last_frame; ++f)
      fuzz::check(mab::angular_error_deg(mab::legacy_rotation_at(got, f), mab::legacy_rotation_at(track, f)) <=
                      rep.max_error_deg + 1e-5,
                  "an edited track reads back beyond the reported error");
  }
  return 0;
}
