// Legacy 'AnD' clips (format 13): every block of a file that parses is handed to
// decode_legacy_clip, which must return an error or a clip whose tracks agree with the masks
// and the frame range. A clip that decodes must encode back to the same bytes unedited, and,
// with one keyed track turned, to a file that parses, decodes, and reads back within the
// reported error. Tag tables and event chains (slots 6, 7) decode inside their sections or
// carry a note, and an edit of their fields reads back in a file of the same size; a record
// that reached a clip still reaches it after a track edit moved the clips; a trim (the one
// Clip's, as `mab edit --trim`) reads back at its new length. Aborts on any disagreement
// (sanitizers catch the rest).
#include "harness_util.hpp"

#include <mab/edit.hpp>
#include <mab/legacy.hpp>
#include <mab/legacy_bridge.hpp>

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <span>

namespace {

using Clip = mab::LegacyClip;

// The decoded tracks agree with the masks and the frame range; slots 6 and 7 decode inside their
// sections or carry a note.
void check_shape(const mab::Container& c, std::size_t b, const mab::LegacyHeader* h, const Clip* d) {
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

  // Slots 6 and 7: decoded records and nodes lie inside their sections, notes only when not.
  const auto s6 = c.blocks[b].section(6), s7 = c.blocks[b].section(7);
  fuzz::check(!d->tag_table || 4 + 172 * d->tag_table->size() <= s6.size(), "tag records past their section");
  fuzz::check(d->tag_table.has_value() != !d->tag_table_note.empty() || s6.empty(), "a tag table without data or note");
  if (d->tag_table)
    for (const auto& r : *d->tag_table)
      fuzz::check(r.clip_block < static_cast<int>(c.blocks.size()), "a tag record reaches a block that is not there");
  fuzz::check(d->events.has_value() != !d->events_note.empty() || s7.empty(), "an event chain without data or note");
  if (d->events)
    for (std::size_t i = 0; i < d->events->size(); ++i) {
      const auto& e = (*d->events)[i];
      fuzz::check(e.offset + 12u + e.size <= s7.size() && e.payload.size() == e.size, "an event node past its section");
      fuzz::check(i == 0 || e.offset > (*d->events)[i - 1].offset, "event nodes do not move forward");
    }
}

// A tag record's kind and an event's time edited in place read back, the size unchanged.
void check_tag_edit(const mab::Container& c, std::size_t b, const Clip* d, const std::vector<std::uint8_t>* original,
                    const mab::Limits& limits) {
  if ((d->tag_table && !d->tag_table->empty()) || (d->events && !d->events->empty())) {
    auto tagged = *d;
    if (tagged.tag_table && !tagged.tag_table->empty()) tagged.tag_table->front().kind ^= 0x5A;
    if (tagged.events && !tagged.events->empty()) tagged.events->back().time = 1.25f;
    auto t = mab::encode_legacy_clip(c, b, tagged);
    fuzz::check(t.ok(), "a tag or event edit does not encode");
    const auto tb = mab::write_container(*t);
    fuzz::check(tb.ok() && tb->size() == original->size(), "a tag or event edit changed the file size");
    auto tc = mab::read_container(*tb, limits);
    fuzz::check(tc.ok(), "a tag or event edit does not read back");
    auto td = mab::decode_legacy_clip(*tc, b, limits);
    fuzz::check(td.ok(), "a tag or event edit does not decode");
    if (tagged.tag_table && !tagged.tag_table->empty())
      fuzz::check(td->tag_table && td->tag_table->front().kind == tagged.tag_table->front().kind, "a tag edit is lost");
    if (tagged.events && !tagged.events->empty())
      fuzz::check(td->events && td->events->back().time == 1.25f, "an event edit is lost");
  }
}

// A trim by one frame at each end, as `mab edit --trim` does it (edit::trim on the one Clip, then
// legacy_from_clip), writes a clip of that length that reads back.
void check_trim(const mab::Container& c, std::size_t b, const Clip* d, const mab::Limits& limits) {
  if (d->last_frame < 2 || !(d->frame_rate > 0)) return;
  mab::Clip clip = mab::clip_from_legacy(*d);
  const double rate = clip.key_rate;
  const mab::LegacyTimeMap moved = mab::legacy_trim_map(clip, 1 / rate);
  if (!mab::edit::trim(clip, 1 / rate, (d->last_frame - 1u) / rate)) return;
  auto t = mab::legacy_from_clip(*d, clip, moved);
  if (!t) return;
  auto te = mab::encode_legacy_clip(c, b, *t);
  // A clip of constant sections alone has no frames to cut (docs/legacy.md, "Trims"): the trim
  // must be refused, never written as if it landed.
  if (!d->timed()) {
    fuzz::check(!te.ok() || t->last_frame == d->last_frame, "a trim of a clip without timed sections was not refused");
    return;
  }
  fuzz::check(te.ok(), "a trimmed clip does not encode");
  const auto tb = mab::write_container(*te);
  if (!tb) return;
  auto tc = mab::read_container(*tb, limits);
  fuzz::check(tc.ok(), "a trimmed bank does not read back");
  auto td = mab::decode_legacy_clip(*tc, b, limits);
  fuzz::check(td.ok() && td->last_frame == d->last_frame - 2u, "a trimmed clip does not decode at its length");
}

// One keyed track turned: the bank reads back, tag records keep their clips, and the track reads
// back within the reported error.
void check_rotation_edit(const mab::Container& c, std::size_t b, const Clip* d, const mab::Limits& limits) {
  auto edited = *d;
  auto& track = edited.rotations[b % edited.rotations.size()];
  const mab::Quat tilt = mab::quat_normalised({0.03f, 0.01f, -0.04f, 1.0f});
  for (auto& q : track.keys) q = mab::quat_mul(tilt, q);
  mab::LegacyEncodeReport rep;
  auto e = mab::encode_legacy_clip(c, b, edited, {}, &rep);
  fuzz::check(e.ok(), "an edited clip does not encode");
  const auto bytes = mab::write_container(*e);
  if (!bytes) return;  // e.g. a grown bank past a limit of the container writer
  auto back = mab::read_container(*bytes, limits);
  fuzz::check(back.ok() && back->blocks.size() == c.blocks.size(), "an edited bank does not read back");
  auto r = mab::decode_legacy_clip(*back, b, limits);
  fuzz::check(r.ok(), "an edited clip does not decode");
  // Tag records that reached a clip still reach it, wherever the edit moved it.
  for (std::size_t k = 0; k < c.blocks.size(); ++k) {
    const auto before = mab::decode_legacy_tags(c, k), after = mab::decode_legacy_tags(*back, k);
    if (!before || !before->tag_table) continue;
    fuzz::check(after.ok() && after->tag_table && after->tag_table->size() == before->tag_table->size(),
                "a tag table no longer decodes after an edit");
    for (std::size_t i = 0; i < before->tag_table->size(); ++i)
      if ((*before->tag_table)[i].clip_block >= 0)
        fuzz::check((*after->tag_table)[i].clip_block == (*before->tag_table)[i].clip_block,
                    "a tag record lost its clip after an edit");
  }
  const auto& got = r->rotations[b % edited.rotations.size()];
  for (std::uint32_t f = 0; f <= d->last_frame; ++f)
    fuzz::check(mab::angular_error_deg(mab::legacy_rotation_at(got, f), mab::legacy_rotation_at(track, f)) <=
                    rep.max_error_deg + 1e-5,
                "an edited track reads back beyond the reported error");
}

}  // namespace

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
    check_shape(*c, b, h, &*d);
    const auto original = mab::write_container(*c);
    if (!original) continue;
    auto same = mab::encode_legacy_clip(*c, b, *d);
    fuzz::check(same.ok(), "an unedited clip does not encode");
    const auto same_bytes = mab::write_container(*same);
    fuzz::check(same_bytes.ok() && *same_bytes == *original, "an unedited clip changed bytes");
    check_tag_edit(*c, b, &*d, &*original, limits);
    check_trim(*c, b, &*d, limits);
    if (!d->rotations.empty()) check_rotation_edit(*c, b, &*d, limits);
  }
  return 0;
}
