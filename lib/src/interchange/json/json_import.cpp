// "mabkit-clip" JSON -> .mab (docs/json-format.md). Every field is type- and range-checked
// before use; errors are parse_error naming the JSON path. The document is parsed with
// simdjson (Debian libsimdjson-dev); a text simdjson rejects is parsed again with nlohmann
// only to report the syntax error with nlohmann's line, column and byte offset.
#include <mab/json.hpp>

#include <mab/edit.hpp>

#include "encode/encode_common.hpp"
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

using simdjson::dom::element;
using simdjson::dom::element_type;

// A JSON path built only when an error names it: a parent link plus a key or an index.
// Paths live on the stack of the reader that walks the document.
struct Path {
  const Path* parent = nullptr;
  std::string_view key;
  std::size_t index = 0;
  bool is_index = false;

  std::string str() const {
    std::string out = parent ? parent->str() : std::string();
    if (!parent && key.empty() && !is_index) return out;
    out += '/';
    if (is_index)
      out += std::to_string(index);
    else
      out += key;
    return out;
  }
};

const Path root_path{};

Path at(const Path& path, std::string_view key) { return Path{&path, key, 0, false}; }
Path at(const Path& path, std::size_t index) { return Path{&path, {}, index, true}; }
// Paths of values already read (the codes check), as text.
std::string at(const std::string& path, std::string_view key) { return path + "/" + std::string(key); }
std::string at(const std::string& path, std::size_t index) { return path + "/" + std::to_string(index); }

Error perr(const Path& path, std::string detail) {
  const std::string p = path.str();
  return make_error(ErrorCode::parse_error, no_offset, p.empty() ? "/" : p, std::move(detail));
}
Error perr(const std::string& path, std::string detail) {
  return make_error(ErrorCode::parse_error, no_offset, path.empty() ? "/" : path, std::move(detail));
}

// A value as the JSON reader sees it, with the type names nlohmann used in messages.
struct Val {
  element e;

  element_type type() const { return e.type(); }
  bool is_object() const { return type() == element_type::OBJECT; }
  bool is_array() const { return type() == element_type::ARRAY; }
  bool is_string() const { return type() == element_type::STRING; }
  bool is_null() const { return type() == element_type::NULL_VALUE; }
  bool is_bool() const { return type() == element_type::BOOL; }
  bool boolean() const { return e.get_bool().value_unsafe(); }
  bool is_number() const {
    const auto t = type();
    return t == element_type::INT64 || t == element_type::UINT64 || t == element_type::DOUBLE;
  }
  bool is_number_integer() const { return type() == element_type::INT64 || type() == element_type::UINT64; }
  bool is_number_unsigned() const {
    return type() == element_type::UINT64 || (type() == element_type::INT64 && int64() >= 0);
  }
  std::int64_t int64() const { return e.get_int64().value_unsafe(); }
  std::uint64_t uint64() const {
    return type() == element_type::UINT64 ? e.get_uint64().value_unsafe() : static_cast<std::uint64_t>(int64());
  }
  double number() const { return e.get_double().value_unsafe(); }
  std::string_view string() const { return e.get_string().value_unsafe(); }
  simdjson::dom::array array() const { return e.get_array().value_unsafe(); }
  simdjson::dom::object object() const { return e.get_object().value_unsafe(); }
  std::size_t size() const {
    if (is_array()) return array().size();
    if (is_object()) return object().size();
    return 0;
  }
  bool empty() const { return size() == 0; }
  std::string dump() const { return simdjson::minify(e); }
  const char* type_name() const {
    switch (type()) {
      case element_type::OBJECT: return "object";
      case element_type::ARRAY: return "array";
      case element_type::STRING: return "string";
      case element_type::BOOL: return "boolean";
      case element_type::NULL_VALUE: return "null";
      default: return "number";
    }
  }
};

std::string describe(const Val& j) {
  std::string text = j.dump();
  if (text.size() > 40) text = text.substr(0, 37) + "...";
  return std::string(j.type_name()) + " " + text;
}

// Objects must hold only known fields, each once, so a misspelt or repeated field is an
// error, not ignored.
Status check_object(const Val& j, const Path& path, std::initializer_list<std::string_view> known) {
  if (!j.is_object()) return perr(path, "expected an object, found " + describe(j));
  const auto obj = j.object();
  for (auto it = obj.begin(); it != obj.end(); ++it) {
    const std::string_view k = it.key();
    if (std::find(known.begin(), known.end(), k) == known.end()) return perr(at(path, k), "unknown field");
    for (auto prev = obj.begin(); prev != it; ++prev)
      if (prev.key() == k) return perr(at(path, k), "the field appears twice");
  }
  return {};
}

std::optional<Val> maybe(const Val& obj, std::string_view key) {
  element v;
  if (obj.object().at_key(key).get(v) != simdjson::SUCCESS) return std::nullopt;
  return Val{v};
}

Result<Val> need(const Val& obj, const Path& path, std::string_view key) {
  auto j = maybe(obj, key);
  if (!j) return perr(at(path, key), "missing field");
  return *j;
}

Status check_array(const Val& j, const Path& path, std::size_t max_size) {
  if (!j.is_array()) return perr(path, "expected an array, found " + describe(j));
  if (j.size() > max_size)
    return perr(path, std::to_string(j.size()) + " entries exceed the limit of " + std::to_string(max_size));
  return {};
}

Status check_size(const Val& j, const Path& path, std::size_t size) {
  if (!j.is_array()) return perr(path, "expected an array, found " + describe(j));
  if (j.size() != size)
    return perr(path, "expected " + std::to_string(size) + " entries, found " + std::to_string(j.size()));
  return {};
}

// Calls f(index, value) for each element of an array (simdjson arrays are walked, not indexed).
template <class F>
Status each(const Val& j, F&& f) {
  std::size_t i = 0;
  for (const element e : j.array()) {
    MAB_TRY(f(i, Val{e}));
    ++i;
  }
  return {};
}

int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// Integers are JSON numbers or "0x"-prefixed hex strings (hashes and 64-bit fields are
// written as hex; 64-bit values in numbers lose precision in many JSON tools).
Result<std::uint64_t> read_uint(const Val& j, const Path& path, std::uint64_t max) {
  std::uint64_t v = 0;
  if (j.is_number_unsigned()) {
    v = j.uint64();
  } else if (j.is_string()) {
    const std::string_view s = j.string();
    if (s.size() < 3 || s.size() > 18 || s[0] != '0' || (s[1] != 'x' && s[1] != 'X'))
      return perr(path, "expected an integer or a \"0x\" hex string, found " + describe(j));
    for (std::size_t i = 2; i < s.size(); ++i) {
      const int d = hex_digit(s[i]);
      if (d < 0) return perr(path, "expected an integer or a \"0x\" hex string, found " + describe(j));
      v = (v << 4) | static_cast<std::uint64_t>(d);
    }
  } else {
    return perr(path, "expected a non-negative integer, found " + describe(j));
  }
  if (v > max) return perr(path, std::to_string(v) + " is above the maximum " + std::to_string(max));
  return v;
}

template <class T>
Result<T> read_u(const Val& j, const Path& path) {
  MAB_ASSIGN(const std::uint64_t v, read_uint(j, path, std::numeric_limits<T>::max()));
  return static_cast<T>(v);
}

template <class T>
Result<T> read_u_field(const Val& obj, const Path& path, std::string_view key) {
  MAB_ASSIGN(const Val j, need(obj, path, key));
  return read_u<T>(j, at(path, key));
}

Result<std::int64_t> read_int(const Val& j, const Path& path, std::int64_t min, std::int64_t max) {
  if (!j.is_number_integer()) return perr(path, "expected an integer, found " + describe(j));
  std::int64_t v = 0;
  if (j.type() == element_type::UINT64) {
    const auto u = j.uint64();
    if (u > static_cast<std::uint64_t>(max))
      return perr(path, std::to_string(u) + " is above the maximum " + std::to_string(max));
    v = static_cast<std::int64_t>(u);
  } else {
    v = j.int64();
  }
  if (v < min || v > max)
    return perr(path, std::to_string(v) + " is outside " + std::to_string(min) + ".." + std::to_string(max));
  return v;
}

// Floats are written widened to double with enough digits to read back exactly; any
// number is accepted and rounded to the nearest float.
Result<float> read_float(const Val& j, const Path& path) {
  if (!j.is_number()) return perr(path, "expected a number, found " + describe(j));
  const double d = j.number();
  // FLT_MAX prints as 3.4028235e+38, a little above it; values below the midpoint to the
  // next power of two round to it. Converting anything beyond FLT_MAX is undefined.
  constexpr double midpoint = 340282356779733661637539395458142568448.0;  // 2^128 - 2^103
  if (!std::isfinite(d) || std::fabs(d) >= midpoint) return perr(path, j.dump() + " is outside the float range");
  if (std::fabs(d) > static_cast<double>(std::numeric_limits<float>::max()))
    return std::copysign(std::numeric_limits<float>::max(), static_cast<float>(std::signbit(d) ? -1 : 1));
  return static_cast<float>(d);
}

Result<std::string> read_string(const Val& j, const Path& path) {
  if (!j.is_string()) return perr(path, "expected a string, found " + describe(j));
  return std::string(j.string());
}

// Byte strings are hex, two digits per byte. `budget` caps the bytes of the whole document.
Result<std::vector<std::uint8_t>> read_hex(const Val& j, const Path& path, std::uint64_t& budget) {
  if (!j.is_string()) return perr(path, "expected a hex string, found " + describe(j));
  const std::string_view s = j.string();
  if (s.size() % 2 != 0)
    return perr(path, "odd number of hex digits (" + std::to_string(s.size()) + ")");
  const std::uint64_t n = s.size() / 2;
  if (n > budget)
    return make_error(ErrorCode::limit_exceeded, no_offset, path.str(), "byte strings exceed the file size limit");
  budget -= n;
  std::vector<std::uint8_t> out(n);
  for (std::size_t i = 0; i < n; ++i) {
    const int hi = hex_digit(s[2 * i]), lo = hex_digit(s[2 * i + 1]);
    if (hi < 0 || lo < 0)
      return perr(path, "not a hex digit at character " + std::to_string(hi < 0 ? 2 * i : 2 * i + 1));
    out[i] = static_cast<std::uint8_t>((hi << 4) | lo);
  }
  return out;
}

template <std::size_t N>
Result<std::array<std::uint8_t, N>> read_hex_fixed(const Val& obj, const Path& path, std::string_view key) {
  MAB_ASSIGN(const Val j, need(obj, path, key));
  std::uint64_t budget = N;
  MAB_ASSIGN(const auto bytes, read_hex(j, at(path, key), budget));
  if (bytes.size() != N)
    return perr(at(path, key), "expected " + std::to_string(N) + " bytes (" + std::to_string(2 * N) +
                                   " hex digits), found " + std::to_string(bytes.size()));
  std::array<std::uint8_t, N> out{};
  std::copy(bytes.begin(), bytes.end(), out.begin());
  return out;
}

template <class Out>
Status read_u_elements(const Val& obj, const Path& path, std::string_view key, std::size_t size, Out& out) {
  MAB_ASSIGN(const Val j, need(obj, path, key));
  const Path p = at(path, key);
  MAB_TRY(check_size(j, p, size));
  return each(j, [&](std::size_t i, const Val& v) -> Status {
    MAB_ASSIGN(out[i], read_u<typename Out::value_type>(v, at(p, i)));
    return {};
  });
}

template <class T, std::size_t N>
Status read_u_array(const Val& obj, const Path& path, std::string_view key, std::array<T, N>& out) {
  return read_u_elements(obj, path, key, N, out);
}

template <class T>
Status read_u_vector(const Val& obj, const Path& path, std::string_view key, std::size_t size,
                     std::vector<T>& out) {
  out.resize(size);
  return read_u_elements(obj, path, key, size, out);
}

// --- container ---

struct ShapeCounts {
  std::size_t counts, offsets;
};
ShapeCounts shape_counts(AniShape s) { return s == AniShape::wd1 ? ShapeCounts{7, 11} : ShapeCounts{10, 12}; }

AniShape shape_for(Game g) {
  return g == Game::watch_dogs ? AniShape::wd1 : g == Game::far_cry_5 ? AniShape::fc5 : AniShape::wdl;
}

std::string_view shape_name(AniShape s) {
  return s == AniShape::wd1 ? "wd1" : s == AniShape::fc5 ? "fc5" : "wdl";
}

Result<AniHeader> read_ani_header(const Val& j, const Path& path, const VariantInfo& variant) {
  MAB_TRY(check_object(j, path,
                       {"shape", "skeleton_bone_crc", "skeleton_path_id", "signature", "flags",
                        "animation_data_size", "duration_bits", "frame_rate_bits", "bone_count_field",
                        "data_counts", "counts_padding", "offsets", "padding_ps3", "last_frame",
                        "tail_padding"}));
  AniHeader h;
  h.shape = shape_for(variant.game);
  MAB_ASSIGN(const Val shape, need(j, path, "shape"));
  MAB_ASSIGN(const std::string shape_text, read_string(shape, at(path, "shape")));
  if (shape_text != shape_name(h.shape))
    return perr(at(path, "shape"), "variant " + std::string(variant.short_name) + " has the \"" +
                                       std::string(shape_name(h.shape)) + "\" shape, not \"" + shape_text + "\"");
  const auto counts = shape_counts(h.shape);
  MAB_ASSIGN(h.skeleton_bone_crc, read_u_field<std::uint64_t>(j, path, "skeleton_bone_crc"));
  if (h.shape == AniShape::wd1 && h.skeleton_bone_crc > 0xFFFFFFFFu)
    return perr(at(path, "skeleton_bone_crc"), "Watch Dogs stores a 32-bit value here");
  MAB_ASSIGN(h.skeleton_path_id, read_u_field<std::uint64_t>(j, path, "skeleton_path_id"));
  MAB_ASSIGN(h.signature, read_hex_fixed<3>(j, path, "signature"));
  MAB_ASSIGN(h.flags, read_u_field<std::uint8_t>(j, path, "flags"));
  MAB_ASSIGN(h.animation_data_size, read_u_field<std::uint32_t>(j, path, "animation_data_size"));
  MAB_ASSIGN(h.duration_bits, read_u_field<std::uint32_t>(j, path, "duration_bits"));
  MAB_ASSIGN(h.frame_rate_bits, read_u_field<std::uint32_t>(j, path, "frame_rate_bits"));
  MAB_ASSIGN(h.bone_count_field, read_u_field<std::uint16_t>(j, path, "bone_count_field"));
  MAB_TRY(read_u_vector(j, path, "data_counts", counts.counts, h.data_counts));
  MAB_ASSIGN(h.counts_padding, read_u_field<std::uint16_t>(j, path, "counts_padding"));
  MAB_TRY(read_u_vector(j, path, "offsets", counts.offsets, h.offsets));
  MAB_ASSIGN(h.padding_ps3, read_u_field<std::uint32_t>(j, path, "padding_ps3"));
  MAB_ASSIGN(h.last_frame, read_u_field<std::uint16_t>(j, path, "last_frame"));
  MAB_ASSIGN(h.tail_padding, read_u_field<std::uint16_t>(j, path, "tail_padding"));
  return h;
}

Result<Fc4Header> read_fc4_header(const Val& j, const Path& path) {
  MAB_TRY(check_object(j, path,
                       {"unknown_10", "signature", "flags", "bone_count", "unknown_1e", "duration_bits",
                        "unknown_24", "flag_table_offset", "hash_table_offset", "unknown_30",
                        "section_offsets"}));
  Fc4Header h;
  MAB_ASSIGN(h.unknown_10, read_hex_fixed<8>(j, path, "unknown_10"));
  MAB_ASSIGN(h.signature, read_hex_fixed<3>(j, path, "signature"));
  MAB_ASSIGN(h.flags, read_u_field<std::uint8_t>(j, path, "flags"));
  MAB_ASSIGN(h.bone_count, read_u_field<std::uint16_t>(j, path, "bone_count"));
  MAB_ASSIGN(h.unknown_1e, read_u_field<std::uint16_t>(j, path, "unknown_1e"));
  MAB_ASSIGN(h.duration_bits, read_u_field<std::uint32_t>(j, path, "duration_bits"));
  MAB_ASSIGN(h.unknown_24, read_u_field<std::uint32_t>(j, path, "unknown_24"));
  MAB_ASSIGN(h.flag_table_offset, read_u_field<std::uint32_t>(j, path, "flag_table_offset"));
  MAB_ASSIGN(h.hash_table_offset, read_u_field<std::uint32_t>(j, path, "hash_table_offset"));
  MAB_ASSIGN(h.unknown_30, read_hex_fixed<16>(j, path, "unknown_30"));
  MAB_TRY(read_u_array(j, path, "section_offsets", h.section_offsets));
  return h;
}

Result<LegacyHeader> read_legacy_header(const Val& j, const Path& path, const VariantInfo& variant) {
  MAB_TRY(check_object(j, path,
                       {"mask_words", "masks", "trajectory_reference_bits", "per_loop_rotation_bits", "tag",
                        "duration_bits", "sections", "pointer_slot"}));
  LegacyHeader h;
  const std::uint32_t want_words = variant.game == Game::far_cry_2 ? 5 : 9;  // FC3 and Blood Dragon: 9
  MAB_ASSIGN(h.mask_words, read_u_field<std::uint32_t>(j, path, "mask_words"));
  if (h.mask_words != want_words)
    return perr(at(path, "mask_words"), std::string(variant.short_name) + " clips have " +
                                            std::to_string(want_words) + "-word masks");
  MAB_TRY(read_u_vector(j, path, "masks", 4 * std::size_t{h.mask_words}, h.masks));
  MAB_TRY(read_u_array(j, path, "trajectory_reference_bits", h.trajectory_reference_bits));
  MAB_TRY(read_u_array(j, path, "per_loop_rotation_bits", h.per_loop_rotation_bits));
  MAB_ASSIGN(h.tag, read_hex_fixed<4>(j, path, "tag"));
  MAB_ASSIGN(h.duration_bits, read_u_field<std::uint32_t>(j, path, "duration_bits"));
  {
    MAB_ASSIGN(const Val s, need(j, path, "sections"));
    const Path p = at(path, "sections");
    MAB_TRY(check_size(s, p, h.sections.size()));
    MAB_TRY(each(s, [&](std::size_t i, const Val& v) -> Status {
      MAB_ASSIGN(const std::int64_t n, read_int(v, at(p, i), std::numeric_limits<std::int32_t>::min(),
                                                std::numeric_limits<std::int32_t>::max()));
      h.sections[i] = static_cast<std::int32_t>(n);
      return {};
    }));
  }
  MAB_ASSIGN(h.pointer_slot, read_u_field<std::uint32_t>(j, path, "pointer_slot"));
  return h;
}

Result<SizeRule> read_size_rule(const Val& j, const Path& path) {
  MAB_ASSIGN(const std::string s, read_string(j, path));
  if (s == "file_minus_16") return SizeRule::file_minus_16;
  if (s == "block_extent") return SizeRule::block_extent;
  if (s == "verbatim") return SizeRule::verbatim;
  return perr(path, "expected \"file_minus_16\", \"block_extent\" or \"verbatim\", found \"" + s + "\"");
}

Result<Block> read_block(const Val& j, const Path& path, const VariantInfo& variant,
                         const Limits& limits, std::uint64_t& budget) {
  MAB_TRY(check_object(j, path,
                       {"original_base", "layout", "header", "bones", "segments", "slot_segment", "size_rule",
                        "parent"}));
  Block b;
  MAB_ASSIGN(b.original_base, read_u_field<std::uint64_t>(j, path, "original_base"));
  MAB_ASSIGN(const Val layout, need(j, path, "layout"));
  MAB_ASSIGN(const std::string layout_text, read_string(layout, at(path, "layout")));
  const std::string want = variant.layout == LayoutKind::ani   ? "ani"
                           : variant.layout == LayoutKind::fc4 ? "fc4"
                           : variant.layout == LayoutKind::legacy ? "legacy"
                                                                  : "opaque";
  if (layout_text != want)
    return perr(at(path, "layout"), "variant " + std::string(variant.short_name) + " has \"" + want +
                                        "\" blocks, not \"" + layout_text + "\"");
  MAB_ASSIGN(const Val header, need(j, path, "header"));
  const Path hp = at(path, "header");
  std::size_t slots = 0;
  switch (variant.layout) {
    case LayoutKind::ani: {
      MAB_ASSIGN(auto h, read_ani_header(header, hp, variant));
      slots = h.offsets.size();
      b.header = std::move(h);
      break;
    }
    case LayoutKind::fc4: {
      MAB_ASSIGN(auto h, read_fc4_header(header, hp));
      slots = h.section_offsets.size() + 2;  // + flag and hash table offsets
      b.header = h;
      break;
    }
    case LayoutKind::legacy: {
      MAB_ASSIGN(auto h, read_legacy_header(header, hp, variant));
      slots = h.sections.size();
      b.header = std::move(h);
      break;
    }
    case LayoutKind::opaque:
      return perr(at(path, "layout"), "variant " + std::string(variant.short_name) + " has no block layout");
  }

  MAB_ASSIGN(const Val bones, need(j, path, "bones"));
  const Path bp = at(path, "bones");
  MAB_TRY(check_array(bones, bp, limits.max_bones));
  MAB_TRY(each(bones, [&](std::size_t i, const Val& jb) -> Status {
    const Path p = at(bp, i);
    MAB_TRY(check_object(jb, p, {"hash", "flags"}));
    Bone bone;
    MAB_ASSIGN(bone.hash, read_u_field<std::uint32_t>(jb, p, "hash"));
    MAB_ASSIGN(bone.flags, read_u_field<std::uint8_t>(jb, p, "flags"));
    b.bones.push_back(bone);
    return {};
  }));
  if (const auto* a = b.ani(); a && b.bones.size() > a->bone_count_mask())
    return perr(bp, std::to_string(b.bones.size()) + " bones do not fit m_nbBonesInAnim");

  MAB_ASSIGN(const Val segments, need(j, path, "segments"));
  const Path sp = at(path, "segments");
  // The reader makes a preamble plus at most one segment per offset slot.
  MAB_TRY(check_array(segments, sp, slots + 1));
  if (segments.empty()) return perr(sp, "at least the preamble segment is needed");
  MAB_TRY(each(segments, [&](std::size_t i, const Val& js) -> Status {
    const Path p = at(sp, i);
    MAB_TRY(check_object(js, p, {"original_offset", "bytes", "child_block"}));
    Segment s;
    MAB_ASSIGN(s.original_offset, read_u_field<std::uint64_t>(js, p, "original_offset"));
    MAB_ASSIGN(const Val bytes, need(js, p, "bytes"));
    MAB_ASSIGN(s.bytes, read_hex(bytes, at(p, "bytes"), budget));
    if (const auto child = maybe(js, "child_block")) {
      if (variant.layout != LayoutKind::legacy)
        return perr(at(p, "child_block"), "only legacy clips chain other clips");
      MAB_ASSIGN(const std::int64_t c, read_int(*child, at(p, "child_block"), -1, limits.max_blocks));
      s.child_block = static_cast<int>(c);
      if (s.child_block >= 0 && !s.bytes.empty())
        return perr(at(p, "bytes"), "a chained-clip segment holds no bytes of its own (the chained block does)");
    }
    b.segments.push_back(std::move(s));
    return {};
  }));

  MAB_ASSIGN(const Val slot_segment, need(j, path, "slot_segment"));
  const Path ssp = at(path, "slot_segment");
  MAB_TRY(check_size(slot_segment, ssp, slots));
  b.slot_segment.resize(slots);
  MAB_TRY(each(slot_segment, [&](std::size_t i, const Val& e) -> Status {
    MAB_ASSIGN(const std::int64_t v, read_int(e, at(ssp, i), -1, static_cast<std::int64_t>(b.segments.size()) - 1));
    if (v == 0) return perr(at(ssp, i), "segment 0 is the preamble, which no offset points at; use -1 for absent");
    b.slot_segment[i] = static_cast<int>(v);
    return {};
  }));
  MAB_ASSIGN(const Val size_rule, need(j, path, "size_rule"));
  MAB_ASSIGN(b.size_rule, read_size_rule(size_rule, at(path, "size_rule")));
  MAB_ASSIGN(const Val parent, need(j, path, "parent"));
  MAB_ASSIGN(const std::int64_t par, read_int(parent, at(path, "parent"), -1, limits.max_blocks));
  b.parent = static_cast<int>(par);
  return b;
}

// The writer lays chained clips out inside the segment that links to them; a block that
// claims a parent no segment links to would have no place in the file.
Status check_links(const Container& c, const Path& where) {
  const std::string path = where.str();
  const std::size_t n = c.blocks.size();
  std::vector<int> links(n, 0);
  for (std::size_t k = 0; k < n; ++k) {
    const Block& b = c.blocks[k];
    const std::string p = at(at(path, k), "parent");
    if (b.parent >= static_cast<int>(k)) return perr(p, "a chained clip comes after the clip that holds it");
    if (b.parent >= 0 && c.variant->layout != LayoutKind::legacy)
      return perr(p, "only legacy clips are chained");
    if (b.parent < 0 && c.variant->layout == LayoutKind::legacy && k > 0)
      return perr(p, "a legacy file has one top-level clip; later blocks are chained clips");
    if (b.parent < 0 && k > 0 && c.variant->layout == LayoutKind::ani &&
        shape_for(c.variant->game) != AniShape::fc5)
      return perr(p, "only Far Cry 5 files hold several 'aNi' blocks");
  }
  for (std::size_t k = 0; k < n; ++k) {
    const Block& b = c.blocks[k];
    const std::string bp = at(path, k);
    for (std::size_t s = 0; s < b.segments.size(); ++s) {
      const int child = b.segments[s].child_block;
      if (child < 0) continue;
      const std::string p = at(at(at(bp, "segments"), s), "child_block");
      if (static_cast<std::size_t>(child) <= k || static_cast<std::size_t>(child) >= n)
        return perr(p, "block " + std::to_string(child) + " is not a later block");
      if (c.blocks[static_cast<std::size_t>(child)].parent != static_cast<int>(k))
        return perr(p, "block " + std::to_string(child) + " does not name block " + std::to_string(k) +
                           " as its parent");
      ++links[static_cast<std::size_t>(child)];
    }
  }
  for (std::size_t k = 0; k < n; ++k) {
    if (c.blocks[k].parent >= 0 && links[k] != 1)
      return perr(at(at(path, k), "parent"),
                  "block " + std::to_string(c.blocks[k].parent) + " links to this block " +
                      std::to_string(links[k]) + " times; exactly once is needed");
  }
  return {};
}

Result<Container> read_container_json(const Val& j, const Path& path, const Limits& limits) {
  MAB_TRY(check_object(j, path, {"variant", "header", "original_size", "blocks", "opaque_body", "opaque_reason"}));
  Container c;
  MAB_ASSIGN(const Val variant, need(j, path, "variant"));
  MAB_ASSIGN(const std::string name, read_string(variant, at(path, "variant")));
  c.variant = find_variant(name);
  if (!c.variant) return perr(at(path, "variant"), "unknown variant \"" + name + "\"");

  MAB_ASSIGN(const Val header, need(j, path, "header"));
  const Path hp = at(path, "header");
  MAB_TRY(check_object(header, hp, {"magic_word", "checksum", "reserved"}));
  MAB_ASSIGN(c.header.magic_word, read_u_field<std::uint32_t>(header, hp, "magic_word"));
  MAB_ASSIGN(c.header.checksum, read_u_field<std::uint32_t>(header, hp, "checksum"));
  MAB_ASSIGN(c.header.reserved, read_hex_fixed<8>(header, hp, "reserved"));
  MAB_ASSIGN(c.original_size, read_u_field<std::uint64_t>(j, path, "original_size"));

  std::uint64_t budget = limits.max_file_size;
  const auto blocks = maybe(j, "blocks");
  const auto opaque = maybe(j, "opaque_body");
  if (blocks.has_value() == opaque.has_value())
    return perr(path, "exactly one of \"blocks\" and \"opaque_body\" is needed");
  if (opaque) {
    MAB_ASSIGN(c.opaque_body, read_hex(*opaque, at(path, "opaque_body"), budget));
    if (const auto reason = maybe(j, "opaque_reason")) {
      MAB_ASSIGN(c.opaque_reason, read_string(*reason, at(path, "opaque_reason")));
    }
    return c;
  }
  if (maybe(j, "opaque_reason")) return perr(at(path, "opaque_reason"), "only an opaque container has a reason");
  const Path bp = at(path, "blocks");
  MAB_TRY(check_array(*blocks, bp, limits.max_blocks));
  if (blocks->empty()) return perr(bp, "a container with no block is written as \"opaque_body\"");
  if (c.variant->layout == LayoutKind::opaque)
    return perr(bp, "variant " + name + " has no public layout: its body is \"opaque_body\"");
  if (c.variant->layout == LayoutKind::fc4 && blocks->size() != 1)
    return perr(bp, "a Far Cry 4 file holds one block");
  MAB_TRY(each(*blocks, [&](std::size_t k, const Val& jb) -> Status {
    MAB_ASSIGN(Block b, read_block(jb, at(bp, k), *c.variant, limits, budget));
    c.blocks.push_back(std::move(b));
    return {};
  }));
  MAB_TRY(check_links(c, bp));
  return c;
}

// --- clip ---

Result<Quat> read_quat(const Val& j, const Path& path) {
  // The usual case in one pass over the array: four numbers within the float range. Anything
  // else takes the checks below, which name the element at fault.
  if (j.is_array()) {
    Quat q;
    unsigned n = 0;
    bool plain = true;
    for (const element v : j.array()) {
      double d = 0;
      if (n == 4 || v.get_double().get(d) != simdjson::SUCCESS ||
          !(std::fabs(d) <= static_cast<double>(std::numeric_limits<float>::max()))) {
        plain = false;
        break;
      }
      q[n++] = static_cast<float>(d);
    }
    if (plain && n == 4) return q;
  }
  MAB_TRY(check_size(j, path, 4));
  Quat q;
  MAB_TRY(each(j, [&](std::size_t i, const Val& v) -> Status {
    MAB_ASSIGN(q[static_cast<unsigned>(i)], read_float(v, at(path, i)));
    return {};
  }));
  return q;
}

// How a document bone names its bone (issue 25, docs/json-format.md "Bone identity").
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

Result<BoneId> read_rename(const Val& j, const Path& path) {
  if (j.is_string()) {
    auto id = parse_bone_id(j.string());
    if (!id) return perr(path, id.error().detail);
    return *id;
  }
  if (!j.is_number_unsigned()) return perr(path, "expected a bone name or a hash, found " + describe(j));
  MAB_ASSIGN(const auto hash, read_u<std::uint32_t>(j, path));
  return BoneId{hash, {}};
}

// A bone's identity members: "rename_to" and "new".
Status read_bone_id(const Val& jb, const Path& p, ParsedBoneId& id) {
  if (const auto rename = maybe(jb, "rename_to")) {
    MAB_ASSIGN(id.rename_to, read_rename(*rename, at(p, "rename_to")));
  }
  if (const auto fresh = maybe(jb, "new")) {
    if (!fresh->is_bool()) return perr(at(p, "new"), "expected true or false, found " + describe(*fresh));
    id.is_new = fresh->boolean();
    if (id.is_new && id.rename_to)
      return perr(at(p, "rename_to"), "a new bone has no old hash to rename: give it its hash directly");
  }
  return {};
}

Result<ParsedClip> read_clip(const Val& j, const Path& path, const Limits& limits) {
  MAB_TRY(check_object(j, path, {"key_rate", "duration", "key_times", "bones"}));
  ParsedClip out;
  Clip& clip = out.clip;
  MAB_ASSIGN(const Val key_rate, need(j, path, "key_rate"));
  if (!key_rate.is_null()) {
    if (!key_rate.is_number())
      return perr(at(path, "key_rate"), "expected a number or null, found " + describe(key_rate));
    clip.key_rate = key_rate.number();
    if (!std::isfinite(clip.key_rate)) return perr(at(path, "key_rate"), "not a finite number");
    out.key_rate_given = true;
  }
  MAB_ASSIGN(const Val duration, need(j, path, "duration"));
  if (!duration.is_null()) {
    MAB_ASSIGN(clip.duration, read_float(duration, at(path, "duration")));
    out.duration_given = true;
  }
  MAB_ASSIGN(const Val times, need(j, path, "key_times"));
  const Path tp = at(path, "key_times");
  MAB_TRY(check_array(times, tp, limits.max_keys));
  clip.key_times.resize(times.size());
  MAB_TRY(each(times, [&](std::size_t i, const Val& t) -> Status {
    MAB_ASSIGN(clip.key_times[i], read_u<std::uint32_t>(t, at(tp, i)));
    return {};
  }));
  MAB_ASSIGN(const Val bones, need(j, path, "bones"));
  const Path bp = at(path, "bones");
  MAB_TRY(check_array(bones, bp, limits.max_bones));
  clip.bones.resize(bones.size());
  out.ids.resize(bones.size());
  MAB_TRY(each(bones, [&](std::size_t i, const Val& jb) -> Status {
    const Path p = at(bp, i);
    MAB_TRY(check_object(jb, p, {"hash", "name", "flags", "constant", "keys", "rename_to", "new"}));
    ClipBone& bone = clip.bones[i];
    out.ids[i].hash_given = maybe(jb, "hash").has_value();
    MAB_TRY(read_bone_id(jb, p, out.ids[i]));
    const auto name = maybe(jb, "name");
    const auto hash = maybe(jb, "hash");
    if (name) {
      MAB_ASSIGN(bone.name, read_string(*name, at(p, "name")));
    }
    if (hash) {
      MAB_ASSIGN(bone.hash, read_u<std::uint32_t>(*hash, at(p, "hash")));
      // Decision D11: a hash is the CRC-32 of its name; a disagreement is a typo in one.
      if (name && !bone.name.empty() && bone_hash(bone.name) != bone.hash) {
        char buf[64];
        std::snprintf(buf, sizeof buf, "0x%08X", bone_hash(bone.name));
        return perr(at(p, "hash"), "does not match the name \"" + bone.name + "\", whose hash is " + buf);
      }
    } else if (name && !bone.name.empty()) {
      bone.hash = bone_hash(bone.name);
    } else {
      return perr(at(p, "hash"), "missing field (give a hash, or a name to hash)");
    }
    MAB_ASSIGN(bone.flags, read_u_field<std::uint8_t>(jb, p, "flags"));
    const auto constant = maybe(jb, "constant");
    const auto keys = maybe(jb, "keys");
    switch (bone.kind()) {
      case BoneKind::constant: {
        if (keys) return perr(at(p, "keys"), "a constant bone (flags & 0x30 == 0x30) has no keys");
        if (!constant) return perr(at(p, "constant"), "missing field (flags & 0x30 == 0x30: constant bone)");
        MAB_ASSIGN(bone.constant, read_quat(*constant, at(p, "constant")));
        break;
      }
      case BoneKind::animated: {
        if (constant) return perr(at(p, "constant"), "an animated bone (flags & 0x30 == 0x10) has keys, not a constant");
        if (!keys) return perr(at(p, "keys"), "missing field (flags & 0x30 == 0x10: animated bone)");
        const Path kp = at(p, "keys");
        if (!keys->is_array()) return perr(kp, "expected an array, found " + describe(*keys));
        if (keys->size() != clip.key_times.size())
          return perr(kp, std::to_string(keys->size()) + " keys, but key_times holds " +
                              std::to_string(clip.key_times.size()));
        bone.keys.resize(keys->size());
        MAB_TRY(each(*keys, [&](std::size_t k, const Val& q) -> Status {
          MAB_ASSIGN(bone.keys[k], read_quat(q, at(kp, k)));
          return {};
        }));
        break;
      }
      case BoneKind::none:
        if (constant || keys)
          return perr(at(p, constant ? "constant" : "keys"), "a bone without rotation (flags & 0x30 is neither "
                                                             "0x30 nor 0x10) has no constant or keys");
        break;
    }
    return {};
  }));
  // Ordering of key times and the like are the encoder's to judge: it reports them with
  // the clip's own field names.
  return out;
}

// --- legacy clip (spec 13) ---

// A translation component written null (a NaN or infinity, which JSON cannot hold) stands
// for the stored value at the same place: resolved against the original decode on import.
struct LegacyNull {
  std::size_t slot = 0;   // 0 trajectory, 4 constant translations, 5 translations
  std::uint32_t bone = 0;  // slots 4 and 5
  std::size_t frame = 0;
  unsigned component = 0;
  std::string path;
};

// A tag record's start or end, or an event's time, written null (not finite): the stored one.
struct LegacyTimeNull {
  bool event = false;
  std::size_t index = 0;
  unsigned field = 0;  // records: 0 start, 1 end
  std::string path;
};

struct ParsedLegacy {
  LegacyClip clip;
  std::optional<float> frame_rate;  // null: the stored rate
  std::vector<LegacyNull> nulls;
  std::vector<LegacyTimeNull> time_nulls;
  std::vector<std::optional<std::uint64_t>> clip_blocks;  // per tag record, informational
  // Entries marked "new": true (a track for a bone the clip has none of that kind for), per
  // list: constant rotations, rotations, constant translations, translations.
  std::array<std::vector<std::size_t>, 4> new_tracks;
};

// "new": true on a track entry, recorded for check_legacy_identity.
Status read_new_track(const Val& v, const Path& p, std::vector<std::size_t>& out) {
  const auto fresh = maybe(v, "new");
  if (!fresh) return {};
  if (!fresh->is_bool()) return perr(at(p, "new"), "expected true or false, found " + describe(*fresh));
  if (fresh->boolean()) out.push_back(p.index);
  return {};
}

Result<Vec3> read_vec3(const Val& j, const Path& path, std::size_t slot, std::uint32_t bone, std::size_t frame,
                       std::vector<LegacyNull>& nulls) {
  MAB_TRY(check_size(j, path, 3));
  Vec3 v{};
  MAB_TRY(each(j, [&](std::size_t i, const Val& c) -> Status {
    if (c.is_null()) {
      nulls.push_back({slot, bone, frame, static_cast<unsigned>(i), at(path, i).str()});
      return {};
    }
    MAB_ASSIGN(v[i], read_float(c, at(path, i)));
    return {};
  }));
  return v;
}

// Array lengths: a section holds at most one entry per bone a mask can name (9 words for
// FC3) and per frame a u16 lastFrame can count.
constexpr std::size_t legacy_max_bones = 32 * 9;
constexpr std::size_t legacy_max_frames = 65536;

template <class T, class F>
Status read_list(const Val& obj, const Path& path, std::string_view key, std::size_t max, std::vector<T>& out,
                 F&& item) {
  MAB_ASSIGN(const Val j, need(obj, path, key));
  const Path p = at(path, key);
  MAB_TRY(check_array(j, p, max));
  out.resize(j.size());
  return each(j, [&](std::size_t i, const Val& v) -> Status { return item(at(p, i), v, out[i]); });
}

Result<float> read_time(const Val& j, const Path& path, ParsedLegacy& out, bool event, std::size_t index,
                        unsigned field) {
  if (j.is_null()) {
    out.time_nulls.push_back({event, index, field, path.str()});
    return 0.0f;
  }
  return read_float(j, path);
}

// A name slot: {"hash", "text"} or {"hash", "bytes"} (32 bytes as hex).
Result<LegacyTagName> read_tag_name(const Val& j, const Path& path) {
  MAB_TRY(check_object(j, path, {"hash", "text", "bytes"}));
  LegacyTagName n;
  MAB_ASSIGN(n.hash, read_u_field<std::uint32_t>(j, path, "hash"));
  const auto text = maybe(j, "text");
  if (text.has_value() == maybe(j, "bytes").has_value())
    return perr(path, "a name slot holds \"text\" or \"bytes\" (32 bytes as hex), exactly one");
  if (text) {
    MAB_ASSIGN(const std::string t, read_string(*text, at(path, "text")));
    if (t.size() > n.bytes.size() || t.find('\0') != std::string::npos)
      return perr(at(path, "text"), "a name holds at most 32 bytes and no NUL");
    std::copy(t.begin(), t.end(), n.bytes.begin());
  } else {
    MAB_ASSIGN(n.bytes, read_hex_fixed<32>(j, path, "bytes"));
  }
  return n;
}

Status read_legacy_tags_and_events(const Val& j, const Path& path, ParsedLegacy& out) {
  LegacyClip& c = out.clip;
  if (maybe(j, "tag_table")) {
    c.tag_table.emplace();
    MAB_TRY(read_list(j, path, "tag_table", legacy_max_frames, *c.tag_table,
                      [&](const Path& p, const Val& v, LegacyTagRecord& r) -> Status {
                        MAB_TRY(check_object(v, p, {"kind", "byte_1", "id", "bytes_4", "clip_offset", "clip_block",
                                                    "start", "end", "names", "pointer_slot"}));
                        MAB_ASSIGN(r.kind, read_u_field<std::uint8_t>(v, p, "kind"));
                        MAB_ASSIGN(r.byte_1, read_u_field<std::uint8_t>(v, p, "byte_1"));
                        MAB_ASSIGN(const Val id, need(v, p, "id"));
                        MAB_ASSIGN(const auto idv, read_int(id, at(p, "id"), -32768, 32767));
                        r.id = static_cast<std::int16_t>(idv);
                        MAB_ASSIGN(r.bytes_4, read_hex_fixed<8>(v, p, "bytes_4"));
                        MAB_ASSIGN(const Val off, need(v, p, "clip_offset"));
                        MAB_ASSIGN(const auto offv, read_int(off, at(p, "clip_offset"), INT32_MIN, INT32_MAX));
                        r.clip_offset = static_cast<std::int32_t>(offv);
                        MAB_ASSIGN(const Val cb, need(v, p, "clip_block"));
                        std::optional<std::uint64_t> block;
                        if (!cb.is_null()) {
                          MAB_ASSIGN(block, read_uint(cb, at(p, "clip_block"), 0xFFFF));
                        }
                        out.clip_blocks.push_back(block);
                        MAB_ASSIGN(const Val st, need(v, p, "start"));
                        MAB_ASSIGN(r.start, read_time(st, at(p, "start"), out, false, p.index, 0));
                        MAB_ASSIGN(const Val en, need(v, p, "end"));
                        MAB_ASSIGN(r.end, read_time(en, at(p, "end"), out, false, p.index, 1));
                        MAB_ASSIGN(const Val names, need(v, p, "names"));
                        const Path np = at(p, "names");
                        MAB_TRY(check_size(names, np, 4));
                        MAB_TRY(each(names, [&](std::size_t k, const Val& n) -> Status {
                          MAB_ASSIGN(r.names[k], read_tag_name(n, at(np, k)));
                          return {};
                        }));
                        MAB_ASSIGN(r.pointer_slot, read_u_field<std::uint32_t>(v, p, "pointer_slot"));
                        return {};
                      }));
  }
  if (maybe(j, "events")) {
    c.events.emplace();
    MAB_TRY(read_list(j, path, "events", legacy_max_frames, *c.events,
                      [&](const Path& p, const Val& v, LegacyEvent& e) -> Status {
                        MAB_TRY(check_object(v, p, {"offset", "time", "type", "size", "next", "payload"}));
                        MAB_ASSIGN(e.offset, read_u_field<std::uint32_t>(v, p, "offset"));
                        MAB_ASSIGN(const Val t, need(v, p, "time"));
                        MAB_ASSIGN(e.time, read_time(t, at(p, "time"), out, true, p.index, 0));
                        MAB_ASSIGN(e.type, read_u_field<std::uint32_t>(v, p, "type"));
                        MAB_ASSIGN(e.size, read_u_field<std::uint16_t>(v, p, "size"));
                        MAB_ASSIGN(e.next, read_u_field<std::uint16_t>(v, p, "next"));
                        MAB_ASSIGN(const Val pl, need(v, p, "payload"));
                        std::uint64_t budget = 0xFFFF;
                        MAB_ASSIGN(e.payload, read_hex(pl, at(p, "payload"), budget));
                        return {};
                      }));
  }
  return {};
}

Result<ParsedLegacy> read_legacy_clip(const Val& j, const Path& path) {
  MAB_TRY(check_object(j, path,
                       {"last_frame", "frame_rate", "trajectory_translation", "trajectory_rotation",
                        "constant_rotations", "rotations", "constant_translations", "translations", "tag_table",
                        "tag_table_note", "events", "events_note"}));
  ParsedLegacy out;
  LegacyClip& c = out.clip;
  MAB_ASSIGN(c.last_frame, read_u_field<std::uint16_t>(j, path, "last_frame"));
  MAB_ASSIGN(const Val rate, need(j, path, "frame_rate"));
  if (!rate.is_null()) {
    MAB_ASSIGN(out.frame_rate, read_float(rate, at(path, "frame_rate")));
  }
  if (maybe(j, "trajectory_translation")) {
    c.present[0] = true;
    MAB_TRY(read_list(j, path, "trajectory_translation", legacy_max_frames, c.trajectory_translation,
                      [&](const Path& p, const Val& v, Vec3& t) -> Status {
                        MAB_ASSIGN(t, read_vec3(v, p, 0, 0, p.index, out.nulls));
                        return {};
                      }));
  }
  if (maybe(j, "trajectory_rotation")) {
    c.present[1] = true;
    MAB_TRY(read_list(j, path, "trajectory_rotation", legacy_max_frames, c.trajectory_rotation,
                      [&](const Path& p, const Val& v, Quat& q) -> Status {
                        MAB_ASSIGN(q, read_quat(v, p));
                        return {};
                      }));
  }
  MAB_TRY(read_list(j, path, "constant_rotations", legacy_max_bones, c.constant_rotations,
                    [&](const Path& p, const Val& v, LegacyConstantRotation& r) -> Status {
                      MAB_TRY(check_object(v, p, {"bone", "rotation", "new"}));
                      MAB_TRY(read_new_track(v, p, out.new_tracks[0]));
                      MAB_ASSIGN(r.bone, read_u_field<std::uint32_t>(v, p, "bone"));
                      MAB_ASSIGN(const Val q, need(v, p, "rotation"));
                      MAB_ASSIGN(r.rotation, read_quat(q, at(p, "rotation")));
                      return {};
                    }));
  MAB_TRY(read_list(j, path, "rotations", legacy_max_bones, c.rotations,
                    [&](const Path& p, const Val& v, LegacyRotationTrack& t) -> Status {
                      MAB_TRY(check_object(v, p, {"bone", "frames", "keys", "new"}));
                      MAB_TRY(read_new_track(v, p, out.new_tracks[1]));
                      MAB_ASSIGN(t.bone, read_u_field<std::uint32_t>(v, p, "bone"));
                      MAB_TRY(read_list(v, p, "frames", legacy_max_frames, t.frames,
                                        [&](const Path& fp, const Val& f, std::uint16_t& frame) -> Status {
                                          MAB_ASSIGN(frame, read_u<std::uint16_t>(f, fp));
                                          return {};
                                        }));
                      MAB_TRY(read_list(v, p, "keys", legacy_max_frames, t.keys,
                                        [&](const Path& kp, const Val& k, Quat& q) -> Status {
                                          MAB_ASSIGN(q, read_quat(k, kp));
                                          return {};
                                        }));
                      if (t.keys.size() != t.frames.size())
                        return perr(at(p, "keys"), std::to_string(t.keys.size()) + " keys, but frames holds " +
                                                       std::to_string(t.frames.size()));
                      return {};
                    }));
  MAB_TRY(read_list(j, path, "constant_translations", legacy_max_bones, c.constant_translations,
                    [&](const Path& p, const Val& v, LegacyConstantTranslation& t) -> Status {
                      MAB_TRY(check_object(v, p, {"bone", "translation", "new"}));
                      MAB_TRY(read_new_track(v, p, out.new_tracks[2]));
                      MAB_ASSIGN(t.bone, read_u_field<std::uint32_t>(v, p, "bone"));
                      MAB_ASSIGN(const Val x, need(v, p, "translation"));
                      MAB_ASSIGN(t.translation, read_vec3(x, at(p, "translation"), 4, t.bone, 0, out.nulls));
                      return {};
                    }));
  MAB_TRY(read_list(j, path, "translations", legacy_max_bones, c.translations,
                    [&](const Path& p, const Val& v, LegacyTranslationTrack& t) -> Status {
                      MAB_TRY(check_object(v, p, {"bone", "frames", "new"}));
                      MAB_TRY(read_new_track(v, p, out.new_tracks[3]));
                      MAB_ASSIGN(t.bone, read_u_field<std::uint32_t>(v, p, "bone"));
                      return read_list(v, p, "frames", legacy_max_frames, t.frames,
                                       [&](const Path& fp, const Val& f, Vec3& x) -> Status {
                                         MAB_ASSIGN(x, read_vec3(f, fp, 5, t.bone, fp.index, out.nulls));
                                         return {};
                                       });
                    }));
  MAB_TRY(read_legacy_tags_and_events(j, path, out));
  return out;
}

// Nulls in tag and event times take the stored values; clip_block is informational (where
// clip_offset lands) and must be the decoded one.
Status resolve_legacy_tags_and_events(const ParsedLegacy& parsed, const LegacyClip& original, LegacyClip& c) {
  for (const auto& n : parsed.time_nulls) {
    if (n.event) {
      if (!original.events || n.index >= original.events->size())
        return perr(n.path, "null stands for the stored value, and the original has none here");
      (*c.events)[n.index].time = (*original.events)[n.index].time;
    } else {
      if (!original.tag_table || n.index >= original.tag_table->size())
        return perr(n.path, "null stands for the stored value, and the original has none here");
      const auto& o = (*original.tag_table)[n.index];
      (n.field == 0 ? (*c.tag_table)[n.index].start : (*c.tag_table)[n.index].end) = n.field == 0 ? o.start : o.end;
    }
  }
  if (c.tag_table && original.tag_table) {
    for (std::size_t i = 0; i < parsed.clip_blocks.size() && i < original.tag_table->size(); ++i) {
      const int want = (*original.tag_table)[i].clip_block;
      const auto& got = parsed.clip_blocks[i];
      if (got.has_value() != (want >= 0) || (got && *got != static_cast<std::uint64_t>(want)))
        return perr("/legacy_clip/tag_table/" + std::to_string(i) + "/clip_block",
                    "informational: the block clip_offset reaches (" +
                        (want >= 0 ? std::to_string(want) : std::string("none")) + "), not editable");
      (*c.tag_table)[i].clip_block = want;
    }
  }
  return {};
}

// A track's bone id is its identity, as a hash is in "clip" (issue 25): an id the clip has
// no rotation (or translation) for would move the track to another bone, so it is refused
// unless marked "new"; rotations may move between the constant and keyed lists (and
// translations between theirs), which is an edit of the bone's kind.
Status check_legacy_identity(const ParsedLegacy& parsed, const LegacyClip& original) {
  std::vector<std::uint32_t> rotated, translated;
  for (const auto& r : original.constant_rotations) rotated.push_back(r.bone);
  for (const auto& r : original.rotations) rotated.push_back(r.bone);
  for (const auto& t : original.constant_translations) translated.push_back(t.bone);
  for (const auto& t : original.translations) translated.push_back(t.bone);
  const LegacyClip& c = parsed.clip;
  const auto check = [&](std::size_t list, const char* name, std::size_t i, std::uint32_t bone) -> Status {
    const auto& known = list < 2 ? rotated : translated;
    const bool has = std::find(known.begin(), known.end(), bone) != known.end();
    const auto& fresh = parsed.new_tracks[list];
    const bool is_new = std::find(fresh.begin(), fresh.end(), i) != fresh.end();
    const std::string p = "/legacy_clip/" + std::string(name) + "/" + std::to_string(i);
    if (is_new && has)
      return perr(p + "/new", "bone " + std::to_string(bone) + " has a " + (list < 2 ? "rotation" : "translation") +
                                  " in the file; \"new\" is for a bone without one");
    if (!is_new && !has)
      return perr(p + "/bone", "the file has no " + std::string(list < 2 ? "rotation" : "translation") +
                                   " for bone " + std::to_string(bone) +
                                   ": a changed id would move the track to another bone; mark a track for a bone "
                                   "without one \"new\": true");
    return {};
  };
  for (std::size_t i = 0; i < c.constant_rotations.size(); ++i)
    MAB_TRY(check(0, "constant_rotations", i, c.constant_rotations[i].bone));
  for (std::size_t i = 0; i < c.rotations.size(); ++i) MAB_TRY(check(1, "rotations", i, c.rotations[i].bone));
  for (std::size_t i = 0; i < c.constant_translations.size(); ++i)
    MAB_TRY(check(2, "constant_translations", i, c.constant_translations[i].bone));
  for (std::size_t i = 0; i < c.translations.size(); ++i) MAB_TRY(check(3, "translations", i, c.translations[i].bone));
  return {};
}

// The edited clip: nulls and a null rate replaced by the original's values. A null where
// the original has nothing to keep is an error; so is a changed rate (stored in every array
// header, not editable yet).
Result<LegacyClip> resolve_legacy(const ParsedLegacy& parsed, const LegacyClip& original) {
  // A trim also moves the duration, events and keys at the new ends: the library's
  // trim_legacy_clip does it whole; a document only edits values.
  if (parsed.clip.last_frame != original.last_frame)
    return make_error(ErrorCode::invalid_argument, no_offset, "last_frame",
                      "a document cannot change last_frame (a trim); the library's trim_legacy_clip does trims");
  MAB_TRY(check_legacy_identity(parsed, original));
  LegacyClip c = parsed.clip;
  c.block = original.block;
  c.duration = original.duration;
  c.headers = original.headers;
  c.trajectory_rotation_codes = original.trajectory_rotation_codes;
  if (parsed.frame_rate && std::bit_cast<std::uint32_t>(*parsed.frame_rate) != std::bit_cast<std::uint32_t>(original.frame_rate) &&
      !(std::isnan(*parsed.frame_rate) && std::isnan(original.frame_rate)))
    return perr("/legacy_clip/frame_rate", "the rate is stored in each array header; changing it is not supported");
  c.frame_rate = original.frame_rate;
  for (const auto& n : parsed.nulls) {
    const Vec3* from = nullptr;
    Vec3* to = nullptr;
    if (n.slot == 0) {
      if (n.frame < original.trajectory_translation.size()) from = &original.trajectory_translation[n.frame];
      to = &c.trajectory_translation[n.frame];
    } else if (n.slot == 4) {
      for (const auto& t : original.constant_translations)
        if (t.bone == n.bone) from = &t.translation;
      for (auto& t : c.constant_translations)
        if (t.bone == n.bone) to = &t.translation;
    } else {
      for (const auto& t : original.translations)
        if (t.bone == n.bone && n.frame < t.frames.size()) from = &t.frames[n.frame];
      for (auto& t : c.translations)
        if (t.bone == n.bone && n.frame < t.frames.size()) to = &t.frames[n.frame];
    }
    if (from == nullptr || to == nullptr)
      return perr(n.path, "null stands for the stored value, and the original has none here");
    (*to)[n.component] = (*from)[n.component];
  }
  MAB_TRY(resolve_legacy_tags_and_events(parsed, original, c));
  return c;
}

// --- codes ---

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

Result<ParsedCodes> read_codes(const Val& j, const Path& path, const Limits& limits) {
  MAB_TRY(check_object(j, path, {"constant_codes", "rotations"}));
  ParsedCodes out;
  std::uint64_t budget = limits.max_file_size;
  MAB_ASSIGN(const Val constants, need(j, path, "constant_codes"));
  const Path cp = at(path, "constant_codes");
  MAB_TRY(check_array(constants, cp, limits.max_bones));
  MAB_TRY(each(constants, [&](std::size_t i, const Val& jc) -> Status {
    const Path p = at(cp, i);
    MAB_ASSIGN(const auto bytes, read_hex(jc, p, budget));
    if (bytes.size() != 6) return perr(p, "expected 6 bytes (12 hex digits), found " + std::to_string(bytes.size()));
    std::array<std::uint8_t, 6> code{};
    std::copy(bytes.begin(), bytes.end(), code.begin());
    out.constant_codes.push_back(code);
    return {};
  }));
  MAB_ASSIGN(const Val rotations, need(j, path, "rotations"));
  const Path rp = at(path, "rotations");
  MAB_TRY(check_object(rotations, rp, {"chunks", "tail"}));
  MAB_ASSIGN(const Val chunks, need(rotations, rp, "chunks"));
  const Path chp = at(rp, "chunks");
  MAB_TRY(check_array(chunks, chp, limits.max_chunks));
  MAB_TRY(each(chunks, [&](std::size_t c, const Val& jc) -> Status {
    const Path p = at(chp, c);
    MAB_TRY(check_array(jc, p, limits.max_bones));
    std::vector<JsonChunkCodes> chunk(jc.size());
    MAB_TRY(each(jc, [&](std::size_t b, const Val& jb) -> Status {
      const Path bp = at(p, b);
      MAB_TRY(check_object(jb, bp, {"cflags", "signs", "headers", "raw"}));
      JsonChunkCodes& codes = chunk[b];
      MAB_ASSIGN(const Val cflags, need(jb, bp, "cflags"));
      MAB_ASSIGN(const std::uint64_t cf, read_uint(cflags, at(bp, "cflags"), 63));
      codes.cflags = static_cast<std::uint8_t>(cf);
      if (const auto signs = maybe(jb, "signs")) {
        MAB_ASSIGN(codes.signs, read_u<std::uint8_t>(*signs, at(bp, "signs")));
      }
      MAB_TRY(read_u_array(jb, bp, "headers", codes.headers));
      MAB_ASSIGN(const Val raw, need(jb, bp, "raw"));
      const Path rawp = at(bp, "raw");
      MAB_TRY(check_size(raw, rawp, 3));
      return each(raw, [&](std::size_t comp, const Val& values) -> Status {
        const Path vp = at(rawp, comp);
        MAB_TRY(check_array(values, vp, keys_per_chunk));
        return each(values, [&](std::size_t f, const Val& v) -> Status {
          MAB_ASSIGN(const auto n, read_u<std::uint16_t>(v, at(vp, f)));
          codes.raw[comp].push_back(n);
          return {};
        });
      });
    }));
    out.chunks.push_back(std::move(chunk));
    return {};
  }));
  MAB_ASSIGN(const Val tail, need(rotations, rp, "tail"));
  MAB_ASSIGN(out.tail, read_hex(tail, at(rp, "tail"), budget));
  return out;
}

// The codes are a view of the container's bytes, so they must agree with them: a document
// whose codes were edited on their own would otherwise be silently written without the edit.
Status check_codes(const ParsedCodes& codes, const DecodedClip& original) {
  const std::string mismatch = "disagrees with the container's bytes; edit the clip, not the codes";
  const std::string cp = "/codes/constant_codes";
  if (codes.constant_codes.size() != original.constant_codes.size())
    return perr(cp, std::to_string(codes.constant_codes.size()) + " codes, the container holds " +
                        std::to_string(original.constant_codes.size()));
  for (std::size_t i = 0; i < codes.constant_codes.size(); ++i)
    if (codes.constant_codes[i] != original.constant_codes[i]) return perr(at(cp, i), mismatch);
  const std::string chp = "/codes/rotations/chunks";
  const auto& chunks = original.rotations.chunks;
  if (codes.chunks.size() != chunks.size())
    return perr(chp, std::to_string(codes.chunks.size()) + " chunks, the container holds " +
                         std::to_string(chunks.size()));
  const auto key_count = static_cast<std::uint32_t>(original.clip.key_count());
  for (std::size_t c = 0; c < chunks.size(); ++c) {
    const std::string p = at(chp, c);
    if (codes.chunks[c].size() != chunks[c].size())
      return perr(p, std::to_string(codes.chunks[c].size()) + " bones, the container holds " +
                         std::to_string(chunks[c].size()));
    const unsigned keys = chunk_key_count(key_count, c);
    for (std::size_t b = 0; b < chunks[c].size(); ++b) {
      const JsonChunkCodes& mine = codes.chunks[c][b];
      const BoneChunkCodes& theirs = chunks[c][b];
      const std::string bp = at(p, b);
      if (mine.cflags != theirs.cflags) return perr(at(bp, "cflags"), mismatch);
      if (theirs.has_signs()) {
        if (!mine.signs) return perr(at(bp, "signs"), "missing field (cflags bit 3 is set)");
        if (*mine.signs != theirs.signs) return perr(at(bp, "signs"), mismatch);
      } else if (mine.signs && *mine.signs != 0) {
        return perr(at(bp, "signs"), "cflags bit 3 is clear: the stream stores no signs");
      }
      for (unsigned comp = 0; comp < 3; ++comp) {
        if (mine.headers[comp] != theirs.headers[comp]) return perr(at(at(bp, "headers"), comp), mismatch);
        const std::string vp = at(at(bp, "raw"), comp);
        const std::size_t stored = theirs.is_constant(comp) ? 0 : keys;
        if (mine.raw[comp].size() != stored)
          return perr(vp, "expected " + std::to_string(stored) + " values (" +
                              (stored ? "one per key of the chunk" : "a constant component stores none") +
                              "), found " + std::to_string(mine.raw[comp].size()));
        for (std::size_t f = 0; f < stored; ++f)
          if (mine.raw[comp][f] != theirs.raw[comp][f]) return perr(at(vp, f), mismatch);
      }
    }
  }
  if (codes.tail != original.rotations.tail) return perr("/codes/rotations/tail", mismatch);
  return {};
}

// --- document ---

struct ParsedDocument {
  Container container;
  std::size_t block = 0;
  std::optional<ParsedClip> clip;
  std::optional<ParsedCodes> codes;
  std::optional<ParsedLegacy> legacy;
  std::optional<interchange::ParsedMotion> motion;  // issue 16, json_motion.hpp
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
  } catch (const std::exception&) {
  }
  return perr("json text", simdjson::error_message(code));
}

// `padded`: text is followed by PaddedJson::padding readable bytes, so simdjson reads it in place.
Result<ParsedDocument> parse_document(std::string_view text, const Limits& limits, bool padded) {
  // An empty text (possibly with no buffer at all) is a syntax error; simdjson copies its
  // input and must not be handed a null pointer.
  if (text.empty()) return text_error(text, simdjson::EMPTY);
  simdjson::dom::parser parser;
  element root_element;
  if (const auto code = parser.parse(text.data(), text.size(), !padded).get(root_element); code != simdjson::SUCCESS)
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
  MAB_TRY(check_object(root, top, {"format", "version", "block", "clip", "codes", "legacy_clip", "container", "clip_absent",
                                   "motion"}));
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
  }
  if (const auto codes = maybe(root, "codes")) {
    if (!doc.clip) return perr(at(top, "codes"), "codes describe a decoded clip; a document without \"clip\" has none");
    MAB_ASSIGN(doc.codes, read_codes(*codes, at(top, "codes"), limits));
  }
  if (const auto motion = maybe(root, "motion")) {
    if (!doc.clip) return perr(at(top, "motion"), "motion belongs to a decoded clip; a document without \"clip\" has none");
    MAB_ASSIGN(doc.motion, interchange::parse_motion(motion->dump(), limits));
  }
  if (const auto legacy = maybe(root, "legacy_clip")) {
    if (doc.block >= doc.container.blocks.size() || doc.container.blocks[doc.block].legacy() == nullptr)
      return perr(at(top, "block"), "block " + std::to_string(doc.block) + " is not a legacy (Far Cry 2/3) clip");
    MAB_ASSIGN(doc.legacy, read_legacy_clip(*legacy, at(top, "legacy_clip")));
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

// The same for a legacy block: the written container read back, and its decode.
struct LegacyOriginal {
  Container container;
  LegacyClip clip;
};

Result<LegacyOriginal> decode_legacy_original(const ParsedDocument& doc, const Limits& limits) {
  MAB_ASSIGN(Container reread, reread_container(doc, limits));
  MAB_ASSIGN(LegacyClip clip, decode_legacy_clip(reread, doc.block, limits));
  return LegacyOriginal{std::move(reread), std::move(clip)};
}

// --- bone identity (issue 25, docs/json-format.md "Bone identity") ---

std::string hex8(std::uint32_t v) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "0x%08X", v);
  return buf;
}

// Of a bone the file has, the document may change the bit depth of an animated bone and the
// rotation kind (its keys or constant must then match, which read_clip checks); bits 0x40 and
// 0x80 (spec 5.3: translation-related, a guess) and the unused nibble of a bone without
// animated rotation are the file's.
Status check_flags(const ClipBone& b, const ClipBone& o, const std::string& path) {
  unsigned fixed = 0xC0;
  if (b.kind() == o.kind()) fixed |= 0x30;
  if (b.kind() == o.kind() && b.kind() != BoneKind::animated) fixed |= 0x0F;
  const unsigned changed = (b.flags ^ o.flags) & fixed;
  if (changed == 0) return {};
  char text[96];
  std::snprintf(text, sizeof text, "%u (0x%02X) changes bit(s) 0x%02X of the file's flags 0x%02X for this bone", b.flags,
                b.flags, changed, o.flags);
  return perr(path, std::string(text) +
                        ": editable are the bit depth of an animated bone (flags & 0x0F) and the rotation kind "
                        "(flags & 0x30, with keys or a constant to match); the other bits are the file's");
}

// Every document bone is a bone of the file, found by its hash (position first, so duplicate
// hashes pair up in order), unless marked "new"; a hash the file lacks is a typo or another
// clip's bone, never silently a new bone (it would drop the old one and re-quantise).
Status check_identity(const ParsedClip& parsed, const Clip& original) {
  const auto& bones = parsed.clip.bones;
  std::vector<bool> used(original.bones.size(), false);
  for (std::size_t i = 0; i < bones.size(); ++i) {
    const ClipBone& b = bones[i];
    const ParsedBoneId& id = parsed.ids[i];
    const std::string p = at(std::string("/clip/bones"), i);
    const int known = original.find_bone(b.hash);
    if (id.is_new) {
      if (known >= 0)
        return perr(at(p, "new"), hex8(b.hash) + " is a bone of the file (bone " + std::to_string(known) +
                                      "); \"new\" is for a bone it lacks");
      continue;
    }
    int o = -1;
    if (i < original.bones.size() && original.bones[i].hash == b.hash && !used[i]) o = static_cast<int>(i);
    for (std::size_t k = 0; o < 0 && k < original.bones.size(); ++k)
      if (!used[k] && original.bones[k].hash == b.hash) o = static_cast<int>(k);
    const std::string hp = at(p, id.hash_given ? "hash" : "name");
    if (o < 0 && known >= 0)
      return perr(hp, "bone " + hex8(b.hash) + " appears more often in the document than in the file");
    if (o < 0) {
      std::string detail = hex8(b.hash) + " is not a bone of the file";
      if (i < original.bones.size()) detail += " (its bone " + std::to_string(i) + " is " + hex8(original.bones[i].hash) + ")";
      return perr(hp, detail + ": to rename a bone keep its hash and add \"rename_to\" (or use mab edit --rename-bone); "
                               "to add a bone, mark it \"new\": true");
    }
    used[static_cast<std::size_t>(o)] = true;
    MAB_TRY(check_flags(b, original.bones[static_cast<std::size_t>(o)], at(p, "flags")));
  }
  return {};
}

// "rename_to": the bone takes the new hash and remembers the old one, so encode_clip keeps its
// codes. No two bones of the result may share a hash a rename gave.
Status apply_renames(const ParsedClip& parsed, Clip& clip) {
  for (std::size_t i = 0; i < clip.bones.size(); ++i) {
    const auto& to = parsed.ids[i].rename_to;
    if (!to) continue;
    ClipBone& b = clip.bones[i];
    const std::string p = at(at(std::string("/clip/bones"), i), "rename_to");
    if (to->hash == b.hash) return perr(p, "the bone already has hash " + hex8(to->hash));
    b.renamed_from = b.hash;
    b.hash = to->hash;
    b.name = to->name;
  }
  for (std::size_t i = 0; i < clip.bones.size(); ++i) {
    if (!parsed.ids[i].rename_to) continue;
    for (std::size_t j = 0; j < clip.bones.size(); ++j)
      if (j != i && clip.bones[j].hash == clip.bones[i].hash)
        return perr(at(at(std::string("/clip/bones"), i), "rename_to"),
                    "bone " + std::to_string(j) + " of the document has hash " + hex8(clip.bones[i].hash) + " too");
  }
  return {};
}

Result<Clip> edited_clip(const ParsedDocument& doc, const Clip& original) {
  const ParsedClip& parsed = *doc.clip;
  MAB_TRY(check_identity(parsed, original));
  Clip clip = parsed.clip;
  // null in the document: the stored value, bit for bit (it may be a NaN JSON cannot hold).
  if (!parsed.key_rate_given) clip.key_rate = original.key_rate;
  if (!parsed.duration_given) clip.duration = original.duration;
  MAB_TRY(doc.motion ? interchange::apply_motion(clip, *doc.motion, original)
                     : interchange::carry_original_motion(clip, original));
  MAB_TRY(apply_renames(parsed, clip));
  return clip;
}

}  // namespace

Result<DecodedClip> import_json(std::string_view text, const Limits& limits) {
  MAB_ASSIGN(const ParsedDocument doc, parse_document_safely(text, limits));
  if (doc.legacy)
    return make_error(ErrorCode::not_decodable, no_offset, "/legacy_clip",
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

// --- another clip's document (issue 25, docs/json-format.md "Another clip's document") ---

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
      why.push_back("block " + std::to_string(block) + " lasts " + std::to_string(std::bit_cast<float>(da.value_or(0))) +
                    " s, the template's " + std::to_string(std::bit_cast<float>(dt.value_or(0))) + " s");
    if (a.ani() && t.ani() && a.ani()->last_frame != t.ani()->last_frame)
      why.push_back("block " + std::to_string(block) + " has last key " + std::to_string(a.ani()->last_frame) +
                    ", the template's " + std::to_string(t.ani()->last_frame));
  }
  if (why.empty()) return {};
  std::string text;
  for (const auto& w : why) text += (text.empty() ? "" : "; ") + w;
  return make_error(ErrorCode::invalid_argument, no_offset, "template",
                    "the document was exported from another file than the template: " + text +
                        "; nothing written (without --template, or with --allow-other-clip, the document's own "
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
  std::snprintf(text, sizeof text, "the file holds %zu keys over %g s, the clip %zu keys over %g s", original.key_count(),
                static_cast<double>(original.duration), clip.key_count(), static_cast<double>(clip.duration));
  return perr("/clip", std::string("none of the clip's rotations, key times or duration are its file's (") + text +
                           "): it looks like another clip's, pasted into this document; nothing written "
                           "(--allow-other-clip writes it)");
}

Result<JsonImport> import_document(const ParsedDocument& doc, const Limits& limits, const JsonImportOptions& options) {
  JsonImport out;
  if (options.template_file && !options.allow_other_clip)
    MAB_TRY(check_template(doc.container, doc.block, *options.template_file));
  if (doc.legacy) {
    MAB_ASSIGN(const LegacyOriginal original, decode_legacy_original(doc, limits));
    MAB_ASSIGN(const LegacyClip edited, resolve_legacy(*doc.legacy, original.clip));
    LegacyEncodeOptions lo = legacy_edit_policy(options.encode.max_error_deg);
    lo.refuse_above_max_error = options.encode.refuse_above_max_error;
    MAB_ASSIGN(const Container written,
               encode_legacy_clip(original.container, doc.block, edited, lo, &out.legacy_report));
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
  if (!doc.legacy)
    return make_error(ErrorCode::not_decodable, no_offset, "/legacy_clip", "the document holds no \"legacy_clip\"");
  MAB_ASSIGN(LegacyOriginal original, decode_legacy_original(doc, limits));
  MAB_ASSIGN(LegacyClip clip, resolve_legacy(*doc.legacy, original.clip));
  return LegacyDocument{std::move(original.container), std::move(clip)};
}

static_assert(PaddedJson::padding >= simdjson::SIMDJSON_PADDING);

PaddedJson::PaddedJson(std::vector<std::uint8_t> text) : bytes_(std::move(text)) { bytes_.resize(bytes_.size() + padding); }

Result<PaddedJson> PaddedJson::read_file(const std::filesystem::path& path, const Limits& limits) {
  PaddedJson out;
  MAB_ASSIGN(out.bytes_, mab::read_file(path, limits, padding));
  return out;
}

namespace {

// What the command's report compares the output with: the file the document came from.
Result<JsonImport> with_original(const ParsedDocument& doc, JsonImport out) {
  MAB_ASSIGN(const std::vector<std::uint8_t> original, write_container(doc.container));
  out.original_size = original.size();
  out.identical = original == out.bytes;
  return out;
}

}  // namespace

Result<JsonImport> import_json_bytes(std::string_view text, const Limits& limits, const JsonImportOptions& options) {
  MAB_ASSIGN(const ParsedDocument doc, parse_document_safely(text, limits));
  MAB_ASSIGN(JsonImport out, import_document(doc, limits, options));
  return with_original(doc, std::move(out));
}

Result<JsonImport> import_json_bytes(const PaddedJson& text, const Limits& limits,
                                     const JsonImportOptions& options) {
  MAB_ASSIGN(const ParsedDocument doc, parse_document_safely(text.text(), limits, true));
  MAB_ASSIGN(JsonImport out, import_document(doc, limits, options));
  return with_original(doc, std::move(out));
}

}  // namespace mab
