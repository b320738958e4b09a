// The "mabkit-clip" JSON writer as it was before the streaming one (an nlohmann DOM, then a
// pretty printer), kept verbatim as the oracle: the streaming writer must give the same bytes
// (docs/json-format.md: documents stay byte-identical, or the format version is bumped).
#pragma once

#include <mab/json.hpp>

#include <nlohmann/json.hpp>

#include <charconv>
#include <cmath>
#include <cstdio>
#include <exception>
#include <new>

namespace reference {
using namespace mab;

namespace {

using ojson = nlohmann::ordered_json;

std::string hex_bytes(std::span<const std::uint8_t> bytes) {
  static constexpr char digits[] = "0123456789abcdef";
  std::string out;
  out.reserve(bytes.size() * 2);
  for (const std::uint8_t b : bytes) {
    out.push_back(digits[b >> 4]);
    out.push_back(digits[b & 0x0F]);
  }
  return out;
}

std::string hex_u32(std::uint32_t v) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "0x%08X", v);
  return buf;
}

std::string hex_u64(std::uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%016llX", static_cast<unsigned long long>(v));
  return buf;
}

// Doubles are printed with the shortest text that reads back as that double, so a float
// widened to double would print as e.g. 0.70710676908493042. Picking the double
// nearest to the float's own shortest text prints 0.70710677 instead; it is kept only if
// narrowing it gives the float back (it always should; the check makes it certain).
ojson float_json(float f) {
  if (!std::isfinite(f)) return nullptr;
  char buf[64];
  const auto r = std::to_chars(buf, buf + sizeof buf, f);
  if (r.ec == std::errc()) {
    double d = 0;
    const auto p = std::from_chars(buf, r.ptr, d);
    if (p.ec == std::errc() && p.ptr == r.ptr && static_cast<float>(d) == f &&
        std::signbit(static_cast<float>(d)) == std::signbit(f))
      return d;
  }
  return static_cast<double>(f);
}

ojson quat_json(const Quat& q) {
  return ojson::array({float_json(q.x), float_json(q.y), float_json(q.z), float_json(q.w)});
}

std::string_view shape_name(AniShape s) {
  switch (s) {
    case AniShape::wd1: return "wd1";
    case AniShape::wdl: return "wdl";
    case AniShape::fc5: return "fc5";
  }
  return "wdl";
}

std::string_view size_rule_name(SizeRule r) {
  switch (r) {
    case SizeRule::file_minus_16: return "file_minus_16";
    case SizeRule::block_extent: return "block_extent";
    case SizeRule::verbatim: return "verbatim";
  }
  return "verbatim";
}

ojson ani_header_json(const AniHeader& h) {
  return ojson{{"shape", shape_name(h.shape)},
               {"skeleton_bone_crc", hex_u64(h.skeleton_bone_crc)},
               {"skeleton_path_id", hex_u64(h.skeleton_path_id)},
               {"signature", hex_bytes(h.signature)},
               {"flags", h.flags},
               {"animation_data_size", h.animation_data_size},
               {"duration_bits", h.duration_bits},
               {"frame_rate_bits", h.frame_rate_bits},
               {"bone_count_field", h.bone_count_field},
               {"data_counts", h.data_counts},
               {"counts_padding", h.counts_padding},
               {"offsets", h.offsets},
               {"padding_ps3", h.padding_ps3},
               {"last_frame", h.last_frame},
               {"tail_padding", h.tail_padding}};
}

ojson fc4_header_json(const Fc4Header& h) {
  return ojson{{"unknown_10", hex_bytes(h.unknown_10)},
               {"signature", hex_bytes(h.signature)},
               {"flags", h.flags},
               {"bone_count", h.bone_count},
               {"unknown_1e", h.unknown_1e},
               {"duration_bits", h.duration_bits},
               {"unknown_24", h.unknown_24},
               {"flag_table_offset", h.flag_table_offset},
               {"hash_table_offset", h.hash_table_offset},
               {"unknown_30", hex_bytes(h.unknown_30)},
               {"section_offsets", h.section_offsets}};
}

ojson legacy_header_json(const LegacyHeader& h) {
  return ojson{{"mask_words", h.mask_words},
               {"masks", h.masks},
               {"trajectory_reference_bits", h.trajectory_reference_bits},
               {"per_loop_rotation_bits", h.per_loop_rotation_bits},
               {"tag", hex_bytes(h.tag)},
               {"duration_bits", h.duration_bits},
               {"sections", h.sections},
               {"pointer_slot", h.pointer_slot}};
}

ojson block_json(const Block& b) {
  ojson j;
  j["original_base"] = b.original_base;
  if (const auto* a = b.ani()) {
    j["layout"] = "ani";
    j["header"] = ani_header_json(*a);
  } else if (const auto* f = b.fc4()) {
    j["layout"] = "fc4";
    j["header"] = fc4_header_json(*f);
  } else if (const auto* l = b.legacy()) {
    j["layout"] = "legacy";
    j["header"] = legacy_header_json(*l);
  }
  ojson bones = ojson::array();
  for (const auto& bone : b.bones) bones.push_back({{"hash", hex_u32(bone.hash)}, {"flags", bone.flags}});
  j["bones"] = std::move(bones);
  ojson segments = ojson::array();
  for (const auto& s : b.segments) {
    ojson js{{"original_offset", s.original_offset}, {"bytes", hex_bytes(s.bytes)}};
    if (s.child_block >= 0) js["child_block"] = s.child_block;
    segments.push_back(std::move(js));
  }
  j["segments"] = std::move(segments);
  j["slot_segment"] = b.slot_segment;
  j["size_rule"] = size_rule_name(b.size_rule);
  j["parent"] = b.parent;
  return j;
}

ojson container_json(const Container& c) {
  ojson j;
  j["variant"] = c.variant ? std::string(c.variant->short_name) : std::string();
  j["header"] = {
      {"magic_word", c.header.magic_word}, {"checksum", c.header.checksum}, {"reserved", hex_bytes(c.header.reserved)}};
  j["original_size"] = c.original_size;
  if (c.is_opaque()) {
    j["opaque_body"] = hex_bytes(c.opaque_body);
    j["opaque_reason"] = c.opaque_reason;
  } else {
    ojson blocks = ojson::array();
    for (const auto& b : c.blocks) blocks.push_back(block_json(b));
    j["blocks"] = std::move(blocks);
  }
  return j;
}

ojson clip_json(const Clip& clip) {
  ojson j;
  j["key_rate"] = std::isfinite(clip.key_rate) ? ojson(clip.key_rate) : ojson(nullptr);
  j["duration"] = float_json(clip.duration);
  j["key_times"] = clip.key_times;
  ojson bones = ojson::array();
  for (const auto& b : clip.bones) {
    ojson jb;
    jb["hash"] = hex_u32(b.hash);
    if (!b.name.empty()) jb["name"] = b.name;
    jb["flags"] = b.flags;
    switch (b.kind()) {
      case BoneKind::constant: jb["constant"] = quat_json(b.constant); break;
      case BoneKind::animated: {
        ojson keys = ojson::array();
        for (const auto& q : b.keys) keys.push_back(quat_json(q));
        jb["keys"] = std::move(keys);
        break;
      }
      case BoneKind::none: break;
    }
    bones.push_back(std::move(jb));
  }
  j["bones"] = std::move(bones);
  return j;
}

// docs/motion.md ("motion", docs/json-format.md): written when something beyond rotations decoded.
bool has_motion(const DecodedClip& d) {
  const auto& e = d.evidence;
  return e.translations.accepted() || e.constant_translations.accepted() || e.root_rotations.accepted() ||
         e.root_translations.accepted() || e.parts.accepted();
}

ojson vec3_json(const Vec3& v) {
  ojson j = ojson::array();
  for (const float f : v) j.push_back(float_json(f));
  return j;
}

ojson motion_json(const DecodedClip& d) {
  const auto& e = d.evidence;
  const Clip& c = d.clip;
  ojson j;
  j["evidence"] = {{"translations", e.translations.text()},
                   {"constant_translations", e.constant_translations.text()},
                   {"root_rotations", e.root_rotations.text()},
                   {"root_translations", e.root_translations.text()},
                   {"parts", e.parts.text()}};
  if (e.translations.accepted()) {
    ojson list = ojson::array();
    for (std::size_t i = 0; i < c.bones.size(); ++i) {
      if (c.bones[i].translations.empty()) continue;
      ojson keys = ojson::array();
      for (const auto& v : c.bones[i].translations) keys.push_back(vec3_json(v));
      list.push_back({{"bone", i}, {"hash", hex_u32(c.bones[i].hash)}, {"keys", std::move(keys)}});
    }
    j["translations"] = std::move(list);
  }
  if (e.constant_translations.accepted()) {
    ojson list = ojson::array();
    for (std::size_t i = 0; i < c.bones.size(); ++i)
      if (c.bones[i].constant_translation)
        list.push_back({{"bone", i},
                        {"hash", hex_u32(c.bones[i].hash)},
                        {"translation", vec3_json(*c.bones[i].constant_translation)}});
    j["constant_translations"] = std::move(list);
  }
  if (e.root_rotations.accepted() || e.root_translations.accepted()) {
    ojson rm = ojson::object();
    if (e.root_rotations.accepted()) {
      ojson list = ojson::array();
      for (const auto& q : c.root_motion.rotations) list.push_back(quat_json(q));
      rm["rotations"] = std::move(list);
    }
    if (e.root_translations.accepted()) {
      ojson list = ojson::array();
      for (const auto& v : c.root_motion.translations) list.push_back(vec3_json(v));
      rm["translations"] = std::move(list);
    }
    j["root_motion"] = std::move(rm);
  }
  if (e.parts.accepted()) {
    ojson list = ojson::array();
    for (const auto& p : c.parts)
      list.push_back({{"start", float_json(p.start)},
                      {"end", float_json(p.end)},
                      {"parent", hex_u32(p.parent_hash)},
                      {"attachment", hex_u32(p.attachment_hash)},
                      {"type", p.type},
                      {"nested_block", p.nested_block >= 0 ? ojson(p.nested_block) : ojson(nullptr)}});
    j["parts"] = std::move(list);
  }
  return j;
}

// Only what the stream stores: signs when cflags bit 3 is set, F raw values per varying
// component and none for a constant one (F = keys in the chunk).
// `d` is the container's own decode: its key count gives each chunk's F even when the
// clip being exported has been edited.
ojson codes_json(const DecodedClip& d) {
  ojson j;
  ojson constants = ojson::array();
  for (const auto& c : d.constant_codes) constants.push_back(hex_bytes(c));
  j["constant_codes"] = std::move(constants);
  const auto key_count = static_cast<std::uint32_t>(d.clip.key_count());
  ojson chunks = ojson::array();
  for (std::size_t ci = 0; ci < d.rotations.chunks.size(); ++ci) {
    const unsigned keys = chunk_key_count(key_count, ci);
    ojson chunk = ojson::array();
    for (const auto& codes : d.rotations.chunks[ci]) {
      ojson jc;
      jc["cflags"] = codes.cflags;
      if (codes.has_signs()) jc["signs"] = codes.signs;
      jc["headers"] = codes.headers;
      ojson raw = ojson::array();
      for (unsigned comp = 0; comp < 3; ++comp) {
        ojson values = ojson::array();
        if (!codes.is_constant(comp))
          for (unsigned f = 0; f < keys && f < 8; ++f) values.push_back(codes.raw[comp][f]);
        raw.push_back(std::move(values));
      }
      jc["raw"] = std::move(raw);
      chunk.push_back(std::move(jc));
    }
    chunks.push_back(std::move(chunk));
  }
  j["rotations"] = {{"chunks", std::move(chunks)}, {"tail", hex_bytes(d.rotations.tail)}};
  return j;
}

// Pretty printing that stays readable for clips: an array of scalars (key times, a
// quaternion, a code's header words) stays on one line, and so does any value that fits
// in `width` columns; everything else is spread over indented lines.
constexpr std::size_t width = 100;

bool is_scalar(const ojson& j) { return !j.is_array() && !j.is_object(); }

// nlohmann prints doubles with Grisu2, which round-trips but is not always the shortest
// text (0.7476421599999999 for 0.74764216); std::to_chars is. A ".0" keeps whole numbers
// floating point, so -0.0 does not read back as the integer 0.
void append_number(double d, std::string& out) {
  char buf[64];
  const auto r = std::to_chars(buf, buf + sizeof buf, d);
  std::string_view text(buf, static_cast<std::size_t>(r.ptr - buf));
  if (r.ec != std::errc() || !std::isfinite(d)) {
    out += ojson(d).dump();
    return;
  }
  out += text;
  if (text.find_first_of(".e") == std::string_view::npos) out += ".0";
}

void append_inline(const ojson& j, std::string& out) {
  if (j.is_number_float()) {
    append_number(j.get<double>(), out);
    return;
  }
  if (is_scalar(j)) {
    out += j.dump();
    return;
  }
  const bool arr = j.is_array();
  out += arr ? '[' : '{';
  bool first = true;
  for (auto it = j.begin(); it != j.end(); ++it) {
    if (!first) out += ", ";
    first = false;
    if (!arr) {
      out += ojson(it.key()).dump();
      out += ": ";
    }
    append_inline(*it, out);
  }
  out += arr ? ']' : '}';
}

// Depth is bounded by the schema (at most 7 levels), not by input.
void append_pretty(const ojson& j, std::string& out, std::size_t indent) {
  if (is_scalar(j) || j.empty()) {
    append_inline(j, out);
    return;
  }
  const bool arr = j.is_array();
  bool scalars_only = arr;
  for (const auto& e : j) scalars_only = scalars_only && is_scalar(e);
  std::string line;
  if (!scalars_only) append_inline(j, line);
  if (scalars_only || indent + line.size() <= width) {
    if (scalars_only) append_inline(j, out);
    else out += line;
    return;
  }
  out += arr ? "[\n" : "{\n";
  bool first = true;
  for (auto it = j.begin(); it != j.end(); ++it) {
    if (!first) out += ",\n";
    first = false;
    out.append(indent + 2, ' ');
    if (!arr) {
      out += ojson(it.key()).dump();
      out += ": ";
    }
    append_pretty(*it, out, indent + 2);
  }
  out += '\n';
  out.append(indent, ' ');
  out += arr ? ']' : '}';
}

std::string render(const ojson& doc) {
  std::string out;
  append_pretty(doc, out, 0);
  out += '\n';
  return out;
}

ojson document_head(std::size_t block, std::uint32_t version) {
  ojson doc;
  doc["format"] = json_format_name;
  doc["version"] = version;
  doc["block"] = block;
  return doc;
}

Error resource_error(const char* what) { return make_error(ErrorCode::invalid_argument, no_offset, "json", what); }

}  // namespace

// Version 1 as the DOM writer wrote it; version 2 is the same document without "codes" unless
// `codes` asks for them (docs/json-format.md).
inline Result<std::string> export_json(const DecodedClip& d, std::uint32_t version = 1, bool codes = false) {
  if (d.block >= d.container.blocks.size())
    return make_error(ErrorCode::invalid_argument, no_offset, "block",
                      "block " + std::to_string(d.block) + " does not exist");
  // The container is the truth for the original (import checks the codes against it), so
  // the codes come from decoding it rather than from `d`, which may hold an edited clip.
  auto original = decode_clip(d.container, d.block);
  if (!original) return std::move(original).error();
  try {
    ojson doc = document_head(d.block, version);
    doc["clip"] = clip_json(d.clip);
    if (has_motion(d)) doc["motion"] = motion_json(d);
    if (version == 1 || codes) doc["codes"] = codes_json(*original);
    doc["container"] = container_json(d.container);
    return render(doc);
  } catch (const nlohmann::json::exception& e) {
    // Bone names are the only free text; nlohmann refuses to print invalid UTF-8.
    return make_error(ErrorCode::bad_value, no_offset, "json", e.what());
  } catch (const std::bad_alloc&) {
    return resource_error("out of memory");
  }
}

inline Result<std::string> export_json(const Container& c, std::string_view reason, std::uint32_t version = 1) {
  try {
    ojson doc = document_head(0, version);
    if (!reason.empty()) doc["clip_absent"] = std::string(reason);
    doc["container"] = container_json(c);
    return render(doc);
  } catch (const nlohmann::json::exception& e) {
    return make_error(ErrorCode::bad_value, no_offset, "json", e.what());
  } catch (const std::bad_alloc&) {
    return resource_error("out of memory");
  }
}

}  // namespace reference
