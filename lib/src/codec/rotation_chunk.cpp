// JointRotations chunk codec (format 9.2; decisions 1, 2, 6, 8).
#include <mab/bits.hpp>
#include <mab/rotation_codec.hpp>

#include "chunk_stream.hpp"
#include "key_assembly.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

namespace mab {

namespace {

// The rotation block (format 9.2 steps 2-5): 6 bits of cflags, whose bit 3 announces one sign
// bit per key.
struct RotationBlocks {
  using Codes = BoneChunkCodes;
  static constexpr std::string_view section = "JointRotations";
  static constexpr std::string_view tracks_what = "animated bones";
  static constexpr unsigned cflags_bits = 6;
  static bool has_signs(const Codes& k) noexcept { return k.has_signs(); }
};

inline Quat assemble(float v0, float v1, float v2, unsigned omitted, bool negate) noexcept {
  return detail::assemble_key(v0, v1, v2, detail::stored_sum_of_squares(v0, v1, v2), omitted, negate);
}

Status check_depths(std::span<const std::uint8_t> bit_depths) {
  for (std::size_t b = 0; b < bit_depths.size(); ++b) {
    if (bit_depths[b] < 1 || bit_depths[b] > 16)
      return make_error(ErrorCode::invalid_argument, no_offset, "bit_depths[" + std::to_string(b) + "]",
                        "bit depth " + std::to_string(bit_depths[b]) + " is outside 1..16");
  }
  return {};
}

}  // namespace

std::uint64_t bone_block_bits(std::uint8_t cflags, unsigned chunk_keys, unsigned nbits) noexcept {
  return detail::block_bits(RotationBlocks::cflags_bits, (cflags & 8u) ? chunk_keys : 0u, cflags, chunk_keys, nbits);
}

unsigned chunk_key_count(std::uint32_t key_count, std::size_t chunk) noexcept {
  const std::uint64_t first = std::uint64_t{chunk} * keys_per_chunk;
  if (first >= key_count) return 0;
  return static_cast<unsigned>(std::min<std::uint64_t>(keys_per_chunk, key_count - first));
}

Quat decode_key(const BoneChunkCodes& codes, unsigned key, unsigned nbits) noexcept {
  key &= 7u;
  float v[3];
  for (unsigned j = 0; j < 3; ++j) {
    const std::uint16_t h = codes.headers[j];
    v[j] = codes.is_constant(j) ? rotation_constant_value(h)
                                : rotation_varying_value(rotation_base(h), rotation_slope(h, nbits), codes.raw[j][key]);
  }
  return assemble(v[0], v[1], v[2], codes.omitted(), codes.has_signs() && ((codes.signs >> key) & 1u));
}

namespace {
// The omitted value goes to slot W, the stored three to the others in order (format 9.2 step 4).
template <unsigned W>
void place_keys(const float (*v)[keys_per_chunk], const float* root, std::size_t keys, Quat* out) noexcept {
  for (std::size_t f = 0; f < keys; ++f) {
    float q[4];
    unsigned j = 0;
    for (unsigned i = 0; i < 4; ++i) q[i] = i == W ? root[f] : v[j++][f];
    out[f] = {q[0], q[1], q[2], q[3]};
  }
}
}  // namespace

void decode_block(const BoneChunkCodes& codes, unsigned nbits, std::span<Quat> out) noexcept {
  // All 8 keys by component, so the loops vectorise; lanes past the chunk's keys are computed
  // and dropped. Per key, the same operations as decode_key, so the floats are identical.
  constexpr unsigned lanes = keys_per_chunk;
  float v[3][lanes];
  for (unsigned j = 0; j < 3; ++j) {
    const std::uint16_t h = codes.headers[j];
    if (codes.is_constant(j)) {
      std::fill_n(v[j], lanes, rotation_constant_value(h));
      continue;
    }
    const float base = rotation_base(h), slope = rotation_slope(h, nbits);
    for (unsigned f = 0; f < lanes; ++f) v[j][f] = rotation_varying_value(base, slope, codes.raw[j][f]);
  }
  const unsigned signs = codes.has_signs() ? codes.signs : 0u;
  double s[lanes];
  float root[lanes];
  for (unsigned f = 0; f < lanes; ++f) {
    s[f] = detail::stored_sum_of_squares(v[0][f], v[1][f], v[2][f]);
    root[f] = detail::omitted_value(s[f], (signs >> f) & 1u);  // decision 2 keys are redone below
  }
  const std::size_t keys = std::min<std::size_t>(out.size(), lanes);
  const unsigned omitted = codes.omitted();
  switch (omitted) {
    case 0: place_keys<0>(v, root, keys, out.data()); break;
    case 1: place_keys<1>(v, root, keys, out.data()); break;
    case 2: place_keys<2>(v, root, keys, out.data()); break;
    default: place_keys<3>(v, root, keys, out.data()); break;
  }
  for (std::size_t f = 0; f < keys; ++f)
    if (s[f] > 1.0) out[f] = detail::assemble_key(v[0][f], v[1][f], v[2][f], s[f], omitted, (signs >> f) & 1u);
}

Result<RotationStream> decode_rotation_stream(std::span<const std::uint8_t> section, std::uint32_t key_count,
                                              std::span<const std::uint8_t> bit_depths,
                                              std::uint64_t section_file_offset, const Limits& limits) {
  const std::uint64_t base = section_file_offset;
  MAB_TRY(detail::check_stream_counts("JointRotations", key_count, bit_depths.size(), "animated bones", base, limits));
  MAB_TRY(check_depths(bit_depths));
  const std::size_t nchunks = chunk_count(key_count);
  RotationStream out;
  // Format 9.2 section layout: u32 tableSize = 4 * (numChunks + 1), then the chunk ends.
  MAB_ASSIGN(out.chunk_table, detail::read_chunk_table(section, nchunks, key_count, base, "JointRotations"));

  MAB_ASSIGN(out.chunks, detail::read_chunks<RotationBlocks>(section, out.chunk_table, key_count, bit_depths, base));
  const std::uint32_t data_end = out.chunk_table[nchunks];
  out.tail.assign(section.begin() + data_end, section.end());
  return out;
}

Result<std::vector<std::uint32_t>> compute_chunk_table(const std::vector<std::vector<BoneChunkCodes>>& chunks,
                                                       std::uint32_t key_count,
                                                       std::span<const std::uint8_t> bit_depths) {
  MAB_TRY(check_depths(bit_depths));
  MAB_TRY(detail::check_chunk_codes<RotationBlocks>(chunks, key_count, bit_depths));
  return detail::chunk_table_of<RotationBlocks>(chunks, key_count, bit_depths);
}

Result<std::vector<std::uint8_t>> encode_rotation_stream(const RotationStream& stream, std::uint32_t key_count,
                                                         std::span<const std::uint8_t> bit_depths) {
  MAB_ASSIGN(const std::vector<std::uint32_t> table, compute_chunk_table(stream.chunks, key_count, bit_depths));
  return detail::write_chunks<RotationBlocks>(table, stream.chunks, key_count, bit_depths, stream.tail);
}

Status decode_rotations_into(const RotationStream& stream, std::uint32_t key_count,
                             std::span<const std::uint8_t> bit_depths, std::span<const std::span<Quat>> tracks) {
  MAB_TRY(check_depths(bit_depths));
  MAB_TRY(detail::check_chunk_counts<RotationBlocks>(stream.chunks, key_count, bit_depths.size()));
  if (tracks.size() != bit_depths.size())
    return make_error(
        ErrorCode::invalid_argument, no_offset, "tracks",
        std::to_string(tracks.size()) + " tracks for " + std::to_string(bit_depths.size()) + " animated bones");
  for (const auto& t : tracks)
    if (t.size() != key_count)
      return make_error(ErrorCode::invalid_argument, no_offset, "tracks",
                        "a track of " + std::to_string(t.size()) + " keys for " + std::to_string(key_count));
  for (std::size_t c = 0; c < stream.chunks.size(); ++c) {
    const unsigned keys = chunk_key_count(key_count, c);
    const std::size_t first_key = c * keys_per_chunk;
    for (std::size_t b = 0; b < bit_depths.size(); ++b)
      decode_block(stream.chunks[c][b], bit_depths[b], tracks[b].subspan(first_key, keys));
  }
  return {};
}

Result<RotationTracks> decode_rotations(const RotationStream& stream, std::uint32_t key_count,
                                        std::span<const std::uint8_t> bit_depths) {
  MAB_TRY(check_depths(bit_depths));
  RotationTracks out;
  out.bone_count = static_cast<std::uint32_t>(bit_depths.size());
  out.key_count = key_count;
  out.quats.resize(std::size_t{out.bone_count} * key_count);
  std::vector<std::span<Quat>> tracks(out.bone_count);
  for (std::uint32_t b = 0; b < out.bone_count; ++b) tracks[b] = out.track(b);
  MAB_TRY(decode_rotations_into(stream, key_count, bit_depths, tracks));
  return out;
}

}  // namespace mab
