// Game versions and the magic values that identify them (format 2).
#pragma once

#include <mab/result.hpp>

#include <cstdint>
#include <span>
#include <string_view>

namespace mab {

// Pinned: stored in JSON reports.
enum class Game : std::uint8_t {
  far_cry_2 = 0,
  far_cry_3 = 1,
  far_cry_3_blood_dragon = 2,
  far_cry_4 = 3,
  far_cry_primal = 4,
  far_cry_5 = 5,  // and New Dawn
  watch_dogs = 6,
  watch_dogs_2 = 7,
  watch_dogs_legion = 8,
};
static_assert(sizeof(Game) == 1);

// How the body after the 16-byte header is laid out.
enum class LayoutKind : std::uint8_t {
  ani = 0,     // CAnimData with 'aNi' (format 4.1-4.3)
  fc4 = 1,     // Far Cry 4 'aNi' variant with u16 offsets (format 4.4)
  legacy = 2,  // 'AnD\x1a' clips (format 13)
  opaque = 3,  // detected, kept as bytes (decision 10)
};
static_assert(sizeof(LayoutKind) == 1);

// How far the layout is supported by evidence. No level means "checked on real
// files here": the project has none (format 15).
enum class Confidence : std::uint8_t {
  public_decoders = 0,    // public decoders report validation on real files
  layout_unverified = 1,  // small or indirect evidence; reports say "layout unverified"
  opaque = 2,             // no public layout: container only, body kept verbatim
};
static_assert(sizeof(Confidence) == 1);

struct VariantInfo {
  Game game;
  LayoutKind layout;
  Confidence confidence;
  std::uint32_t magic;
  std::uint8_t magic_bytes;  // 1: first byte; 4: u32 little-endian
  std::string_view short_name;
  std::string_view game_name;
  std::string_view evidence;  // one line, cites the format reference
};

std::span<const VariantInfo> all_variants() noexcept;
const VariantInfo* find_variant(std::string_view short_name) noexcept;
const VariantInfo& variant_info(Game game) noexcept;

// Identify a file by its magic. Unknown magic: unsupported_version naming the value.
Result<const VariantInfo*> detect_variant(std::span<const std::uint8_t> file);

std::string_view to_string(Game) noexcept;
std::string_view to_string(LayoutKind) noexcept;
std::string_view to_string(Confidence) noexcept;

}  // namespace mab
