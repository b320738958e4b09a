// Re-quantiser: float keys to JointRotations codes (spec 9.2 "Encoder notes").
//
// Besides accuracy, the codes are built to be a fixed point: decoding them and quantising the
// decoded keys again gives the same codes. Every choice below is therefore re-checked on the
// decoded values it produces, using exactly the decoder's float arithmetic.
#include <mab/rotation_codec.hpp>

#include <algorithm>
#include <cmath>
#include <array>
#include <cstring>
#include <string>
#include <tuple>

namespace mab {

namespace {

// Slack, in units of one base (1/127) or range (1/127.5) step, absorbing float rounding of
// decoded values (about 1e-5 steps) so they map back to the codes that produced them.
constexpr double step_tolerance = 1e-4;
// Half of one constant step (decision D1: 1/32767.5), plus float rounding of the decode.
constexpr double const_half_quantum = 0.5 / 32767.5 + 1e-7;

struct Component {
  bool constant = false;
  std::uint16_t header = 0;
  std::array<std::uint16_t, 8> raw{};
  double err = 0;  // largest |decoded - input| over the keys
};

struct Span {
  double lo, hi;
};

Span range_of(const double* v, unsigned keys) noexcept {
  Span s{v[0], v[0]};
  for (unsigned f = 1; f < keys; ++f) {
    s.lo = std::min(s.lo, v[f]);
    s.hi = std::max(s.hi, v[f]);
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

// Largest base k/127 - 1 at or below lo ("floor-ish"; the tolerance lets a decoded value that
// sits on a base map back to it).
unsigned base_code(double lo) noexcept {
  return static_cast<unsigned>(
      std::clamp(std::floor((lo + 1.0) * 127.0 + step_tolerance), 0.0, 255.0));
}
// Smallest range m/127.5 reaching hi from base ("ceil-ish").
unsigned range_code(double hi, float base) noexcept {
  return static_cast<unsigned>(
      std::clamp(std::ceil((hi - double{base}) * 127.5 - step_tolerance), 0.0, 255.0));
}

// Nearest raw level, then moved until the level maps back to itself: with a slope below float
// resolution several levels decode to one float, and only one of them survives re-quantising.
std::uint16_t raw_code(double v, float base, float slope, unsigned max_raw) noexcept {
  if (!(slope > 0.0f)) return 0;
  const double inv = 1.0 / double{slope};
  const double top = static_cast<double>(max_raw);
  // Round half up on a value clamped to [0, max_raw], so truncation is exact and inline.
  auto level = [&](double x) {
    return static_cast<unsigned>(std::clamp((x - double{base}) * inv, 0.0, top) + 0.5);
  };
  unsigned r = level(v);
  for (int i = 0; i < 4; ++i) {
    const auto code = static_cast<std::uint16_t>(r);
    const unsigned again = level(rotation_varying_value(base, slope, code));
    if (again == r) break;
    r = again;
  }
  return static_cast<std::uint16_t>(r);
}

Component varying_component(const double* v, unsigned keys, unsigned nbits, Span s) {
  Component out;
  const unsigned max_raw = (1u << nbits) - 1u;
  unsigned k = 0, m = 0;
  if (nbits == 1) {
    // Spec 9.2: S[1] = 0, so every key decodes to the base; take the nearest base.
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
    return out;
  }
  k = base_code(s.lo);
  m = range_code(s.hi, rotation_base(static_cast<std::uint16_t>(k)));
  // k only grows and m only shrinks, so this settles; each step keeps the covering within
  // half of the previous slope, so the error stays below half of the first slope.
  for (int iter = 0; iter < 64; ++iter) {
    const auto h = static_cast<std::uint16_t>((m << 8) | k);
    const float base = rotation_base(h);
    const float slope = rotation_slope(h, nbits);
    std::uint16_t rmin = 0xFFFF, rmax = 0;
    for (unsigned f = 0; f < keys; ++f) {
      out.raw[f] = raw_code(v[f], base, slope, max_raw);
      rmin = std::min(rmin, out.raw[f]);
      rmax = std::max(rmax, out.raw[f]);
    }
    out.header = h;
    const unsigned k2 = base_code(rotation_varying_value(base, slope, rmin));
    const unsigned m2 = range_code(rotation_varying_value(base, slope, rmax),
                                   rotation_base(static_cast<std::uint16_t>(k2)));
    if (k2 == k && m2 == m) break;
    k = k2;
    m = m2;
  }
  const float base = rotation_base(out.header);
  const float slope = rotation_slope(out.header, nbits);
  out.err = 0;
  for (unsigned f = 0; f < keys; ++f)
    out.err = std::max(out.err,
                       std::fabs(double{rotation_varying_value(base, slope, out.raw[f])} - v[f]));
  return out;
}

Component quantise_component(const double* v, unsigned keys, unsigned nbits) {
  const Span s = range_of(v, keys);
  Component constant;
  constant.constant = true;
  constant.header = best_constant(s, constant.err);
  Component varying = varying_component(v, keys, nbits, s);
  // A constant saves n*F bits; take it whenever it is no worse than the varying form or
  // fits within half a constant step.
  if (constant.err <= std::max(varying.err, const_half_quantum)) return constant;
  // The decoded varying values would re-quantise with a varying error of 0, so they stay
  // varying only if no constant fits them within half a step.
  double decoded[keys_per_chunk] = {};
  const float base = rotation_base(varying.header);
  const float slope = rotation_slope(varying.header, nbits);
  for (unsigned f = 0; f < keys; ++f)
    decoded[f] = rotation_varying_value(base, slope, varying.raw[f]);
  const Span d = range_of(decoded, keys);
  // A constant is at least half the spread away from one end, so wide spreads need no search.
  if (0.5 * (d.hi - d.lo) > const_half_quantum) return varying;
  double decoded_err = 0;
  best_constant(d, decoded_err);
  if (decoded_err <= const_half_quantum) return constant;
  return varying;
}

struct Candidate {
  BoneChunkCodes codes;
  Quat decoded[keys_per_chunk];
  double ratio = 0;  // largest (|p - q| / |p + q|)^2 over the keys; monotone in the angle
  // Keys whose stored values decode with s > 1 (decision D2): their decode is renormalised
  // off the code grid, so it does not re-quantise to these codes.
  std::uint8_t overflow = 0;
  std::uint64_t bits = 0;
};

// Sum of squares of the stored values of key f, computed as the decoder does (doubles of the
// decoded floats, exact squares), so `> 1` is exactly the decoder's D2 test.
double stored_sum_of_squares(const BoneChunkCodes& c, unsigned f, unsigned nbits) noexcept {
  double s = 0;
  for (unsigned j = 0; j < 3; ++j) {
    const std::uint16_t h = c.headers[j];
    const double v = c.is_constant(j) ? rotation_constant_value(h)
                                      : rotation_varying_value(rotation_base(h),
                                                               rotation_slope(h, nbits), c.raw[j][f]);
    s += v * v;
  }
  return s;
}

// Each stored slot is quantised the same way whichever slot is omitted, so the four slots are
// quantised once and shared by the candidates.
BoneChunkCodes assemble_codes(const double (*q)[4], unsigned keys, unsigned omitted,
                              const Component* slots) {
  BoneChunkCodes c;
  c.cflags = static_cast<std::uint8_t>(omitted << 4);
  for (unsigned f = 0; f < keys; ++f)
    if (std::signbit(q[f][omitted])) c.signs = static_cast<std::uint8_t>(c.signs | (1u << f));
  if (c.signs) c.cflags = static_cast<std::uint8_t>(c.cflags | 8u);
  unsigned j = 0;
  for (unsigned slot = 0; slot < 4; ++slot) {
    if (slot == omitted) continue;
    const Component& comp = slots[slot];
    c.headers[j] = comp.header;
    if (comp.constant)
      c.cflags = static_cast<std::uint8_t>(c.cflags | (1u << j));
    else
      c.raw[j] = comp.raw;
    ++j;
  }
  return c;
}

void inverse_norms(const double (*q)[4], unsigned keys, double* inv_norm) noexcept {
  for (unsigned f = 0; f < keys; ++f) {
    double n2 = 0;
    for (unsigned i = 0; i < 4; ++i) n2 += q[f][i] * q[f][i];
    inv_norm[f] = 1.0 / std::sqrt(n2);
  }
}

// Decodes `codes` and measures them against the keys q.
Candidate evaluate(const double (*q)[4], const double* inv_norm, unsigned keys, unsigned nbits,
                   const BoneChunkCodes& codes) {
  Candidate cand;
  cand.codes = codes;
  const BoneChunkCodes& c = cand.codes;
  decode_block(c, nbits, std::span<Quat>(cand.decoded, keys));
  double worst_diff = 0, worst_sum = 1;
  for (unsigned f = 0; f < keys; ++f) {
    const Quat& d = cand.decoded[f];
    if (stored_sum_of_squares(c, f, nbits) > 1.0)
      cand.overflow = static_cast<std::uint8_t>(cand.overflow | (1u << f));
    // Both normalised, as angular_error_deg does: the atan2 form is exact only for unit
    // quaternions, and decoded ones are unit only to float precision.
    double dn = 0, dot = 0;
    for (unsigned i = 0; i < 4; ++i) {
      dn += double{d[i]} * double{d[i]};
      dot += q[f][i] * double{d[i]};
    }
    dn = (dot < 0 ? -1.0 : 1.0) / std::sqrt(dn);
    double diff = 0, sum = 0;
    for (unsigned i = 0; i < 4; ++i) {
      const double a = q[f][i] * inv_norm[f], b = double{d[i]} * dn;
      diff += (a - b) * (a - b);
      sum += (a + b) * (a + b);
    }
    // Same hemisphere, so sum >= 2; compare diff/sum without dividing per key.
    if (diff * worst_sum > worst_diff * sum) {
      worst_diff = diff;
      worst_sum = sum;
    }
  }
  cand.ratio = worst_diff / worst_sum;
  cand.bits = bone_block_bits(c.cflags, keys, nbits);
  return cand;
}

Candidate make_candidate(const double (*q)[4], const double* inv_norm, unsigned keys,
                         unsigned nbits, unsigned omitted, const Component* slots) {
  return evaluate(q, inv_norm, keys, nbits, assemble_codes(q, keys, omitted, slots));
}

bool better(const Candidate& a, const Candidate& b) noexcept {
  if ((a.overflow == 0) != (b.overflow == 0)) return a.overflow == 0;
  if (a.ratio != b.ratio) return a.ratio < b.ratio;
  return a.bits < b.bits;
}

double ratio_to_deg(double ratio) noexcept {
  return 4.0 * std::atan(std::sqrt(ratio)) * (180.0 / 3.14159265358979323846);
}

// `first` is the track index of keys[0], for error reports.
Status prepare(std::span<const Quat> keys, std::size_t first, double (*q)[4]) {
  for (std::size_t f = 0; f < keys.size(); ++f) {
    double n2 = 0;
    for (unsigned i = 0; i < 4; ++i) {
      q[f][i] = keys[f][i];
      n2 += q[f][i] * q[f][i];
    }
    if (!std::isfinite(n2) || !(n2 > 0))
      return make_error(ErrorCode::bad_value, no_offset, "key[" + std::to_string(first + f) + "]",
                        "quaternion is zero or not finite");
    const double n = std::sqrt(n2);
    // Keys decoded from codes are unit to float precision; leaving them untouched keeps their
    // stored components bit-exact, which the fixed-point property relies on.
    if (std::fabs(n - 1.0) > 1e-6)
      for (unsigned i = 0; i < 4; ++i) q[f][i] /= n;
  }
  return {};
}

Component quantise_slot(const double (*q)[4], unsigned keys, unsigned nbits, unsigned slot) {
  double v[keys_per_chunk] = {};
  for (unsigned f = 0; f < keys; ++f) v[f] = q[f][slot];
  return quantise_component(v, keys, nbits);
}

// When every slot overflows for some key (keys spread so widely that each slot is near 0
// somewhere), pull the stored values of the overflowing keys towards the origin until their
// codes decode with s <= 1. The error is still measured against the original keys.
Candidate repair_overflow(const double (*q)[4], const double* inv_norm, unsigned keys,
                          unsigned nbits, const Candidate& best, const Component* slots_in) {
  const unsigned omitted = best.codes.omitted();
  double pulled[keys_per_chunk][4];
  for (unsigned f = 0; f < keys; ++f)
    for (unsigned i = 0; i < 4; ++i) pulled[f][i] = q[f][i];
  Component slots[4] = {slots_in[0], slots_in[1], slots_in[2], slots_in[3]};
  Candidate cand = best;
  double margin = 1e-6;
  for (int iter = 0; iter < 40 && cand.overflow; ++iter, margin *= 2) {
    for (unsigned f = 0; f < keys; ++f) {
      if (!((unsigned{cand.overflow} >> f) & 1u)) continue;
      const double s = stored_sum_of_squares(cand.codes, f, nbits);
      const double scale = std::max(0.5, (1.0 - margin) / std::sqrt(s));
      for (unsigned i = 0; i < 4; ++i)
        if (i != omitted) pulled[f][i] *= scale;
    }
    for (unsigned slot = 0; slot < 4; ++slot)
      if (slot != omitted) slots[slot] = quantise_slot(pulled, keys, nbits, slot);
    cand = make_candidate(q, inv_norm, keys, nbits, omitted, slots);
  }
  return cand.overflow ? best : cand;
}

// `top_level` adds the checks that make the result a fixed point of quantise(decode(.)); they
// call back with it false, which gives the plain choice a re-quantisation would make.
QuantisedChunk quantise_prepared(const double (*q)[4], unsigned keys, unsigned nbits,
                                 bool top_level) {
  double inv_norm[keys_per_chunk];
  inverse_norms(q, keys, inv_norm);
  // Every slot is tried as the omitted one. Pruning unlikely slots by a magnitude threshold
  // would put a boundary in value space that decoded keys can cross, and re-quantising them
  // would then pick a different slot.
  Component slots[4];
  for (unsigned slot = 0; slot < 4; ++slot) slots[slot] = quantise_slot(q, keys, nbits, slot);
  Candidate best;
  bool have = false;
  for (unsigned w = 0; w < 4; ++w) {
    Candidate cand = make_candidate(q, inv_norm, keys, nbits, w, slots);
    if (!have || better(cand, best)) {
      best = cand;
      have = true;
    }
  }
  QuantisedChunk out;
  out.codes = best.codes;
  out.max_error_deg = ratio_to_deg(best.ratio);
  if (!top_level) return out;

  // What quantising the decoded keys would give.
  auto requantised = [&](const Candidate& c) {
    double y[keys_per_chunk][4];
    if (!prepare(std::span<const Quat>(c.decoded, keys), 0, y).ok()) return c.codes;
    return quantise_prepared(y, keys, nbits, false).codes;
  };
  if (best.overflow && !(requantised(best) == best.codes)) {
    // The decoded keys went through the s > 1 path (decision D2), whose renormalised output
    // lies off the code grid. Re-quantising a few times usually settles on codes that do
    // reproduce themselves; failing that, forcing s <= 1 costs about sqrt(step) on the
    // overflowing keys. Either is taken only while the error stays near the accurate one.
    Candidate settled = best;
    bool stable = false;
    for (int iter = 0; iter < 4 && !stable; ++iter) {
      const BoneChunkCodes next = requantised(settled);
      stable = next == settled.codes;
      settled = evaluate(q, inv_norm, keys, nbits, next);
    }
    bool found = stable && settled.ratio <= 4 * best.ratio;
    if (!found) {
      settled = repair_overflow(q, inv_norm, keys, nbits, best, slots);
      found = !settled.overflow && settled.ratio <= 4 * best.ratio;
    }
    if (found) {
      best = settled;
      out.codes = best.codes;
      out.max_error_deg = ratio_to_deg(best.ratio);
    }
  }
  // Another slot can reproduce the decoded keys exactly only if it can store the omitted
  // slot's decoded values exactly (it would use this same quantise_component). Then the
  // decoded keys tie between slots, and their re-quantisation is what must come out here.
  const unsigned w = best.codes.omitted();
  double omitted_values[keys_per_chunk] = {};
  for (unsigned f = 0; f < keys; ++f) omitted_values[f] = best.decoded[f][w];
  if (quantise_component(omitted_values, keys, nbits).err == 0) {
    const BoneChunkCodes again = requantised(best);
    if (!(again == best.codes)) {
      Quat redecoded[keys_per_chunk];
      decode_block(again, nbits, std::span<Quat>(redecoded, keys));
      if (std::equal(redecoded, redecoded + keys, best.decoded)) out.codes = again;
    }
  }
  return out;
}

bool codes_less(const BoneChunkCodes& a, const BoneChunkCodes& b) noexcept {
  return std::tie(a.cflags, a.signs, a.headers, a.raw) < std::tie(b.cflags, b.signs, b.headers, b.raw);
}

// quantise_prepared is accurate but not always a fixed point of quantise(decode(.)): at
// near-ties and after the s > 1 renormalisation (decision D2) the decoded keys can
// re-quantise to other codes, which can in turn move again. Walk that map from its result
// until a code repeats, and return the member of the cycle closest to the keys (then the
// fewest bits, then the smallest codes among those with the same decode). Quantising the
// decode of a returned chunk walks the same cycle, and there the returned chunk decodes
// exactly to the input, so it comes back: decode + re-encode is stable, which is what lets a
// clip that lost its codes (glTF, JSON without codes) write back to the same bytes.
QuantisedChunk quantise_stable(const double (*q)[4], unsigned keys, unsigned nbits) {
  const QuantisedChunk first = quantise_prepared(q, keys, nbits, true);
  // Decision D2: a renormalised key decodes off the code grid, and the walk from it can drift
  // for hundreds of steps, losing accuracy on the way (rotation_codec.hpp, quantise_track).
  for (unsigned f = 0; f < keys; ++f)
    if (stored_sum_of_squares(first.codes, f, nbits) > 1.0) return first;
  constexpr std::size_t max_walk = 64;
  std::array<BoneChunkCodes, max_walk> seen;
  std::size_t n = 0;
  BoneChunkCodes y = first.codes;
  for (;;) {
    for (std::size_t i = 0; i < n; ++i) {
      if (!(seen[i] == y)) continue;
      if (n - i == 1 && i == 0) return first;  // the usual case: already a fixed point
      double inv_norm[keys_per_chunk];
      inverse_norms(q, keys, inv_norm);
      Candidate best = evaluate(q, inv_norm, keys, nbits, seen[i]);
      for (std::size_t j = i + 1; j < n; ++j) {
        Candidate c = evaluate(q, inv_norm, keys, nbits, seen[j]);
        if (c.ratio < best.ratio || (c.ratio == best.ratio && (c.bits < best.bits || (c.bits == best.bits && codes_less(c.codes, best.codes)))))
          best = c;
      }
      BoneChunkCodes out = best.codes;
      for (std::size_t j = i; j < n; ++j) {
        Quat d[keys_per_chunk];
        decode_block(seen[j], nbits, std::span<Quat>(d, keys));
        if (codes_less(seen[j], out) && std::equal(d, d + keys, best.decoded, [](const Quat& a, const Quat& b) {
              return std::memcmp(&a, &b, sizeof a) == 0;
            }))
          out = seen[j];
      }
      return {out, ratio_to_deg(best.ratio)};
    }
    if (n == max_walk) return first;
    seen[n++] = y;
    Quat d[keys_per_chunk];
    decode_block(y, nbits, std::span<Quat>(d, keys));
    double x[keys_per_chunk][4];
    if (!prepare(std::span<const Quat>(d, keys), 0, x).ok()) return first;
    y = quantise_prepared(x, keys, nbits, true).codes;
  }
}

Status check_chunk_args(std::size_t keys, unsigned nbits) {
  if (keys == 0 || keys > keys_per_chunk)
    return make_error(ErrorCode::invalid_argument, no_offset, "keys",
                      std::to_string(keys) + " keys in one chunk, expected 1..8");
  if (nbits < 1 || nbits > 16)
    return make_error(ErrorCode::invalid_argument, no_offset, "nbits",
                      "bit depth " + std::to_string(nbits) + " is outside 1..16");
  return {};
}

// Quantises all chunks; stops early (returning the partial error) once a chunk exceeds
// `stop_above`, which choose_bit_depth uses to reject a depth quickly.
Result<QuantisedTrack> quantise_keys(const std::vector<Quat>& keys, unsigned nbits,
                                     double stop_above) {
  QuantisedTrack out;
  out.nbits = nbits;
  const auto count = static_cast<std::uint32_t>(keys.size());
  out.chunks.reserve(chunk_count(count));
  for (std::size_t c = 0; c < chunk_count(count); ++c) {
    const unsigned n = chunk_key_count(count, c);
    double q[8][4];
    const std::size_t first = c * keys_per_chunk;
    MAB_TRY(prepare(std::span<const Quat>(keys).subspan(first, n), first, q));
    const QuantisedChunk chunk = quantise_stable(q, n, nbits);
    out.chunks.push_back(chunk.codes);
    out.max_error_deg = std::max(out.max_error_deg, chunk.max_error_deg);
    if (out.max_error_deg > stop_above) break;
  }
  return out;
}

}  // namespace

bool key_renormalised(const BoneChunkCodes& codes, unsigned key, unsigned nbits) noexcept {
  return stored_sum_of_squares(codes, key % keys_per_chunk, nbits) > 1.0;
}

void make_hemisphere_continuous(std::span<Quat> keys) noexcept {
  for (std::size_t f = 1; f < keys.size(); ++f) {
    double dot = 0;
    for (unsigned i = 0; i < 4; ++i) dot += double{keys[f][i]} * double{keys[f - 1][i]};
    if (dot < 0)
      for (unsigned i = 0; i < 4; ++i) keys[f][i] = -keys[f][i];
  }
}

Result<QuantisedChunk> quantise_chunk(std::span<const Quat> keys, unsigned nbits) {
  MAB_TRY(check_chunk_args(keys.size(), nbits));
  double q[8][4];
  MAB_TRY(prepare(keys, 0, q));
  return quantise_stable(q, static_cast<unsigned>(keys.size()), nbits);
}

Result<QuantisedTrack> quantise_track(std::span<const Quat> keys, unsigned nbits) {
  MAB_TRY(check_chunk_args(1, nbits));
  if (keys.size() > 0xFFFFFFFFu)
    return make_error(ErrorCode::invalid_argument, no_offset, "keys", "too many keys");
  std::vector<Quat> k(keys.begin(), keys.end());
  make_hemisphere_continuous(k);
  return quantise_keys(k, nbits, 1e300);
}

Result<QuantisedTrack> choose_bit_depth(std::span<const Quat> keys, double max_error_deg) {
  if (keys.size() > 0xFFFFFFFFu)
    return make_error(ErrorCode::invalid_argument, no_offset, "keys", "too many keys");
  std::vector<Quat> k(keys.begin(), keys.end());
  make_hemisphere_continuous(k);
  for (unsigned nbits = 1; nbits < 16; ++nbits) {
    MAB_ASSIGN(QuantisedTrack t, quantise_keys(k, nbits, max_error_deg));
    if (t.max_error_deg <= max_error_deg) return t;
  }
  return quantise_keys(k, 16, 1e300);
}

Result<RotationStream> build_rotation_stream(std::span<const QuantisedTrack> tracks,
                                             std::uint32_t key_count) {
  const std::size_t nchunks = chunk_count(key_count);
  std::vector<std::uint8_t> depths(tracks.size());
  for (std::size_t b = 0; b < tracks.size(); ++b) {
    if (tracks[b].nbits < 1 || tracks[b].nbits > 16 || tracks[b].chunks.size() != nchunks)
      return make_error(ErrorCode::invalid_argument, no_offset, "tracks[" + std::to_string(b) + "]",
                        "track has depth " + std::to_string(tracks[b].nbits) + " and " +
                            std::to_string(tracks[b].chunks.size()) +
                            " chunks; expected 1..16 and " + std::to_string(nchunks));
    depths[b] = static_cast<std::uint8_t>(tracks[b].nbits);
  }
  RotationStream out;
  out.chunks.assign(nchunks, std::vector<BoneChunkCodes>(tracks.size()));
  for (std::size_t b = 0; b < tracks.size(); ++b)
    for (std::size_t c = 0; c < nchunks; ++c) out.chunks[c][b] = tracks[b].chunks[c];
  MAB_ASSIGN(out.chunk_table, compute_chunk_table(out.chunks, key_count, depths));
  return out;
}

}  // namespace mab
