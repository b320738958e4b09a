// printf("%10.6f") of a float, without printf: `mab dump` writes four of them per key and
// bone (400,000 for a 100-bone, 1,000-key clip), and printf's were most of its time.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>

namespace mab::cli {

// Appends exactly what std::snprintf(" %10.6f", double(v)) writes. Why it is exact: a float
// has 24 significant bits and 10^6 = 2^6 x 15625 (14 bits), so double(v) * 1e6 is exact, and
// rounding that exact value to the nearest integer, ties to even, is what glibc's printf does
// with the decimal expansion in the default rounding mode. Values of 10^9 or more, NaN and
// infinity take snprintf itself.
inline void append_fixed6(std::string& out, float v) {
  const double x = static_cast<double>(v) * 1e6;
  if (!(std::fabs(x) < 1e15)) {
    char buf[64];
    const int n = std::snprintf(buf, sizeof buf, " %10.6f", static_cast<double>(v));
    if (n > 0) out.append(buf, static_cast<std::size_t>(n) < sizeof buf ? static_cast<std::size_t>(n) : sizeof buf - 1);
    return;
  }
  auto r = static_cast<std::uint64_t>(std::nearbyint(std::fabs(x)));
  char digits[24];
  int n = 0;
  for (int i = 0; i < 6; ++i, r /= 10) digits[n++] = static_cast<char>('0' + r % 10);
  digits[n++] = '.';
  do {
    digits[n++] = static_cast<char>('0' + r % 10);
    r /= 10;
  } while (r != 0);
  if (std::signbit(v)) digits[n++] = '-';  // printf keeps the sign of -0.0 and of what rounds to it
  out.append(static_cast<std::size_t>(n < 10 ? 11 - n : 1), ' ');
  while (n > 0) out += digits[--n];
}

}  // namespace mab::cli
