// JSON interchange ("mabkit-clip", docs/json-format.md): a lossless text form of a .mab.
//
// A document holds the whole container (every header field, float bit patterns, bone
// tables, section bytes as hex), the editable clip (key times, bones, quaternions as floats)
// and, on request, the exact rotation codes (a second view of the container's bytes). Floats are written so they read back to the same
// float. The container and its bytes are the truth for the original; the clip is the only
// part meant for editing: importing re-encodes it against the original, so an unedited
// document gives the input bytes back and an edited key changes only its chunk.
#pragma once

#include <mab/decode_clip.hpp>
#include <mab/edit_policy.hpp>
#include <mab/encode_clip.hpp>
#include <mab/file_io.hpp>
#include <mab/legacy.hpp>
#include <mab/legacy_bridge.hpp>

#include <cstdint>
#include <filesystem>
#include <span>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace mab {

inline constexpr std::string_view json_format_name = "mabkit-clip";
// Version 3 carries both families' tracks in "clip" (and "motion"): a Far Cry 2/3 block as the
// Clip of clip_from_legacy (legacy_bridge.hpp), its tag records and events under "legacy".
// Version 2 documents held a Far Cry 2/3 block as "legacy_clip" and leave out the "codes" view
// unless asked for it; version 1 always carries it. Import reads all three, a "legacy_clip" as
// the Clip a version 3 document states; export writes any (version 1 byte for byte as before).
inline constexpr std::uint32_t json_format_version = 3;
inline constexpr std::uint32_t json_format_oldest_version = 1;

struct JsonExportOptions {
  // json_format_oldest_version..json_format_version. Version 1 always carries the codes.
  std::uint32_t version = json_format_version;
  // Versions 2 and 3: also write the "codes" view of a decoded clip (for inspection; import checks
  // it against the container).
  bool codes = false;
  // Threads writing the bones and the rotation chunks of a large clip: 0 for one per
  // hardware thread, 1 for the calling thread only. The document is the same either way.
  unsigned threads = 0;
  // Below this many keys (over all bones) the calling thread writes everything: starting
  // threads would cost more than it saves.
  std::size_t parallel_min_keys = 20000;
  // Streaming (export_json with a JsonSink): text is handed over once this much is buffered,
  // between two elements of an array or object spread over lines.
  std::size_t piece_size = 256 * 1024;
};

// The whole document: container, `d.clip` (which may be an edited copy) and the codes if the
// options ask for them (then decoded from d.container, whatever d's own codes say).
Result<std::string> export_json(const DecodedClip& d, const JsonExportOptions& options = {});

// Receives a document in pieces, in order (about JsonExportOptions::piece_size each); false stops the export with
// io_error. Errors of the clip itself (a bone name that is not UTF-8) are found before the
// first piece, so a sink sees either a whole document or an io_error it caused.
using JsonSink = std::function<bool(std::string_view)>;

// The same document, streamed: memory stays at a few buffers whatever the clip's size.
Status export_json(const DecodedClip& d, const JsonSink& sink, const JsonExportOptions& options = {});

// Container only, for files whose block does not decode (legacy, opaque, FC4 without
// rotations, damaged streams). `reason` is recorded as "clip_absent" for the reader.
Result<std::string> export_json(const Container& c, std::string_view reason = {},
                                const JsonExportOptions& options = {});
Status export_json(const Container& c, std::string_view reason, const JsonSink& sink,
                   const JsonExportOptions& options = {});

// A Far Cry 2/3 block (format 13): the container and `clip` (decode_legacy_clip's result for
// block clip.block, possibly edited): version 3 as "clip" (clip_from_legacy), "motion" and
// "legacy", version 1 and 2 as "legacy_clip". Translations that are not finite are written
// null, which import reads as "the stored value".
Result<std::string> export_json(const Container& c, const LegacyClip& clip, const JsonExportOptions& options = {});
Status export_json(const Container& c, const LegacyClip& clip, const JsonSink& sink,
                   const JsonExportOptions& options = {});

// What export_block_json wrote.
struct JsonExportReport {
  bool clip = false;        // the block's tracks decoded: "clip" (version 2: "legacy_clip" for Far Cry 2/3)
  std::string clip_absent;  // otherwise: why not (also the document's "clip_absent")
};

// The document of block `block` of `c` as stored: its clip when it decodes, else the container
// alone with the reason. The same bytes as export_json of decode_clip's (or
// decode_legacy_clip's) result, made faster: one decode serves
// the clip and the codes, and the keys are decoded bone by bone as they are written, never all
// held at once. `block` must exist (0 for a file kept opaque).
Result<std::string> export_block_json(const Container& c, std::size_t block, const JsonExportOptions& options = {},
                                      JsonExportReport* report = nullptr);
Status export_block_json(const Container& c, std::size_t block, const JsonSink& sink,
                         const JsonExportOptions& options = {}, JsonExportReport* report = nullptr);

// The inverse of export_json(const DecodedClip&): container and codes as the document's
// bytes decode (the document's "codes", when present, must agree with them), and the
// clip as the document states it, its bones checked against the file's (docs/json-format.md
// "Bone identity"; a renamed bone carries ClipBone::renamed_from). For inspection: encoding
// goes through import_json_bytes, which encodes against the original clip. not_decodable if
// the document holds no clip.
// Every malformed document is a parse_error naming the JSON path (e.g.
// "/clip/bones/3/keys/7/2") and, for syntax errors, the byte offset in the text.
Result<DecodedClip> import_json(std::string_view text, const Limits& limits = default_limits);

// A Far Cry 2/3 document (version 3 "clip" of a legacy block, or a version 1/2 "legacy_clip"):
// the original container (as the written file reads back) and the document's tracks as
// encode_legacy_clip takes them: legacy_from_clip of its Clip (a "legacy_clip" read as one,
// nulls resolved), with its records. not_decodable for any other document.
struct LegacyDocument {
  Container container;
  LegacyClip clip;
};
Result<LegacyDocument> import_legacy_json(std::string_view text, const Limits& limits = default_limits);

// A document's text followed by zero bytes that the reader may read past its end, so that
// import parses it where it lies instead of copying it (a copy of a 7 MB document costs more
// than the rest of the parse on a machine where fresh memory is slow).
class PaddedJson {
 public:
  static constexpr std::size_t padding = 64;  // at least simdjson's SIMDJSON_PADDING
  explicit PaddedJson(std::vector<std::uint8_t> text);
  static Result<PaddedJson> read_file(const std::filesystem::path& path, const Limits& limits = default_limits);
  std::string_view text() const noexcept {
    return {reinterpret_cast<const char*>(bytes_.data()), bytes_.size() - padding};
  }
  std::span<const std::uint8_t> bytes() const noexcept { return std::span(bytes_).first(bytes_.size() - padding); }

 private:
  PaddedJson() = default;
  std::vector<std::uint8_t> bytes_;  // the text, then `padding` zeros
};

struct JsonImport {
  std::vector<std::uint8_t> bytes;  // the .mab to write
  bool clip_encoded = false;        // false: container-only document, written as stored
  EncodeReport report;              // of encode_clip when clip_encoded
  bool legacy_encoded = false;      // a Far Cry 2/3 document, written by encode_legacy_clip
  LegacyEncodeReport legacy_report;
  LegacyBridgeReport bridge;      // Far Cry 2/3: what legacy_from_clip kept and edited
  std::size_t original_size = 0;  // of the file the document's container stands for
  bool identical = false;         // `bytes` are that file's, byte for byte
  // That file's bytes: `mab import` finds the file by them, which only --in-place replaces.
  std::vector<std::uint8_t> original;
};

struct JsonImportOptions {
  // How the clip is encoded: by default the error policy every command shares (edit_policy,
  // decision 21). A legacy clip gets legacy_edit_policy(encode.max_error_deg) (no refusal when
  // encode.refuse_above_max_error is off).
  EncodeOptions encode = edit_policy();
  // The file the document must come from (`mab import --template`): a document whose container
  // is another file's (variant, blocks, the block's bones, duration or key count) is refused
  // with the differences (invalid_argument, field "template").
  const Container* template_file = nullptr;
  // Write a document that clearly holds another clip (see docs/json-format.md "Another
  // clip's document"): not --template's file, or a clip that keeps none of its file's
  // rotations, key times and duration (`mab import --allow-other-clip`).
  bool allow_other_clip = false;
};

// The bytes a document stands for: encode_clip(original, document's clip) when it has a
// clip; for a Far Cry 2/3 block encode_legacy_clip(original, block, legacy_from_clip(original,
// document's clip)), the route of `mab edit` (a version 1/2 "legacy_clip" read as that clip),
// the bound the sparse key writer's; write_container otherwise. The clip's bones must be the file's
// (docs/json-format.md "Bone identity"). Bytes that would not read back (and write back
// unchanged) are refused, so a hand-edited container cannot produce an unreadable file.
Result<JsonImport> import_json_bytes(std::string_view text, const Limits& limits = default_limits,
                                     const JsonImportOptions& options = {});
// The same, reading the text in place.
Result<JsonImport> import_json_bytes(const PaddedJson& text, const Limits& limits = default_limits,
                                     const JsonImportOptions& options = {});

}  // namespace mab
