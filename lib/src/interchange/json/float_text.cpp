// The shortest round-trip text of a float in std::to_chars's plain form ([charconv.to.chars]:
// the fewest characters that read back exactly, fixed notation on a tie with scientific, and
// of several texts that long the one nearest the value).
#include "interchange/json/float_text.hpp"

#define FMT_HEADER_ONLY
#include <fmt/format.h>

#include <bit>
#include <cstdint>
#include <cstring>

namespace mab::json_out {

namespace {

constexpr char digit_pairs[] =
    "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
    "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
    "8081828384858687888990919293949596979899";

unsigned digit_count(std::uint64_t v) noexcept {
  static constexpr std::uint64_t powers[] = {1ull,
                                             10ull,
                                             100ull,
                                             1000ull,
                                             10000ull,
                                             100000ull,
                                             1000000ull,
                                             10000000ull,
                                             100000000ull,
                                             1000000000ull,
                                             10000000000ull,
                                             100000000000ull,
                                             1000000000000ull,
                                             10000000000000ull,
                                             100000000000000ull,
                                             1000000000000000ull,
                                             10000000000000000ull,
                                             100000000000000000ull,
                                             1000000000000000000ull,
                                             10000000000000000000ull};
  // floor(log10(v)) from the bit width (1233 / 4096 ~ log10(2)), then one correction.
  const auto guess = static_cast<unsigned>((std::bit_width(v | 1) * 1233) >> 12);
  return guess + (v >= powers[guess] ? 1u : 0u);
}

// Writes the `n` decimal digits of `v` ending at out + n. A significand (at most 9 digits) takes
// the 32-bit instance: its divisions are cheaper than 64-bit ones.
template <typename U>
void put_digits(char* out, U v, unsigned n) noexcept {
  char* p = out + n;
  while (v >= 100) {
    const auto r = static_cast<unsigned>(v % 100);
    v /= 100;
    p -= 2;
    std::memcpy(p, digit_pairs + 2 * r, 2);
  }
  if (v >= 10) {
    p -= 2;
    std::memcpy(p, digit_pairs + 2 * v, 2);
  } else {
    *--p = static_cast<char>('0' + v);
  }
}

// The eight decimal digits of v (< 10^8, leading zeros included) as ASCII, most significant in
// the lowest byte of the little-endian word: each step splits every lane of the word in two
// with a multiply and a shift in place of a division (exact for the lane ranges: x / 100 ==
// (x * 10486) >> 20 for x < 10000, x / 10 == (x * 103) >> 10 for x < 100).
std::uint64_t eight_digits(std::uint32_t v) noexcept {
  const std::uint64_t quads = std::uint64_t{v / 10000} | (std::uint64_t{v % 10000} << 32);
  const std::uint64_t hundreds = ((quads * 10486) >> 20) & 0x0000007F0000007Full;
  const std::uint64_t pairs = hundreds | ((quads - hundreds * 100) << 16);
  const std::uint64_t tens = ((pairs * 103) >> 10) & 0x000F000F000F000Full;
  return (tens | ((pairs - tens * 10) << 8)) | 0x3030303030303030ull;
}

// Stores the n (1..9) digits of v at out (and up to 8 bytes of scratch after them).
void put_significand(char* out, std::uint32_t v, unsigned n) noexcept {
  if (n == 9) {
    *out++ = static_cast<char>('0' + v / 100000000);
    v %= 100000000;
    n = 8;
  }
  const std::uint64_t word = eight_digits(v) >> (8 * (8 - n));
  std::memcpy(out, &word, sizeof word);
}

}  // namespace

char* put_decimal(char* out, std::uint64_t v) noexcept {
  // Most integers of a document are codes below 10,000.
  if (v < 10) {
    *out = static_cast<char>('0' + v);
    return out + 1;
  }
  if (v < 100) {
    std::memcpy(out, digit_pairs + 2 * v, 2);
    return out + 2;
  }
  if (v < 1000) {
    *out = static_cast<char>('0' + v / 100);
    std::memcpy(out + 1, digit_pairs + 2 * (v % 100), 2);
    return out + 3;
  }
  if (v < 10000) {
    std::memcpy(out, digit_pairs + 2 * (v / 100), 2);
    std::memcpy(out + 2, digit_pairs + 2 * (v % 100), 2);
    return out + 4;
  }
  const unsigned n = digit_count(v);
  put_digits<std::uint64_t>(out, v, n);
  return out + n;
}

char* shortest_float(char* out, float f, bool point_zero) noexcept {
  std::uint32_t bits;
  std::memcpy(&bits, &f, sizeof bits);
  if (bits & 0x80000000u) *out++ = '-';
  if ((bits & 0x7FFFFFFFu) == 0) {
    std::memcpy(out, "0.0", 3);
    return out + (point_zero ? 3 : 1);
  }
  // Shortest digits, and of those the nearest to the value (Dragonbox's contract).
  const auto dec = fmt::detail::dragonbox::to_decimal(f);
  const std::uint32_t sig = dec.significand;
  const int e = dec.exponent;  // value = sig x 10^e
  const auto n = static_cast<int>(digit_count(sig));
  // Below 1 (every quaternion component but +-1): "0.", at most three zeros, the digits, which
  // is no longer than the scientific form while the zeros are at most 2 + (n > 1).
  if ((bits & 0x7FFFFFFFu) < 0x3F800000u && -e - n <= 2 + (n > 1 ? 1 : 0)) {
    std::memcpy(out, "0.000000", 8);
    const int zeros = -e - n;
    put_significand(out + 2 + zeros, sig, static_cast<unsigned>(n));
    return out + 2 + zeros + n;
  }
  const int sci_exp = e + n - 1;
  const int abs_exp = sci_exp < 0 ? -sci_exp : sci_exp;
  const int sci_len = n + (n > 1 ? 1 : 0) + 2 + (abs_exp >= 100 ? 3 : 2);
  int fixed_len;
  if (e >= 0) fixed_len = n + e;
  else if (n + e > 0) fixed_len = n + 1;
  else fixed_len = 2 - e;
  if (fixed_len <= sci_len) {
    if (e >= 0) {
      // An integer: of the texts this long the exact one is nearest, which the shortest
      // digits padded with zeros are not once the float's spacing exceeds 1 (2^24 and up).
      const float a = f < 0 ? -f : f;
      const auto exact = static_cast<std::uint64_t>(a);
      const auto len = digit_count(exact);
      put_digits<std::uint64_t>(out, exact, len);
      out += len;
      if (point_zero) {
        std::memcpy(out, ".0", 2);
        out += 2;
      }
      return out;
    }
    if (n + e > 0) {
      // The digits, then the fraction moved right by one for the point (fixed-size copies:
      // the caller's room covers them).
      const int int_digits = n + e;
      put_digits<std::uint32_t>(out, sig, static_cast<unsigned>(n));
      char frac[16];
      std::memcpy(frac, out + int_digits, sizeof frac);
      out[int_digits] = '.';
      std::memcpy(out + int_digits + 1, frac, sizeof frac);
      return out + n + 1;
    }
    // 0.000ddd: fixed is chosen only while it is no longer than scientific, so at most 3 zeros.
    const int zeros = -e - n;
    std::memcpy(out, "0.000", 5);
    put_digits<std::uint32_t>(out + 2 + zeros, sig, static_cast<unsigned>(n));
    return out + 2 + zeros + n;
  }
  put_digits<std::uint32_t>(out + 1, sig, static_cast<unsigned>(n));
  out[0] = out[1];
  if (n > 1) {
    out[1] = '.';
    out += n + 1;
  } else {
    out += 1;
  }
  *out++ = 'e';
  *out++ = sci_exp < 0 ? '-' : '+';
  if (abs_exp >= 100) *out++ = static_cast<char>('0' + abs_exp / 100);
  std::memcpy(out, digit_pairs + 2 * (abs_exp % 100), 2);
  return out + 2;
}

}  // namespace mab::json_out
