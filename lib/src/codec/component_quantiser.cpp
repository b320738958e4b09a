// Quantising one stored component (format 9.2 "Encoder notes"): constant or varying, header and
// raw codes, each re-checked on the values it decodes to, with the decoder's float arithmetic,
// so that quantising those values again gives the same codes.
#include "component_quantiser.hpp"

#include "lanes2.hpp"

#include <algorithm>
#include <cmath>

namespace mab::detail {

namespace {

// Slack, in units of one base (1/127) or range (1/127.5) step, absorbing float rounding of
// decoded values (about 1e-5 steps) so they map back to the codes that produced them.
constexpr double step_tolerance = 1e-4;
// Half of one constant step (decision 1: 1/32767.5), plus float rounding of the decode.
constexpr double const_half_quantum = 0.5 / 32767.5 + 1e-7;

struct Span {
  double lo, hi;
};

template <class T>
Span range_of(const T* v) noexcept {
  Span s{double{v[0]}, double{v[0]}};
  for (unsigned f = 1; f < component_lanes; ++f) {
    s.lo = std::min(s.lo, double{v[f]});
    s.hi = std::max(s.hi, double{v[f]});
  }
  return s;
}

// The constant whose decoded value minimises the larger distance to lo and hi (lower on ties).
// Float rounding of the decode is far below a step, so the nearest code is next to round(t).
std::uint16_t best_constant(Span s, double& err) noexcept {
  const double t = (0.5 * (s.lo + s.hi) + 1.0) * 32767.5;
  const auto centre = static_cast<std::uint32_t>(std::clamp(t + 0.5, 1.0, 65534.0));
  std::uint32_t best = centre - 1;
  err = 1e300;
  for (std::uint32_t c = centre - 1; c <= centre + 1; ++c) {
    const double d = rotation_constant_value(static_cast<std::uint16_t>(c));
    const double e = std::max(std::fabs(d - s.lo), std::fabs(d - s.hi));
    if (e < err) {
      err = e;
      best = c;
    }
  }
  return static_cast<std::uint16_t>(best);
}

// Code of the largest integer <= x or the smallest >= x, clamped to 0..255 (std::floor and
// std::ceil are library calls on baseline x86-64; x is clamped first so the cast is defined).
unsigned floor_code(double x) noexcept {
  x = std::clamp(x, -1.0, 256.0);
  const int i = static_cast<int>(x);
  return static_cast<unsigned>(std::clamp(i - (static_cast<double>(i) > x ? 1 : 0), 0, 255));
}
unsigned ceil_code(double x) noexcept {
  x = std::clamp(x, -1.0, 256.0);
  const int i = static_cast<int>(x);
  return static_cast<unsigned>(std::clamp(i + (static_cast<double>(i) < x ? 1 : 0), 0, 255));
}

// Largest base k/127 - 1 at or below lo ("floor-ish"; the tolerance lets a decoded value that
// sits on a base map back to it).
unsigned base_code(double lo) noexcept { return floor_code((lo + 1.0) * 127.0 + step_tolerance); }
// Smallest range m/127.5 reaching hi from base ("ceil-ish").
unsigned range_code(double hi, float base) noexcept { return ceil_code((hi - double{base}) * 127.5 - step_tolerance); }

// Raw codes and decoded values of all keys for header (base, slope). Each code is the nearest
// level, moved until the level maps back to itself: with a slope below float resolution
// several levels decode to one float, and only one of them survives re-quantising. Returns
// whether every code is the level of its own value.
bool raw_codes(const double* v, float base, float slope, unsigned max_raw, std::array<std::uint16_t, 8>& raw,
               std::array<float, component_lanes>& value) noexcept {
  if (!(slope > 0.0f)) {
    raw.fill(0);
    value.fill(rotation_varying_value(base, slope, 0));
    return true;
  }
  const double inv = 1.0 / double{slope};
  const double top = static_cast<double>(max_raw);
  const double b = base, sl = slope;
  // Round half up on a value clamped to [0, max_raw], so truncation is exact; in int, which
  // holds every level, so the loop vectorises.
  auto level = [&](double x) {
    double t = (x - b) * inv;
    t = t < 0.0 ? 0.0 : t;
    t = top < t ? top : t;
    return static_cast<int>(t + 0.5);
  };
  // rotation_varying_value, on an int code.
  auto decoded = [&](int r) { return static_cast<float>(static_cast<double>(r) * sl + b); };
  int r[component_lanes];
  for (unsigned f = 0; f < component_lanes; ++f) r[f] = level(v[f]);
  for (unsigned f = 0; f < component_lanes; ++f) value[f] = decoded(r[f]);
  // The decode of level r is base + r * slope rounded to float, off by at most 2^-23 (values
  // lie in [-1, 3]); from a slope of 2^-16 up that is under 1/128 of a level, so every code
  // already maps back to itself.
  bool all = true;
  if (slope < 0x1p-16f) {
    for (unsigned f = 0; f < component_lanes; ++f) {
      bool converged = false;
      for (int i = 0; i < 4 && !converged; ++i) {
        const int again = level(decoded(r[f]));
        converged = again == r[f];
        r[f] = again;
      }
      value[f] = decoded(r[f]);
      all = all && converged;
    }
  }
  for (unsigned f = 0; f < component_lanes; ++f) raw[f] = static_cast<std::uint16_t>(r[f]);
  return all;
}

Component varying_component(const double* v, unsigned nbits, Span s) {
  Component out;
  const unsigned max_raw = (1u << nbits) - 1u;
  unsigned k = 0, m = 0;
  if (nbits == 1) {
    // Format 9.2: S[1] = 0, so every key decodes to the base; take the nearest base.
    const double t = std::floor((0.5 * (s.lo + s.hi) + 1.0) * 127.0);
    const unsigned first = static_cast<unsigned>(std::clamp(t - 1.0, 0.0, 255.0));
    double best = 1e300;
    for (unsigned c = first; c <= std::min(first + 3, 255u); ++c) {
      const double b = rotation_base(static_cast<std::uint16_t>(c));
      const double e = std::max(std::fabs(b - s.lo), std::fabs(b - s.hi));
      if (e < best) {
        best = e;
        k = c;
      }
    }
    out.header = static_cast<std::uint16_t>(k);
    out.err = best;
    out.value.fill(rotation_varying_value(rotation_base(out.header), rotation_slope(out.header, 1), 0));
    return out;  // `reproduces` unclaimed: a constant always fits these keys at least as well
  }
  k = base_code(s.lo);
  m = range_code(s.hi, rotation_base(static_cast<std::uint16_t>(k)));
  // k only grows and m only shrinks, so this settles; each step keeps the covering within
  // half of the previous slope, so the error stays below half of the first slope.
  bool settled = false, raws_converged = true;
  for (int iter = 0; iter < 64 && !settled; ++iter) {
    const auto h = static_cast<std::uint16_t>((m << 8) | k);
    const float base = rotation_base(h);
    const float slope = rotation_slope(h, nbits);
    raws_converged = raw_codes(v, base, slope, max_raw, out.raw, out.value);
    std::uint16_t rmin = out.raw[0], rmax = out.raw[0];
    for (unsigned f = 1; f < component_lanes; ++f) {
      rmin = std::min(rmin, out.raw[f]);
      rmax = std::max(rmax, out.raw[f]);
    }
    out.header = h;
    const unsigned k2 = base_code(rotation_varying_value(base, slope, rmin));
    const unsigned m2 =
        range_code(rotation_varying_value(base, slope, rmax), rotation_base(static_cast<std::uint16_t>(k2)));
    settled = k2 == k && m2 == m;
    k = k2;
    m = m2;
  }
  // Quantising the decoded values starts from the same k and m (values are monotone in the
  // raw code, so their extremes are value(rmin) and value(rmax)) and finds every raw code
  // again; quantise_component then decides constant or varying on the same decoded range.
  out.reproduces = settled && raws_converged;
  out.err = 0;
  for (unsigned f = 0; f < component_lanes; ++f) out.err = std::max(out.err, std::fabs(double{out.value[f]} - v[f]));
  return out;
}

// A constant's decode is one value whose own nearest constant is itself, at error 0.
Component constant_component(std::uint16_t header, double err) {
  Component c;
  c.constant = true;
  c.reproduces = true;
  c.header = header;
  c.value.fill(rotation_constant_value(header));
  c.err = err;
  return c;
}

}  // namespace

Component quantise_component(const double* v, unsigned keys, unsigned nbits) {
  const Span s = range_of(v);
  double constant_err = 0;
  const std::uint16_t constant_header = best_constant(s, constant_err);
  const Component constant = constant_component(constant_header, constant_err);
  Component varying = varying_component(v, nbits, s);
  for (unsigned f = keys; f < component_lanes; ++f) varying.raw[f] = 0;
  // A constant saves n*F bits; take it whenever it is no worse than the varying form or
  // fits within half a constant step.
  if (constant.err <= std::max(varying.err, const_half_quantum)) return constant;
  // The decoded varying values would re-quantise with a varying error of 0, so they stay
  // varying only if no constant fits them within half a step.
  const Span d = range_of(varying.value.data());
  // A constant is at least half the spread away from one end, so wide spreads need no search
  // (and at twice the half step, no rounding doubt for `reproduces`).
  const double half_spread = 0.5 * (d.hi - d.lo);
  if (half_spread > 2 * const_half_quantum) return varying;
  double decoded_err = 0;
  best_constant(d, decoded_err);
  if (half_spread > const_half_quantum) {
    varying.reproduces = varying.reproduces && decoded_err > const_half_quantum;
    return varying;
  }
  if (decoded_err <= const_half_quantum) return constant;
  return varying;
}

namespace {

// The varying header and code closest to one value held by every key. For a base k the
// values base + r * slope lie on a grid of 1 / (127.5 * (2^n - 1)) (slope = m / 127.5 over
// 2^n - 1 steps) whatever m is, and each base shifts that grid by a fraction of a step, so the
// bases below the value reach it far closer than the one base_code picks (format 9.2 formulas).
Component still_component(double value, unsigned keys, unsigned nbits) {
  Component out;
  out.err = 1e300;
  const unsigned max_raw = (1u << nbits) - 1u;
  for (unsigned k = 0; k < 256; ++k) {
    const float base = rotation_base(static_cast<std::uint16_t>(k));
    if (double{base} > value || value - double{base} > 255.0 / 127.5) continue;
    for (unsigned m = 1; m < 256; ++m) {
      const auto h = static_cast<std::uint16_t>((m << 8) | k);
      const float slope = rotation_slope(h, nbits);
      if (!(slope > 0.0f)) continue;
      const double t = (value - double{base}) / double{slope};
      if (t > max_raw + 1.0) continue;
      const auto r0 = static_cast<unsigned>(std::max(0.0, t - 1.0));
      for (unsigned r = r0; r <= std::min(r0 + 2, max_raw); ++r) {
        const float d = rotation_varying_value(base, slope, static_cast<std::uint16_t>(r));
        const double e = std::fabs(double{d} - value);
        if (e >= out.err) continue;
        out.err = e;
        out.header = h;
        out.raw.fill(0);
        for (unsigned f = 0; f < keys; ++f) out.raw[f] = static_cast<std::uint16_t>(r);
        out.value.fill(d);
      }
    }
  }
  return out;
}

}  // namespace

Component quantise_scaled_component(const double* v, unsigned keys, unsigned nbits, double constant_slack) {
  const Span s = range_of(v);
  const double slack = std::min(constant_slack, const_half_quantum);
  double constant_err = 0;
  const std::uint16_t constant_header = best_constant(s, constant_err);
  Component varying = varying_component(v, nbits, s);
  for (unsigned f = keys; f < component_lanes; ++f) varying.raw[f] = 0;
  varying.reproduces = false;
  Component best =
      constant_err <= std::max(varying.err, slack) ? constant_component(constant_header, constant_err) : varying;
  // A component that stays put (a key time added next to an equal key) at a depth the rest of
  // the track keeps: neither the constant's step nor base_code's grid need be within the slack.
  if (best.err > slack && s.lo == s.hi && nbits > 1) {
    Component still = still_component(s.lo, keys, nbits);
    if (still.err < best.err) best = still;
  }
  return best;
}

namespace {

// Two components in lockstep, one per lane (lanes2.hpp): each lane computes exactly what the
// scalar code above computes for its component.
using namespace lanes2;

// floor_code and ceil_code, codes held as doubles.
inline D2 floor_codes(D2 x) noexcept {
  x = clamp2(x, -1.0, 256.0);
  const D2 i = truncated(x);
  return clamp2(i - one_where(i > x), 0.0, 255.0);
}
inline D2 ceil_codes(D2 x) noexcept {
  x = clamp2(x, -1.0, 256.0);
  const D2 i = truncated(x);
  return clamp2(i + one_where(i < x), 0.0, 255.0);
}
inline D2 base_codes(D2 lo) noexcept { return floor_codes((lo + 1.0) * 127.0 + step_tolerance); }
// rotation_base
inline D2 bases(D2 k) noexcept { return to_float(k * double{0.0078740157f} - 1.0); }
inline D2 range_codes(D2 hi, D2 base) noexcept { return ceil_codes((hi - base) * 127.5 - step_tolerance); }

// raw_codes' arithmetic for one header per lane.
struct Levels {
  D2 base, slope, inv, top;
  D2 level(D2 y) const noexcept {
    // t < 0 ? 0 : t, then top < t ? top : t
    return truncated(min2(max2((y - base) * inv, splat(0.0)), top) + 0.5);
  }
  D2 decoded(D2 r) const noexcept { return to_float(r * slope + base); }
  // Moves each level until it maps back to itself, at most 4 times, as raw_codes does; lanes
  // set in `fixed` (slopes from 2^-16 up) already do. Returns the lanes where all of r did.
  L2 converge(D2* r, unsigned n, L2 fixed) const noexcept {
    L2 converged[component_lanes];
    for (unsigned f = 0; f < n; ++f) converged[f] = fixed;
    for (int i = 0; i < 4; ++i) {
      L2 all = ~L2{};
      for (unsigned f = 0; f < n; ++f) {
        const D2 again = level(decoded(r[f]));
        const L2 same = again == r[f];
        r[f] = select(converged[f], r[f], again);
        converged[f] |= same;
        all &= converged[f];
      }
      if ((all[0] & all[1]) != 0) break;
    }
    L2 out = ~L2{};
    for (unsigned f = 0; f < n; ++f) out &= converged[f];
    return out;
  }
};

// quantise_component on component s of keys v[f][0..3].
Component quantise_one(const double (*v)[4], unsigned s, unsigned keys, unsigned nbits) {
  double column[component_lanes];
  for (unsigned f = 0; f < component_lanes; ++f) column[f] = v[f][s];
  return quantise_component(column, keys, nbits);
}

// quantise_component on columns `first` and `first + 1`.
void quantise_pair(const double (*v)[4], unsigned first, unsigned keys, unsigned nbits, Component* out) {
  D2 x[component_lanes];
  for (unsigned f = 0; f < component_lanes; ++f) x[f] = load(&v[f][first]);

  // range_of
  D2 lo = x[0], hi = x[0];
  for (unsigned f = 1; f < component_lanes; ++f) {
    lo = min2(lo, x[f]);
    hi = max2(hi, x[f]);
  }

  // varying_component, first header.
  const D2 k = base_codes(lo);
  const D2 base = bases(k);
  const D2 m = range_codes(hi, base);
  // rotation_slope: two float products, each exact in double and rounded once.
  const D2 slope = to_float(to_float(m * double{0.0078431377f}) * double{interpolant_scale(nbits)});
  const L2 flat = slope <= 0.0;  // m = 0: every key decodes to the base
  const D2 inv = 1.0 / select(flat, splat(1.0), slope);
  const Levels levels{base, slope, inv, splat(static_cast<double>((1u << nbits) - 1u))};
  D2 r[component_lanes];
  for (unsigned f = 0; f < component_lanes; ++f) r[f] = levels.level(x[f]);
  const L2 small = slope < 0x1p-16;
  const L2 raws_converged = (small[0] | small[1]) != 0 ? levels.converge(r, component_lanes, ~small) : ~L2{};
  D2 value[component_lanes];
  for (unsigned f = 0; f < component_lanes; ++f) value[f] = levels.decoded(r[f]);
  D2 rmin = r[0], rmax = r[0];
  for (unsigned f = 1; f < component_lanes; ++f) {
    rmin = min2(rmin, r[f]);
    rmax = max2(rmax, r[f]);
  }
  // Settled at the first header, or handed over to the full search.
  const D2 k2 = base_codes(levels.decoded(rmin));
  const D2 m2 = range_codes(levels.decoded(rmax), bases(k2));
  const L2 settled = (k2 == k) & (m2 == m);
  D2 varying_err = splat(0.0);
  for (unsigned f = 0; f < component_lanes; ++f) varying_err = max2(varying_err, abs2(value[f] - x[f]));

  // The choice of quantise_component; only its first two outcomes are taken here. A constant
  // misses lo or hi by at least half the spread, so where that half exceeds the varying error
  // (the factor covers rounding) no constant is taken and best_constant need not run.
  const D2 half_spread = 0.5 * (hi - lo) * (1.0 - 1e-9);
  const D2 varying_or_half_step = max2(varying_err, splat(const_half_quantum));
  L2 take_constant = L2{};
  D2 constant_code = splat(0.0), constant_err = splat(0.0);
  if (((half_spread[0] > varying_or_half_step[0]) & (half_spread[1] > varying_or_half_step[1])) == 0) {
    // best_constant
    const D2 centre = truncated(clamp2((0.5 * (lo + hi) + 1.0) * 32767.5 + 0.5, 1.0, 65534.0));
    constant_code = centre - 1.0;
    constant_err = splat(1e300);
    for (int c = -1; c <= 1; ++c) {
      const D2 code = centre + static_cast<double>(c);
      const D2 d = to_float(code * double{0.000030518044f} - 1.0);  // rotation_constant_value
      const D2 e = max2(abs2(d - lo), abs2(d - hi));
      const L2 better = e < constant_err;
      constant_err = select(better, e, constant_err);
      constant_code = select(better, code, constant_code);
    }
    take_constant = constant_err <= varying_or_half_step;
  }
  // The decoded values spread at least hi - lo less twice the varying error, so most pairs
  // are wide without looking at them.
  L2 wide = half_spread - varying_err > 2 * const_half_quantum;
  if ((wide[0] & wide[1]) == 0) {
    D2 dlo = value[0], dhi = value[0];
    for (unsigned f = 1; f < component_lanes; ++f) {
      dlo = min2(dlo, value[f]);
      dhi = max2(dhi, value[f]);
    }
    wide = 0.5 * (dhi - dlo) > 2 * const_half_quantum;
  }
  for (unsigned s = 0; s < 2; ++s) {
    Component& c = out[first + s];
    if (flat[s] || !settled[s]) {
      c = quantise_one(v, first + s, keys, nbits);
    } else if (take_constant[s]) {
      c = constant_component(static_cast<std::uint16_t>(constant_code[s]), constant_err[s]);
    } else if (!wide[s]) {
      c = quantise_one(v, first + s, keys, nbits);
    } else {
      c.constant = false;
      c.reproduces = raws_converged[s] != 0;
      c.header = static_cast<std::uint16_t>((static_cast<unsigned>(m[s]) << 8) | static_cast<unsigned>(k[s]));
      for (unsigned f = 0; f < component_lanes; ++f) {
        c.raw[f] = static_cast<std::uint16_t>(r[f][s]);
        c.value[f] = static_cast<float>(value[f][s]);
      }
      for (unsigned f = keys; f < component_lanes; ++f) c.raw[f] = 0;
      c.err = varying_err[s];
    }
  }
}

}  // namespace

void quantise_components(const double (*v)[4], unsigned keys, unsigned nbits, Component* out) {
  if (nbits < 2) {
    for (unsigned s = 0; s < 4; ++s) out[s] = quantise_one(v, s, keys, nbits);
    return;
  }
  quantise_pair(v, 0, keys, nbits, out);
  quantise_pair(v, 2, keys, nbits, out);
}

bool stored_exactly(const double* v, unsigned keys, unsigned nbits) {
  // Keys two per vector here; range_of's minimum and maximum are order-free but for the sign
  // of a zero, which no code depends on.
  D2 x[component_lanes / 2];
  for (unsigned p = 0; p < component_lanes / 2; ++p) x[p] = load(v + 2 * p);
  D2 lo2 = x[0], hi2 = x[0];
  for (unsigned p = 1; p < component_lanes / 2; ++p) {
    lo2 = min2(lo2, x[p]);
    hi2 = max2(hi2, x[p]);
  }
  const double lo = std::min(lo2[0], lo2[1]), hi = std::max(hi2[0], hi2[1]);
  // With lo < hi a constant misses one end, so only a varying form can have error 0, and
  // quantise_component's varying form is varying_component's: when that settles on its first
  // header with a non-zero error, the answer is no without the rest.
  if (lo < hi) {
    if (nbits == 1) return false;  // one base misses lo or hi as well
    const unsigned k = base_code(lo);
    const unsigned m = range_code(hi, rotation_base(static_cast<std::uint16_t>(k)));
    const auto h = static_cast<std::uint16_t>((m << 8) | k);
    const float base = rotation_base(h), slope = rotation_slope(h, nbits);
    if (slope > 0.0f) {
      const Levels levels{splat(base), splat(slope), splat(1.0 / double{slope}),
                          splat(static_cast<double>((1u << nbits) - 1u))};
      D2 r[component_lanes / 2];
      for (unsigned p = 0; p < component_lanes / 2; ++p) r[p] = levels.level(x[p]);
      if (slope < 0x1p-16f) levels.converge(r, component_lanes / 2, L2{});
      D2 rmin = r[0], rmax = r[0];
      for (unsigned p = 1; p < component_lanes / 2; ++p) {
        rmin = min2(rmin, r[p]);
        rmax = max2(rmax, r[p]);
      }
      const auto code = [](double c) { return static_cast<std::uint16_t>(c); };
      const unsigned k2 = base_code(rotation_varying_value(base, slope, code(std::min(rmin[0], rmin[1]))));
      const unsigned m2 = range_code(rotation_varying_value(base, slope, code(std::max(rmax[0], rmax[1]))),
                                     rotation_base(static_cast<std::uint16_t>(k2)));
      if (k2 == k && m2 == m) {
        L2 same = ~L2{};
        for (unsigned p = 0; p < component_lanes / 2; ++p) same &= levels.decoded(r[p]) == x[p];
        if ((same[0] & same[1]) == 0) return false;
      }
    }
  }
  return quantise_component(v, keys, nbits).err == 0;
}

}  // namespace mab::detail
