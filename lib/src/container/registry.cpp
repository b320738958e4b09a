// Variant registry keyed by magic (format 2).
#include <mab/variant.hpp>

#include <mab/text.hpp>

#include "io/bytes.hpp"

#include <array>
#include <cstdio>

namespace mab {
namespace {

using enum Game;
using enum LayoutKind;
constexpr Confidence public_decoders = Confidence::public_decoders;
constexpr Confidence layout_unverified = Confidence::layout_unverified;

// u32 magics first: their first bytes (0x9B, 0xAF, 0xB4) are not single-byte magics.
constexpr std::array<VariantInfo, 9> k_variants{{
    {watch_dogs, ani, public_decoders, 0x329B, 4, "wd1", "Watch Dogs",
     "format 4.2: decoder validated on 12,535 clips (QJ-WD1)"},
    {watch_dogs_2, ani, public_decoders, 0x46AF, 4, "wd2", "Watch Dogs 2",
     "format 4.1, decision 4: WDL layout; 'same layout as WDL' is a comment only"},
    {watch_dogs_legion, ani, public_decoders, 0x46B4, 4, "wdl", "Watch Dogs: Legion",
     "format 4.1, decision 4: engine struct (MP-FBAT), bit-exact decoder (OSM-DEC)"},
    {far_cry_2, legacy, public_decoders, 0x4C, 1, "fc2", "Far Cry 2",
     "format 13: JB-DOC/JB-PY, 4,436 retail files; container only"},
    {far_cry_3, legacy, layout_unverified, 0x61, 1, "fc3", "Far Cry 3",
     "format 13: FC2 layout with 9-word bone masks (guess from BUU offsets 0xC4/0xC8)"},
    {far_cry_3_blood_dragon, legacy, layout_unverified, 0x62, 1, "fc3bd", "Far Cry 3: Blood Dragon",
     "format 2, 13, decision 10: listed only; read with the guessed FC3 layout, kept opaque where it does not fit"},
    {far_cry_4, fc4, layout_unverified, 0x81, 1, "fc4", "Far Cry 4",
     "format 4.4, 16 (C8): QJ-FC4, verified on 4 files"},
    {far_cry_primal, opaque, Confidence::opaque, 0x82, 1, "primal", "Far Cry Primal",
     "format 2, decision 10: listed, no public layout"},
    {far_cry_5, ani, public_decoders, 0xB0, 1, "fc5", "Far Cry 5 / New Dawn",
     "format 4.3: QJ-FC5 engine RE; bone table start (format 16 (C3)) unconfirmed"},
}};

}  // namespace

std::span<const VariantInfo> all_variants() noexcept { return k_variants; }

const VariantInfo* find_variant(std::string_view short_name) noexcept {
  for (const auto& v : k_variants)
    if (v.short_name == short_name) return &v;
  return nullptr;
}

const VariantInfo& variant_info(Game game) noexcept {
  for (const auto& v : k_variants)
    if (v.game == game) return v;
  return k_variants[0];  // unreachable: every Game has a row
}

Result<const VariantInfo*> detect_variant(std::span<const std::uint8_t> file) {
  if (file.empty()) return make_error(ErrorCode::truncated, 0, "magic", "empty file");
  if (file.size() >= 4) {
    io::ByteReader r(file);
    const std::uint32_t word = r.u32("magic").value();
    for (const auto& v : k_variants)
      if (v.magic_bytes == 4 && v.magic == word) return &v;
  }
  for (const auto& v : k_variants)
    if (v.magic_bytes == 1 && v.magic == file[0]) return &v;
  const std::string buf =
      file.size() >= 4 ? "unknown magic: u32 " + hex(io::load_u32(file, 0), 8) + ", first byte " + hex(file[0], 2)
                       : "unknown magic: first byte " + hex(file[0], 2);
  return make_error(ErrorCode::unsupported_version, 0, "magic", buf);
}

std::string_view to_string(Game g) noexcept { return variant_info(g).game_name; }

std::string_view to_string(LayoutKind k) noexcept {
  switch (k) {
    case LayoutKind::ani: return "aNi";
    case LayoutKind::fc4: return "aNi-fc4";
    case LayoutKind::legacy: return "AnD";
    case LayoutKind::opaque: return "opaque";
  }
  return "?";
}

std::string_view to_string(Confidence c) noexcept {
  switch (c) {
    case Confidence::public_decoders: return "public decoders (not verified on real files here)";
    case Confidence::layout_unverified: return "layout unverified";
    case Confidence::opaque: return "opaque (container only)";
  }
  return "?";
}

}  // namespace mab
