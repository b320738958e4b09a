// Both rotation codecs: the 6-byte constant quaternion (format 9.1, decision 3) and one bone
// block of the JointRotations chunk codec (format 9.2, decisions 1, 2, 6).
//
// Properties: decoding never fails and gives a finite, non-zero quaternion; encoding what
// was decoded is stable (a second encode of its decode gives the same codes); the error the
// re-quantiser reports is the error its codes really have; one chunk survives the stream
// writer and reader unchanged, and the bulk decoder agrees with decode_key bit for bit.
//
// Input: a mode byte (low 2 bits), then
//   0: 6-byte codes, repeated;                1: 16-byte float quaternions, repeated;
//   2: nbits, key count, a bone block's codes; 3: nbits, key count, float keys.
#include "harness_util.hpp"

#include <mab/encode_clip.hpp>
#include <mab/quat.hpp>
#include <mab/requantise.hpp>
#include <mab/rotation_codec.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <span>
#include <vector>

namespace {

using fuzz::check;

constexpr double pi = 3.14159265358979323846;

bool same_bits(const mab::Quat& a, const mab::Quat& b) { return std::memcmp(&a, &b, sizeof a) == 0; }

// Finite, and not so small that normalising it is meaningless (the codecs' own test).
bool usable(const mab::Quat& q) {
  double n2 = 0;
  for (unsigned i = 0; i < 4; ++i) n2 += double{q[i]} * double{q[i]};
  return std::isfinite(n2) && n2 > 0;
}

void decoded_is_sane(const mab::Quat& q, const char* what) {
  for (unsigned i = 0; i < 4; ++i) check(std::isfinite(q[i]), what);
  check(usable(q), what);
}

// Worst case of one quat48 round trip (derivation in tests/codec/quat48_test.cpp): each
// stored component is within step/2, the rebuilt one moves at most sqrt(3) times as much,
// so |dq| <= sqrt(3) * step; 1% covers second-order terms and float rounding.
double quat48_bound_deg() {
  const double dq = std::sqrt(3.0) * double{mab::quat48_step};
  return 4.0 * std::asin(dq / 2.0) * 1.01 * 180.0 / pi;
}

// An encoder output is a fixed point: its decode encodes to it again.
void quat48_encoded_is_stable(const mab::Quat48& y) {
  check(!mab::quat48_suspicious(y), "encode_quat48 wrote bit 15 of w2 (decision 3)");
  const mab::Quat r = mab::decode_quat48(y);
  decoded_is_sane(r, "decode of an encoded quat48 is not a usable quaternion");
  if (mab::encode_quat48(r) != y) fuzz::fail("encode_quat48(decode_quat48(y)) != y for an encoder output y");
}

void quat48_codes(fuzz::Input& in) {
  const double bound = quat48_bound_deg();
  while (in.left() >= 6) {
    const auto raw = in.bytes(6);
    const std::span<const std::uint8_t, 6> b(raw.data(), 6);
    const mab::Quat48 x = mab::quat48_from_bytes(b);
    check(mab::quat48_to_bytes(x) == std::array<std::uint8_t, 6>{b[0], b[1], b[2], b[3], b[4], b[5]},
          "quat48 bytes -> words -> bytes");
    const mab::Quat q = mab::decode_quat48(x);
    check(same_bits(q, mab::decode_quat48(b)), "decode_quat48 of bytes and of words differ");
    decoded_is_sane(q, "decode_quat48 gave a non-finite or zero quaternion");

    const mab::Quat48 y = mab::encode_quat48(q);
    const double err = mab::angular_error_deg(q, mab::decode_quat48(y));
    if (!(err <= bound)) {
      std::fprintf(stderr, "quat48 %04x %04x %04x: re-encode error %.9g deg > %.9g\n", x[0], x[1], x[2], err, bound);
      fuzz::fail("quat48 re-encode error above the step bound");
    }
    quat48_encoded_is_stable(y);

    // Codes an encoder could have written come back unchanged: the implicit component (slot
    // k) is clearly the largest and the stored three are within the unit ball. The margins
    // keep ties and the d = 0 clamp, where several codes are equally right, out of it.
    const unsigned k = (unsigned{x[0]} >> 15) | ((unsigned{x[1]} >> 15) << 1);
    double others = 0, s = 0;
    for (unsigned i = 0; i < 4; ++i) {
      if (i == k) continue;
      others = std::max(others, std::fabs(double{q[i]}));
      s += double{q[i]} * double{q[i]};
    }
    const bool canonical = !mab::quat48_suspicious(x) && double{q[k]} > others + 1e-4 && s < 1.0 - 1e-4;
    if (canonical && y != x) {
      std::fprintf(stderr, "quat48 %04x %04x %04x re-encoded as %04x %04x %04x\n", x[0], x[1], x[2], y[0], y[1], y[2]);
      fuzz::fail("an encoder-shaped quat48 code did not survive decode + encode");
    }
  }
}

void quat48_floats(fuzz::Input& in) {
  const double bound = quat48_bound_deg();
  while (in.left() >= 16) {
    mab::Quat q;
    for (unsigned i = 0; i < 4; ++i) q[i] = in.f32();
    const mab::Quat48 y = mab::encode_quat48(q);
    if (!usable(q)) {
      // Documented: a zero or non-finite input encodes identity.
      check(y == mab::Quat48{0xBFFF, 0xBFFF, 0x3FFF}, "unusable quaternion did not encode identity");
      continue;
    }
    const double err = mab::angular_error_deg(q, mab::decode_quat48(y));
    if (!(err <= bound)) {
      std::fprintf(stderr, "quat48 of (%a %a %a %a): error %.9g deg > %.9g\n", double{q.x}, double{q.y}, double{q.z},
                   double{q.w}, err, bound);
      fuzz::fail("encode_quat48 error above the step bound");
    }
    quat48_encoded_is_stable(y);
  }
}

// The fields of a block that the stream actually stores (decode zeroes the rest).
mab::BoneChunkCodes stored_part(const mab::BoneChunkCodes& c, unsigned keys, unsigned nbits) {
  mab::BoneChunkCodes s;
  s.cflags = static_cast<std::uint8_t>(c.cflags & 63u);
  if (s.has_signs()) s.signs = static_cast<std::uint8_t>(c.signs & ((1u << keys) - 1u));
  s.headers = c.headers;
  for (unsigned j = 0; j < 3; ++j)
    if (!s.is_constant(j))
      for (unsigned f = 0; f < keys; ++f) s.raw[j][f] = static_cast<std::uint16_t>(c.raw[j][f] & ((1u << nbits) - 1u));
  return s;
}

// One chunk of one bone through encode_rotation_stream / decode_rotation_stream /
// decode_rotations: same codes back, zero pad bits, and the bulk floats equal decode_key's.
void stream_round_trip(const mab::BoneChunkCodes& codes, unsigned keys, unsigned nbits) {
  mab::RotationStream s;
  s.chunks = {{codes}};
  const std::array<std::uint8_t, 1> depth{static_cast<std::uint8_t>(nbits)};
  auto bytes = mab::encode_rotation_stream(s, keys, depth);
  if (!bytes) {
    std::fprintf(stderr, "encode_rotation_stream: %s\n", bytes.error().message().c_str());
    fuzz::fail("a stored-form bone block does not encode");
  }
  auto back = mab::decode_rotation_stream(*bytes, keys, depth, 0);
  if (!back) {
    std::fprintf(stderr, "decode_rotation_stream: %s\n", back.error().message().c_str());
    fuzz::fail("an encoded chunk does not decode");
  }
  check(back->chunks == s.chunks, "chunk codes changed through the stream writer and reader");
  check(back->chunk_table.size() == 2 && back->chunk_table[1] == bytes->size(), "chunk table end");
  auto tracks = mab::decode_rotations(*back, keys, depth);
  check(tracks.ok(), "decode_rotations failed on a decoded stream");
  for (unsigned f = 0; f < keys; ++f)
    check(same_bits(tracks->track(0)[f], mab::decode_key(codes, f, nbits)), "bulk decoder and decode_key disagree");
}

// The error the quantiser reports is the largest angular error of its own decode, and its
// codes are a fixed point: quantising their decode gives them back (what makes encode_clip
// idempotent).
void requantise_checks(std::span<const mab::Quat> keys, unsigned nbits) {
  auto q = mab::quantise_chunk(keys, nbits);
  if (!q) {
    std::fprintf(stderr, "quantise_chunk: %s\n", q.error().message().c_str());
    fuzz::fail("quantise_chunk failed on usable keys");
  }
  const auto n = static_cast<unsigned>(keys.size());
  check(stored_part(q->codes, n, nbits) == q->codes, "quantise_chunk set fields the stream cannot store");

  std::array<mab::Quat, mab::keys_per_chunk> decoded{};
  double worst = 0, slack_rad = 0;
  for (unsigned f = 0; f < n; ++f) {
    decoded[f] = mab::decode_key(q->codes, f, nbits);
    decoded_is_sane(decoded[f], "decode of quantised codes is not a usable quaternion");
    worst = std::max(worst, mab::angular_error_deg(keys[f], decoded[f]));
    // The quantiser measures against its unnormalised decode, and keys within 1e-6 of unit
    // length unnormalised too; each length deviation e moves its measure by at most 2e
    // radians (it adds e^2 under the square root of |p - q|^2).
    auto length_error = [](const mab::Quat& x) {
      double n2 = 0;
      for (unsigned i = 0; i < 4; ++i) n2 += double{x[i]} * double{x[i]};
      return std::fabs(std::sqrt(n2) - 1.0);
    };
    const double e_in = length_error(keys[f]);
    slack_rad = std::max(slack_rad, 2.0 * ((e_in <= 1e-6 ? e_in : 0.0) + length_error(decoded[f])));
  }
  const double rounding = 1e-9 + 1e-6 * worst;
  if (!(q->max_error_deg + rounding >= worst) ||
      !(q->max_error_deg <= worst + rounding + slack_rad * 1.01 * 180.0 / pi)) {
    std::fprintf(stderr, "nbits %u, %u keys: reported %.12g deg, measured %.12g deg\n", nbits, n, q->max_error_deg,
                 worst);
    fuzz::fail("quantise_chunk reports an error its codes do not have");
  }
  stream_round_trip(q->codes, n, nbits);

  auto again = mab::quantise_chunk(std::span<const mab::Quat>(decoded.data(), n), nbits);
  check(again.ok(), "quantise_chunk failed on its own decode");
  // The documented exception (rotation_codec.hpp): a key renormalised by decision 2 decodes
  // off the code grid, and nothing promises its re-quantisation.
  bool renormalised = false;
  for (unsigned f = 0; f < n; ++f) renormalised = renormalised || mab::key_renormalised(q->codes, f, nbits);
  if (!renormalised && !(again->codes == q->codes)) {
    std::fprintf(stderr, "nbits %u, %u keys: cflags %u -> %u, headers %04x %04x %04x -> %04x %04x %04x\n", nbits, n,
                 q->codes.cflags, again->codes.cflags, q->codes.headers[0], q->codes.headers[1], q->codes.headers[2],
                 again->codes.headers[0], again->codes.headers[1], again->codes.headers[2]);
    fuzz::fail("quantise_chunk(decode(codes)) != codes: re-quantising is not idempotent");
  }
}

void argument_errors(std::span<const mab::Quat> keys) {
  for (unsigned bad : {0u, 17u}) {
    auto r = mab::quantise_chunk(keys, bad);
    check(!r && r.error().code == mab::ErrorCode::invalid_argument, "quantise_chunk accepted nbits 0 or 17");
  }
}

void chunk_codes(fuzz::Input& in, bool with_argument_errors) {
  const unsigned nbits = 1u + in.u8() % 16u;
  const unsigned keys = 1u + in.u8() % mab::keys_per_chunk;
  mab::BoneChunkCodes c;
  c.cflags = in.u8();
  c.signs = in.u8();
  for (auto& h : c.headers) h = in.u16();
  for (auto& comp : c.raw)
    for (auto& r : comp) r = in.u16();
  // Only what a stream can hold: this is exactly what decode_rotation_stream produces.
  c = stored_part(c, keys, nbits);
  stream_round_trip(c, keys, nbits);

  std::array<mab::Quat, mab::keys_per_chunk> q{};
  for (unsigned f = 0; f < keys; ++f) {
    q[f] = mab::decode_key(c, f, nbits);
    decoded_is_sane(q[f], "decode_key gave a non-finite or zero quaternion");
    // The key index is taken mod 8 (documented), so key f + 8 is key f.
    check(same_bits(q[f], mab::decode_key(c, f + mab::keys_per_chunk, nbits)), "decode_key(key + 8)");
  }
  const std::span<const mab::Quat> ks(q.data(), keys);
  requantise_checks(ks, nbits);
  if (with_argument_errors) argument_errors(ks);
}

void chunk_floats(fuzz::Input& in, bool with_argument_errors) {
  const unsigned nbits = 1u + in.u8() % 16u;
  const unsigned keys = 1u + in.u8() % mab::keys_per_chunk;
  std::array<mab::Quat, mab::keys_per_chunk> q{};
  bool all_usable = true;
  for (unsigned f = 0; f < keys; ++f) {
    for (unsigned i = 0; i < 4; ++i) q[f][i] = in.f32();
    all_usable = all_usable && usable(q[f]);
  }
  const std::span<const mab::Quat> ks(q.data(), keys);
  if (!all_usable) {
    auto r = mab::quantise_chunk(ks, nbits);
    check(!r && r.error().code == mab::ErrorCode::bad_value, "quantise_chunk accepted a zero or non-finite key");
    return;
  }
  requantise_checks(ks, nbits);
  if (with_argument_errors) argument_errors(ks);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  fuzz::Input in(data, size);
  const std::uint8_t mode = in.u8();
  switch (mode & 3u) {
    case 0: quat48_codes(in); break;
    case 1: quat48_floats(in); break;
    case 2: chunk_codes(in, (mode & 4u) != 0); break;
    default: chunk_floats(in, (mode & 4u) != 0); break;
  }
  return 0;
}
