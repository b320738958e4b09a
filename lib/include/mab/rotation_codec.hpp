// JointRotations: the chunked bitstream of animated bone rotations (format 9.2). The re-quantiser
// that turns float keys back into its codes is requantise.hpp.
#pragma once

#include <mab/limits.hpp>
#include <mab/quat.hpp>
#include <mab/result.hpp>

#include <array>
#include <cstdint>
#include <span>
#include <vector>

namespace mab {

// Format 9.2: m_numFramesPerChunk.
inline constexpr unsigned keys_per_chunk = 8;

// The exact codes of one bone's block in one chunk, so an unedited clip re-encodes to the same
// bytes. Fields a block does not store are zero after decoding and ignored when encoding:
// `signs` when cflags bit 3 is clear, `raw[j]` of a constant component, raw[j][f] for f >= F.
struct BoneChunkCodes {
  std::uint8_t cflags = 0;                            // bits 0-2 constant flags, bit 3 signs present, bits 4-5 wInd
  std::uint8_t signs = 0;                             // bit f: negate the reconstructed component of key f
  std::array<std::uint16_t, 3> headers{};             // constant v, or varying h
  std::array<std::array<std::uint16_t, 8>, 3> raw{};  // [component][key], n bits each

  unsigned omitted() const noexcept { return (unsigned{cflags} >> 4) & 3u; }
  bool is_constant(unsigned component) const noexcept { return (unsigned{cflags} >> component) & 1u; }
  bool has_signs() const noexcept { return (cflags & 8u) != 0; }
  friend bool operator==(const BoneChunkCodes&, const BoneChunkCodes&) = default;
};

struct RotationStream {
  // As read: numChunks + 1 entries; entry i is the start of chunk i, the last the data end.
  // The encoder recomputes it; decode only accepts tables the encoder would write (decision 6).
  std::vector<std::uint32_t> chunk_table;
  std::vector<std::vector<BoneChunkCodes>> chunks;  // [chunk][animated bone]
  std::vector<std::uint8_t> tail;  // section bytes after the last chunk end, kept verbatim (decision 8)
  friend bool operator==(const RotationStream&, const RotationStream&) = default;
};

// Bone-major decoded keys: quats[bone * key_count + key].
struct RotationTracks {
  std::uint32_t bone_count = 0;
  std::uint32_t key_count = 0;
  std::vector<Quat> quats;

  std::span<const Quat> track(std::uint32_t bone) const noexcept {
    return std::span<const Quat>(quats).subspan(std::size_t{bone} * key_count, key_count);
  }
  std::span<Quat> track(std::uint32_t bone) noexcept {
    return std::span<Quat>(quats).subspan(std::size_t{bone} * key_count, key_count);
  }
};

// --- Value reconstruction (format 9.2 step 3, engine float constants) ---
//
// Sums of products are evaluated in double, where the products are exact, and rounded to float
// once. The result is then the same whether or not the compiler fuses a multiply-add (gcc does
// so across statements when FMA is available, clang within expressions), so decoded values do
// not depend on the build or the call site; the re-quantiser relies on reproducing them.

namespace detail {
constexpr std::array<float, 17> make_interpolant_scales() {
  std::array<float, 17> s{};
  for (unsigned n = 2; n <= 16; ++n) s[n] = 1.0f / static_cast<float>((1u << n) - 1u);
  return s;
}
inline constexpr std::array<float, 17> interpolant_scales = make_interpolant_scales();
}  // namespace detail

// Format 9.2 ms_interpolantScaleFactors: 0 for n = 0, 1; 1/(2^n - 1) for n = 2..16. Inline: the
// re-quantiser evaluates it for every candidate header.
inline float interpolant_scale(unsigned nbits) noexcept {
  return nbits < detail::interpolant_scales.size() ? detail::interpolant_scales[nbits] : 0.0f;
}

// Decision 1: v / 32767.5 - 1, via the engine's 0.000030518044.
inline float rotation_constant_value(std::uint16_t v) noexcept {
  return static_cast<float>(static_cast<double>(v) * double{0.000030518044f} - 1.0);
}
// (h & 0xFF) / 127 - 1, via the engine's 0.0078740157.
inline float rotation_base(std::uint16_t h) noexcept {
  return static_cast<float>(static_cast<double>(h & 0xFFu) * double{0.0078740157f} - 1.0);
}
// (h >> 8) / 127.5 * S[n], via the engine's 0.0078431377 (float products, no sum to fuse).
inline float rotation_slope(std::uint16_t h, unsigned nbits) noexcept {
  const float range = static_cast<float>(h >> 8) * 0.0078431377f;
  return range * interpolant_scale(nbits);
}
// base + raw * slope.
inline float rotation_varying_value(float base, float slope, std::uint16_t raw) noexcept {
  return static_cast<float>(static_cast<double>(raw) * double{slope} + double{base});
}

// Bits of one bone block for a chunk of `chunk_keys` keys (format 9.2 step 5).
std::uint64_t bone_block_bits(std::uint8_t cflags, unsigned chunk_keys, unsigned nbits) noexcept;

// Keys in chunk `chunk` of a clip with `key_count` stored keys (1..8 for a valid chunk).
unsigned chunk_key_count(std::uint32_t key_count, std::size_t chunk) noexcept;
inline std::size_t chunk_count(std::uint32_t key_count) noexcept {
  return (std::size_t{key_count} + keys_per_chunk - 1) / keys_per_chunk;
}

// Key `key` (0..7; taken mod 8) of one block: stored values go to the slots other than wInd
// in ascending order, the omitted one is sqrt(1 - s), or 0 with the three divided by sqrt(s)
// when s > 1 (decision 2), then negated if its sign bit is set.
Quat decode_key(const BoneChunkCodes& codes, unsigned key, unsigned nbits) noexcept;
// Keys 0..min(out.size(), 8)-1 of one block, each identical to decode_key.
void decode_block(const BoneChunkCodes& codes, unsigned nbits, std::span<Quat> out) noexcept;

// --- Stream codec ---

// `section` is the whole JointRotations extent; `bit_depths[b]` is n (1..16) of animated bone b
// (flag & 0x0F) + 1, format 5.3). Checks the table (size 4*(ceil(K/8)+1), ascending, inside the
// section) and that each chunk ends exactly at its table end with zero pad bits (decision 6).
Result<RotationStream> decode_rotation_stream(std::span<const std::uint8_t> section, std::uint32_t key_count,
                                              std::span<const std::uint8_t> bit_depths,
                                              std::uint64_t section_file_offset, const Limits& limits = default_limits);

// Writes a fresh table, the chunks and then `tail`. Fails with invalid_argument when the
// codes do not fit the clip shape (chunk or bone count, a sign or raw value wider than its
// field, n outside 1..16) and limit_exceeded when an offset would not fit in 32 bits.
Result<std::vector<std::uint8_t>> encode_rotation_stream(const RotationStream& stream, std::uint32_t key_count,
                                                         std::span<const std::uint8_t> bit_depths);

// The table the encoder writes for these codes (chunks must already match the clip shape).
Result<std::vector<std::uint32_t>> compute_chunk_table(const std::vector<std::vector<BoneChunkCodes>>& chunks,
                                                       std::uint32_t key_count,
                                                       std::span<const std::uint8_t> bit_depths);

// Every key of every animated bone.
Result<RotationTracks> decode_rotations(const RotationStream& stream, std::uint32_t key_count,
                                        std::span<const std::uint8_t> bit_depths);
// The same keys into `tracks[b]` (key_count quaternions for animated bone b), wherever they live.
Status decode_rotations_into(const RotationStream& stream, std::uint32_t key_count,
                             std::span<const std::uint8_t> bit_depths, std::span<const std::span<Quat>> tracks);

}  // namespace mab
