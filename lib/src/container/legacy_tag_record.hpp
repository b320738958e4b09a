// Internal: the 172-byte Far Cry 2/3 tag record (format 13.5, JB-DOC) declared once, in file
// order, for its reader (decode_legacy.cpp) and its in-place writer (encode_legacy.cpp), as
// header_fields.hpp declares the headers.
#pragma once

#include <mab/legacy.hpp>

#include "io/bytes.hpp"

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <span>
#include <type_traits>

namespace mab::container {

// The participant's clip offset: the one field the in-place writer leaves, since it follows the
// clip it reaches (encode_legacy.cpp).
inline constexpr std::size_t tag_clip_offset_at = 0x0C;
inline constexpr std::size_t tag_names_at = 0x18, tag_name_size = 36;
inline constexpr std::size_t tag_pointer_slot_at = 0xA8;
static_assert(tag_names_at + tag_name_size * 4 == tag_pointer_slot_at);
static_assert(tag_pointer_slot_at + 4 == legacy_tag_record_size);

// Calls v(offset in the record, member) for every field of `r` in file order: a const record is
// written, a non-const one read.
template <class R, class V>
void tag_record_fields(R& r, V&& v) {
  v(std::size_t{0x00}, r.kind);
  v(std::size_t{0x01}, r.byte_1);
  v(std::size_t{0x02}, r.id);
  v(std::size_t{0x04}, r.bytes_4);
  v(tag_clip_offset_at, r.clip_offset);
  v(std::size_t{0x10}, r.start);
  v(std::size_t{0x14}, r.end);
  for (std::size_t k = 0; k < r.names.size(); ++k) {
    v(tag_names_at + tag_name_size * k, r.names[k].hash);
    v(tag_names_at + tag_name_size * k + 4, r.names[k].bytes);
  }
  v(tag_pointer_slot_at, r.pointer_slot);
}

// One field at `at` of bytes the caller has bounds-checked: an 8, 16 or 32-bit integer, an f32,
// or a byte array, little-endian through io::load_* / io::store_*.
template <class T>
void load_field(std::span<const std::uint8_t> in, std::size_t at, T& out) noexcept {
  if constexpr (std::is_same_v<T, float>) out = io::load_f32(in, at);
  else if constexpr (std::is_integral_v<T> && sizeof(T) == 1) out = static_cast<T>(in[at]);
  else if constexpr (std::is_integral_v<T> && sizeof(T) == 2) out = static_cast<T>(io::load_u16(in, at));
  else if constexpr (std::is_integral_v<T> && sizeof(T) == 4) out = static_cast<T>(io::load_u32(in, at));
  else std::copy_n(in.begin() + static_cast<std::ptrdiff_t>(at), out.size(), out.begin());
}

template <class T>
void store_field(std::span<std::uint8_t> out, std::size_t at, const T& v) noexcept {
  if constexpr (std::is_same_v<T, float>) io::store_u32(out, at, std::bit_cast<std::uint32_t>(v));
  else if constexpr (std::is_integral_v<T> && sizeof(T) == 1) out[at] = static_cast<std::uint8_t>(v);
  else if constexpr (std::is_integral_v<T> && sizeof(T) == 2) io::store_u16(out, at, static_cast<std::uint16_t>(v));
  else if constexpr (std::is_integral_v<T> && sizeof(T) == 4) io::store_u32(out, at, static_cast<std::uint32_t>(v));
  else std::copy(v.begin(), v.end(), out.begin() + static_cast<std::ptrdiff_t>(at));
}

}  // namespace mab::container
