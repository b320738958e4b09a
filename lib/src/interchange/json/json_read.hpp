// Internal: the reader helpers of mabkit-clip documents (docs/json-format.md), shared by the
// document reader (json_import.cpp), its container, clip and legacy parts and the "motion"
// reader (json_motion.cpp): one parser (simdjson), one way to name a JSON path in an error.
// Every value is type- and range-checked before use; errors are parse_error naming the path.
//
// Reading a document is simdjson's alone. nlohmann/json stays where it earns its place, never to
// read a mabkit-clip document: json_import.cpp hands it a text simdjson rejected, only for its
// syntax error with line, column and byte; json_writer.cpp and gltf_document.cpp let it escape
// and check the UTF-8 of non-ASCII names; tinygltf parses and writes glTF with it; the CLI builds
// its small --json reports (info, verify, diff, survey, crc-search) with it.
#pragma once

#include <mab/container.hpp>
#include <mab/error.hpp>
#include <mab/quat.hpp>

#include <simdjson.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace mab::interchange::json_in {

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
    if (is_index) out += std::to_string(index);
    else out += key;
    return out;
  }
};

inline const Path root_path{};

inline Path at(const Path& path, std::string_view key) { return Path{&path, key, 0, false}; }
inline Path at(const Path& path, std::size_t index) { return Path{&path, {}, index, true}; }
// Paths of values already read (the codes check), as text.
inline std::string at(const std::string& path, std::string_view key) { return path + "/" + std::string(key); }
inline std::string at(const std::string& path, std::size_t index) { return path + "/" + std::to_string(index); }

inline Error perr(const Path& path, std::string detail) {
  const std::string p = path.str();
  return make_error(ErrorCode::parse_error, no_offset, p.empty() ? "/" : p, std::move(detail));
}
inline Error perr(const std::string& path, std::string detail) {
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

inline std::string describe(const Val& j) {
  std::string text = j.dump();
  if (text.size() > 40) text = text.substr(0, 37) + "...";
  return std::string(j.type_name()) + " " + text;
}

// Objects must hold only known fields, each once, so a misspelt or repeated field is an
// error, not ignored.
inline Status check_object(const Val& j, const Path& path, std::span<const std::string_view> known) {
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
inline Status check_object(const Val& j, const Path& path, std::initializer_list<std::string_view> known) {
  return check_object(j, path, std::span<const std::string_view>(known.begin(), known.size()));
}

inline std::optional<Val> maybe(const Val& obj, std::string_view key) {
  element v;
  if (obj.object().at_key(key).get(v) != simdjson::SUCCESS) return std::nullopt;
  return Val{v};
}

inline Result<Val> need(const Val& obj, const Path& path, std::string_view key) {
  auto j = maybe(obj, key);
  if (!j) return perr(at(path, key), "missing field");
  return *j;
}

inline Status check_array(const Val& j, const Path& path, std::size_t max_size) {
  if (!j.is_array()) return perr(path, "expected an array, found " + describe(j));
  if (j.size() > max_size)
    return perr(path, std::to_string(j.size()) + " entries exceed the limit of " + std::to_string(max_size));
  return {};
}

inline Status check_size(const Val& j, const Path& path, std::size_t size) {
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

inline int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// Integers are JSON numbers or "0x"-prefixed hex strings (hashes and 64-bit fields are
// written as hex; 64-bit values in numbers lose precision in many JSON tools).
inline Result<std::uint64_t> read_uint(const Val& j, const Path& path, std::uint64_t max) {
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

inline Result<std::int64_t> read_int(const Val& j, const Path& path, std::int64_t min, std::int64_t max) {
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
inline Result<float> read_float(const Val& j, const Path& path) {
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

inline Result<std::string> read_string(const Val& j, const Path& path) {
  if (!j.is_string()) return perr(path, "expected a string, found " + describe(j));
  return std::string(j.string());
}

// Byte strings are hex, two digits per byte. `budget` caps the bytes of the whole document.
inline Result<std::vector<std::uint8_t>> read_hex(const Val& j, const Path& path, std::uint64_t& budget) {
  if (!j.is_string()) return perr(path, "expected a hex string, found " + describe(j));
  const std::string_view s = j.string();
  if (s.size() % 2 != 0) return perr(path, "odd number of hex digits (" + std::to_string(s.size()) + ")");
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

// An integer element of a header array: unsigned ones as read_u, signed ones (the legacy
// section offsets) within their type's range.
template <class T>
Result<T> read_element(const Val& j, const Path& path) {
  if constexpr (std::is_signed_v<T>) {
    MAB_ASSIGN(const std::int64_t v, read_int(j, path, std::numeric_limits<T>::min(), std::numeric_limits<T>::max()));
    return static_cast<T>(v);
  } else {
    return read_u<T>(j, path);
  }
}

template <class Out>
Status read_u_elements(const Val& obj, const Path& path, std::string_view key, std::size_t size, Out& out) {
  MAB_ASSIGN(const Val j, need(obj, path, key));
  const Path p = at(path, key);
  MAB_TRY(check_size(j, p, size));
  return each(j, [&](std::size_t i, const Val& v) -> Status {
    MAB_ASSIGN(out[i], read_element<typename Out::value_type>(v, at(p, i)));
    return {};
  });
}

template <class T, std::size_t N>
Status read_u_array(const Val& obj, const Path& path, std::string_view key, std::array<T, N>& out) {
  return read_u_elements(obj, path, key, N, out);
}

template <class T>
Status read_u_vector(const Val& obj, const Path& path, std::string_view key, std::size_t size, std::vector<T>& out) {
  out.resize(size);
  return read_u_elements(obj, path, key, size, out);
}

// An array member of at most `max` elements; more is limit_exceeded (the "motion" lists, whose
// elements are allocated as they are read).
inline Result<Val> need_array(const Val& obj, const Path& path, std::string_view key, std::size_t max) {
  MAB_ASSIGN(const Val a, need(obj, path, key));
  if (!a.is_array()) return perr(at(path, key), "expected an array, found " + describe(a));
  if (a.size() > max)
    return make_error(ErrorCode::limit_exceeded, no_offset, at(path, key).str(),
                      std::to_string(a.size()) + " elements, limit " + std::to_string(max));
  return a;
}

template <std::size_t N>
Result<std::array<float, N>> read_floats(const Val& j, const Path& path) {
  if (!j.is_array() || j.size() != N)
    return perr(path, "expected an array of " + std::to_string(N) + " numbers, found " + describe(j));
  std::array<float, N> out{};
  MAB_TRY(each(j, [&](std::size_t i, const Val& v) -> Status {
    MAB_ASSIGN(out[i], read_float(v, at(path, i)));
    return {};
  }));
  return out;
}

inline Result<Quat> read_quat(const Val& j, const Path& path) {
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

}  // namespace mab::interchange::json_in
