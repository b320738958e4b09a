// JointTranslations (format 10.1): the translation compression table (one u32 per translated
// bone: interpolant bits and a 24-bit scale) and the chunked stream of 3-component
// translations, with the re-quantiser for edited translations.
//
// The public decoder reads one bone (format 10.1 [code]); how several bones share the table and
// the stream is a hypothesis the caller chooses (decode_clip.hpp). This codec only reads and
// writes one stream for a given list of table entries, refusing anything it would not write.
#pragma once

#include <mab/limits.hpp>
#include <mab/result.hpp>
#include <mab/rotation_codec.hpp>

#include <array>
#include <cstdint>
#include <span>
#include <vector>

namespace mab {

// Format 10.1: scale = (entry >> 8) * 0.00029802325, i.e. 10000 / 2^25 units per step.
inline constexpr float translation_scale_step = 0.00029802325f;
inline constexpr std::uint32_t translation_max_scale_code = 0xFFFFFF;

// One TranslationTable entry, as stored.
struct TranslationEntry {
  std::uint32_t raw = 0;

  unsigned bit_depth() const noexcept { return raw & 0xFFu; }  // interpolant bits n
  std::uint32_t scale_code() const noexcept { return raw >> 8; }
  float scale() const noexcept { return static_cast<float>(scale_code()) * translation_scale_step; }
  static TranslationEntry make(unsigned nbits, std::uint32_t scale_code) noexcept {
    return {(scale_code << 8) | (nbits & 0xFFu)};
  }
  friend bool operator==(const TranslationEntry&, const TranslationEntry&) = default;
};

// One bone's block in one chunk (format 10.1): 3 constant flags (x, y, z), then per component
// a constant 16-bit value or a 16-bit base/range header and one n-bit value per key. No sign
// bits and no omitted component, unlike rotations. Fields a block does not store are zero.
struct TranslationChunkCodes {
  std::uint8_t cflags = 0;  // bit j: component j is constant over the chunk
  std::array<std::uint16_t, 3> headers{};
  std::array<std::array<std::uint16_t, 8>, 3> raw{};  // [component][key], n bits each

  bool is_constant(unsigned component) const noexcept { return (unsigned{cflags} >> component) & 1u; }
  friend bool operator==(const TranslationChunkCodes&, const TranslationChunkCodes&) = default;
};

struct TranslationStream {
  std::vector<std::uint32_t> chunk_table;                  // as read: numChunks + 1 entries
  std::vector<std::vector<TranslationChunkCodes>> chunks;  // [chunk][translated bone]
  std::vector<std::uint8_t> tail;                          // bytes after the last chunk end
  friend bool operator==(const TranslationStream&, const TranslationStream&) = default;
};

// Bits of one bone block for a chunk of `chunk_keys` keys: 3 + per component 16, plus n*F
// when it varies.
std::uint64_t translation_block_bits(std::uint8_t cflags, unsigned chunk_keys, unsigned nbits) noexcept;

// Component j of key `key` (0..7) before scaling: the rotation formulas of format 9.2 (constant
// v / 32767.5 - 1, varying base + raw * slope), so in [-1, 3].
float translation_component(const TranslationChunkCodes& codes, unsigned component, unsigned key,
                            unsigned nbits) noexcept;
// The translation of key `key`: each component times the entry's scale (a float product).
Vec3 decode_translation_key(const TranslationChunkCodes& codes, unsigned key, TranslationEntry entry) noexcept;

// `section` is the whole JointTranslations extent. Checks the chunk table (size
// 4*(ceil(K/8)+1), ascending, inside the section), every entry's n (1..16), and that each
// chunk ends exactly at its table end with zero pad bits (decision 6, as for rotations).
Result<TranslationStream> decode_translation_stream(std::span<const std::uint8_t> section, std::uint32_t key_count,
                                                    std::span<const TranslationEntry> entries,
                                                    std::uint64_t section_file_offset,
                                                    const Limits& limits = default_limits);

// A fresh table, the chunks, then `tail`. invalid_argument when the codes do not fit the shape
// (chunk or bone count, a raw value wider than n bits, cflags above 7, n outside 1..16).
Result<std::vector<std::uint8_t>> encode_translation_stream(const TranslationStream& stream, std::uint32_t key_count,
                                                            std::span<const TranslationEntry> entries);

// Every key of every translated bone: [bone][key].
Result<std::vector<std::vector<Vec3>>> decode_translations(const TranslationStream& stream, std::uint32_t key_count,
                                                           std::span<const TranslationEntry> entries);

// --- Re-quantiser ---

// Whether this entry's scale can hold `keys` (1..8 keys of one chunk): per component, the
// values over the scale must lie where a varying component reaches (format 9.2 formulas: at or
// above -1, and at most 255/127.5 above the largest base at or below their minimum), so values
// up to about 3 x scale fit when they span little. Non-finite values never fit.
bool translation_chunk_fits(std::span<const Vec3> keys, TranslationEntry entry) noexcept;

// An entry with `nbits` whose scale is the smallest that holds every component of `keys`.
// bad_value for a non-finite value or one beyond the largest scale (2^24 - 1 steps, about
// 5000 units, format 10.1); invalid_argument for n outside 1..16.
Result<TranslationEntry> translation_entry_for(std::span<const Vec3> keys, unsigned nbits);

struct QuantisedTranslationChunk {
  TranslationChunkCodes codes;
  double max_error = 0;  // largest |decoded - input| over the keys and components, in units
};

// Codes for 1..8 keys of one bone with this entry: per component the constant or varying
// codes of the rotation re-quantiser (format 9.2 "Encoder notes"), on value / scale.
// invalid_argument for an empty or > 8 key span or n outside 1..16; bad_value when the keys
// do not fit the entry (translation_chunk_fits).
Result<QuantisedTranslationChunk> quantise_translation_chunk(std::span<const Vec3> keys, TranslationEntry entry);

}  // namespace mab
