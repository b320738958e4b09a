// Structural validation. Every finding names its field and absolute offset.
#include <mab/validate.hpp>

#include <mab/text.hpp>

#include "io/bytes.hpp"
#include "layouts.hpp"

#include <algorithm>
#include <cmath>
#include <set>

namespace mab {

std::string_view to_string(Severity s) noexcept {
  switch (s) {
    case Severity::info: return "info";
    case Severity::warning: return "warning";
    case Severity::error: return "error";
  }
  return "?";
}

AniSlots ani_slots(AniShape shape) noexcept {
  if (shape == AniShape::fc5) return {-1, 3, 5};  // format 8.2
  return {0, 4, 6};                               // format 8.1
}

bool has_errors(const std::vector<Finding>& findings) noexcept {
  return std::any_of(findings.begin(), findings.end(), [](const Finding& f) { return f.severity == Severity::error; });
}

namespace {

struct Checker {
  const Container& c;
  const Placement& pl;
  const Limits& limits;
  std::vector<Finding> out;
  int block = -1;

  void add(Severity s, ErrorCode code, std::uint64_t offset, std::string field, std::string msg) {
    out.push_back({s, code, offset, std::move(field), std::move(msg), block});
  }

  std::uint64_t section_start(const Block& b, std::size_t k, std::size_t slot) const {
    const int s = b.slot_segment[slot];
    return pl.blocks[k].base + pl.blocks[k].segments[static_cast<std::size_t>(s)].offset;
  }

  void check_offsets_order(const Block& b, std::size_t k, Severity s) {
    std::uint64_t prev = 0;
    for (std::size_t slot = 0; slot < b.slot_segment.size(); ++slot) {
      if (b.slot_segment[slot] < 0) continue;
      const std::uint64_t at = section_start(b, k, slot);
      if (at < prev) {
        add(s, ErrorCode::ok, at, b.slot_field_name(slot), "offsets are not ascending (kept as they are, format 8.3)");
        return;
      }
      prev = at;
    }
  }

  // A section that must hold `need` bytes but ends at the next section: overlap.
  void need_bytes(const Block& b, std::size_t k, int slot, std::uint64_t need, const char* what) {
    if (slot < 0 || b.slot_segment[static_cast<std::size_t>(slot)] < 0) return;
    const auto extent = b.section(static_cast<std::size_t>(slot)).size();
    if (need > extent)
      add(Severity::error, ErrorCode::overlap, section_start(b, k, static_cast<std::size_t>(slot)),
          b.slot_field_name(static_cast<std::size_t>(slot)),
          std::string(what) + " needs " + std::to_string(need) + " bytes but the section ends after " +
              std::to_string(extent) + " (runs into the next section)");
  }

  void check_chunk_table(const Block& b, std::size_t k, int slot, std::optional<std::uint64_t> keys) {
    if (slot < 0 || b.slot_segment[static_cast<std::size_t>(slot)] < 0) return;
    const auto sec = b.section(static_cast<std::size_t>(slot));
    const std::uint64_t start = section_start(b, k, static_cast<std::size_t>(slot));
    const std::string field = b.slot_field_name(static_cast<std::size_t>(slot));
    io::ByteReader r(sec, start);
    auto table = r.u32("chunkTable[0]");
    if (!table) {
      add(Severity::error, ErrorCode::overlap, start, field,
          "JointRotations needs a 4-byte chunk table but the section holds " + std::to_string(sec.size()) + " bytes");
      return;
    }
    const std::uint32_t t = *table;
    if (t < 8 || t % 4 != 0) {
      add(Severity::error, ErrorCode::bad_chunk_table, start, "chunkTable[0]",
          "table size " + std::to_string(t) + " is not 4 * (chunks + 1) with at least one chunk (format 9.2)");
      return;
    }
    const std::uint64_t chunks = t / 4 - 1;
    if (chunks > limits.max_chunks) {
      add(Severity::error, ErrorCode::limit_exceeded, start, "chunkTable[0]",
          std::to_string(chunks) + " chunks exceeds the limit of " + std::to_string(limits.max_chunks));
      return;
    }
    if (t > sec.size()) {
      add(Severity::error, ErrorCode::overlap, start, field,
          "chunk table of " + std::to_string(t) + " bytes runs past the section end (" + std::to_string(sec.size()) +
              " bytes)");
      return;
    }
    if (keys && chunks != (*keys + 7) / 8)
      add(Severity::error, ErrorCode::bad_chunk_table, start, "chunkTable[0]",
          std::to_string(chunks) + " chunks for " + std::to_string(*keys) +
              " keys; expected ceil(keys / 8) (format 9.2)");
    std::uint32_t prev = t;
    for (std::uint64_t i = 1; i <= chunks; ++i) {
      const std::uint64_t at = r.file_offset();
      const std::uint32_t e = r.u32("chunkTable").value();
      if (e < prev) {
        add(Severity::error, ErrorCode::bad_chunk_table, at, "chunkTable[" + std::to_string(i) + "]",
            "chunk end " + std::to_string(e) + " is below the previous " + std::to_string(prev));
        return;
      }
      prev = e;
    }
    if (prev > sec.size())
      add(Severity::error, ErrorCode::overlap, start, field,
          "JointRotations data ends at " + std::to_string(prev) + " but the section ends after " +
              std::to_string(sec.size()) + " bytes (runs into the next section)");
  }

  void check_ani(const Block& b, std::size_t k) {
    const AniHeader& h = *b.ani();
    const std::uint64_t base = pl.blocks[k].base;
    const std::uint64_t prefix = h.shape == AniShape::wd1 ? 4 : 16;
    const std::uint64_t size_at = base + prefix + 4;
    if (k == 0 && h.animation_data_size != pl.file_size - 16)
      add(Severity::error, ErrorCode::size_mismatch, size_at, "m_animationDataSize",
          std::to_string(h.animation_data_size) + " but file size - 16 is " + std::to_string(pl.file_size - 16) +
              " (format 3)");
    if (k > 0 && h.animation_data_size != pl.blocks[k].extent)
      add(Severity::warning, ErrorCode::size_mismatch, size_at, "m_animationDataSize",
          std::to_string(h.animation_data_size) + " but the block spans " + std::to_string(pl.blocks[k].extent) +
              " bytes");
    if (h.signature[2] == 'p')
      add(Severity::warning, ErrorCode::bad_signature, base + prefix, "signature",
          "'aNp' instead of 'aNi' (accepted, meaning unknown: format 16 (C14))");
    if (h.flags & 0x80)
      add(Severity::warning, ErrorCode::bad_value, base + prefix + 3, "m_flags",
          "bit 7 (external bone arrays) is a runtime state, expected 0 on disk (format 4.1)");
    const float d = h.duration();
    if (!std::isfinite(d) || d < 0)
      add(Severity::warning, ErrorCode::bad_value, base + prefix + 8, "m_duration",
          "duration is not a finite non-negative number");
    if (h.shape != AniShape::wd1) {
      const float fr = h.frame_rate();
      if (!(fr > 0) || !std::isfinite(fr))
        add(Severity::warning, ErrorCode::bad_value, base + prefix + 12, "m_animFrameRate",
            "frame rate is not a positive number");
      else if (h.shape == AniShape::wdl && fr != 30.0f)
        add(Severity::info, ErrorCode::ok, base + prefix + 12, "m_animFrameRate",
            "frame rate " + std::to_string(fr) + ", DET expects 30");
    }
    const std::uint64_t counts_at = base + prefix + 12 + (h.shape == AniShape::wd1 ? 0 : 4) + 2;
    if (h.bone_count_field & ~h.bone_count_mask())
      add(Severity::info, ErrorCode::ok, counts_at - 2, "m_nbBonesInAnim",
          "flag bits " + hex_lower(h.bone_count_field & ~h.bone_count_mask()) +
              " set above the count (kept, decision 5)");
    std::uint64_t constant = 0, animated = 0;
    for (const auto& bone : b.bones) {
      if ((bone.flags & 0x30) == 0x30) ++constant;
      if ((bone.flags & 0x30) == 0x10) ++animated;
    }
    auto count_check = [&](std::size_t i, std::uint64_t actual, const char* what) {
      if (i < h.data_counts.size() && h.data_counts[i] != actual)
        add(Severity::error, ErrorCode::count_mismatch, counts_at + 2 * i, "m_dataCounts[" + std::to_string(i) + "]",
            std::to_string(h.data_counts[i]) + " but " + std::to_string(actual) + " bones are flagged " + what +
                " (format 6)");
    };
    count_check(2, constant, "constant (flags & 0x30 == 0x30)");
    count_check(4, animated, "animated (flags & 0x30 == 0x10)");
    std::set<std::uint32_t> seen;
    for (std::size_t i = 0; i < b.bones.size(); ++i)
      if (!seen.insert(b.bones[i].hash).second)
        add(Severity::warning, ErrorCode::bad_value, base + container::ani_header_size(h.shape) + 4 * i,
            "bone_hashes[" + std::to_string(i) + "]", "duplicate bone hash " + hex_lower(b.bones[i].hash));

    const AniSlots slots = ani_slots(h.shape);
    std::optional<std::uint64_t> keys;
    if (h.shape != AniShape::fc5) keys = std::uint64_t{h.last_frame} + 1;  // format 7
    if (keys) need_bytes(b, k, slots.key_times, 2 * *keys, "KeyTimes (m_lastFrame + 1 keys)");
    if (h.data_counts.size() > 2)
      need_bytes(b, k, slots.constant_rotations, 6ull * h.data_counts[2], "JointConstantRotations");
    if (animated > 0) check_chunk_table(b, k, slots.rotations, keys);
    if (animated > 0 && b.slot_segment[static_cast<std::size_t>(slots.rotations)] < 0)
      add(Severity::error, ErrorCode::count_mismatch, counts_at + 8, "m_dataCounts[4]",
          std::to_string(animated) + " animated bones but no JointRotations section");
    if (constant > 0 && b.slot_segment[static_cast<std::size_t>(slots.constant_rotations)] < 0)
      add(Severity::error, ErrorCode::count_mismatch, counts_at + 4, "m_dataCounts[2]",
          std::to_string(constant) + " constant bones but no JointConstantRotations section");
    // Decision 3: a third word with bit 15 set decodes, but is suspicious.
    const auto consts = b.section(static_cast<std::size_t>(slots.constant_rotations));
    const std::size_t n = std::min<std::size_t>(consts.size() / 6, constant);
    for (std::size_t i = 0; i < n; ++i)
      if (consts[6 * i + 5] & 0x80)
        add(Severity::warning, ErrorCode::bad_value,
            section_start(b, k, static_cast<std::size_t>(slots.constant_rotations)) + 6 * i + 4,
            "JointConstantRotations[" + std::to_string(i) + "]",
            "third word has bit 15 set; decoded unsigned (decision 3)");
    check_offsets_order(b, k, Severity::info);
  }

  void check_fc4(const Block& b, std::size_t k) {
    const Fc4Header& h = *b.fc4();
    add(Severity::info, ErrorCode::ok, 0x18, "signature", "Far Cry 4 layout unverified (format 4.4, 16 (C8))");
    if (b.bones.size() != h.bone_count)
      add(Severity::error, ErrorCode::count_mismatch, 0x2C, "hashTableOffset",
          std::to_string(h.bone_count) + " bones but the hash/flag tables are missing or too short");
    check_offsets_order(b, k, Severity::info);
  }

  void check_legacy(const Block& b, std::size_t k) {
    const LegacyHeader& h = *b.legacy();
    const float d = h.duration();
    if (!std::isfinite(d) || d < 0)
      add(Severity::warning, ErrorCode::bad_value, pl.blocks[k].base + 16ull * h.mask_words + 0x24, "duration",
          "duration is not a finite non-negative number");
    if (c.variant->confidence != Confidence::public_decoders)
      add(Severity::info, ErrorCode::ok, pl.blocks[k].base, "layout",
          c.variant->game == Game::far_cry_3_blood_dragon
              ? "Blood Dragon read with the FC3 layout, a guess (9-word masks), unverified"
              : "FC3 layout is a guess (9-word masks), unverified");
    // Format 13.2: the engine's pointer slot is 0 on disk (JB-DOC).
    if (h.pointer_slot != 0)
      add(Severity::warning, ErrorCode::bad_value, pl.blocks[k].base + 16ull * h.mask_words + 0x4C, "pointer_slot",
          "pointer slot " + hex_lower(h.pointer_slot) +
              " is not 0, as the engine's slots are on disk (kept as stored)");
    check_offsets_order(b, k, Severity::info);
  }

  // Format 2: Far Cry 2's version field is u16 0x4C; the game is told by byte 0 alone, so a
  // high byte that is not 0 reads as Far Cry 2 all the same.
  void check_legacy_version() {
    if (c.variant->game != Game::far_cry_2 || (c.header.magic_word & 0xFF00u) == 0) return;
    add(Severity::warning, ErrorCode::bad_value, 1, "magic",
        "version field " + hex_lower(c.header.magic_word & 0xFFFFu) +
            ": its high byte is not 0 (Far Cry 2 stores u16 0x4C; "
            "read as Far Cry 2 by byte 0)");
  }
};

}  // namespace

std::vector<Finding> validate(const Container& c, const Limits& limits) {
  auto placed = place(c);
  if (!placed)
    return {
        {Severity::error, placed.error().code, placed.error().offset, placed.error().field, placed.error().detail, -1}};
  Checker ck{c, *placed, limits, {}, -1};
  if (c.is_opaque()) {
    ck.add(Severity::info, ErrorCode::not_decodable, 0x10, "body", "kept opaque: " + c.opaque_reason);
    return ck.out;
  }
  ck.check_legacy_version();
  for (std::size_t k = 0; k < c.blocks.size(); ++k) {
    ck.block = static_cast<int>(k);
    const Block& b = c.blocks[k];
    if (b.bones.size() > limits.max_bones)
      ck.add(Severity::error, ErrorCode::limit_exceeded, placed->blocks[k].base, "bones",
             std::to_string(b.bones.size()) + " bones exceeds the limit");
    if (b.ani()) ck.check_ani(b, k);
    else if (b.fc4()) ck.check_fc4(b, k);
    else if (b.legacy()) ck.check_legacy(b, k);
  }
  return ck.out;
}

}  // namespace mab
