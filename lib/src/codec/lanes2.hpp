// Two doubles per vector (gcc/clang vector extensions; SSE2 on x86-64, NEON elsewhere). Every
// operation is element-wise IEEE arithmetic, so a lane computes exactly what the same scalar
// expression computes: the codec uses them where results must match its scalar code bit for
// bit. Selections are written as comparisons, which compile to min, max and mask instructions.
// The vectors never cross an ABI boundary.
#pragma once

#include <cstdint>
#include <cstring>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace mab::detail::lanes2 {

using D2 = double __attribute__((vector_size(16)));
using L2 = std::int64_t __attribute__((vector_size(16)));  // comparison masks
using I2 = std::int32_t __attribute__((vector_size(8)));
using F2 = float __attribute__((vector_size(8)));

inline D2 splat(double x) noexcept { return D2{x, x}; }
inline D2 load(const double* p) noexcept {
  D2 x;
  std::memcpy(&x, p, sizeof x);
  return x;
}
inline void store(double* p, D2 x) noexcept { std::memcpy(p, &x, sizeof x); }
// Two floats, widened.
inline D2 load(const float* p) noexcept {
  F2 x;
  std::memcpy(&x, p, sizeof x);
  return __builtin_convertvector(x, D2);
}
// Two floats, narrowed (exactly, for values that came from floats).
inline void store(float* p, D2 x) noexcept {
  const F2 y = __builtin_convertvector(x, F2);
  std::memcpy(p, &y, sizeof y);
}
// Truncation toward zero, of values already clamped into int range.
inline D2 truncated(D2 x) noexcept { return __builtin_convertvector(__builtin_convertvector(x, I2), D2); }
// Rounded to float and back.
inline D2 to_float(D2 x) noexcept { return __builtin_convertvector(__builtin_convertvector(x, F2), D2); }
// std::min, std::max and std::clamp, operand order included. On SSE2 spelt as minpd/maxpd,
// which compute exactly b < a ? b : a and a < b ? b : a (compilers miss the pattern when an
// operand is a constant).
#if defined(__SSE2__)
inline D2 min2(D2 a, D2 b) noexcept {
  return reinterpret_cast<D2>(_mm_min_pd(reinterpret_cast<__m128d>(b), reinterpret_cast<__m128d>(a)));
}
inline D2 max2(D2 a, D2 b) noexcept {
  return reinterpret_cast<D2>(_mm_max_pd(reinterpret_cast<__m128d>(b), reinterpret_cast<__m128d>(a)));
}
#else
inline D2 min2(D2 a, D2 b) noexcept { return b < a ? b : a; }
inline D2 max2(D2 a, D2 b) noexcept { return a < b ? b : a; }
#endif
inline D2 clamp2(D2 x, double lo, double hi) noexcept {
  return min2(max2(x, splat(lo)), splat(hi));  // x < lo ? lo : (hi < x ? hi : x)
}
inline D2 abs2(D2 x) noexcept { return reinterpret_cast<D2>(reinterpret_cast<L2>(x) & 0x7FFFFFFFFFFFFFFF); }
inline D2 select(L2 mask, D2 a, D2 b) noexcept {
  return reinterpret_cast<D2>((reinterpret_cast<L2>(a) & mask) | (reinterpret_cast<L2>(b) & ~mask));
}
// 1.0 where mask is set, else 0.0.
inline D2 one_where(L2 mask) noexcept { return reinterpret_cast<D2>(reinterpret_cast<L2>(splat(1.0)) & mask); }

}  // namespace mab::detail::lanes2
