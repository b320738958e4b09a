// JointTranslations chunk codec (format 10.1; decisions 1, 6, 8).
#include <mab/bits.hpp>

#include <mab/text.hpp>
#include <mab/translation_codec.hpp>

#include "translation_chunk.hpp"

#include "chunk_stream.hpp"
#include "component_quantiser.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <string>

namespace mab {

namespace {

// The translation block (format 10.1): 3 bits of cflags, no sign bits.
struct TranslationBlocks {
  using Codes = TranslationChunkCodes;
  static constexpr std::string_view section = "JointTranslations";
  static constexpr std::string_view tracks_what = "translated bones";
  static constexpr unsigned cflags_bits = 3;
  static bool has_signs(const Codes&) noexcept { return false; }
};

// Format 10.1 reuses the rotation interpolants, whose scale table covers n = 0..16; n = 0 would
// store no bits per key and does not occur in rotations (format 5.3: n = (flag & 0x0F) + 1).
Status check_entries(std::span<const TranslationEntry> entries) {
  for (std::size_t b = 0; b < entries.size(); ++b) {
    const unsigned n = entries[b].bit_depth();
    if (n < 1 || n > 16)
      return make_error(
          ErrorCode::bad_value, no_offset, "TranslationTable[" + std::to_string(b) + "]",
          "interpolant bits " + std::to_string(n) + " outside 1..16 (entry " + hex(entries[b].raw, 8) + ")");
  }
  return {};
}

// Each translated bone's n, as the shared chunk loop takes them.
std::vector<std::uint8_t> depths_of(std::span<const TranslationEntry> entries) {
  std::vector<std::uint8_t> depths(entries.size());
  for (std::size_t b = 0; b < entries.size(); ++b) depths[b] = static_cast<std::uint8_t>(entries[b].bit_depth());
  return depths;
}

Status check_shape(const TranslationStream& s, std::uint32_t key_count, std::span<const TranslationEntry> entries) {
  MAB_TRY(check_entries(entries));
  return detail::check_chunk_codes<TranslationBlocks>(s.chunks, key_count, depths_of(entries));
}

}  // namespace

std::uint64_t translation_block_bits(std::uint8_t cflags, unsigned chunk_keys, unsigned nbits) noexcept {
  return detail::block_bits(TranslationBlocks::cflags_bits, 0, cflags, chunk_keys, nbits);
}

float translation_component(const TranslationChunkCodes& codes, unsigned component, unsigned key,
                            unsigned nbits) noexcept {
  const std::uint16_t h = codes.headers[component % 3];
  if (codes.is_constant(component % 3)) return rotation_constant_value(h);
  return rotation_varying_value(rotation_base(h), rotation_slope(h, nbits), codes.raw[component % 3][key & 7u]);
}

Vec3 decode_translation_key(const TranslationChunkCodes& codes, unsigned key, TranslationEntry entry) noexcept {
  const float scale = entry.scale();
  const unsigned n = entry.bit_depth();
  return {translation_component(codes, 0, key, n) * scale, translation_component(codes, 1, key, n) * scale,
          translation_component(codes, 2, key, n) * scale};
}

Result<TranslationStream> decode_translation_stream(std::span<const std::uint8_t> section, std::uint32_t key_count,
                                                    std::span<const TranslationEntry> entries,
                                                    std::uint64_t section_file_offset, const Limits& limits) {
  const std::uint64_t base = section_file_offset;
  MAB_TRY(
      detail::check_stream_counts("JointTranslations", key_count, entries.size(), "translated bones", base, limits));
  MAB_TRY(check_entries(entries));
  const std::size_t nchunks = chunk_count(key_count);
  TranslationStream out;
  // Format 10.1: "the same chunk table and 8-keys-per-chunk layout as rotations" (format 9.2).
  MAB_ASSIGN(out.chunk_table, detail::read_chunk_table(section, nchunks, key_count, base, "JointTranslations"));
  MAB_ASSIGN(out.chunks,
             detail::read_chunks<TranslationBlocks>(section, out.chunk_table, key_count, depths_of(entries), base));
  out.tail.assign(section.begin() + out.chunk_table[nchunks], section.end());
  return out;
}

Result<std::vector<std::uint8_t>> encode_translation_stream(const TranslationStream& stream, std::uint32_t key_count,
                                                            std::span<const TranslationEntry> entries) {
  MAB_TRY(check_entries(entries));
  const auto depths = depths_of(entries);
  MAB_TRY(detail::check_chunk_codes<TranslationBlocks>(stream.chunks, key_count, depths));
  MAB_ASSIGN(const auto table, detail::chunk_table_of<TranslationBlocks>(stream.chunks, key_count, depths));
  return detail::write_chunks<TranslationBlocks>(table, stream.chunks, key_count, depths, stream.tail);
}

Result<std::vector<std::vector<Vec3>>> decode_translations(const TranslationStream& stream, std::uint32_t key_count,
                                                           std::span<const TranslationEntry> entries) {
  MAB_TRY(check_shape(stream, key_count, entries));
  std::vector<std::vector<Vec3>> out(entries.size(), std::vector<Vec3>(key_count));
  for (std::size_t c = 0; c < stream.chunks.size(); ++c) {
    const unsigned keys = chunk_key_count(key_count, c);
    for (std::size_t b = 0; b < entries.size(); ++b)
      for (unsigned f = 0; f < keys; ++f)
        out[b][c * keys_per_chunk + f] = decode_translation_key(stream.chunks[c][b], f, entries[b]);
  }
  return out;
}

bool translation_chunk_fits(std::span<const Vec3> keys, TranslationEntry entry) noexcept {
  if (keys.empty()) return true;
  const double scale = entry.scale();
  // Slack for the division and the float decode: 1e-6 of a component, and the re-quantiser's
  // 1e-4 of a base step when picking the base (component_quantiser.cpp, step_tolerance), so a
  // decoded value sitting on a base maps back to it.
  constexpr double tol = 1e-6;
  constexpr double step_tol = 1e-4;
  for (unsigned j = 0; j < 3; ++j) {
    double lo = 1e300, hi = -1e300;
    for (const Vec3& k : keys) {
      if (!std::isfinite(k[j])) return false;
      lo = std::min(lo, double{k[j]});
      hi = std::max(hi, double{k[j]});
    }
    if (!(scale > 0)) {
      if (lo != 0 || hi != 0) return false;
      continue;
    }
    lo /= scale;
    hi /= scale;
    if (lo < -1 - tol) return false;
    // The largest base k/127 - 1 (k <= 255) at or below lo, then a range of at most 255/127.5.
    const double k = std::min(255.0, std::floor((lo + 1) * 127 + step_tol));
    if (hi > k / 127 - 1 + 255 / 127.5 + tol) return false;
  }
  return true;
}

Result<TranslationEntry> translation_entry_for(std::span<const Vec3> keys, unsigned nbits) {
  if (nbits < 1 || nbits > 16)
    return make_error(ErrorCode::invalid_argument, no_offset, "nbits",
                      "interpolant bits " + std::to_string(nbits) + " outside 1..16");
  double largest = 0;
  for (std::size_t k = 0; k < keys.size(); ++k)
    for (unsigned j = 0; j < 3; ++j) {
      if (!std::isfinite(keys[k][j]))
        return make_error(ErrorCode::bad_value, no_offset, "translations[" + std::to_string(k) + "]",
                          "not a finite value");
      largest = std::max(largest, std::fabs(double{keys[k][j]}));
    }
  // The smallest code whose float scale reaches the largest magnitude (components stay in
  // [-1, 1]); a zero scale would store nothing, so at least one step.
  const double steps = largest / double{translation_scale_step};
  if (steps > double{translation_max_scale_code})
    return make_error(ErrorCode::bad_value, no_offset, "translations",
                      "a component of " + std::to_string(largest) + " units is beyond the largest scale (" +
                          std::to_string(double{TranslationEntry::make(16, translation_max_scale_code).scale()}) +
                          " units, format 10.1)");
  auto code = static_cast<std::uint32_t>(std::max(1.0, std::ceil(steps)));
  while (code < translation_max_scale_code && double{TranslationEntry::make(nbits, code).scale()} < largest) ++code;
  while (code > 1 && double{TranslationEntry::make(nbits, code - 1).scale()} >= largest) --code;
  const TranslationEntry e = TranslationEntry::make(nbits, code);
  if (double{e.scale()} < largest)
    return make_error(ErrorCode::bad_value, no_offset, "translations",
                      "a component of " + std::to_string(largest) + " units is beyond the largest scale (format 10.1)");
  return e;
}

namespace {

// Both re-quantisers: `component` picks each component's codes from value / scale.
template <class Pick>
Result<QuantisedTranslationChunk> quantise_chunk(std::span<const Vec3> keys, TranslationEntry entry, Pick component) {
  const unsigned n = entry.bit_depth();
  if (keys.empty() || keys.size() > keys_per_chunk)
    return make_error(ErrorCode::invalid_argument, no_offset, "keys",
                      std::to_string(keys.size()) + " keys in a chunk (1..8)");
  if (n < 1 || n > 16)
    return make_error(ErrorCode::invalid_argument, no_offset, "TranslationTable",
                      "interpolant bits " + std::to_string(n) + " outside 1..16");
  if (!translation_chunk_fits(keys, entry))
    return make_error(ErrorCode::bad_value, no_offset, "translations",
                      "values beyond what the TranslationTable entry's scale " + std::to_string(entry.scale()) +
                          " reaches (or not finite)");
  const double scale = entry.scale();
  const auto f_keys = static_cast<unsigned>(keys.size());
  QuantisedTranslationChunk out;
  for (unsigned j = 0; j < 3; ++j) {
    double v[detail::component_lanes];
    for (unsigned f = 0; f < detail::component_lanes; ++f) {
      const double t = keys[std::min(f, f_keys - 1)][j];
      if (!std::isfinite(t))
        return make_error(ErrorCode::bad_value, no_offset, "translations[" + std::to_string(f) + "]",
                          "not a finite value");
      // A zero scale holds only zeros (translation_chunk_fits); the component is then 0.
      v[f] = scale > 0 ? t / scale : 0.0;
    }
    const detail::Component c = component(v, f_keys, n);
    if (c.constant) out.codes.cflags = static_cast<std::uint8_t>(out.codes.cflags | (1u << j));
    out.codes.headers[j] = c.header;
    if (!c.constant)
      for (unsigned f = 0; f < f_keys; ++f) out.codes.raw[j][f] = c.raw[f];
  }
  // Error on the floats the decoder gives, in units.
  for (unsigned f = 0; f < f_keys; ++f) {
    const Vec3 d = decode_translation_key(out.codes, f, entry);
    for (unsigned j = 0; j < 3; ++j)
      out.max_error = std::max(out.max_error, std::fabs(double{d[j]} - double{keys[f][j]}));
  }
  return out;
}

}  // namespace

Result<QuantisedTranslationChunk> quantise_translation_chunk(std::span<const Vec3> keys, TranslationEntry entry) {
  return quantise_chunk(keys, entry,
                        [](const double* v, unsigned f, unsigned n) { return detail::quantise_component(v, f, n); });
}

Result<QuantisedTranslationChunk> detail::quantise_translation_chunk_within(std::span<const Vec3> keys,
                                                                            TranslationEntry entry,
                                                                            double constant_tolerance) {
  const double scale = entry.scale();
  const double slack = scale > 0 ? constant_tolerance / scale : 0.0;
  return quantise_chunk(keys, entry, [slack](const double* v, unsigned f, unsigned n) {
    return detail::quantise_scaled_component(v, f, n, slack);
  });
}

}  // namespace mab
