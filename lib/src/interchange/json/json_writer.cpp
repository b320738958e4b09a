// Streaming JSON writer with the mabkit-clip layout (json_writer.hpp).
#include "interchange/json/json_writer.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <charconv>
#include <cmath>

namespace mab::json_out {

void Writer::grow(std::size_t n) {
  // Capacity reserved by the caller is used before any reallocation.
  out_.resize(std::max({out_.capacity(), out_.size() * 2, pos_ + n + 4096}));
}

std::size_t Writer::put_uint(char* out, std::uint64_t v) noexcept {
  return static_cast<std::size_t>(put_decimal(out, v) - out);
}

void Writer::key(std::string_view k) {
  separator(back());
  reserve(k.size() + 4);
  char* o = out_.data() + pos_;
  *o++ = '"';
  std::memcpy(o, k.data(), k.size());
  o += k.size();
  std::memcpy(o, "\": ", 3);
  pos_ += k.size() + 4;
  check_budget();
}

void Writer::sint(std::int64_t v) {
  before_value();
  reserve(24);
  const auto r = std::to_chars(out_.data() + pos_, out_.data() + pos_ + 24, v);
  pos_ = static_cast<std::size_t>(r.ptr - out_.data());
  check_budget();
}

// std::to_chars gives the shortest text that reads back as the double (nlohmann's Grisu2 does
// not always: 0.7476421599999999 for 0.74764216). A ".0" keeps whole numbers floating point,
// so -0.0 does not read back as the integer 0.
void Writer::number(double d) {
  before_value();
  if (!std::isfinite(d)) {
    put("null", 4);
  } else {
    char buf[64];
    const auto r = std::to_chars(buf, buf + sizeof buf, d);
    const std::string_view text(buf, static_cast<std::size_t>(r.ptr - buf));
    put(text);
    if (text.find_first_of(".e") == std::string_view::npos) put(".0", 2);
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
  std::uint32_t bits;
  std::memcpy(&bits, &f, sizeof bits);
  if ((bits & 0x7FFFFFFFu) != 0x15AE43FDu) {
    before_value();
    reserve(shortest_float_max + 2);
    char* const end = shortest_float(out_.data() + pos_, f, true);
    pos_ = static_cast<std::size_t>(end - out_.data());
    check_budget();
    return;
  }
  char buf[64];
  const auto r = std::to_chars(buf, buf + sizeof buf, f);
  double d = 0;
  const auto p = std::from_chars(buf, r.ptr, d);
  if (p.ec == std::errc() && p.ptr == r.ptr && static_cast<float>(d) == f &&
      std::signbit(static_cast<float>(d)) == std::signbit(f)) {
    number(d);
    return;
  }
  number(static_cast<double>(f));
}

namespace {

// The two lowercase hex digits of every byte value.
constexpr std::array<char, 512> make_hex_pairs() {
  constexpr char digits[] = "0123456789abcdef";
  std::array<char, 512> t{};
  for (unsigned b = 0; b < 256; ++b) {
    t[2 * b] = digits[b >> 4];
    t[2 * b + 1] = digits[b & 0x0F];
  }
  return t;
}
constexpr std::array<char, 512> hex_pairs = make_hex_pairs();

// A float that float_value writes through shortest_float (finite, and not the one value whose
// text follows the former writer's rule instead).
bool plain_float(float f) noexcept {
  std::uint32_t bits;
  std::memcpy(&bits, &f, sizeof bits);
  return (bits & 0x7F800000u) != 0x7F800000u && (bits & 0x7FFFFFFFu) != 0x15AE43FDu;
}

}  // namespace

void Writer::hex_string(const std::uint8_t* bytes, std::size_t n) {
  before_value();
  // In a one-line trial a string that cannot fit ends the trial unwritten (a section's bytes
  // would otherwise be written out in full only to be taken back).
  if (budget_end_ != npos && pos_ + 2 * n + 2 > budget_end_) {
    full_ = true;
    return;
  }
  put('"');
  // Outside a trial nothing can be taken back, so a long string goes out in pieces: the
  // buffer stays at the flush size, however large the section.
  constexpr std::size_t piece = 16 * 1024;
  while (n != 0) {
    const std::size_t m = std::min(n, piece);
    reserve(2 * m);
    char* o = out_.data() + pos_;
    for (std::size_t i = 0; i < m; ++i, o += 2) std::memcpy(o, &hex_pairs[2 * std::size_t{bytes[i]}], 2);
    pos_ += 2 * m;
    bytes += m;
    n -= m;
    if (sink_ != nullptr && budget_end_ == npos && pos_ >= flush_size_) flush();
  }
  put('"');
  check_budget();
}

void Writer::float_array4(float a, float b, float c, float d) {
  if (!plain_float(a) || !plain_float(b) || !plain_float(c) || !plain_float(d)) {
    scalar_array([&] {
      float_value(a);
      float_value(b);
      float_value(c);
      float_value(d);
    });
    return;
  }
  before_value();
  reserve(4 * (shortest_float_max + 2) + 2);
  char* o = out_.data() + pos_;
  *o++ = '[';
  o = shortest_float(o, a, true);
  std::memcpy(o, ", ", 2);
  o = shortest_float(o + 2, b, true);
  std::memcpy(o, ", ", 2);
  o = shortest_float(o + 2, c, true);
  std::memcpy(o, ", ", 2);
  o = shortest_float(o + 2, d, true);
  *o++ = ']';
  pos_ = static_cast<std::size_t>(o - out_.data());
  check_budget();
}

bool Writer::string(std::string_view s) {
  before_value();
  bool ascii = true;
  for (const char c : s) ascii = ascii && static_cast<unsigned char>(c) < 0x80;
  if (!ascii) {
    // Non-ASCII text (bone names): nlohmann checks the UTF-8 and keeps it as it is.
    try {
      put(nlohmann::json(std::string(s)).dump());
    } catch (const nlohmann::json::exception&) {
      return false;
    }
    check_budget();
    return true;
  }
  put('"');
  for (const char c : s) {
    const auto u = static_cast<unsigned char>(c);
    switch (c) {
      case '"': put("\\\"", 2); break;
      case '\\': put("\\\\", 2); break;
      case '\b': put("\\b", 2); break;
      case '\f': put("\\f", 2); break;
      case '\n': put("\\n", 2); break;
      case '\r': put("\\r", 2); break;
      case '\t': put("\\t", 2); break;
      default:
        if (u < 0x20) {
          static constexpr char hex[] = "0123456789abcdef";
          const char esc[6] = {'\\', 'u', '0', '0', hex[u >> 4], hex[u & 15]};
          put(esc, 6);
        } else {
          put(c);
        }
    }
  }
  put('"');
  check_budget();
  return true;
}

}  // namespace mab::json_out
