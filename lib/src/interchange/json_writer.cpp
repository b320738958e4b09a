// Streaming JSON writer with the mabkit-clip layout (json_writer.hpp).
#include "interchange/json_writer.hpp"

#include <nlohmann/json.hpp>

#include <charconv>
#include <cmath>
#include <cstring>

namespace mab::json_out {

void Writer::push(bool object, bool inline_mode) {
  Frame f;
  f.object = object;
  f.inline_mode = inline_mode;
  frames_.push_back(f);
}

void Writer::before_value() {
  if (frames_.empty()) return;
  Frame& f = frames_.back();
  if (f.object) {
    f.after_key = false;
    return;
  }
  if (f.inline_mode) {
    if (!f.empty) out_ += ", ";
  } else {
    out_ += f.empty ? "\n" : ",\n";
    out_.append(f.indent + 2, ' ');
  }
  f.empty = false;
}

void Writer::key(std::string_view k) {
  Frame& f = frames_.back();
  if (f.inline_mode) {
    if (!f.empty) out_ += ", ";
  } else {
    out_ += f.empty ? "\n" : ",\n";
    out_.append(f.indent + 2, ' ');
  }
  f.empty = false;
  f.after_key = true;
  out_ += '"';
  out_ += k;
  out_ += "\": ";
  check_budget();
}

void Writer::null_value() {
  before_value();
  out_ += "null";
  check_budget();
}

void Writer::uint(std::uint64_t v) {
  before_value();
  char buf[24];
  const auto r = std::to_chars(buf, buf + sizeof buf, v);
  out_.append(buf, r.ptr);
  check_budget();
}

void Writer::sint(std::int64_t v) {
  before_value();
  char buf[24];
  const auto r = std::to_chars(buf, buf + sizeof buf, v);
  out_.append(buf, r.ptr);
  check_budget();
}

// std::to_chars gives the shortest text that reads back as the double (nlohmann's Grisu2 does
// not always: 0.7476421599999999 for 0.74764216). A ".0" keeps whole numbers floating point,
// so -0.0 does not read back as the integer 0.
void Writer::number(double d) {
  before_value();
  if (!std::isfinite(d)) {
    out_ += "null";
  } else {
    char buf[64];
    const auto r = std::to_chars(buf, buf + sizeof buf, d);
    const std::string_view text(buf, static_cast<std::size_t>(r.ptr - buf));
    out_ += text;
    if (text.find_first_of(".e") == std::string_view::npos) out_ += ".0";
  }
  check_budget();
}

// The document format prints a float as the double nearest to the float's own shortest text
// (0.70710677, not 0.70710676908493042), and that double as its shortest text, falling back
// to the float widened to double when the nearest double does not narrow back to the float.
// For every finite float but two, that is the float's own shortest text: checked on all 2^32
// bit patterns (2026-12-03). The two, +-7.038531e-26 (bits 0x15AE43FD), narrow wrongly through
// the double and print as 7.038530691851209e-26; they take the long way.
void Writer::float_value(float f) {
  if (!std::isfinite(f)) {
    null_value();
    return;
  }
  char buf[64];
  const auto r = std::to_chars(buf, buf + sizeof buf, f);
  std::uint32_t bits;
  std::memcpy(&bits, &f, sizeof bits);
  if (r.ec == std::errc() && (bits & 0x7FFFFFFFu) != 0x15AE43FDu) {
    before_value();
    const std::string_view text(buf, static_cast<std::size_t>(r.ptr - buf));
    out_ += text;
    if (text.find_first_of(".e") == std::string_view::npos) out_ += ".0";
    check_budget();
    return;
  }
  if (r.ec == std::errc()) {
    double d = 0;
    const auto p = std::from_chars(buf, r.ptr, d);
    if (p.ec == std::errc() && p.ptr == r.ptr && static_cast<float>(d) == f &&
        std::signbit(static_cast<float>(d)) == std::signbit(f)) {
      number(d);
      return;
    }
  }
  number(static_cast<double>(f));
}

bool Writer::string(std::string_view s) {
  before_value();
  bool ascii = true;
  for (const char c : s) ascii = ascii && static_cast<unsigned char>(c) < 0x80;
  if (!ascii) {
    // Non-ASCII text (bone names): nlohmann checks the UTF-8 and keeps it as it is.
    try {
      out_ += nlohmann::json(std::string(s)).dump();
    } catch (const nlohmann::json::exception&) {
      return false;
    }
    check_budget();
    return true;
  }
  out_ += '"';
  for (const char c : s) {
    const auto u = static_cast<unsigned char>(c);
    switch (c) {
      case '"': out_ += "\\\""; break;
      case '\\': out_ += "\\\\"; break;
      case '\b': out_ += "\\b"; break;
      case '\f': out_ += "\\f"; break;
      case '\n': out_ += "\\n"; break;
      case '\r': out_ += "\\r"; break;
      case '\t': out_ += "\\t"; break;
      default:
        if (u < 0x20) {
          static constexpr char hex[] = "0123456789abcdef";
          out_ += "\\u00";
          out_ += hex[u >> 4];
          out_ += hex[u & 15];
        } else {
          out_ += c;
        }
    }
  }
  out_ += '"';
  check_budget();
  return true;
}

}  // namespace mab::json_out
