// JointRotations chunk codec (spec 9.2; decisions D1, D2, D6, D8).
#include <mab/bits.hpp>
#include <mab/rotation_codec.hpp>

#include "chunk_table.hpp"
#include "key_assembly.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

namespace mab {

namespace {

using detail::at;

std::string chunk_field(std::size_t chunk) {
  return "JointRotations.chunk[" + std::to_string(chunk) + "]";
}

// Names the block field holding bit `off` of a bone block, for overrun reports. `cflags` is
// what was read (0 if the overrun hit the flags themselves, which then name the field).
std::string block_field(std::uint8_t cflags, std::uint64_t off, unsigned keys, unsigned nbits) {
  if (off < 6) return "cflags";
  off -= 6;
  if (cflags & 8u) {
    if (off < keys) return "signs";
    off -= keys;
  }
  for (unsigned j = 0; j < 3; ++j) {
    const std::string comp = "component[" + std::to_string(j) + "]";
    if (off < 16) return comp + ".header";
    off -= 16;
    if (!((unsigned{cflags} >> j) & 1u)) {
      const std::uint64_t span = std::uint64_t{keys} * nbits;
      if (off < span) return comp + ".raw[" + std::to_string(off / nbits) + "]";
      off -= span;
    }
  }
  return "end";
}

inline Quat assemble(float v0, float v1, float v2, unsigned omitted, bool negate) noexcept {
  return detail::assemble_key(v0, v1, v2, detail::stored_sum_of_squares(v0, v1, v2), omitted,
                              negate);
}

Status check_depths(std::span<const std::uint8_t> bit_depths) {
  for (std::size_t b = 0; b < bit_depths.size(); ++b) {
    if (bit_depths[b] < 1 || bit_depths[b] > 16)
      return make_error(ErrorCode::invalid_argument, no_offset,
                        "bit_depths[" + std::to_string(b) + "]",
                        "bit depth " + std::to_string(bit_depths[b]) + " is outside 1..16");
  }
  return {};
}

// The codes must describe exactly this clip shape, and every stored value must fit its field,
// otherwise writing would silently drop bits and the stream would not decode to these codes.
Status check_shape(const std::vector<std::vector<BoneChunkCodes>>& chunks, std::uint32_t key_count,
                   std::span<const std::uint8_t> bit_depths) {
  MAB_TRY(check_depths(bit_depths));
  if (chunks.size() != chunk_count(key_count))
    return make_error(ErrorCode::invalid_argument, no_offset, "JointRotations.chunks",
                      std::to_string(chunks.size()) + " chunks, " + std::to_string(key_count) +
                          " keys need " + std::to_string(chunk_count(key_count)));
  for (std::size_t c = 0; c < chunks.size(); ++c) {
    if (chunks[c].size() != bit_depths.size())
      return make_error(ErrorCode::invalid_argument, no_offset, chunk_field(c),
                        std::to_string(chunks[c].size()) + " bone blocks for " +
                            std::to_string(bit_depths.size()) + " animated bones");
    const unsigned keys = chunk_key_count(key_count, c);
    for (std::size_t b = 0; b < bit_depths.size(); ++b) {
      const BoneChunkCodes& k = chunks[c][b];
      const auto where = [&] { return chunk_field(c) + ".bone[" + std::to_string(b) + "]"; };
      if (k.cflags > 63)
        return make_error(ErrorCode::invalid_argument, no_offset, where() + ".cflags",
                          "cflags " + std::to_string(k.cflags) + " does not fit 6 bits");
      if (k.has_signs() && (k.signs >> keys) != 0)
        return make_error(ErrorCode::invalid_argument, no_offset, where() + ".signs",
                          "sign bits beyond the chunk's " + std::to_string(keys) + " keys");
      const unsigned max_raw = (1u << bit_depths[b]) - 1u;
      for (unsigned j = 0; j < 3; ++j) {
        if (k.is_constant(j)) continue;
        for (unsigned f = 0; f < keys; ++f) {
          if (k.raw[j][f] > max_raw)
            return make_error(
                ErrorCode::invalid_argument, no_offset,
                where() + ".raw[" + std::to_string(j) + "][" + std::to_string(f) + "]",
                "value " + std::to_string(k.raw[j][f]) + " does not fit " +
                    std::to_string(bit_depths[b]) + " bits");
        }
      }
    }
  }
  return {};
}

std::vector<std::uint32_t> table_for(const std::vector<std::vector<BoneChunkCodes>>& chunks,
                                     std::uint32_t key_count,
                                     std::span<const std::uint8_t> bit_depths, bool& fits) {
  std::vector<std::uint32_t> table(chunks.size() + 1);
  std::uint64_t pos = 4 * (std::uint64_t{chunks.size()} + 1);
  fits = true;
  table[0] = static_cast<std::uint32_t>(pos);
  for (std::size_t c = 0; c < chunks.size(); ++c) {
    const unsigned keys = chunk_key_count(key_count, c);
    std::uint64_t bits = 0;
    for (std::size_t b = 0; b < bit_depths.size(); ++b)
      bits += bone_block_bits(chunks[c][b].cflags, keys, bit_depths[b]);
    pos += (bits + 7) / 8;  // decision D6: zero-padded to a byte
    if (pos > std::numeric_limits<std::uint32_t>::max()) fits = false;
    table[c + 1] = static_cast<std::uint32_t>(pos);
  }
  return table;
}

}  // namespace

std::uint64_t bone_block_bits(std::uint8_t cflags, unsigned chunk_keys, unsigned nbits) noexcept {
  std::uint64_t bits = 6;
  if (cflags & 8u) bits += chunk_keys;
  for (unsigned j = 0; j < 3; ++j) {
    bits += 16;
    // Spec 9.2 step 5: n = 1 still stores its n*F bits although the slope is 0.
    if (!((unsigned{cflags} >> j) & 1u)) bits += std::uint64_t{chunk_keys} * nbits;
  }
  return bits;
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
                                : rotation_varying_value(rotation_base(h), rotation_slope(h, nbits),
                                                         codes.raw[j][key]);
  }
  return assemble(v[0], v[1], v[2], codes.omitted(),
                  codes.has_signs() && ((codes.signs >> key) & 1u));
}

namespace {
// The omitted value goes to slot W, the stored three to the others in order (spec 9.2 step 4).
template <unsigned W>
void place_keys(const float (*v)[keys_per_chunk], const float* root, std::size_t keys,
                Quat* out) noexcept {
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
    root[f] = detail::omitted_value(s[f], (signs >> f) & 1u);  // D2 keys are redone below
  }
  const std::size_t keys = std::min<std::size_t>(out.size(), lanes);
  const unsigned omitted = codes.omitted();
  switch (omitted) {
    case 0:
      place_keys<0>(v, root, keys, out.data());
      break;
    case 1:
      place_keys<1>(v, root, keys, out.data());
      break;
    case 2:
      place_keys<2>(v, root, keys, out.data());
      break;
    default:
      place_keys<3>(v, root, keys, out.data());
      break;
  }
  for (std::size_t f = 0; f < keys; ++f)
    if (s[f] > 1.0)
      out[f] = detail::assemble_key(v[0][f], v[1][f], v[2][f], s[f], omitted, (signs >> f) & 1u);
}

Result<RotationStream> decode_rotation_stream(std::span<const std::uint8_t> section,
                                              std::uint32_t key_count,
                                              std::span<const std::uint8_t> bit_depths,
                                              std::uint64_t section_file_offset,
                                              const Limits& limits) {
  const std::uint64_t base = section_file_offset;
  MAB_TRY(detail::check_stream_counts("JointRotations", key_count, bit_depths.size(), "animated bones", base, limits));
  MAB_TRY(check_depths(bit_depths));
  const std::size_t nchunks = chunk_count(key_count);
  RotationStream out;
  // Spec 9.2 section layout: u32 tableSize = 4 * (numChunks + 1), then the chunk ends.
  MAB_ASSIGN(out.chunk_table, detail::read_chunk_table(section, nchunks, key_count, base, "JointRotations"));

  // Chunks are decoded one at a time so the allocation never runs ahead of the data seen.
  out.chunks.reserve(nchunks);
  for (std::size_t c = 0; c < nchunks; ++c) {
    const unsigned keys = chunk_key_count(key_count, c);
    const std::uint32_t start = out.chunk_table[c];
    BitReader r(section.subspan(start, out.chunk_table[c + 1] - start), at(base, start));
    std::vector<BoneChunkCodes>& bones = out.chunks.emplace_back(bit_depths.size());
    for (std::size_t b = 0; b < bit_depths.size(); ++b) {
      const unsigned nbits = bit_depths[b];
      const std::uint64_t block_start = r.bit_position();
      BoneChunkCodes& k = bones[b];
      k.cflags = static_cast<std::uint8_t>(r.read(6));
      if (k.has_signs()) k.signs = static_cast<std::uint8_t>(r.read(keys));
      for (unsigned j = 0; j < 3; ++j) {
        k.headers[j] = static_cast<std::uint16_t>(r.read(16));
        if (!k.is_constant(j)) r.read_many(nbits, keys, k.raw[j].data());
      }
      if (!r.ok()) [[unlikely]] {
        return r
            .status(chunk_field(c) + ".bone[" + std::to_string(b) + "]." +
                    block_field(k.cflags, r.overrun_bit() - block_start, keys, nbits))
            .error();
      }
    }
    // Decision D6: the table is authoritative, and each chunk must end exactly at its entry.
    MAB_TRY(r.finish_exact(chunk_field(c) + ".end"));
  }
  const std::uint32_t data_end = out.chunk_table[nchunks];
  out.tail.assign(section.begin() + data_end, section.end());
  return out;
}

Result<std::vector<std::uint32_t>> compute_chunk_table(
    const std::vector<std::vector<BoneChunkCodes>>& chunks, std::uint32_t key_count,
    std::span<const std::uint8_t> bit_depths) {
  MAB_TRY(check_shape(chunks, key_count, bit_depths));
  bool fits = true;
  std::vector<std::uint32_t> table = table_for(chunks, key_count, bit_depths, fits);
  if (!fits)
    return make_error(ErrorCode::limit_exceeded, no_offset, "JointRotations.chunk_table",
                      "chunk data does not fit 32-bit offsets");
  return table;
}

Result<std::vector<std::uint8_t>> encode_rotation_stream(const RotationStream& stream,
                                                         std::uint32_t key_count,
                                                         std::span<const std::uint8_t> bit_depths) {
  MAB_ASSIGN(const std::vector<std::uint32_t> table,
             compute_chunk_table(stream.chunks, key_count, bit_depths));
  BitWriter w;
  w.reserve_bytes(std::size_t{table.back()} + stream.tail.size() + 8);
  for (std::uint32_t entry : table) w.write(entry, 32);
  for (std::size_t c = 0; c < stream.chunks.size(); ++c) {
    const unsigned keys = chunk_key_count(key_count, c);
    for (std::size_t b = 0; b < bit_depths.size(); ++b) {
      const BoneChunkCodes& k = stream.chunks[c][b];
      const unsigned nbits = bit_depths[b];
      w.write(k.cflags, 6);
      if (k.has_signs()) w.write(k.signs, keys);
      for (unsigned j = 0; j < 3; ++j) {
        w.write(k.headers[j], 16);
        if (!k.is_constant(j))
          for (unsigned f = 0; f < keys; ++f) w.write(k.raw[j][f], nbits);
      }
    }
    w.align_to_byte();
  }
  w.append_bytes(stream.tail);
  return w.finish();
}

Status decode_rotations_into(const RotationStream& stream, std::uint32_t key_count,
                             std::span<const std::uint8_t> bit_depths, std::span<const std::span<Quat>> tracks) {
  MAB_TRY(check_depths(bit_depths));
  if (stream.chunks.size() != chunk_count(key_count))
    return make_error(ErrorCode::invalid_argument, no_offset, "JointRotations.chunks",
                      std::to_string(stream.chunks.size()) + " chunks, " +
                          std::to_string(key_count) + " keys need " +
                          std::to_string(chunk_count(key_count)));
  for (std::size_t c = 0; c < stream.chunks.size(); ++c)
    if (stream.chunks[c].size() != bit_depths.size())
      return make_error(ErrorCode::invalid_argument, no_offset, chunk_field(c),
                        std::to_string(stream.chunks[c].size()) + " bone blocks for " +
                            std::to_string(bit_depths.size()) + " animated bones");
  if (tracks.size() != bit_depths.size())
    return make_error(ErrorCode::invalid_argument, no_offset, "tracks",
                      std::to_string(tracks.size()) + " tracks for " + std::to_string(bit_depths.size()) +
                          " animated bones");
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
