// Far Cry 2 / Far Cry 3 'AnD' clips (format 13) decoded into tracks, with the exact codes kept
// for lossless re-encoding. A first step of docs/legacy.md: decode only (the clip model of the 'aNi'
// games is keyed by bone hashes and a shared key timeline; a legacy clip is keyed by skeleton
// bone ids, each rotation track with its own sparse frames, so it has its own type here).
#pragma once

#include <mab/container.hpp>
#include <mab/edit.hpp>
#include <mab/encode_clip.hpp>
#include <mab/limits.hpp>
#include <mab/quat.hpp>
#include <mab/result.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace mab {

using Vec3 = std::array<float, 3>;

// How a keyed-rotation section (slot 3) lays out its group offsets.
enum class LegacyGroupTable : std::uint8_t {
  none = 0,       // no tracks: the array header alone (JB-DOC's writer for an empty mask)
  per_group = 1,  // one i32 per group (format 13)
  with_end = 2,   // one per group, then where the last group ends (JB-DOC's later revision)
};

// `u16 count, u16 lastFrame` then the rate: FC2 `u16 fps, u16 0`; FC3 an f32 (format 13, the
// FC3 reading is a [guess]). JB-DOC: a constant section (slots 2, 4) holds no frames and
// stores lastFrame 0 and rate 0 in retail files; `untimed()` says so.
struct LegacyArrayHeader {
  std::uint16_t count = 0;
  std::uint16_t last_frame = 0;
  float frame_rate = 0.0f;
  std::uint32_t rate_bits = 0;  // the four rate bytes as stored
  // Bytes the header and the elements take; the rest of the section is zero bytes (16-byte
  // alignment, and JB-DOC's 16-byte separator before the events or the chained clip).
  std::uint32_t data_size = 0;
  LegacyGroupTable group_table = LegacyGroupTable::per_group;  // slot 3 only

  bool untimed() const noexcept { return last_frame == 0 && rate_bits == 0; }
};

struct LegacyConstantRotation {
  std::uint32_t bone = 0;  // skeleton bone id: the bit in the constant-rotation mask
  Quat48 code{};
  Quat rotation;
};

// Keys at frames 0, 8, 16 ... (each group's first frame) and wherever a presence bit says so.
struct LegacyRotationTrack {
  std::uint32_t bone = 0;
  std::vector<std::uint16_t> frames;  // ascending
  std::vector<Quat48> codes;          // one per frame, as stored
  std::vector<Quat> keys;             // decoded codes
};

struct LegacyConstantTranslation {
  std::uint32_t bone = 0;
  Vec3 translation{};
};

struct LegacyTranslationTrack {
  std::uint32_t bone = 0;
  std::vector<Vec3> frames;  // dense: one per frame 0..last_frame
};

// Slot 6, the tag table (JB-DOC, read from the engine and checked on every retail record):
// u32 count, then 172-byte records, one per participant of the scene. Fields JB-DOC names are
// typed; the bytes it does not decode are kept as they are.
struct LegacyTagName {
  std::uint32_t hash = 0;                // CRC-32 of the text (decision 11's function; JB-DOC: "" gives 0)
  std::array<std::uint8_t, 32> bytes{};  // NUL-padded text

  std::string text() const;  // up to the first NUL
  // Printable ASCII up to the first NUL and zeros after it: text() says everything.
  bool plain() const noexcept;
};

struct LegacyTagRecord {
  std::uint8_t kind = 0;                  // +0x00: 1, 6, 7, 8, 9 occur (JB-DOC)
  std::uint8_t byte_1 = 0;                // +0x01, not decoded
  std::int16_t id = 0;                    // +0x02
  std::array<std::uint8_t, 8> bytes_4{};  // +0x04..+0x0B, not decoded
  // +0x0C: the participant's clip, in bytes from this record's own start (JB-DOC, JB-PY).
  std::int32_t clip_offset = 0;
  float start = 0.0f;  // +0x10, seconds
  float end = 0.0f;    // +0x14
  // +0x18 what is animated, +0x3C the bone it hangs from, +0x60 unused, +0x84 reference.
  std::array<LegacyTagName, 4> names{};
  std::uint32_t pointer_slot = 0;  // +0xA8: the engine's, 0 on disk
  // Decoded, not stored: the block of this container whose base clip_offset reaches, or -1.
  int clip_block = -1;
};

inline constexpr std::size_t legacy_tag_record_size = 172;

// Slot 7, the event chain (format 11, JB-DOC): nodes of `f32 time, u32 type, u16 size, u16 next`
// and a payload (FCB binary when type is 2, not decoded). Read with size = the payload's bytes
// and next = bytes from this node's start to the next one's, 0 at the last: a [guess] that
// holds only where the chain is consistent (nodes move forward, payloads fit, the bytes
// between and after them are zero).
struct LegacyEvent {
  std::uint32_t offset = 0;  // from the section's start
  float time = 0.0f;
  std::uint32_t type = 0;
  std::uint16_t size = 0;
  std::uint16_t next = 0;
  std::vector<std::uint8_t> payload;
};

// Slots 6 and 7 of one clip, as decode_legacy_clip reads them into LegacyClip.
struct LegacyTags {
  std::optional<std::vector<LegacyTagRecord>> tag_table;
  std::string tag_table_note;
  std::optional<std::vector<LegacyEvent>> events;
  std::string events_note;
};

struct LegacyClip {
  std::size_t block = 0;
  float duration = 0.0f;
  // From the first timed array section (slots 0, 1, 3, 5, then a constant one that is not
  // untimed); every timed section must agree. A clip of untimed constant sections alone has
  // last_frame 0 and frame_rate 0.
  std::uint16_t last_frame = 0;
  float frame_rate = 0.0f;
  // Root motion (slots 0, 1): lastFrame + 1 elements, 3 x f32 and one 6-byte quaternion each,
  // frame-major with one track (JB-DOC). The header's count is 1 (the track count, JB-DOC) or
  // lastFrame + 1 (our first reading, kept by the synthetic corpus); both are accepted.
  std::vector<Vec3> trajectory_translation;       // slot 0
  std::vector<Quat48> trajectory_rotation_codes;  // slot 1
  std::vector<Quat> trajectory_rotation;
  std::vector<LegacyConstantRotation> constant_rotations;        // slot 2
  std::vector<LegacyRotationTrack> rotations;                    // slot 3
  std::vector<LegacyConstantTranslation> constant_translations;  // slot 4
  std::vector<LegacyTranslationTrack> translations;              // slot 5
  // Array headers as stored, per slot 0..5 (count 0 and absent when the slot is empty).
  std::array<bool, 6> present{};
  std::array<LegacyArrayHeader, 6> headers{};
  // A section of frames (slots 0, 1, 3, 5) is present: without one the clip has no lastFrame of
  // its own, so there is nothing a trim can cut (docs/legacy.md, "Trims").
  bool timed() const noexcept { return present[0] || present[1] || present[3] || present[5]; }
  // Slots 6 and 7 as data where their bytes are consistent. A section that is absent, or
  // present but inconsistent, leaves these empty; `tag_table_note` / `events_note` then say
  // why for a present one. The container keeps the bytes either way.
  std::optional<std::vector<LegacyTagRecord>> tag_table;
  std::string tag_table_note;
  std::optional<std::vector<LegacyEvent>> events;
  std::string events_note;
};

// Decodes block `block` (a top-level clip or a chained one) of a legacy container. Sections
// must be consistent: counts equal the masks' popcounts, every group where the previous one
// ends, every section consumed exactly and followed by zero bytes only (alignment, JB-DOC's
// separator). Otherwise not_decodable, naming the section, the byte offset and what disagrees.
// The tag table and the event chain (slots 6, 7) are decoded where consistent; they never make
// the clip fail (see LegacyClip::tag_table_note).
Result<LegacyClip> decode_legacy_clip(const Container& c, std::size_t block, const Limits& limits = default_limits);

// Slots 6 and 7 of block `block` alone: decoded even when the clip's tracks do not decode.
// Errors only for a block that is not a legacy clip.
Result<LegacyTags> decode_legacy_tags(const Container& c, std::size_t block);

// Rotation of `track` at `frame`: the stored key there, or a slerp between the keys around it
// (format 9.3/13 name the engine's sg_magicTable slerp scale, whose values are not public: plain
// slerp by frame distance is a [guess]); held after the last key.
Quat legacy_rotation_at(const LegacyRotationTrack& track, std::uint32_t frame) noexcept;

// The trajectory (root motion) where a list of skeleton bone ids names it (the glTF import's).
inline constexpr std::uint32_t legacy_trajectory_id = 0xFFFFFFFFu;

struct LegacyEncodeOptions {
  // An edited keyed track (docs/legacy.md, "Writing") keeps its group starts (frames 0, 8, 16
  // ...), the keys it lists (or, given at every frame as samples, the original's keys), and
  // gets another key only where leaving a frame to interpolation would miss the edited rotation
  // by more than this many degrees (format 13 sparse keys).
  double max_error_deg = 0.01;
  // Nothing is encoded when a rewritten track ends up further than max_error_deg from the edit
  // (invalid_argument, field "max_error"): the sparse writer keys every frame that needs it, so
  // only a bound below a 6-byte key's own rounding (up to about 0.008 degrees) can be missed.
  bool refuse_above_max_error = false;
  // Key reduction (`mab edit --reduce`): every keyed track, edited or not, is re-keyed from its
  // group starts alone, a key added only where interpolation misses the track by more than this
  // many degrees, and written so where that stores fewer keys than the track has (otherwise as
  // without it); a miss of this bound is refused (field "reduce").
  std::optional<double> reduce_deg;
};

// The error policy of edit_policy (edit_policy.hpp, decision 21) for Far Cry 2/3 clips: there is no
// bit depth to raise; the bound is the sparse key writer's, and a miss is refused.
LegacyEncodeOptions legacy_edit_policy(double max_error_deg = default_max_error_deg);

struct LegacyEncodeReport {
  std::size_t sections_kept = 0;  // array sections whose bytes are the original's
  std::size_t sections_rewritten = 0;
  std::size_t tag_records_edited = 0;  // slot 6 records and slot 7 nodes written with new fields
  std::size_t events_edited = 0;
  std::size_t keys_before = 0;  // stored keyed-rotation keys, original and written
  std::size_t keys_after = 0;
  // Of keys_after: keys at a frame the original keyed, with its exact code (every key of a
  // track the edit left alone), and keys at frames the original did not key (an edited track
  // gets them only where the edit needs them, docs/legacy.md "Writing"). After a trim the
  // frames moved: keys_added is 0 and keys_kept counts only tracks kept whole.
  std::size_t keys_kept = 0;
  std::size_t keys_added = 0;
  // Keys written with one of the original track's codes at a frame that did not store it: a
  // stored key moved by a reverse, trim or speed change, its code kept.
  std::size_t keys_moved = 0;
  // Largest angle between a written track (stored keys plus interpolation, after
  // quantisation) and the edited track at any frame, over every rewritten rotation track.
  double max_error_deg = 0.0;
  // Bytes the block grew by (negative: shrank). When non-zero, the clips after it in the
  // bank move; moved_clips counts them.
  std::int64_t size_change = 0;
  std::size_t moved_clips = 0;
  // Clips of the bank with a tag table (slot 6), and those whose table does not decode: its
  // records are kept as stored, so with clips moved they may point at the old places.
  std::size_t tag_tables = 0;
  std::size_t tag_tables_undecoded = 0;
  // A record's clip offset (JB-DOC: from the record's own start) that reached a clip start in
  // the original is rewritten to reach the same clip where it now is: each rewrite is listed.
  // Records that reached no clip start keep their value; with clips moved they are listed in
  // tag_offsets_kept (before == after), since nothing proves what they pointed at.
  struct TagOffset {
    std::size_t block = 0, record = 0;
    std::int32_t before = 0, after = 0;
    int clip_block = -1;
  };
  std::vector<TagOffset> tag_offsets_updated;
  std::vector<TagOffset> tag_offsets_kept;
};

// Writes `edited` back into block `block` of `original`: an array section (slots 0-5) whose
// contents equal the original decode keeps its bytes; any other is rebuilt (header, data,
// zeros to a multiple of 16 bytes), rotations with the sparse key writer above, the masks
// from the edited bone lists. `tag_table` and `events`, when given, must hold the decoded
// records and nodes (same count and layout); their edited fields are written in place, and a
// clip offset is not editable. Empty, the sections are kept. When the block changes size, the
// tag records of the bank whose clip offsets reach a clip start follow their clips (see
// LegacyEncodeReport). The header rate and chained clips are kept. A new last_frame (a trim:
// edit::trim on its clip_from_legacy Clip, then legacy_from_clip) rewrites every timed section at that length, and a new duration is written
// to the header. Not supported (invalid_argument): adding a section the block lacks or
// emptying one it has.
Result<Container> encode_legacy_clip(const Container& original, std::size_t block, const LegacyClip& edited,
                                     const LegacyEncodeOptions& options = {}, LegacyEncodeReport* report = nullptr);

}  // namespace mab
