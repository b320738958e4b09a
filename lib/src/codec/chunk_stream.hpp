// Internal: the chunk loop JointRotations (format 9.2) and JointTranslations (format 10.1) share.
// Both streams are a chunk table, then per chunk of up to 8 keys one block per bone, each
// chunk zero-padded to a byte and ending exactly at its table entry (decision 6). A block is
// cflags, then (rotations only, when cflags bit 3 says so) one sign bit per key, then per
// component a 16-bit header and, unless the component is constant, one n-bit value per key.
// What differs between the two is described by a Format:
//
//   struct Format {
//     using Codes = ...;                           // BoneChunkCodes or TranslationChunkCodes
//     static constexpr std::string_view section;   // "JointRotations": error field prefix
//     static constexpr std::string_view tracks_what;  // "animated bones"
//     static constexpr unsigned cflags_bits;       // 6 or 3
//     static bool has_signs(const Codes&);        // sign bits follow cflags
//   };
#pragma once

#include <mab/bits.hpp>
#include <mab/rotation_codec.hpp>

#include "chunk_table.hpp"

#include <cstdint>
#include <limits>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace mab::detail {

inline std::string chunk_field(std::string_view section, std::size_t chunk) {
  return std::string(section) + ".chunk[" + std::to_string(chunk) + "]";
}

// Bits of one bone block; sign_bits is the chunk's key count when signs are present, else 0.
std::uint64_t block_bits(unsigned cflags_bits, unsigned sign_bits, std::uint8_t cflags, unsigned keys,
                         unsigned nbits) noexcept;

// Names the block field holding bit `off` of a bone block, for overrun reports. `cflags` is
// what was read (0 if the overrun hit the flags themselves, which then name the field).
std::string block_field(unsigned cflags_bits, unsigned sign_bits, std::uint8_t cflags, std::uint64_t off, unsigned keys,
                        unsigned nbits);

template <class Format>
unsigned sign_bits(const typename Format::Codes& k, unsigned keys) noexcept {
  return Format::has_signs(k) ? keys : 0u;
}

template <class Format>
Status check_chunk_total(std::size_t chunks, std::uint32_t key_count) {
  if (chunks == chunk_count(key_count)) return {};
  return make_error(ErrorCode::invalid_argument, no_offset, std::string(Format::section) + ".chunks",
                    std::to_string(chunks) + " chunks, " + std::to_string(key_count) + " keys need " +
                        std::to_string(chunk_count(key_count)));
}

template <class Format>
Status check_bone_blocks(const std::vector<typename Format::Codes>& chunk, std::size_t c, std::size_t bones) {
  if (chunk.size() == bones) return {};
  return make_error(ErrorCode::invalid_argument, no_offset, chunk_field(Format::section, c),
                    std::to_string(chunk.size()) + " bone blocks for " + std::to_string(bones) + " " +
                        std::string(Format::tracks_what));
}

// The chunk and bone-block counts must describe exactly this clip shape.
template <class Format>
Status check_chunk_counts(const std::vector<std::vector<typename Format::Codes>>& chunks, std::uint32_t key_count,
                          std::size_t bones) {
  MAB_TRY(check_chunk_total<Format>(chunks.size(), key_count));
  for (std::size_t c = 0; c < chunks.size(); ++c) MAB_TRY(check_bone_blocks<Format>(chunks[c], c, bones));
  return {};
}

// The counts, and every stored value must fit its field, otherwise writing would silently
// drop bits and the stream would not decode to these codes. `depths` are the bones' n
// (checked 1..16 by the caller).
template <class Format>
Status check_chunk_codes(const std::vector<std::vector<typename Format::Codes>>& chunks, std::uint32_t key_count,
                         std::span<const std::uint8_t> depths) {
  MAB_TRY(check_chunk_total<Format>(chunks.size(), key_count));
  constexpr unsigned max_cflags = (1u << Format::cflags_bits) - 1u;
  for (std::size_t c = 0; c < chunks.size(); ++c) {
    MAB_TRY(check_bone_blocks<Format>(chunks[c], c, depths.size()));
    const unsigned keys = chunk_key_count(key_count, c);
    for (std::size_t b = 0; b < depths.size(); ++b) {
      const auto& k = chunks[c][b];
      const auto where = [&] { return chunk_field(Format::section, c) + ".bone[" + std::to_string(b) + "]"; };
      if (k.cflags > max_cflags)
        return make_error(
            ErrorCode::invalid_argument, no_offset, where() + ".cflags",
            "cflags " + std::to_string(k.cflags) + " does not fit " + std::to_string(Format::cflags_bits) + " bits");
      if constexpr (requires { k.signs; }) {
        if (Format::has_signs(k) && (k.signs >> keys) != 0)
          return make_error(ErrorCode::invalid_argument, no_offset, where() + ".signs",
                            "sign bits beyond the chunk's " + std::to_string(keys) + " keys");
      }
      const unsigned max_raw = (1u << depths[b]) - 1u;
      for (unsigned j = 0; j < 3; ++j) {
        if (k.is_constant(j)) continue;
        for (unsigned f = 0; f < keys; ++f)
          if (k.raw[j][f] > max_raw)
            return make_error(
                ErrorCode::invalid_argument, no_offset,
                where() + ".raw[" + std::to_string(j) + "][" + std::to_string(f) + "]",
                "value " + std::to_string(k.raw[j][f]) + " does not fit " + std::to_string(depths[b]) + " bits");
      }
    }
  }
  return {};
}

// The chunk table the codes make: numChunks + 1 byte offsets, the first the table size.
// Precondition: check_chunk_codes.
template <class Format>
Result<std::vector<std::uint32_t>> chunk_table_of(const std::vector<std::vector<typename Format::Codes>>& chunks,
                                                  std::uint32_t key_count, std::span<const std::uint8_t> depths) {
  std::vector<std::uint32_t> table(chunks.size() + 1);
  std::uint64_t pos = 4 * (std::uint64_t{chunks.size()} + 1);
  table[0] = static_cast<std::uint32_t>(pos);
  for (std::size_t c = 0; c < chunks.size(); ++c) {
    const unsigned keys = chunk_key_count(key_count, c);
    std::uint64_t bits = 0;
    for (std::size_t b = 0; b < depths.size(); ++b) {
      const auto& k = chunks[c][b];
      bits += block_bits(Format::cflags_bits, sign_bits<Format>(k, keys), k.cflags, keys, depths[b]);
    }
    pos += (bits + 7) / 8;  // decision 6: zero-padded to a byte
    if (pos > std::numeric_limits<std::uint32_t>::max())
      return make_error(ErrorCode::limit_exceeded, no_offset, std::string(Format::section) + ".chunk_table",
                        "chunk data does not fit 32-bit offsets");
    table[c + 1] = static_cast<std::uint32_t>(pos);
  }
  return table;
}

// One bone block; the reader's failure is the caller's to report.
template <class Format>
void read_block(BitReader& r, unsigned keys, unsigned nbits, typename Format::Codes& k) noexcept {
  k.cflags = static_cast<std::uint8_t>(r.read(Format::cflags_bits));
  if constexpr (requires { k.signs; }) {
    if (Format::has_signs(k)) k.signs = static_cast<std::uint8_t>(r.read(keys));
  }
  for (unsigned j = 0; j < 3; ++j) {
    k.headers[j] = static_cast<std::uint16_t>(r.read(16));
    if (!k.is_constant(j)) r.read_many(nbits, keys, k.raw[j].data());
  }
}

template <class Format>
void write_block(BitWriter& w, unsigned keys, unsigned nbits, const typename Format::Codes& k) {
  w.write(k.cflags, Format::cflags_bits);
  if constexpr (requires { k.signs; }) {
    if (Format::has_signs(k)) w.write(k.signs, keys);
  }
  for (unsigned j = 0; j < 3; ++j) {
    w.write(k.headers[j], 16);
    if (!k.is_constant(j))
      for (unsigned f = 0; f < keys; ++f) w.write(k.raw[j][f], nbits);
  }
}

// The chunks after a chunk table read by read_chunk_table: each chunk read from exactly its
// bytes, an overrun named down to the block field, and each chunk ending exactly at its
// entry (decision 6). Chunks are read one at a time so the allocation never runs ahead of
// the data seen.
template <class Format>
Result<std::vector<std::vector<typename Format::Codes>>> read_chunks(std::span<const std::uint8_t> section,
                                                                     std::span<const std::uint32_t> table,
                                                                     std::uint32_t key_count,
                                                                     std::span<const std::uint8_t> depths,
                                                                     std::uint64_t base) {
  const std::size_t nchunks = table.size() - 1;
  std::vector<std::vector<typename Format::Codes>> chunks;
  chunks.reserve(nchunks);
  for (std::size_t c = 0; c < nchunks; ++c) {
    const unsigned keys = chunk_key_count(key_count, c);
    const std::uint32_t start = table[c];
    BitReader r(section.subspan(start, table[c + 1] - start), at(base, start));
    auto& bones = chunks.emplace_back(depths.size());
    for (std::size_t b = 0; b < depths.size(); ++b) {
      const unsigned nbits = depths[b];
      const std::uint64_t block_start = r.bit_position();
      auto& k = bones[b];
      read_block<Format>(r, keys, nbits, k);
      if (!r.ok()) [[unlikely]] {
        return r
            .status(chunk_field(Format::section, c) + ".bone[" + std::to_string(b) + "]." +
                    block_field(Format::cflags_bits, sign_bits<Format>(k, keys), k.cflags,
                                r.overrun_bit() - block_start, keys, nbits))
            .error();
      }
    }
    MAB_TRY(r.finish_exact(chunk_field(Format::section, c) + ".end"));
  }
  return chunks;
}

// The whole section: the table, the chunks (each padded to a byte), then the tail verbatim.
template <class Format>
std::vector<std::uint8_t> write_chunks(std::span<const std::uint32_t> table,
                                       const std::vector<std::vector<typename Format::Codes>>& chunks,
                                       std::uint32_t key_count, std::span<const std::uint8_t> depths,
                                       std::span<const std::uint8_t> tail) {
  BitWriter w;
  w.reserve_bytes(std::size_t{table.back()} + tail.size() + 8);
  for (const std::uint32_t entry : table) w.write(entry, 32);
  for (std::size_t c = 0; c < chunks.size(); ++c) {
    const unsigned keys = chunk_key_count(key_count, c);
    for (std::size_t b = 0; b < depths.size(); ++b) write_block<Format>(w, keys, depths[b], chunks[c][b]);
    w.align_to_byte();
  }
  w.append_bytes(tail);
  return w.finish();
}

}  // namespace mab::detail
