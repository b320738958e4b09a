// Internal: the parts of the mabkit-clip document reader (docs/json-format.md), each in its own
// file: the container with its headers (json_container_read.cpp), the clip and its codes
// (json_clip_read.cpp) and the Far Cry 2/3 clip and records (json_legacy_import.cpp). json_import.cpp
// parses the document, calls them and encodes the result.
#pragma once

#include <mab/decode_clip.hpp>
#include <mab/container.hpp>
#include <mab/legacy.hpp>
#include <mab/legacy_bridge.hpp>

#include "interchange/json/json_motion.hpp"
#include "interchange/json/json_read.hpp"

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace mab::interchange::json_in {

// --- container (json_container_read.cpp) ---

Result<Container> read_container_json(const Val& j, const Path& path, const Limits& limits);

// --- clip and codes (json_clip_read.cpp) ---

// How a document bone names its bone (decision 24, docs/json-format.md "Bone identity").
struct ParsedBoneId {
  bool hash_given = false;          // else the hash is the name's CRC-32
  std::optional<BoneId> rename_to;  // "rename_to": the new hash (and name)
  bool is_new = false;              // "new": true, a bone the file lacks
};

struct ParsedClip {
  Clip clip;
  bool key_rate_given = false;
  bool duration_given = false;
  std::vector<ParsedBoneId> ids;  // per bone
};

Result<ParsedClip> read_clip(const Val& j, const Path& path, const Limits& limits);

struct JsonChunkCodes {
  std::uint8_t cflags = 0;
  std::optional<std::uint8_t> signs;
  std::array<std::uint16_t, 3> headers{};
  std::array<std::vector<std::uint16_t>, 3> raw;
};

struct ParsedCodes {
  std::vector<std::array<std::uint8_t, 6>> constant_codes;
  std::vector<std::vector<JsonChunkCodes>> chunks;
  std::vector<std::uint8_t> tail;
};

Result<ParsedCodes> read_codes(const Val& j, const Path& path, const Limits& limits);
// The codes are a view of the container's bytes, so they must agree with them: a document
// whose codes were edited on their own would otherwise be silently written without the edit.
Status check_codes(const ParsedCodes& codes, const DecodedClip& original);

// --- legacy clip (format 13; json_legacy_import.cpp) ---

// A tag record's start or end, or an event's time, written null (not finite): the stored one.
struct LegacyTimeNull {
  bool event = false;
  std::size_t index = 0;
  unsigned field = 0;  // records: 0 start, 1 end
  std::string path;
};

struct ParsedLegacy {
  std::string path;  // of the member read ("/legacy_clip", "/legacy"), for errors
  LegacyClip clip;
  std::optional<float> frame_rate;  // null: the stored rate
  // Translation components written null (a NaN or infinity, which JSON cannot hold): the stored
  // value at the same place, as in "motion" (lists: 0 translations, 1 constant, 2 trajectory).
  std::vector<ParsedMotion::Null> nulls;
  std::vector<LegacyTimeNull> time_nulls;
  std::vector<std::optional<std::uint64_t>> clip_blocks;  // per tag record, informational
  // Entries marked "new": true (a track for a bone the clip has none of that kind for), per
  // list: constant rotations, rotations, constant translations, translations.
  std::array<std::vector<std::size_t>, 4> new_tracks;
};

// Versions 1 and 2: the "legacy_clip" member, its tracks and records.
Result<ParsedLegacy> read_legacy_clip(const Val& j, const Path& path);

// Versions 1 and 2: the "legacy_clip" tracks as the Clip a version 3 document states, checked
// against the original decode and its nulls resolved, for legacy_from_document.
// `before`: clip_from_legacy(original).
Result<Clip> clip_from_legacy_member(const ParsedLegacy& parsed, const LegacyClip& original, const Clip& before);

// Version 3: the "legacy" member, a Far Cry 2/3 block's own records (slots 6 and 7) beside its
// Clip; ParsedLegacy::clip holds only tag_table and events.
Result<ParsedLegacy> read_legacy_records(const Val& j, const Path& path);

// The one import route of a Far Cry 2/3 document, every version: its Clip (version 3: its bones
// checked like an 'aNi' clip's; versions 1 and 2: clip_from_legacy_member) onto the original
// decode by legacy_from_clip, as `mab edit` does, then the records (`records`, when given).
// What the Clip may hold and the format cannot is refused by name (docs/json-format.md).
// `duration_given`: the document's duration was not null.
Result<LegacyClip> legacy_from_document(const LegacyClip& original, const Clip& edited, bool duration_given,
                                        const ParsedLegacy* records, LegacyBridgeReport* report);

}  // namespace mab::interchange::json_in
