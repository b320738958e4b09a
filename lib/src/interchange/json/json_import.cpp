// "mabkit-clip" JSON -> .mab (docs/json-format.md). Every field is type- and range-checked
// before use; errors are parse_error naming the JSON path. The document is parsed with
// simdjson (Debian libsimdjson-dev); a text simdjson rejects is parsed again with nlohmann
// only to report the syntax error with nlohmann's line, column and byte offset.
#include <mab/json.hpp>

#include <mab/edit.hpp>
#include <mab/legacy_bridge.hpp>
#include <mab/text.hpp>

#include "encode/encode_common.hpp"
#include "interchange/json/json_import_parts.hpp"
#include "interchange/json/json_motion.hpp"

#include <nlohmann/json.hpp>
#include <simdjson.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <initializer_list>
#include <limits>
#include <new>
#include <optional>
#include <variant>

namespace mab {

namespace {

using namespace interchange::json_in;

// --- document ---

struct ParsedDocument {
  Container container;
  std::size_t block = 0;
  std::optional<ParsedClip> clip;
  std::optional<ParsedCodes> codes;
  std::optional<interchange::ParsedMotion> motion;  // docs/motion.md, json_motion.hpp
  // A Far Cry 2/3 block: its Clip (version 3 "clip"; versions 1 and 2: `legacy`'s tracks) goes
  // through legacy_from_document. `legacy`: a version 1/2 "legacy_clip" (tracks and records)
  // or a version 3 "legacy" (records alone).
  bool legacy_block = false;
  std::optional<ParsedLegacy> legacy;
};

Error syntax_error(const nlohmann::json::parse_error& e) {
  std::string what = e.what();
  // Drop nlohmann's "[json.exception.parse_error.101] " tag; keep line, column and reason.
  if (const auto close = what.find("] "); what.rfind("[json.exception.", 0) == 0 && close != std::string::npos)
    what.erase(0, close + 2);
  Error err = perr("json text", what);
  err.offset = e.byte > 0 ? e.byte - 1 : 0;
  return err;
}

// simdjson parses; a text it rejects goes to nlohmann, whose message names the line, column
// and byte. (Both reject malformed JSON; simdjson alone rejects integers beyond 64 bits and
// invalid UTF-8, which then get simdjson's message.)
Error text_error(std::string_view text, simdjson::error_code code) {
  try {
    const auto parsed = nlohmann::json::parse(text.begin(), text.end());
    (void)parsed;
  } catch (const nlohmann::json::parse_error& e) {
    return syntax_error(e);
  } catch (const std::exception&) {}
  return perr("json text", simdjson::error_message(code));
}

// `padded`: text is followed by PaddedJson::padding readable bytes, so simdjson reads it in place.
Result<ParsedDocument> parse_document(std::string_view text, const Limits& limits, bool padded) {
  // A UTF-8 byte order mark (Windows Notepad writes one) is no part of the JSON text, which
  // a parser may ignore (RFC 8259, 8.1); simdjson does not, so it is skipped here.
  const std::string_view bom = "\xEF\xBB\xBF";
  const std::string_view json = text.substr(text.starts_with(bom) ? bom.size() : 0);
  // An empty text (possibly with no buffer at all) is a syntax error; simdjson copies its
  // input and must not be handed a null pointer.
  if (json.empty()) return text_error(text, simdjson::EMPTY);
  if (json.starts_with("\xFF\xFE") || json.starts_with("\xFE\xFF"))
    return make_error(ErrorCode::parse_error, 0, "json text",
                      "the text is UTF-16 (it starts with a UTF-16 byte order mark): save it as UTF-8");
  simdjson::dom::parser parser;
  element root_element;
  if (const auto code = parser.parse(json.data(), json.size(), !padded).get(root_element); code != simdjson::SUCCESS)
    return text_error(text, code);
  const Val root{root_element};
  const Path& top = root_path;
  if (!root.is_object()) return perr(top, "expected an object, found " + describe(root));
  // Format and version first: a later version may use fields this one does not know.
  MAB_ASSIGN(const Val format, need(root, top, "format"));
  if (!format.is_string() || format.string() != json_format_name)
    return perr(at(top, "format"), "expected \"" + std::string(json_format_name) + "\", found " + describe(format) +
                                       ": not a mabkit clip document");
  MAB_ASSIGN(const Val version, need(root, top, "version"));
  MAB_ASSIGN(const std::uint64_t v, read_uint(version, at(top, "version"), std::numeric_limits<std::uint64_t>::max()));
  if (v < json_format_oldest_version || v > json_format_version)
    return make_error(ErrorCode::unsupported_version, no_offset, at(top, "version").str(),
                      "document version " + std::to_string(v) + "; this mabkit reads versions " +
                          std::to_string(json_format_oldest_version) + " to " + std::to_string(json_format_version));
  MAB_TRY(check_object(
      root, top,
      {"format", "version", "block", "clip", "codes", "legacy_clip", "container", "clip_absent", "motion", "legacy"}));
  // Version 3 holds both families' tracks in "clip" (docs/json-format.md, "Versions").
  if (v >= 3 && maybe(root, "legacy_clip"))
    return perr(at(top, "legacy_clip"),
                "a version 3 document holds Far Cry 2/3 tracks in \"clip\"; \"legacy_clip\" is "
                "read in version 1 and 2 documents only");
  if (v < 3 && maybe(root, "legacy"))
    return perr(at(top, "legacy"), "unknown field in a version " + std::to_string(v) + " document (version 3 has it)");
  ParsedDocument doc;
  MAB_ASSIGN(const Val block, need(root, top, "block"));
  MAB_ASSIGN(const std::uint64_t bi, read_uint(block, at(top, "block"), limits.max_blocks));
  doc.block = static_cast<std::size_t>(bi);
  if (const auto absent = maybe(root, "clip_absent")) {
    MAB_TRY(read_string(*absent, at(top, "clip_absent")));
  }
  MAB_ASSIGN(const Val container, need(root, top, "container"));
  MAB_ASSIGN(doc.container, read_container_json(container, at(top, "container"), limits));
  if (maybe(root, "clip") && maybe(root, "legacy_clip"))
    return perr(at(top, "legacy_clip"), "a document holds \"clip\" or \"legacy_clip\", not both");
  if (const auto clip = maybe(root, "clip")) {
    if (doc.block >= doc.container.blocks.size())
      return perr(at(top, "block"), "block " + std::to_string(doc.block) + " does not exist (the container has " +
                                        std::to_string(doc.container.blocks.size()) + ")");
    MAB_ASSIGN(doc.clip, read_clip(*clip, at(top, "clip"), limits));
    doc.legacy_block = v >= 3 && doc.container.blocks[doc.block].legacy() != nullptr;
  }
  if (const auto records = maybe(root, "legacy")) {
    if (!doc.legacy_block)
      return perr(at(top, "legacy"), "the records of a Far Cry 2/3 clip; a document without one's \"clip\" has none");
    MAB_ASSIGN(doc.legacy, read_legacy_records(*records, at(top, "legacy")));
  }
  if (const auto codes = maybe(root, "codes")) {
    if (!doc.clip) return perr(at(top, "codes"), "codes describe a decoded clip; a document without \"clip\" has none");
    if (doc.legacy_block)
      return perr(at(top, "codes"), "codes are an 'aNi' clip's (format 9); a Far Cry 2/3 clip's are in its container");
    MAB_ASSIGN(doc.codes, read_codes(*codes, at(top, "codes"), limits));
  }
  if (const auto motion = maybe(root, "motion")) {
    if (!doc.clip)
      return perr(at(top, "motion"), "motion belongs to a decoded clip; a document without \"clip\" has none");
    MAB_ASSIGN(doc.motion, interchange::parse_motion(*motion, at(top, "motion"), limits));
  }
  if (const auto legacy = maybe(root, "legacy_clip")) {
    if (doc.block >= doc.container.blocks.size() || doc.container.blocks[doc.block].legacy() == nullptr)
      return perr(at(top, "block"), "block " + std::to_string(doc.block) + " is not a legacy (Far Cry 2/3) clip");
    MAB_ASSIGN(doc.legacy, read_legacy_clip(*legacy, at(top, "legacy_clip")));
    doc.legacy_block = true;
  }
  return doc;
}

Result<ParsedDocument> parse_document_safely(std::string_view text, const Limits& limits, bool padded = false) {
  try {
    return parse_document(text, limits, padded);
  } catch (const std::bad_alloc&) {
    return make_error(ErrorCode::limit_exceeded, no_offset, "json", "out of memory reading the document");
  }
}

// The container as a reader would see it in the written file: decode then works only on
// containers the reader can produce, whatever the document held.
Result<Container> reread_container(const ParsedDocument& doc, const Limits& limits) {
  MAB_ASSIGN(const auto bytes, write_container(doc.container));
  auto reread = read_container(bytes, limits);
  if (!reread) {
    Error e = std::move(reread).error();
    e.detail = "the document's container does not read back: " + e.detail;
    return e;
  }
  if (doc.block >= reread->blocks.size())
    return perr("/block", "block " + std::to_string(doc.block) + " does not exist in the written file");
  return reread;
}

Result<DecodedClip> decode_original(const ParsedDocument& doc, const Limits& limits) {
  MAB_ASSIGN(Container reread, reread_container(doc, limits));
  MAB_ASSIGN(DecodedClip original, decode_clip(std::move(reread), doc.block, limits));
  if (doc.codes) MAB_TRY(check_codes(*doc.codes, original));
  return original;
}

// --- bone identity (decision 24, docs/json-format.md "Bone identity") ---

// Of a bone the file has, the document may change the bit depth of an animated bone and the
// rotation kind (its keys or constant must then match, which read_clip checks); bits 0x40 and
// 0x80 (format 5.3: translation-related, a guess) and the unused nibble of a bone without
// animated rotation are the file's.
// A Far Cry 2/3 bone (`ids`) has no flag byte: only the kind is the document's.
Status check_flags(const ClipBone& b, const ClipBone& o, const std::string& path, bool ids) {
  unsigned fixed = 0xC0;
  if (b.kind() == o.kind()) fixed |= 0x30;
  if ((b.kind() == o.kind() && b.kind() != BoneKind::animated) || ids) fixed |= 0x0F;
  const unsigned changed = (b.flags ^ o.flags) & fixed;
  if (changed == 0) return {};
  const std::string text = std::to_string(b.flags) + " (" + hex(b.flags, 2) + ") changes bit(s) " + hex(changed, 2) +
                           " of the file's flags " + hex(o.flags, 2) + " for this bone";
  if (ids)
    return perr(path, std::string(text) +
                          ": Far Cry 2/3 keys are 6-byte quaternions (format 13), only the rotation "
                          "kind (flags & 0x30, with keys or a constant to match) is editable");
  return perr(path, std::string(text) +
                        ": editable are the bit depth of an animated bone (flags & 0x0F) and the rotation kind "
                        "(flags & 0x30, with keys or a constant to match); the other bits are the file's");
}

// Every document bone is a bone of the file, found by its hash (position first, so duplicate
// hashes pair up in order), unless marked "new"; a hash the file lacks is a typo or another
// clip's bone, never silently a new bone (it would drop the old one and re-quantise).
Status check_identity(const ParsedClip& parsed, const Clip& original, bool ids) {
  const auto& bones = parsed.clip.bones;
  std::vector<bool> used(original.bones.size(), false);
  for (std::size_t i = 0; i < bones.size(); ++i) {
    const ClipBone& b = bones[i];
    const ParsedBoneId& id = parsed.ids[i];
    const std::string p = at(std::string("/clip/bones"), i);
    const int known = original.find_bone(b.hash);
    if (id.is_new) {
      if (known >= 0)
        return perr(at(p, "new"), hex(b.hash, 8) + " is a bone of the file (bone " + std::to_string(known) +
                                      "); \"new\" is for a bone it lacks");
      continue;
    }
    int o = -1;
    if (i < original.bones.size() && original.bones[i].hash == b.hash && !used[i]) o = static_cast<int>(i);
    for (std::size_t k = 0; o < 0 && k < original.bones.size(); ++k)
      if (!used[k] && original.bones[k].hash == b.hash) o = static_cast<int>(k);
    const std::string hp = at(p, id.hash_given ? "hash" : "name");
    if (o < 0 && known >= 0)
      return perr(hp, "bone " + hex(b.hash, 8) + " appears more often in the document than in the file");
    if (o < 0) {
      std::string detail = hex(b.hash, 8) + " is not a bone of the file";
      if (i < original.bones.size())
        detail += " (its bone " + std::to_string(i) + " is " + hex(original.bones[i].hash, 8) + ")";
      return perr(hp, detail +
                          ": to rename a bone keep its hash and add \"rename_to\" (or use {opt:rename_bone}); "
                          "to add a bone, mark it \"new\": true");
    }
    used[static_cast<std::size_t>(o)] = true;
    MAB_TRY(check_flags(b, original.bones[static_cast<std::size_t>(o)], at(p, "flags"), ids));
  }
  return {};
}

// "rename_to": the bone takes the new hash and remembers the old one, so encode_clip keeps its
// codes. No two bones of the result may share a hash a rename gave.
Status apply_renames(const ParsedClip& parsed, Clip& clip, bool ids) {
  for (std::size_t i = 0; i < clip.bones.size(); ++i) {
    const auto& to = parsed.ids[i].rename_to;
    if (!to) continue;
    ClipBone& b = clip.bones[i];
    const std::string p = at(at(std::string("/clip/bones"), i), "rename_to");
    if (ids && !to->name.empty())
      return perr(p, "Far Cry 2/3 bones are skeleton ids, not names (format 13): give the new id as a number");
    if (to->hash == b.hash) return perr(p, "the bone already has hash " + hex(to->hash, 8));
    b.renamed_from = b.hash;
    b.hash = to->hash;
    b.name = to->name;
  }
  // A Far Cry 2/3 bone both keyed and constant is two entries of one id (docs/json-format.md,
  // "Far Cry 2 and 3 in version 3"): both renamed from that id to one new id are still one bone.
  auto one_bone = [&](std::size_t i, std::size_t j) {
    return ids && parsed.ids[j].rename_to && clip.bones[i].renamed_from == clip.bones[j].renamed_from;
  };
  for (std::size_t i = 0; i < clip.bones.size(); ++i) {
    if (!parsed.ids[i].rename_to) continue;
    for (std::size_t j = 0; j < clip.bones.size(); ++j)
      if (j != i && clip.bones[j].hash == clip.bones[i].hash && !one_bone(i, j))
        return perr(at(at(std::string("/clip/bones"), i), "rename_to"),
                    "bone " + std::to_string(j) + " of the document has hash " + hex(clip.bones[i].hash, 8) + " too");
  }
  return {};
}

Result<Clip> edited_clip(const ParsedDocument& doc, const Clip& original) {
  const ParsedClip& parsed = *doc.clip;
  MAB_TRY(check_identity(parsed, original, doc.legacy_block));
  // Format 9.4: edited times increase; the file's own times come back as they are.
  if (parsed.clip.key_times != original.key_times)
    if (const auto k = first_unordered_key(parsed.clip.key_times))
      return perr("/clip/key_times/" + std::to_string(*k),
                  check_key_times(parsed.clip.key_times).error().detail + "; nothing written");
  Clip clip = parsed.clip;
  // null in the document: the stored value, bit for bit (it may be a NaN JSON cannot hold).
  if (!parsed.key_rate_given) clip.key_rate = original.key_rate;
  if (!parsed.duration_given) clip.duration = original.duration;
  MAB_TRY(doc.motion ? interchange::apply_motion(clip, *doc.motion, original)
                     : interchange::carry_original_motion(clip, original));
  MAB_TRY(apply_renames(parsed, clip, doc.legacy_block));
  return clip;
}

}  // namespace

Result<DecodedClip> import_json(std::string_view text, const Limits& limits) {
  MAB_ASSIGN(const ParsedDocument doc, parse_document_safely(text, limits));
  if (doc.legacy_block)
    return make_error(ErrorCode::not_decodable, no_offset, doc.clip ? "/clip" : "/legacy_clip",
                      "a Far Cry 2/3 clip: read it with import_legacy_json");
  if (!doc.clip)
    return make_error(ErrorCode::not_decodable, no_offset, "/clip",
                      "the document holds the container only (no \"clip\")");
  MAB_ASSIGN(DecodedClip d, decode_original(doc, limits));
  MAB_ASSIGN(d.clip, edited_clip(doc, d.clip));
  return d;
}

namespace {

// Hand-edited container fields (a signature, a header the reader rejects) can describe a
// file no reader accepts; refusing it here means import never writes a file mabkit cannot
// read back and write again unchanged.
Status check_reads_back(const std::vector<std::uint8_t>& bytes, const Limits& limits) {
  auto c = read_container(bytes, limits);
  if (!c) {
    Error e = std::move(c).error();
    e.detail = "the document describes a file that does not read back: " + e.detail;
    return e;
  }
  MAB_ASSIGN(const auto again, write_container(*c));
  if (again != bytes) {
    std::size_t at = 0;
    while (at < again.size() && at < bytes.size() && again[at] == bytes[at]) ++at;
    return make_error(ErrorCode::round_trip_mismatch, at, "bytes",
                      "the file the document describes does not write back unchanged");
  }
  return {};
}

// --- another clip's document (decision 24, docs/json-format.md "Another clip's document") ---

std::optional<std::uint32_t> duration_bits(const Block& b) {
  return std::visit([](const auto& h) { return std::optional<std::uint32_t>(h.duration_bits); }, b.header);
}

// The document's container must be --template's file: same variant and block count, and for
// the document's block the same bones (hashes, or the legacy masks), duration and key count.
// Other differences are edits of the container itself, which the document may hold.
Status check_template(const Container& doc, std::size_t block, const Container& tmpl) {
  std::vector<std::string> why;
  if (doc.variant != tmpl.variant)
    why.push_back("variant " + std::string(doc.variant ? doc.variant->short_name : "?") + ", the template's " +
                  std::string(tmpl.variant ? tmpl.variant->short_name : "?"));
  if (doc.blocks.size() != tmpl.blocks.size())
    why.push_back(std::to_string(doc.blocks.size()) + " block(s), the template " + std::to_string(tmpl.blocks.size()));
  if (why.empty() && block < doc.blocks.size()) {
    const Block& a = doc.blocks[block];
    const Block& t = tmpl.blocks[block];
    std::size_t missing = 0, extra = 0;
    for (const Bone& bone : t.bones)
      missing += std::none_of(a.bones.begin(), a.bones.end(), [&](const Bone& x) { return x.hash == bone.hash; });
    for (const Bone& bone : a.bones)
      extra += std::none_of(t.bones.begin(), t.bones.end(), [&](const Bone& x) { return x.hash == bone.hash; });
    if (missing + extra != 0)
      why.push_back("block " + std::to_string(block) + " lacks " + std::to_string(missing) +
                    " of the template's bones and has " + std::to_string(extra) + " it lacks");
    if (a.legacy() && t.legacy() && a.legacy()->masks != t.legacy()->masks)
      why.push_back("block " + std::to_string(block) + " animates other bones (its masks differ)");
    const auto da = duration_bits(a), dt = duration_bits(t);
    if (da != dt)
      why.push_back("block " + std::to_string(block) + " lasts " +
                    std::to_string(std::bit_cast<float>(da.value_or(0))) + " s, the template's " +
                    std::to_string(std::bit_cast<float>(dt.value_or(0))) + " s");
    if (a.ani() && t.ani() && a.ani()->last_frame != t.ani()->last_frame)
      why.push_back("block " + std::to_string(block) + " has last key " + std::to_string(a.ani()->last_frame) +
                    ", the template's " + std::to_string(t.ani()->last_frame));
  }
  if (why.empty()) return {};
  std::string text;
  for (const auto& w : why) text += (text.empty() ? "" : "; ") + w;
  return make_error(ErrorCode::invalid_argument, no_offset, "template",
                    "the document was exported from another file than the template: " + text +
                        "; nothing written (without {opt:template}, or with {opt:allow_other_clip}, the document's own "
                        "container is written)");
}

bool same_quat_bits(const Quat& a, const Quat& b) { return std::memcmp(&a, &b, sizeof a) == 0; }
std::array<std::uint32_t, 4> bits_of(const Quat& q) {
  return {std::bit_cast<std::uint32_t>(q.x), std::bit_cast<std::uint32_t>(q.y), std::bit_cast<std::uint32_t>(q.z),
          std::bit_cast<std::uint32_t>(q.w)};
}

// A clip that keeps none of its file's rotations (no constant and no key bit for bit), nor its
// key times, nor its duration, is another clip's pasted into this document: refused unless
// allowed. A clip with at least one of them is an edit of this one, however large.
Status check_same_clip(const Clip& clip, const Clip& original) {
  if (clip.key_times == original.key_times) return {};
  if (std::bit_cast<std::uint32_t>(clip.duration) == std::bit_cast<std::uint32_t>(original.duration)) return {};
  bool any_rotation = false;
  for (std::size_t i = 0; i < clip.bones.size(); ++i) {
    const ClipBone& b = clip.bones[i];
    const int o = encode::original_index(original, i, b);
    if (o < 0) continue;
    const ClipBone& ob = original.bones[static_cast<std::size_t>(o)];
    if (b.kind() == BoneKind::constant && ob.kind() == BoneKind::constant && same_quat_bits(b.constant, ob.constant))
      return {};
    if (b.kind() != BoneKind::animated || ob.kind() != BoneKind::animated) continue;
    std::vector<std::array<std::uint32_t, 4>> stored(ob.keys.size());
    for (std::size_t k = 0; k < ob.keys.size(); ++k) stored[k] = bits_of(ob.keys[k]);
    std::sort(stored.begin(), stored.end());
    for (const Quat& q : b.keys)
      if (std::binary_search(stored.begin(), stored.end(), bits_of(q))) return {};
  }
  for (const ClipBone& ob : original.bones) any_rotation = any_rotation || ob.kind() != BoneKind::none;
  if (!any_rotation) return {};
  char text[200];
  std::snprintf(text, sizeof text, "the file holds %zu keys over %g s, the clip %zu keys over %g s",
                original.key_count(), static_cast<double>(original.duration), clip.key_count(),
                static_cast<double>(clip.duration));
  return perr("/clip", std::string("none of the clip's rotations, key times or duration are its file's (") + text +
                           "): it looks like another clip's, pasted into this document; nothing written "
                           "({opt:allow_other_clip} writes it)");
}

// The container as the written file reads back and the edited tracks of a Far Cry 2/3 document:
// its Clip onto the original decode by legacy_from_clip, version 3's bones checked as an 'aNi'
// clip's (decision 24), version 1/2's "legacy_clip" read as that Clip (clip_from_legacy_member).
// `check_other`: refuse another clip's document (check_same_clip).
Result<LegacyDocument> legacy_edit(const ParsedDocument& doc, const Limits& limits, bool check_other,
                                   LegacyBridgeReport* report) {
  MAB_ASSIGN(Container reread, reread_container(doc, limits));
  MAB_ASSIGN(const LegacyClip original, decode_legacy_clip(reread, doc.block, limits));
  const Clip before = clip_from_legacy(original);
  MAB_ASSIGN(const Clip clip,
             doc.clip ? edited_clip(doc, before) : clip_from_legacy_member(*doc.legacy, original, before));
  if (check_other) MAB_TRY(check_same_clip(clip, before));
  MAB_ASSIGN(LegacyClip edited, legacy_from_document(original, clip, doc.clip && doc.clip->duration_given,
                                                     doc.legacy ? &*doc.legacy : nullptr, report));
  return LegacyDocument{std::move(reread), std::move(edited)};
}

Result<JsonImport> import_document(const ParsedDocument& doc, const Limits& limits, const JsonImportOptions& options) {
  JsonImport out;
  if (options.template_file && !options.allow_other_clip)
    MAB_TRY(check_template(doc.container, doc.block, *options.template_file));
  if (doc.legacy_block) {
    MAB_ASSIGN(const LegacyDocument e, legacy_edit(doc, limits, !options.allow_other_clip, &out.bridge));
    LegacyEncodeOptions lo = legacy_edit_policy(options.encode.max_error_deg);
    lo.refuse_above_max_error = options.encode.refuse_above_max_error;
    MAB_ASSIGN(const Container written, encode_legacy_clip(e.container, doc.block, e.clip, lo, &out.legacy_report));
    MAB_ASSIGN(out.bytes, write_container(written));
    out.legacy_encoded = true;
  } else if (!doc.clip) {
    MAB_ASSIGN(out.bytes, write_container(doc.container));
  } else {
    MAB_ASSIGN(const DecodedClip original, decode_original(doc, limits));
    MAB_ASSIGN(const Clip edited, edited_clip(doc, original.clip));
    if (!options.allow_other_clip) MAB_TRY(check_same_clip(edited, original.clip));
    MAB_ASSIGN(out.bytes, encode_clip(original, edited, options.encode, &out.report));
    out.clip_encoded = true;
  }
  MAB_TRY(check_reads_back(out.bytes, limits));
  return out;
}

}  // namespace

Result<LegacyDocument> import_legacy_json(std::string_view text, const Limits& limits) {
  MAB_ASSIGN(const ParsedDocument doc, parse_document_safely(text, limits));
  if (!doc.legacy_block)
    return make_error(ErrorCode::not_decodable, no_offset, doc.clip ? "/clip" : "/legacy_clip",
                      "the document holds no Far Cry 2/3 clip");
  return legacy_edit(doc, limits, false, nullptr);
}

static_assert(PaddedJson::padding >= simdjson::SIMDJSON_PADDING);

PaddedJson::PaddedJson(std::vector<std::uint8_t> text) : bytes_(std::move(text)) {
  bytes_.resize(bytes_.size() + padding);
}

Result<PaddedJson> PaddedJson::read_file(const std::filesystem::path& path, const Limits& limits) {
  PaddedJson out;
  MAB_ASSIGN(out.bytes_, mab::read_file(path, limits, padding));
  return out;
}

namespace {

// What the command's report compares the output with: the file the document came from.
Result<JsonImport> with_original(const ParsedDocument& doc, JsonImport out) {
  MAB_ASSIGN(out.original, write_container(doc.container));
  out.original_size = out.original.size();
  out.identical = out.original == out.bytes;
  return out;
}

}  // namespace

Result<JsonImport> import_json_bytes(std::string_view text, const Limits& limits, const JsonImportOptions& options) {
  MAB_ASSIGN(const ParsedDocument doc, parse_document_safely(text, limits));
  MAB_ASSIGN(JsonImport out, import_document(doc, limits, options));
  return with_original(doc, std::move(out));
}

Result<JsonImport> import_json_bytes(const PaddedJson& text, const Limits& limits, const JsonImportOptions& options) {
  MAB_ASSIGN(const ParsedDocument doc, parse_document_safely(text.text(), limits, true));
  MAB_ASSIGN(JsonImport out, import_document(doc, limits, options));
  return with_original(doc, std::move(out));
}

}  // namespace mab
