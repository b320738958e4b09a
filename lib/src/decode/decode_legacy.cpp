// Legacy 'AnD' clip sections (format 13) into tracks. Every count and offset is checked against
// the masks and the section sizes before it is used, so a hostile file gives not_decodable or
// truncated, never a large allocation.
#include <mab/legacy.hpp>

#include <mab/text.hpp>

#include "container/legacy_tag_record.hpp"
#include "io/bytes.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>

namespace mab {

namespace {

constexpr std::size_t array_header_size = 8;

struct Section {
  std::span<const std::uint8_t> bytes;
  std::uint64_t offset = no_offset;  // absolute
  std::string field;                 // "sections[3]"
};

Error inconsistent(const Section& s, std::uint64_t at, std::string detail) {
  return make_error(ErrorCode::not_decodable, s.offset == no_offset ? no_offset : s.offset + at, s.field,
                    std::move(detail));
}

std::vector<std::uint32_t> bones_of(const LegacyHeader& h, std::size_t mask) {
  std::vector<std::uint32_t> out;
  for (std::uint32_t w = 0; w < h.mask_words; ++w) {
    std::uint32_t bits = h.masks[mask * h.mask_words + w];
    while (bits != 0) {
      out.push_back(32 * w + static_cast<std::uint32_t>(std::countr_zero(bits)));
      bits &= bits - 1;
    }
  }
  return out;
}

// After the last element: zero bytes only. JB-DOC: sections are padded to 16 bytes with zeros,
// and a 16-byte block of zeros separates the last track section from the event chain or the
// chained clip (its writer also leaves an empty tag array there), so a tail may exceed 15.
Status check_end(const Section& s, std::size_t end) {
  for (std::size_t i = end; i < s.bytes.size(); ++i)
    if (s.bytes[i] != 0) return inconsistent(s, i, "non-zero byte after the last element");
  return {};
}

LegacyArrayHeader raw_header(const Section& s) {
  LegacyArrayHeader h;
  h.count = io::load_u16(s.bytes, 0);
  h.last_frame = io::load_u16(s.bytes, 2);
  h.rate_bits = io::load_u32(s.bytes, 4);
  return h;
}

// The rate field of a timed section.
Status read_rate(const Section& s, LegacyArrayHeader& h, bool f32_rate) {
  if (f32_rate) {
    // FC3 (format 13, [guess]): an f32 frame rate.
    std::memcpy(&h.frame_rate, &h.rate_bits, sizeof h.frame_rate);
    if (!std::isfinite(h.frame_rate) || h.frame_rate < 1.0f || h.frame_rate > 1000.0f) {
      char value[32];
      std::snprintf(value, sizeof value, "%g", static_cast<double>(h.frame_rate));
      return inconsistent(s, 4,
                          "rate field " + hex(h.rate_bits, 8) + " (f32 " + value +
                              ") is not a frame rate in [1, 1000] (the FC3 reading of format 13 does not fit)");
    }
  } else {
    // FC2: u16 fps, u16 0.
    if ((h.rate_bits >> 16) != 0)
      return inconsistent(s, 6, "the u16 after fps is " + std::to_string(h.rate_bits >> 16) + ", not 0");
    h.frame_rate = static_cast<float>(h.rate_bits & 0xFFFFu);
    if (h.frame_rate == 0.0f) return inconsistent(s, 4, "fps is 0");
  }
  return {};
}

Quat48 read_code(std::span<const std::uint8_t> b, std::size_t at) {
  Quat48 q;
  for (std::size_t i = 0; i < 3; ++i) q[i] = io::load_u16(b, at + 2 * i);
  return q;
}

Vec3 read_vec3(std::span<const std::uint8_t> b, std::size_t at) {
  Vec3 v;
  for (std::size_t i = 0; i < 3; ++i) v[i] = io::load_f32(b, at + 4 * i);
  return v;
}

Status need(const Section& s, std::size_t at, std::size_t n, const std::string& what) {
  if (n > s.bytes.size() || at > s.bytes.size() - n)
    return make_error(ErrorCode::truncated, s.offset == no_offset ? no_offset : s.offset + at, s.field,
                      what + " needs " + std::to_string(n) + " bytes, the section has " +
                          std::to_string(s.bytes.size() > at ? s.bytes.size() - at : 0) + " left");
  return {};
}

using io::load_f32;
using io::load_u32;

// Format 13: i32 group offsets (relative to the section), then per group the first-frame codes,
// the presence bytes (padded to even) and the present keys track by track. The table holds one
// entry per group (format 13) or one more, where the last group ends (JB-DOC's later revision and
// its writer); the first offset tells which, and the extra entry must equal that end.
Status keyframed(const Section& s, LegacyArrayHeader& h, const std::vector<std::uint32_t>& bones,
                 std::vector<LegacyRotationTrack>& out) {
  const std::size_t tracks = h.count, groups = (std::size_t{h.last_frame} >> 3) + 1;
  if (tracks == 0 && std::all_of(s.bytes.begin() + array_header_size, s.bytes.end(), [](auto v) { return v == 0; })) {
    // JB-DOC's writer gives a keyed section with no tracks its header alone.
    h.group_table = LegacyGroupTable::none;
    h.data_size = array_header_size;
    return {};
  }
  MAB_TRY(need(s, array_header_size, 4 * groups, std::to_string(groups) + " group offsets"));
  std::size_t entries = groups;
  h.group_table = LegacyGroupTable::per_group;
  const std::size_t first = load_u32(s.bytes, array_header_size);
  if (first == array_header_size + 4 * (groups + 1) && s.bytes.size() >= first) {
    entries = groups + 1;
    h.group_table = LegacyGroupTable::with_end;
  }
  out.resize(tracks);
  for (std::size_t t = 0; t < tracks; ++t) out[t].bone = bones[t];
  std::size_t expected = array_header_size + 4 * entries;
  std::vector<std::uint8_t> presence(tracks);
  for (std::size_t g = 0; g < groups; ++g) {
    const std::size_t at = array_header_size + 4 * g;
    const auto off = static_cast<std::int32_t>(load_u32(s.bytes, at));
    if (off < 0 || static_cast<std::size_t>(off) != expected)
      return inconsistent(s, at,
                          "group " + std::to_string(g) + " offset " + std::to_string(off) +
                              " is not where the previous group ends (" + std::to_string(expected) + ")");
    std::size_t pos = expected;
    const std::size_t head = 6 * tracks + tracks + (tracks & 1);
    MAB_TRY(need(s, pos, head, "group " + std::to_string(g)));
    const auto frame0 = static_cast<std::uint16_t>(8 * g);
    for (std::size_t t = 0; t < tracks; ++t) {
      out[t].frames.push_back(frame0);
      out[t].codes.push_back(read_code(s.bytes, pos + 6 * t));
    }
    pos += 6 * tracks;
    std::size_t keys = 0;
    for (std::size_t t = 0; t < tracks; ++t) {
      const std::uint8_t p = s.bytes[pos + t];
      if ((p & 0x80) == 0) return inconsistent(s, pos + t, "presence byte without bit 7 (format 13: it is always set)");
      for (unsigned i = 0; i < 7; ++i)
        if ((p >> i) & 1u) {
          if (frame0 + i + 1u > h.last_frame)
            return inconsistent(s, pos + t,
                                "presence bit for frame " + std::to_string(frame0 + i + 1u) + " past lastFrame " +
                                    std::to_string(h.last_frame));
        }
      presence[t] = p;
      keys += static_cast<std::size_t>(std::popcount(static_cast<unsigned>(p & 0x7F)));
    }
    if ((tracks & 1) != 0 && s.bytes[pos + tracks] != 0)
      return inconsistent(s, pos + tracks, "presence pad byte is not 0");
    pos += tracks + (tracks & 1);
    MAB_TRY(need(s, pos, 6 * keys, "group " + std::to_string(g) + "'s " + std::to_string(keys) + " keys"));
    for (std::size_t t = 0; t < tracks; ++t)
      for (unsigned i = 0; i < 7; ++i)
        if ((unsigned{presence[t]} >> i) & 1u) {
          out[t].frames.push_back(static_cast<std::uint16_t>(frame0 + i + 1));
          out[t].codes.push_back(read_code(s.bytes, pos));
          pos += 6;
        }
    expected = pos;
  }
  if (h.group_table == LegacyGroupTable::with_end) {
    const std::size_t at = array_header_size + 4 * groups;
    const auto end = static_cast<std::int32_t>(load_u32(s.bytes, at));
    if (end < 0 || static_cast<std::size_t>(end) != expected)
      return inconsistent(s, at,
                          "the group table's end entry " + std::to_string(end) + " is not where the last group ends (" +
                              std::to_string(expected) + ")");
  }
  for (auto& t : out) {
    t.keys.reserve(t.codes.size());
    for (const auto& c : t.codes) t.keys.push_back(decode_quat48(c));
  }
  h.data_size = static_cast<std::uint32_t>(expected);
  return check_end(s, expected);
}

// Slot 6 (JB-DOC): u32 count, the records, zero bytes after them. A record's clip offset is
// resolved against the placed block bases (the file's, for a container as read).
Result<std::vector<LegacyTagRecord>> tag_table(const Section& s, const Placement& pl) {
  MAB_TRY(need(s, 0, 4, "the record count"));
  const std::uint64_t count = load_u32(s.bytes, 0);
  if (count > (s.bytes.size() - 4) / legacy_tag_record_size)
    return inconsistent(s, 0,
                        "count " + std::to_string(count) + " records of 172 bytes do not fit the " +
                            std::to_string(s.bytes.size()) + "-byte section");
  std::vector<LegacyTagRecord> out(static_cast<std::size_t>(count));
  for (std::size_t i = 0; i < out.size(); ++i) {
    const std::size_t at = 4 + legacy_tag_record_size * i;
    LegacyTagRecord& r = out[i];
    container::tag_record_fields(r, [&](std::size_t field, auto& m) { container::load_field(s.bytes, at + field, m); });
    if (s.offset != no_offset) {
      const auto target = static_cast<std::int64_t>(s.offset + at) + r.clip_offset;
      for (std::size_t k = 0; k < pl.blocks.size(); ++k)
        if (static_cast<std::int64_t>(pl.blocks[k].base) == target) r.clip_block = static_cast<int>(k);
    }
  }
  MAB_TRY(check_end(s, 4 + legacy_tag_record_size * out.size()));
  return out;
}

// Slot 7 (format 11): the nodes from the section's start, each next offset moving forward past
// the node's payload; the bytes between nodes and after the last are zero.
Result<std::vector<LegacyEvent>> event_chain(const Section& s) {
  std::vector<LegacyEvent> out;
  std::size_t pos = 0;
  for (;;) {
    MAB_TRY(need(s, pos, 12, "event node " + std::to_string(out.size())));
    LegacyEvent e;
    e.offset = static_cast<std::uint32_t>(pos);
    e.time = load_f32(s.bytes, pos);
    e.type = load_u32(s.bytes, pos + 4);
    e.size = io::load_u16(s.bytes, pos + 8);
    e.next = io::load_u16(s.bytes, pos + 10);
    const std::size_t end = pos + 12 + e.size;
    MAB_TRY(need(s, pos + 12, e.size, "event node " + std::to_string(out.size()) + "'s payload"));
    e.payload.assign(s.bytes.begin() + static_cast<std::ptrdiff_t>(pos + 12),
                     s.bytes.begin() + static_cast<std::ptrdiff_t>(end));
    if (e.next != 0 && e.next < 12u + e.size)
      return inconsistent(s, pos + 10,
                          "event node " + std::to_string(out.size()) + ": next offset " + std::to_string(e.next) +
                              " falls inside its own " + std::to_string(12u + e.size) + " bytes");
    const std::size_t next = e.next == 0 ? s.bytes.size() : pos + e.next;
    if (next > s.bytes.size())
      return inconsistent(s, pos + 10,
                          "event node " + std::to_string(out.size()) + ": next offset " + std::to_string(e.next) +
                              " is past the section's end");
    for (std::size_t i = end; i < next; ++i)
      if (s.bytes[i] != 0) return inconsistent(s, i, "non-zero byte between event nodes (or after the last)");
    out.push_back(std::move(e));
    if (next == s.bytes.size()) {
      if (out.back().next != 0) return inconsistent(s, pos + 10, "the last event node's next offset is not 0");
      return out;
    }
    pos = next;
  }
}

// A section's bytes, with its field name and file offset for errors.
Section section_of(const Block& b, const PlacedBlock& pb, std::size_t slot) {
  Section s;
  s.bytes = b.section(slot);
  s.field = b.slot_field_name(slot);
  const int seg = slot < b.slot_segment.size() ? b.slot_segment[slot] : -1;
  if (seg >= 0) s.offset = pb.base + pb.segments[static_cast<std::size_t>(seg)].offset;
  return s;
}

// Slots 0-5 (format 13): the track arrays, each opening with a count, lastFrame and rate.
struct ArraySections {
  std::array<Section, 6> sections;
  std::array<LegacyArrayHeader, 6> headers{};
  std::size_t timing = 6;  // the slot whose frames and rate are the clip's; 6: none
};

bool constant_slot(std::size_t slot) { return slot == 2 || slot == 4; }

Result<ArraySections> read_array_headers(const Block& b, const PlacedBlock& pb) {
  ArraySections a;
  for (std::size_t slot = 0; slot < 6; ++slot) {
    a.sections[slot] = section_of(b, pb, slot);
    if (a.sections[slot].bytes.empty()) continue;
    MAB_TRY(need(a.sections[slot], 0, array_header_size, "the array header"));
    a.headers[slot] = raw_header(a.sections[slot]);
  }
  return a;
}

// The clip's frames and rate: a timed section's (JB-DOC: constant sections store 0 and 0).
Status read_clip_timing(ArraySections& a, bool f32_rate, LegacyClip& clip) {
  for (const std::size_t slot : {0u, 1u, 3u, 5u, 2u, 4u})
    if (a.timing == 6 && !a.sections[slot].bytes.empty() && !(constant_slot(slot) && a.headers[slot].untimed()))
      a.timing = slot;
  if (a.timing < 6) {
    MAB_TRY(read_rate(a.sections[a.timing], a.headers[a.timing], f32_rate));
    clip.last_frame = a.headers[a.timing].last_frame;
    clip.frame_rate = a.headers[a.timing].frame_rate;
  }
  return {};
}

// One section's header against the clip: its timing, the key limit and its track count.
Status check_array_header(const ArraySections& a, std::size_t slot, LegacyArrayHeader& h, const LegacyClip& clip,
                          std::size_t mask_bones, bool f32_rate, const Limits& limits) {
  const Section& s = a.sections[slot];
  if (!(constant_slot(slot) && h.untimed())) {
    MAB_TRY(read_rate(s, h, f32_rate));
    const std::string first = a.sections[a.timing].field;
    if (h.last_frame != clip.last_frame)
      return inconsistent(s, 2,
                          "lastFrame " + std::to_string(h.last_frame) + " differs from the clip's " +
                              std::to_string(clip.last_frame) + " (" + first + ")");
    if (h.frame_rate != clip.frame_rate)
      return inconsistent(s, 4, "frame rate differs from the clip's (" + first + ")");
  }
  if (std::size_t{h.last_frame} + 1 > limits.max_keys)
    return make_error(ErrorCode::limit_exceeded, s.offset, s.field, "lastFrame exceeds the key limit");
  const std::size_t frames = std::size_t{clip.last_frame} + 1;
  // Slots 0 and 1 hold one track of a value per frame; 2-5 a track per bone of their mask
  // (format 13). The trajectory's count is its track count, 1 (JB-DOC), or lastFrame + 1.
  const std::size_t want = slot < 2 ? frames : mask_bones;
  if (slot < 2 ? h.count != 1 && h.count != want : h.count != want)
    return inconsistent(s, 0,
                        "count " + std::to_string(h.count) + ", expected " +
                            (slot < 2 ? "1 (one track, JB-DOC) or " + std::to_string(want) + " (lastFrame + 1)"
                                      : std::to_string(want) + " (bits set in the section's mask)"));
  return {};
}

// The tracks of one array section into the clip; h.data_size is set to where they end.
Status read_array_tracks(const Section& s, std::size_t slot, LegacyArrayHeader& h,
                         const std::array<std::vector<std::uint32_t>, 4>& masks, LegacyClip& clip) {
  const std::size_t frames = std::size_t{clip.last_frame} + 1;
  const std::size_t at = array_header_size;
  switch (slot) {
    case 0:
      MAB_TRY(need(s, at, 12 * frames, "trajectory translation"));
      for (std::size_t i = 0; i < frames; ++i) clip.trajectory_translation.push_back(read_vec3(s.bytes, at + 12 * i));
      h.data_size = static_cast<std::uint32_t>(at + 12 * frames);
      break;
    case 1:
      MAB_TRY(need(s, at, 6 * frames, "trajectory rotation"));
      for (std::size_t i = 0; i < frames; ++i) {
        clip.trajectory_rotation_codes.push_back(read_code(s.bytes, at + 6 * i));
        clip.trajectory_rotation.push_back(decode_quat48(clip.trajectory_rotation_codes.back()));
      }
      h.data_size = static_cast<std::uint32_t>(at + 6 * frames);
      break;
    case 2:
      MAB_TRY(need(s, at, 6 * std::size_t{h.count}, "constant rotations"));
      for (std::size_t i = 0; i < h.count; ++i) {
        LegacyConstantRotation r;
        r.bone = masks[0][i];
        r.code = read_code(s.bytes, at + 6 * i);
        r.rotation = decode_quat48(r.code);
        clip.constant_rotations.push_back(r);
      }
      h.data_size = static_cast<std::uint32_t>(at + 6 * std::size_t{h.count});
      break;
    case 3: MAB_TRY(keyframed(s, h, masks[1], clip.rotations)); break;
    case 4:
      MAB_TRY(need(s, at, 12 * std::size_t{h.count}, "constant translations"));
      for (std::size_t i = 0; i < h.count; ++i)
        clip.constant_translations.push_back({masks[2][i], read_vec3(s.bytes, at + 12 * i)});
      h.data_size = static_cast<std::uint32_t>(at + 12 * std::size_t{h.count});
      break;
    case 5: {
      // Dense and frame-major: frame f's values for every track, then frame f + 1.
      const std::size_t tracks = h.count;
      MAB_TRY(need(s, at, 12 * tracks * frames, "animated translations"));
      clip.translations.resize(tracks);
      for (std::size_t t = 0; t < tracks; ++t) {
        clip.translations[t].bone = masks[3][t];
        clip.translations[t].frames.reserve(frames);
      }
      for (std::size_t f = 0; f < frames; ++f)
        for (std::size_t t = 0; t < tracks; ++t)
          clip.translations[t].frames.push_back(read_vec3(s.bytes, at + 12 * (f * tracks + t)));
      h.data_size = static_cast<std::uint32_t>(at + 12 * tracks * frames);
      break;
    }
    default: break;
  }
  return {};
}

}  // namespace

Result<LegacyClip> decode_legacy_clip(const Container& c, std::size_t block, const Limits& limits) {
  if (block >= c.blocks.size())
    return make_error(ErrorCode::invalid_argument, no_offset, "block", "no block " + std::to_string(block));
  const Block& b = c.blocks[block];
  const LegacyHeader* lh = b.legacy();
  if (lh == nullptr)
    return make_error(ErrorCode::invalid_argument, b.original_base, "block", "not a legacy 'AnD' clip");
  if (lh->masks.size() != 4 * std::size_t{lh->mask_words})
    return make_error(ErrorCode::bad_value, b.original_base, "masks", "mask words do not match the layout");
  MAB_ASSIGN(const Placement pl, place(c));
  const bool f32_rate = c.variant != nullptr && c.variant->game != Game::far_cry_2;

  LegacyClip clip;
  clip.block = block;
  clip.duration = lh->duration();
  std::array<std::vector<std::uint32_t>, 4> masks;
  for (std::size_t m = 0; m < 4; ++m) masks[m] = bones_of(*lh, m);

  MAB_ASSIGN(ArraySections arrays, read_array_headers(b, pl.blocks[block]));
  MAB_TRY(read_clip_timing(arrays, f32_rate, clip));
  for (std::size_t slot = 0; slot < 6; ++slot) {
    const Section& s = arrays.sections[slot];
    if (s.bytes.empty()) continue;
    LegacyArrayHeader h = arrays.headers[slot];
    MAB_TRY(check_array_header(arrays, slot, h, clip, slot < 2 ? 0 : masks[slot - 2].size(), f32_rate, limits));
    clip.present[slot] = true;
    MAB_TRY(read_array_tracks(s, slot, h, masks, clip));
    MAB_TRY(check_end(s, h.data_size));
    clip.headers[slot] = h;
  }
  // Slots 6 and 7: data where consistent, a note why not otherwise (never a failure).
  MAB_ASSIGN(LegacyTags tags, decode_legacy_tags(c, block));
  clip.tag_table = std::move(tags.tag_table);
  clip.tag_table_note = std::move(tags.tag_table_note);
  clip.events = std::move(tags.events);
  clip.events_note = std::move(tags.events_note);
  // A mask with bits but no section (or the reverse, checked above by the counts).
  for (std::size_t m = 0; m < 4; ++m)
    if (!masks[m].empty() && !clip.present[m + 2])
      return make_error(ErrorCode::not_decodable, b.original_base + 4 * std::uint64_t{lh->mask_words} * m, "masks",
                        std::to_string(masks[m].size()) + " bone(s) in mask " + std::to_string(m) + " but " +
                            b.slot_field_name(m + 2) + " is absent");
  return clip;
}

Result<LegacyTags> decode_legacy_tags(const Container& c, std::size_t block) {
  if (block >= c.blocks.size() || c.blocks[block].legacy() == nullptr)
    return make_error(ErrorCode::invalid_argument, no_offset, "block", "no legacy clip " + std::to_string(block));
  const Block& b = c.blocks[block];
  MAB_ASSIGN(const Placement pl, place(c));
  const PlacedBlock& pb = pl.blocks[block];
  LegacyTags out;
  if (const Section s6 = section_of(b, pb, 6); !s6.bytes.empty()) {
    if (auto t = tag_table(s6, pl)) out.tag_table = std::move(t).value();
    else out.tag_table_note = t.error().message();
  }
  if (const Section s7 = section_of(b, pb, 7); !s7.bytes.empty()) {
    if (auto e = event_chain(s7)) out.events = std::move(e).value();
    else out.events_note = e.error().message();
  }
  return out;
}

std::string LegacyTagName::text() const {
  const auto nul = std::find(bytes.begin(), bytes.end(), std::uint8_t{0});
  return std::string(bytes.begin(), nul);
}

bool LegacyTagName::plain() const noexcept {
  const auto nul = std::find(bytes.begin(), bytes.end(), std::uint8_t{0});
  return std::all_of(bytes.begin(), nul, [](std::uint8_t c) { return c >= 0x20 && c < 0x7F; }) &&
         std::all_of(nul, bytes.end(), [](std::uint8_t c) { return c == 0; });
}

Quat legacy_rotation_at(const LegacyRotationTrack& track, std::uint32_t frame) noexcept {
  if (track.frames.empty()) return {};
  const auto it = std::upper_bound(track.frames.begin(), track.frames.end(), frame);
  if (it == track.frames.begin()) return track.keys.front();
  const auto i = static_cast<std::size_t>(it - track.frames.begin()) - 1;
  if (track.frames[i] == frame || i + 1 == track.frames.size()) return track.keys[i];
  const double t =
      static_cast<double>(frame - track.frames[i]) / static_cast<double>(track.frames[i + 1] - track.frames[i]);
  return quat_slerp(track.keys[i], track.keys[i + 1], t);
}

}  // namespace mab
