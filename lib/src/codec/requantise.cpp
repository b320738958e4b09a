// Re-quantiser: float keys to JointRotations codes (format 9.2 "Encoder notes").
//
// Besides accuracy, the codes are built to be a fixed point: decoding them and quantising the
// decoded keys again gives the same codes. Every choice below is therefore re-checked on the
// decoded values it produces, using exactly the decoder's float arithmetic.
#include <mab/requantise.hpp>
#include <mab/rotation_codec.hpp>

#include <algorithm>
#include <cmath>
#include <array>
#include <cstring>
#include <string>
#include <tuple>

#include "component_quantiser.hpp"
#include "key_assembly.hpp"
#include "lanes2.hpp"

namespace mab {

namespace {

using detail::Component;
using detail::quantise_component;

// Every per-key array below has 8 entries, the keys of a short chunk padded with copies of its
// last key: copies change no minimum, maximum or worst error, and the fixed trip count lets
// the compiler unroll and vectorise. Codes only ever take the first `count` keys.
constexpr unsigned lanes = keys_per_chunk;

// One chunk of one bone's keys, by component.
struct ChunkKeys {
  unsigned count = 0;
  double q[4][lanes];       // the keys, unit to within 1e-6
  double unit[4][lanes];    // q times the key's inverse norm, for pair_distance
  double by_key[lanes][4];  // q transposed, for detail::quantise_components
  // Pads q and refreshes by_key; called after every change to q.
  void pad() noexcept {
    for (unsigned f = count; f < lanes; ++f)
      for (unsigned i = 0; i < 4; ++i) q[i][f] = q[i][count - 1];
    for (unsigned f = 0; f < lanes; ++f)
      for (unsigned i = 0; i < 4; ++i) by_key[f][i] = q[i][f];
  }
  // Squared norms of the keys, components added in order 0..3 (as measure adds a decoded key's).
  void norms(double* n2) const noexcept {
    for (unsigned f = 0; f < lanes; ++f) {
      n2[f] = 0;
      for (unsigned i = 0; i < 4; ++i) n2[f] += q[i][f] * q[i][f];
    }
  }
  void normalise(const double* n2) noexcept {
    for (unsigned f = 0; f < lanes; ++f) {
      const double inv = 1.0 / std::sqrt(n2[f]);
      for (unsigned i = 0; i < 4; ++i) unit[i][f] = q[i][f] * inv;
    }
  }
};

// Whether load_keys takes a key of squared norm n2 at all: finite and non-zero.
bool usable(double n2) noexcept { return std::isfinite(n2) && n2 > 0; }
// Keys decoded from codes are unit to float precision; leaving them untouched keeps their
// stored components bit-exact, which the fixed-point property relies on.
bool near_unit(double n2) noexcept { return std::fabs(std::sqrt(n2) - 1.0) <= 1e-6; }

// `first` is the track index of keys[0], for error reports. Keys whose bit is set in `negate`
// are taken negated (exactly: a float's sign flips).
Status load_keys(std::span<const Quat> keys, std::size_t first, ChunkKeys& k, unsigned negate = 0) {
  const auto count = static_cast<unsigned>(keys.size());
  k.count = count;
  for (unsigned f = 0; f < lanes; ++f) {
    const unsigned g = std::min(f, count - 1);
    const Quat& key = keys[g];
    const double sign = (negate >> g) & 1u ? -1.0 : 1.0;
    const double c[4] = {sign * key.x, sign * key.y, sign * key.z, sign * key.w};
    for (unsigned i = 0; i < 4; ++i) k.q[i][f] = k.by_key[f][i] = c[i];
  }
  double n2[lanes];
  k.norms(n2);
  bool unit = true;
  for (unsigned f = 0; f < count; ++f) {
    if (!usable(n2[f]))
      return make_error(ErrorCode::bad_value, no_offset, "key[" + std::to_string(first + f) + "]",
                        "quaternion is zero or not finite");
    unit = unit && near_unit(n2[f]);
  }
  if (!unit) {
    for (unsigned f = 0; f < count; ++f)
      if (!near_unit(n2[f]))
        for (unsigned i = 0; i < 4; ++i) k.q[i][f] /= std::sqrt(n2[f]);
    k.pad();
    k.norms(n2);
  }
  k.normalise(n2);
  return {};
}

Component quantise_slot(const ChunkKeys& k, unsigned nbits, unsigned slot) {
  return quantise_component(k.q[slot], k.count, nbits);
}

struct Candidate {
  BoneChunkCodes codes;
  float decoded[4][lanes];  // by component
  double norm2[lanes];      // squared norm of each decoded key, as load_keys computes it
  double ratio = 0;         // largest (|p - q| / |p + q|)^2 over the keys; monotone in the angle
  // Keys whose stored values decode with s > 1 (decision 2): their decode is renormalised
  // off the code grid, so it does not re-quantise to these codes.
  std::uint8_t overflow = 0;
  std::uint64_t bits = 0;

  Quat key(unsigned f) const noexcept { return {decoded[0][f], decoded[1][f], decoded[2][f], decoded[3][f]}; }
  void keys(unsigned count, Quat* out) const noexcept {
    for (unsigned f = 0; f < count; ++f) out[f] = key(f);
  }
};

// Sum of squares of the stored values of key f, computed as the decoder does, so `> 1` is
// exactly the decoder's decision 2 test.
double stored_sum_of_squares(const BoneChunkCodes& c, unsigned f, unsigned nbits) noexcept {
  float v[3];
  for (unsigned j = 0; j < 3; ++j) {
    const std::uint16_t h = c.headers[j];
    v[j] = c.is_constant(j) ? rotation_constant_value(h)
                            : rotation_varying_value(rotation_base(h), rotation_slope(h, nbits), c.raw[j][f]);
  }
  return detail::stored_sum_of_squares(v[0], v[1], v[2]);
}

// Each stored slot is quantised the same way whichever slot is omitted, so the four slots are
// quantised once and shared by the candidates.
BoneChunkCodes assemble_codes(const ChunkKeys& k, unsigned omitted, const Component* slots) {
  BoneChunkCodes c;
  c.cflags = static_cast<std::uint8_t>(omitted << 4);
  for (unsigned f = 0; f < k.count; ++f)
    if (std::signbit(k.q[omitted][f])) c.signs = static_cast<std::uint8_t>(c.signs | (1u << f));
  if (c.signs) c.cflags = static_cast<std::uint8_t>(c.cflags | 8u);
  unsigned j = 0;
  for (unsigned slot = 0; slot < 4; ++slot) {
    if (slot == omitted) continue;
    const Component& comp = slots[slot];
    c.headers[j] = comp.header;
    if (comp.constant) c.cflags = static_cast<std::uint8_t>(c.cflags | (1u << j));
    else c.raw[j] = comp.raw;
    ++j;
  }
  return c;
}

// Running maximum of diff/sum over keys; same hemisphere, so sum >= 2, and keys are compared
// without dividing.
struct WorstKey {
  double diff = 0, sum = 1;
  void add(double key_diff, double key_sum) noexcept {
    if (key_diff * sum > diff * key_sum) {
      diff = key_diff;
      sum = key_sum;
    }
  }
  double ratio() const noexcept { return diff / sum; }
};

// How far decoded keys f and f + 1 are from the keys, two lanes at once (lanes2.hpp), `d`
// holding their decoded components: diff = |a - b|^2 and sum = |a + b|^2 of both normalised,
// as angular_error_deg does (the atan2 form is exact only for unit quaternions, and decoded
// ones are unit only to float precision). Each lane adds components 0..3 in order.
struct PairDistance {
  detail::lanes2::D2 diff, sum, norm2;
};
[[gnu::always_inline]] inline PairDistance pair_distance(const ChunkKeys& k, unsigned f,
                                                         const detail::lanes2::D2* d) noexcept {
  using namespace detail::lanes2;
  D2 dn = splat(0.0), dot = splat(0.0);
  for (unsigned i = 0; i < 4; ++i) {
    dn += d[i] * d[i];
    dot += load(&k.q[i][f]) * d[i];
  }
  const D2 root = {std::sqrt(dn[0]), std::sqrt(dn[1])};
  const D2 scale = select(dot < 0.0, splat(-1.0), splat(1.0)) / root;
  PairDistance out{splat(0.0), splat(0.0), dn};
  for (unsigned i = 0; i < 4; ++i) {
    const D2 a = load(&k.unit[i][f]), b = d[i] * scale;
    out.diff += (a - b) * (a - b);
    out.sum += (a + b) * (a + b);
  }
  return out;
}

// pair_distance for all keys of cand.decoded.
WorstKey measure(const ChunkKeys& k, Candidate& cand) noexcept {
  using namespace detail::lanes2;
  double diff[lanes], sum[lanes];
  for (unsigned f = 0; f < lanes; f += 2) {
    D2 d[4];
    for (unsigned i = 0; i < 4; ++i) d[i] = load(&cand.decoded[i][f]);
    const PairDistance p = pair_distance(k, f, d);
    store(&diff[f], p.diff);
    store(&sum[f], p.sum);
    store(&cand.norm2[f], p.norm2);
  }
  WorstKey worst;
  for (unsigned f = 0; f < k.count; ++f) worst.add(diff[f], sum[f]);
  return worst;
}

void pad_decoded(unsigned count, Candidate& cand) noexcept {
  for (unsigned f = count; f < lanes; ++f)
    for (unsigned i = 0; i < 4; ++i) cand.decoded[i][f] = cand.decoded[i][count - 1];
}

// Decodes `codes` and measures them against the keys.
Candidate evaluate(const ChunkKeys& k, unsigned nbits, const BoneChunkCodes& codes) {
  Candidate cand;
  cand.codes = codes;
  Quat d[lanes];
  decode_block(codes, nbits, std::span<Quat>(d, k.count));
  for (unsigned f = 0; f < k.count; ++f) {
    if (stored_sum_of_squares(codes, f, nbits) > 1.0)
      cand.overflow = static_cast<std::uint8_t>(cand.overflow | (1u << f));
    for (unsigned i = 0; i < 4; ++i) cand.decoded[i][f] = d[f][i];
  }
  pad_decoded(k.count, cand);
  cand.ratio = measure(k, cand).ratio();
  cand.bits = bone_block_bits(codes.cflags, k.count, nbits);
  return cand;
}

// The three slots a candidate omitting `omitted` stores, in order.
struct StoredSlots {
  unsigned slot[3];
  const float* value[3];
  StoredSlots(const Component* slots, unsigned omitted) noexcept {
    unsigned j = 0;
    for (unsigned i = 0; i < 4; ++i)
      if (i != omitted) {
        slot[j] = i;
        value[j++] = slots[i].value.data();
      }
  }
};

void finish(const ChunkKeys& k, unsigned nbits, unsigned omitted, const Component* slots, WorstKey worst,
            Candidate& cand) {
  cand.codes = assemble_codes(k, omitted, slots);
  pad_decoded(k.count, cand);
  cand.ratio = worst.ratio();
  cand.bits = bone_block_bits(cand.codes.cflags, k.count, nbits);
}

// evaluate() for the candidate omitting `omitted`, built from the shared slots without
// decoding its codes: the decoded floats are the same (key_assembly.hpp). All keys at once,
// so the loops vectorise.
void evaluate_slots(const ChunkKeys& k, unsigned nbits, unsigned omitted, const Component* slots, Candidate& cand) {
  const StoredSlots st(slots, omitted);
  double s[lanes];
  float root[lanes];
  for (unsigned f = 0; f < lanes; ++f) {
    s[f] = detail::stored_sum_of_squares(st.value[0][f], st.value[1][f], st.value[2][f]);
    // decision 2 keys are redone below.
    root[f] = detail::omitted_value(s[f], std::signbit(k.q[omitted][f]));
  }
  for (unsigned j = 0; j < 3; ++j) std::copy_n(st.value[j], lanes, cand.decoded[st.slot[j]]);
  std::copy_n(root, lanes, cand.decoded[omitted]);
  cand.overflow = 0;
  for (unsigned f = 0; f < k.count; ++f) {
    if (!(s[f] > 1.0)) continue;
    cand.overflow = static_cast<std::uint8_t>(cand.overflow | (1u << f));
    const Quat d = detail::assemble_key(st.value[0][f], st.value[1][f], st.value[2][f], s[f], omitted,
                                        std::signbit(k.q[omitted][f]));
    for (unsigned i = 0; i < 4; ++i) cand.decoded[i][f] = d[i];
  }
  const WorstKey worst = measure(k, cand);
  finish(k, nbits, omitted, slots, worst, cand);
}

// The same score key by key, two keys at a time, giving up (false) once the candidate cannot
// be better than `rival`; the running maximum picks keys by rounded products, so the bound
// keeps a margin far above their rounding.
bool evaluate_against(const ChunkKeys& k, unsigned nbits, unsigned omitted, const Component* slots,
                      const Candidate& rival, Candidate& cand) {
  using namespace detail::lanes2;
  const StoredSlots st(slots, omitted);
  const bool bounded = rival.overflow == 0;
  const double bound = rival.ratio * (1.0 + 1e-9);
  cand.overflow = 0;
  WorstKey worst;
  // Keys two at a time; a key past the end is a copy of the last one, scored but not counted.
  for (unsigned f = 0; f < k.count; f += 2) {
    const unsigned n = std::min(2u, k.count - f);
    const D2 v[3] = {load(&st.value[0][f]), load(&st.value[1][f]), load(&st.value[2][f])};
    const D2 s = v[0] * v[0] + v[1] * v[1] + v[2] * v[2];  // detail::stored_sum_of_squares
    D2 d[4];
    if (s[0] > 1.0 || (n == 2 && s[1] > 1.0)) {
      // Decision 2 renormalises these keys: key by key, as decode_block does.
      if (bounded) return false;
      for (unsigned g = f; g < f + 2; ++g) {
        const double sg = s[g - f];
        if (g < k.count && sg > 1.0) cand.overflow = static_cast<std::uint8_t>(cand.overflow | (1u << g));
        const Quat q = detail::assemble_key(st.value[0][g], st.value[1][g], st.value[2][g], sg, omitted,
                                            std::signbit(k.q[omitted][g]));
        for (unsigned i = 0; i < 4; ++i) d[i][g - f] = q[i];
      }
    } else {
      for (unsigned j = 0; j < 3; ++j) d[st.slot[j]] = v[j];
      d[omitted] = D2{detail::omitted_value(s[0], std::signbit(k.q[omitted][f])),
                      detail::omitted_value(s[1], std::signbit(k.q[omitted][f + 1]))};
    }
    for (unsigned i = 0; i < 4; ++i) store(&cand.decoded[i][f], d[i]);
    const PairDistance p = pair_distance(k, f, d);
    store(&cand.norm2[f], p.norm2);
    worst.add(p.diff[0], p.sum[0]);
    if (n == 2) worst.add(p.diff[1], p.sum[1]);
    if (bounded && worst.diff > bound * worst.sum) return false;
  }
  finish(k, nbits, omitted, slots, worst, cand);
  return true;
}

// The selection order: no decision 2 overflow first, then the smaller error, then fewer bits, then the
// lower omitted slot (so the result does not depend on the order candidates are scored in).
bool better(const Candidate& a, const Candidate& b) noexcept {
  if ((a.overflow == 0) != (b.overflow == 0)) return a.overflow == 0;
  if (a.ratio != b.ratio) return a.ratio < b.ratio;
  if (a.bits != b.bits) return a.bits < b.bits;
  return a.codes.omitted() < b.codes.omitted();
}

double ratio_to_deg(double ratio) noexcept {
  return 4.0 * std::atan(std::sqrt(ratio)) * (180.0 / 3.14159265358979323846);
}

// When every slot overflows for some key (keys spread so widely that each slot is near 0
// somewhere), pull the stored values of the overflowing keys towards the origin until their
// codes decode with s <= 1. The error is still measured against the original keys.
Candidate repair_overflow(const ChunkKeys& k, unsigned nbits, const Candidate& best, const Component* slots_in) {
  const unsigned omitted = best.codes.omitted();
  ChunkKeys pulled = k;
  Component slots[4] = {slots_in[0], slots_in[1], slots_in[2], slots_in[3]};
  Candidate cand = best;
  double margin = 1e-6;
  for (int iter = 0; iter < 40 && cand.overflow; ++iter, margin *= 2) {
    for (unsigned f = 0; f < k.count; ++f) {
      if (!((unsigned{cand.overflow} >> f) & 1u)) continue;
      const double s = stored_sum_of_squares(cand.codes, f, nbits);
      const double scale = std::max(0.5, (1.0 - margin) / std::sqrt(s));
      for (unsigned i = 0; i < 4; ++i)
        if (i != omitted) pulled.q[i][f] *= scale;
    }
    pulled.pad();
    for (unsigned slot = 0; slot < 4; ++slot)
      if (slot != omitted) slots[slot] = quantise_slot(pulled, nbits, slot);
    evaluate_slots(k, nbits, omitted, slots, cand);
  }
  return cand.overflow ? best : cand;
}

// Whether the omitted slot's decoded values are not stored exactly by quantise_component.
// Where they are, another slot can reproduce the decoded keys exactly too: a tie.
bool omitted_not_exact(const Candidate& best, unsigned count, unsigned nbits) {
  const unsigned w = best.codes.omitted();
  double values[lanes];
  for (unsigned f = 0; f < lanes; ++f) values[f] = best.decoded[w][f];
  return !detail::stored_exactly(values, count, nbits);
}

// Whether quantise_prepared(decode(best), top level) gives best.codes back, shown without
// running it. `best` won the slot contest without decision 2 overflow and its stored slots reproduce
// themselves, so the candidate omitting the same slot w is best.codes again and decodes
// exactly to the keys: distance 0. The caller has re-quantised slot w (`omitted` there) and
// found a non-zero error, so the top-level tie check stays out. A rival omitting another slot
// stores slot w with those values, which differ from the keys at some key, and the other two
// slots exactly. At that key, if either of those two is non-zero, the rival must match it, which
// pins its normalisation to the key's within rounding, and then its slot-w value (another
// float) cannot match: non-zero distance, or decision 2 overflow, so every rival loses. Decoded
// stored values are practically never exactly zero; where two are, this says "not shown".
bool shown_fixed_point(const Candidate& best, const Component* slots, unsigned count) {
  const unsigned w = best.codes.omitted();
  for (unsigned slot = 0; slot < 4; ++slot)
    if (slot != w && !slots[slot].reproduces) return false;
  for (unsigned f = 0; f < count; ++f)
    if (!usable(best.norm2[f]) || !near_unit(best.norm2[f])) return false;  // load_keys would change them
  unsigned zeros[lanes] = {};
  for (unsigned slot = 0; slot < 4; ++slot)
    if (slot != w)
      for (unsigned f = 0; f < lanes; ++f) zeros[f] += best.decoded[slot][f] == 0.0f ? 1u : 0u;
  for (unsigned f = 0; f < count; ++f)
    if (zeros[f] >= 2) return false;
  return true;
}

struct Prepared {
  QuantisedChunk chunk;
  bool fixed_point = false;  // shown: quantising the decode of chunk.codes gives them back
};

// `top_level` adds the checks that make the result a fixed point of quantise(decode(.)); they
// call back with it false, which gives the plain choice a re-quantisation would make.
Prepared quantise_prepared(const ChunkKeys& k, unsigned nbits, bool top_level) {
  // Every slot is tried as the omitted one. Pruning unlikely slots by a magnitude threshold
  // would put a boundary in value space that decoded keys can cross, and re-quantising them
  // would then pick a different slot. The likely winner (largest first component) is scored
  // first so the others can stop as soon as they cannot beat it.
  Component slots[4];
  detail::quantise_components(k.by_key, k.count, nbits, slots);
  unsigned order[4] = {0, 1, 2, 3};
  unsigned lead = 0;
  for (unsigned i = 1; i < 4; ++i)
    if (std::fabs(k.q[i][0]) > std::fabs(k.q[lead][0])) lead = i;
  std::swap(order[0], order[lead]);
  Candidate cands[2];
  unsigned best_i = 0;
  evaluate_slots(k, nbits, order[0], slots, cands[0]);
  for (unsigned i = 1; i < 4; ++i) {
    Candidate& cand = cands[1 - best_i];
    if (evaluate_against(k, nbits, order[i], slots, cands[best_i], cand) && better(cand, cands[best_i]))
      best_i = 1 - best_i;
  }
  Candidate best = cands[best_i];
  Prepared out;
  out.chunk.codes = best.codes;
  out.chunk.max_error_deg = ratio_to_deg(best.ratio);
  if (!top_level) return out;

  // What quantising the decoded keys would give.
  auto requantised = [&](const Candidate& c) {
    Quat d[lanes];
    c.keys(k.count, d);
    ChunkKeys y;
    if (!load_keys(std::span<const Quat>(d, k.count), 0, y).ok()) return c.codes;
    return quantise_prepared(y, nbits, false).chunk.codes;
  };
  const bool contest_winner = best.overflow == 0;
  if (best.overflow && !(requantised(best) == best.codes)) {
    // The decoded keys went through the s > 1 path (decision 2), whose renormalised output
    // lies off the code grid. Re-quantising a few times usually settles on codes that do
    // reproduce themselves; failing that, forcing s <= 1 costs about sqrt(step) on the
    // overflowing keys. Either is taken only while the error stays near the accurate one.
    Candidate settled = best;
    bool stable = false;
    for (int iter = 0; iter < 4 && !stable; ++iter) {
      const BoneChunkCodes next = requantised(settled);
      stable = next == settled.codes;
      settled = evaluate(k, nbits, next);
    }
    bool found = stable && settled.ratio <= 4 * best.ratio;
    if (!found) {
      settled = repair_overflow(k, nbits, best, slots);
      found = !settled.overflow && settled.ratio <= 4 * best.ratio;
    }
    if (found) {
      best = settled;
      out.chunk.codes = best.codes;
      out.chunk.max_error_deg = ratio_to_deg(best.ratio);
    }
  }
  // Another slot can reproduce the decoded keys exactly only if it can store the omitted
  // slot's decoded values exactly (it would use this same quantise_component). Then the
  // decoded keys tie between slots, and their re-quantisation is what must come out here.
  if (!omitted_not_exact(best, k.count, nbits)) {
    const BoneChunkCodes again = requantised(best);
    if (!(again == best.codes)) {
      Quat redecoded[lanes], decoded[lanes];
      decode_block(again, nbits, std::span<Quat>(redecoded, k.count));
      best.keys(k.count, decoded);
      if (std::equal(redecoded, redecoded + k.count, decoded)) out.chunk.codes = again;
    }
  } else if (contest_winner) {
    out.fixed_point = shown_fixed_point(best, slots, k.count);
  }
  return out;
}

bool codes_less(const BoneChunkCodes& a, const BoneChunkCodes& b) noexcept {
  return std::tie(a.cflags, a.signs, a.headers, a.raw) < std::tie(b.cflags, b.signs, b.headers, b.raw);
}

// quantise_prepared is accurate but not always a fixed point of quantise(decode(.)): at
// near-ties and after the s > 1 renormalisation (decision 2) the decoded keys can
// re-quantise to other codes, which can in turn move again. Walk that map from its result
// until a code repeats, and return the member of the cycle closest to the keys (then the
// fewest bits, then the smallest codes among those with the same decode). Quantising the
// decode of a returned chunk walks the same cycle, and there the returned chunk decodes
// exactly to the input, so it comes back: decode + re-encode is stable, which is what lets a
// clip that lost its codes (glTF, JSON without codes) write back to the same bytes.
QuantisedChunk quantise_stable(const ChunkKeys& k, unsigned nbits) {
  const unsigned keys = k.count;
  const Prepared prepared = quantise_prepared(k, nbits, true);
  const QuantisedChunk& first = prepared.chunk;
  // The usual case, shown without walking (and without decision 2 keys): the walk would stop at once
  // and return `first`.
  if (prepared.fixed_point) return first;
  // Decision 2: a renormalised key decodes off the code grid, and the walk from it can drift
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
      if (n - i == 1 && i == 0) return first;  // already a fixed point
      Candidate best = evaluate(k, nbits, seen[i]);
      for (std::size_t j = i + 1; j < n; ++j) {
        Candidate c = evaluate(k, nbits, seen[j]);
        if (c.ratio < best.ratio ||
            (c.ratio == best.ratio && (c.bits < best.bits || (c.bits == best.bits && codes_less(c.codes, best.codes)))))
          best = c;
      }
      Quat best_decoded[lanes];
      best.keys(keys, best_decoded);
      BoneChunkCodes out = best.codes;
      for (std::size_t j = i; j < n; ++j) {
        Quat d[lanes];
        decode_block(seen[j], nbits, std::span<Quat>(d, keys));
        if (codes_less(seen[j], out) && std::equal(d, d + keys, best_decoded, [](const Quat& a, const Quat& b) {
              return std::memcmp(&a, &b, sizeof a) == 0;
            }))
          out = seen[j];
      }
      return {out, ratio_to_deg(best.ratio)};
    }
    if (n == max_walk) return first;
    seen[n++] = y;
    Quat d[lanes];
    decode_block(y, nbits, std::span<Quat>(d, keys));
    ChunkKeys x;
    if (!load_keys(std::span<const Quat>(d, keys), 0, x).ok()) return first;
    y = quantise_prepared(x, nbits, true).chunk.codes;
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

// Dot product of two keys in double, components in order, as make_hemisphere_continuous takes it.
double key_dot(const Quat& a, const Quat& b) noexcept {
  return double{a.x} * double{b.x} + double{a.y} * double{b.y} + double{a.z} * double{b.z} + double{a.w} * double{b.w};
}

// Quantises all chunks; stops early (returning the partial error) once a chunk exceeds
// `stop_above`, which choose_bit_depth uses to reject a depth quickly. With `continuous`, the
// keys are taken as make_hemisphere_continuous would leave them, without copying them: it
// negates key f when its dot product with key f - 1 as left (negated or not) is below 0, and
// negating a key negates that product exactly.
// With `best_of_both`, each chunk is also quantised from the keys as given and the codes with
// the smaller error kept: which signs give the narrower component ranges depends on the chunk,
// and a depth chosen from one reading can miss a bound the other meets (decision 21's refusals).
Result<QuantisedTrack> quantise_keys(std::span<const Quat> keys, bool continuous, unsigned nbits, double stop_above,
                                     bool best_of_both = false) {
  QuantisedTrack out;
  out.nbits = nbits;
  const auto count = static_cast<std::uint32_t>(keys.size());
  out.chunks.reserve(chunk_count(count));
  bool flipped = false;  // whether the previous key is taken negated
  for (std::size_t c = 0; c < chunk_count(count); ++c) {
    const unsigned n = chunk_key_count(count, c);
    const std::size_t first = c * keys_per_chunk;
    unsigned negate = 0;
    for (unsigned f = 0; continuous && f < n; ++f) {
      const std::size_t g = first + f;
      if (g == 0) continue;
      const double d = key_dot(keys[g], keys[g - 1]);
      flipped = flipped ? d > 0 : d < 0;
      if (flipped) negate |= 1u << f;
    }
    ChunkKeys k;
    MAB_TRY(load_keys(keys.subspan(first, n), first, k, negate));
    QuantisedChunk chunk = quantise_stable(k, nbits);
    if (best_of_both && negate != 0) {
      ChunkKeys given;
      MAB_TRY(load_keys(keys.subspan(first, n), first, given));
      QuantisedChunk other = quantise_stable(given, nbits);
      if (other.max_error_deg < chunk.max_error_deg) chunk = std::move(other);
    }
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
  for (std::size_t f = 1; f < keys.size(); ++f)
    if (key_dot(keys[f], keys[f - 1]) < 0) keys[f] = {-keys[f].x, -keys[f].y, -keys[f].z, -keys[f].w};
}

Result<QuantisedChunk> quantise_chunk(std::span<const Quat> keys, unsigned nbits) {
  MAB_TRY(check_chunk_args(keys.size(), nbits));
  ChunkKeys k;
  MAB_TRY(load_keys(keys, 0, k));
  return quantise_stable(k, nbits);
}

Result<QuantisedTrack> quantise_track(std::span<const Quat> keys, unsigned nbits) {
  MAB_TRY(check_chunk_args(1, nbits));
  if (keys.size() > 0xFFFFFFFFu) return make_error(ErrorCode::invalid_argument, no_offset, "keys", "too many keys");
  return quantise_keys(keys, true, nbits, 1e300);
}

Result<QuantisedTrack> choose_bit_depth(std::span<const Quat> keys, double max_error_deg) {
  if (keys.size() > 0xFFFFFFFFu) return make_error(ErrorCode::invalid_argument, no_offset, "keys", "too many keys");
  for (unsigned nbits = 1; nbits < 16; ++nbits) {
    MAB_ASSIGN(QuantisedTrack t, quantise_keys(keys, true, nbits, max_error_deg, true));
    if (t.max_error_deg <= max_error_deg) return t;
  }
  return quantise_keys(keys, true, 16, 1e300, true);
}

Result<RotationStream> build_rotation_stream(std::span<const QuantisedTrack> tracks, std::uint32_t key_count) {
  const std::size_t nchunks = chunk_count(key_count);
  std::vector<std::uint8_t> depths(tracks.size());
  for (std::size_t b = 0; b < tracks.size(); ++b) {
    if (tracks[b].nbits < 1 || tracks[b].nbits > 16 || tracks[b].chunks.size() != nchunks)
      return make_error(ErrorCode::invalid_argument, no_offset, "tracks[" + std::to_string(b) + "]",
                        "track has depth " + std::to_string(tracks[b].nbits) + " and " +
                            std::to_string(tracks[b].chunks.size()) + " chunks; expected 1..16 and " +
                            std::to_string(nchunks));
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
