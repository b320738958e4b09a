#include <mab/quat.hpp>

#include "io/bytes.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace mab {

namespace {

// code * step - bias is exact in double (a 39-bit product), so rounding once to float gives
// the same value whether or not the compiler fuses the multiply-add.
float stored_value(std::uint32_t code) noexcept {
  return static_cast<float>(static_cast<double>(code) * double{quat48_step} - double{quat48_bias});
}

// Nearest step of the ideal grid (value + 1/sqrt(2)) / (sqrt(2)/32767), ties to the lower code.
// The only exact tie is a zero component, and the lower code there is what gives identity its
// documented bytes FF BF FF BF FF 3F (format 9.1).
std::uint16_t nearest_code(double value) noexcept {
  const double t = (value * 1.4142135623730951 + 1.0) * 16383.5;
  return static_cast<std::uint16_t>(std::clamp(std::ceil(t - 0.5), 0.0, 32767.0));
}

// 1 - a^2 - b^2 - c^2 in double, where the squares are exact, for the same reason as
// stored_value.
double implicit_square(float a, float b, float c) noexcept {
  return 1.0 - double{a} * a - double{b} * b - double{c} * c;
}

// d goes to slot k, a, b, c fill the others in order (format 9.1 table).
Quat place(unsigned k, float d, float a, float b, float c) noexcept {
  switch (k) {
    case 0: return {d, a, b, c};
    case 1: return {a, d, b, c};
    case 2: return {a, b, d, c};
    default: return {a, b, c, d};
  }
}

unsigned implicit_slot(const Quat48& words) noexcept {
  return (unsigned{words[0]} >> 15) | ((unsigned{words[1]} >> 15) << 1);
}

// 1 - a^2 - b^2 - c^2 < 0: no quaternion has these stored components (format 9.1, "Decoding
// failure"). docs/legacy.md, "Codes with no valid quaternion": the nearest unit quaternion,
// a, b, c divided by their length and the implicit component 0, as the engine does for the
// bitstream's sum above 1 (decision 2).
Quat invalid_code_rotation(const Quat48& words, float a, float b, float c) noexcept {
  const double n = std::sqrt(double{a} * a + double{b} * b + double{c} * c);
  return place(implicit_slot(words), 0.0f, static_cast<float>(a / n), static_cast<float>(b / n),
               static_cast<float>(c / n));
}

}  // namespace

bool quat48_valid(const Quat48& words) noexcept {
  return implicit_square(stored_value(words[0] & 0x7FFFu), stored_value(words[1] & 0x7FFFu), stored_value(words[2])) >=
         0.0;
}

Quat decode_quat48(const Quat48& words) noexcept {
  const float a = stored_value(words[0] & 0x7FFFu);
  const float b = stored_value(words[1] & 0x7FFFu);
  const float c = stored_value(words[2]);  // decision 3: unsigned, all 16 bits
  const double d2 = implicit_square(a, b, c);
  if (d2 < 0.0) return invalid_code_rotation(words, a, b, c);
  const float d = std::sqrt(static_cast<float>(d2));
  return place(implicit_slot(words), d, a, b, c);
}

Quat48 quat48_from_bytes(std::span<const std::uint8_t, 6> bytes) noexcept {
  Quat48 w{};
  for (unsigned i = 0; i < 3; ++i) w[i] = io::load_u16(bytes, 2 * i);
  return w;
}

std::array<std::uint8_t, 6> quat48_to_bytes(const Quat48& words) noexcept {
  std::array<std::uint8_t, 6> out{};
  for (unsigned i = 0; i < 3; ++i) io::store_u16(out, 2 * i, words[i]);
  return out;
}

Quat decode_quat48(std::span<const std::uint8_t, 6> bytes) noexcept { return decode_quat48(quat48_from_bytes(bytes)); }

bool quat48_suspicious(const Quat48& words) noexcept { return (words[2] & 0x8000u) != 0; }

namespace {

unsigned largest_slot(const double v[4]) noexcept {
  unsigned k = 0;
  for (unsigned i = 1; i < 4; ++i)
    if (std::fabs(v[i]) > std::fabs(v[k])) k = i;
  return k;
}

Quat48 encode_dropping(const double v_in[4], unsigned k) noexcept {
  // No sign bit: the implicit component decodes as >= 0 (format 9.1).
  const double sign = v_in[k] < 0 ? -1.0 : 1.0;
  Quat48 w{};
  unsigned j = 0;
  for (unsigned i = 0; i < 4; ++i)
    if (i != k) w[j++] = nearest_code(sign * v_in[i]);
  w[0] = static_cast<std::uint16_t>(w[0] | ((k & 1u) << 15));
  w[1] = static_cast<std::uint16_t>(w[1] | ((k >> 1) << 15));
  return w;
}

bool normalise(const Quat& q, double v[4]) noexcept {
  v[0] = q.x;
  v[1] = q.y;
  v[2] = q.z;
  v[3] = q.w;
  double norm = 0;
  for (unsigned i = 0; i < 4; ++i) norm += v[i] * v[i];
  if (!(norm > 0) || !std::isfinite(norm)) return false;
  norm = std::sqrt(norm);
  for (unsigned i = 0; i < 4; ++i) v[i] /= norm;
  return true;
}

Quat48 encode_plain(const Quat& q) noexcept {
  double v[4];
  if (!normalise(q, v)) return {0xBFFF, 0xBFFF, 0x3FFF};
  return encode_dropping(v, largest_slot(v));
}

}  // namespace

Quat48 encode_quat48(const Quat& q) noexcept {
  double v[4];
  if (!normalise(q, v)) return {0xBFFF, 0xBFFF, 0x3FFF};
  const Quat48 plain = encode_dropping(v, largest_slot(v));
  if (encode_plain(decode_quat48(plain)) == plain) return plain;  // the usual case

  // Components within a quantum of each other: the decode of the plain code rebuilds the
  // implicit one with the rounding of the other three, and re-encoding it moves to another
  // code (another dropped slot or a rounding step), possibly round a cycle. The candidates
  // are that cycle and every fixed point of encode(decode(.)) among the codes next to q
  // (each slot dropped, each stored value rounded down or up); the one decoding closest to q
  // wins, then the smallest code with the same decode. Re-encoding the decode of a winner y
  // finds y again at error 0 (it is a fixed point or on the cycle walked from its decode), so
  // encode(decode(y)) == y, and searching beyond the cycle keeps the error near one step.
  std::array<Quat48, 16 + 4 * 27> cand{};
  std::size_t n = 0;
  {
    std::array<Quat48, 16> seen{};
    std::size_t walked = 0;
    Quat48 y = plain;
    for (;;) {
      std::size_t hit = walked;
      for (std::size_t i = 0; i < walked; ++i)
        if (seen[i] == y) hit = i;
      if (hit < walked) {
        for (std::size_t i = hit; i < walked; ++i) cand[n++] = seen[i];
        break;
      }
      if (walked == seen.size()) break;  // no cycle within the walk: neighbours only
      seen[walked++] = y;
      y = encode_plain(decode_quat48(y));
    }
  }
  for (unsigned k = 0; k < 4; ++k) {
    const Quat48 centre = encode_dropping(v, k);
    for (unsigned m = 0; m < 27; ++m) {
      Quat48 y = centre;
      unsigned digits = m;
      bool valid = true;
      for (unsigned j = 0; j < 3; ++j, digits /= 3) {
        const int code = static_cast<int>(y[j] & 0x7FFFu) + static_cast<int>(digits % 3) - 1;
        valid = valid && code >= 0 && code <= 0x7FFF;
        y[j] = static_cast<std::uint16_t>((y[j] & 0x8000u) | (static_cast<unsigned>(code) & 0x7FFFu));
      }
      if (valid && encode_plain(decode_quat48(y)) == y) cand[n++] = y;
    }
  }
  if (n == 0) return plain;
  std::size_t best = 0;
  double best_err = angular_error_deg(q, decode_quat48(cand[0]));
  for (std::size_t i = 1; i < n; ++i) {
    const double e = angular_error_deg(q, decode_quat48(cand[i]));
    if (e < best_err || (e == best_err && cand[i] < cand[best])) {
      best = i;
      best_err = e;
    }
  }
  const Quat chosen = decode_quat48(cand[best]);
  Quat48 out = cand[best];
  for (std::size_t i = 0; i < n; ++i) {
    const Quat d = decode_quat48(cand[i]);
    if (cand[i] < out && std::memcmp(&chosen, &d, sizeof chosen) == 0) out = cand[i];
  }
  return out;
}

std::array<std::uint8_t, 6> encode_quat48_bytes(const Quat& q) noexcept { return quat48_to_bytes(encode_quat48(q)); }

}  // namespace mab
