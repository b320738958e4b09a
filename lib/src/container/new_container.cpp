// A fresh 'aNi' file for a clip built from scratch (glTF import without a template,
// conversion between games). Its bytes are assembled field by field and then read back
// with read_container, so a new clip goes through exactly the reader real files do.
#include <mab/container.hpp>
#include <mab/text.hpp>

#include "layouts.hpp"

#include <cstring>

namespace mab {

namespace {

std::uint32_t bits_of(float f) noexcept {
  std::uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return u;
}

}  // namespace

Result<Container> new_container(Game game, std::vector<NewFieldDefault>* defaults) {
  const VariantInfo& v = variant_info(game);
  AniShape shape;
  switch (game) {
    case Game::watch_dogs: shape = AniShape::wd1; break;
    case Game::watch_dogs_2:
    case Game::watch_dogs_legion: shape = AniShape::wdl; break;
    case Game::far_cry_5: shape = AniShape::fc5; break;
    default:
      return make_error(ErrorCode::invalid_argument, no_offset, "game",
                        std::string(v.short_name) +
                            ": a new clip can be built for wd1, wd2, wdl and fc5 only (the layouts "
                            "whose rotations are specified, format 4.1-4.3)");
  }
  std::vector<NewFieldDefault> d;
  // Format 2: WD games store a u32 magic; Far Cry only its first byte, the rest is unknown.
  d.push_back({"magic_word", hex_lower(v.magic), "the variant's magic (format 2)"});
  d.push_back(
      {"checksum", "0x00000000", "algorithm unknown (format 14); recompute with `mab crc-apply` once it is known"});
  d.push_back({"reserved (+0x08..+0x0F)", "zeros", "meaning unknown (format 3)"});
  d.push_back({"m_skeletonBoneCRC", "0",
               "derivation unknown (format 14); build from a {opt:template} of the "
               "same skeleton to keep the game's value"});
  if (shape != AniShape::wd1) d.push_back({"m_skeletonPathId", "0", "as m_skeletonBoneCRC"});
  d.push_back({"'aNi' flags", "0x03", "the most common value seen on Far Cry 5 (format 4.5); meaning unknown"});
  if (shape != AniShape::wd1) d.push_back({"m_animFrameRate", "30", "the value DET asserts (format 4.1)"});
  d.push_back({"m_dataCounts other than [2] and [4]", "0", "no translations or root motion (format 6)"});

  AniHeader h;
  h.shape = shape;
  h.flags = 0x03;
  h.duration_bits = bits_of(0.0f);
  h.frame_rate_bits = shape == AniShape::wd1 ? 0 : bits_of(30.0f);
  h.data_counts.assign(shape == AniShape::wd1 ? 7 : 10, 0);
  h.offsets.assign(shape == AniShape::wd1 ? 11 : 12, 0);
  const std::uint64_t header_size = container::ani_header_size(shape);
  // One key at time 0, so the clip has a KeyTimes section that later edits rewrite (format 9.4;
  // WD1/WDL slot 0, FC5 the bytes after the bone tables, format 8.2).
  if (shape != AniShape::fc5) h.offsets[0] = static_cast<std::uint32_t>(header_size);
  h.last_frame = 0;
  const std::uint64_t file_size = 0x10 + header_size + 2;
  h.animation_data_size = static_cast<std::uint32_t>(file_size - 16);  // format 3

  std::vector<std::uint8_t> bytes;
  io::ByteWriter w(bytes);
  w.u32(v.magic);
  w.u32(0);
  w.zeros(8);
  container::write_ani_header(w, h);
  w.u16(0);  // KeyTimes[0]
  if (bytes.size() != file_size)
    return make_error(ErrorCode::size_mismatch, no_offset, "new_container", "header size mismatch");
  if (defaults) *defaults = std::move(d);
  return read_container(bytes);
}

}  // namespace mab
