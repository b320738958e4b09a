// Internal: the shortest decimal text of a float, character for character what
// std::to_chars(first, last, float) writes (checked on every bit pattern by
// scripts/bench/check_float_text; a sample runs in ctest), about three times faster: the digits
// come from the Dragonbox algorithm (fmt, libfmt-dev), the layout is the standard's.
#pragma once

#include <cstddef>
#include <cstdint>

namespace mab::json_out {

// Needs shortest_float_max bytes at `out`; `f` must be finite. Returns the end of the text.
// With `point_zero`, a text without '.' or 'e' (an integer) gets ".0", as JSON floats need.
char* shortest_float(char* out, float f, bool point_zero = false) noexcept;

// Room the writers need at `out` (more than the longest text: they copy in fixed sizes).
constexpr std::size_t shortest_float_max = 40;

// The decimal digits of v (at most 20 characters). Returns the end of the text.
char* put_decimal(char* out, std::uint64_t v) noexcept;

}  // namespace mab::json_out
