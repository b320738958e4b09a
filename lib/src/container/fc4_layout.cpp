// Far Cry 4 'aNi' variant (spec 4.4; contradiction C8: layout unverified, decision D10).
// The block starts at file 0x10 so the 8 unknown bytes before 'aNi' belong to it;
// the file's offsets are relative to 0x18, i.e. block-relative value - 8.
#include "layouts.hpp"

namespace mab::container {
namespace {
constexpr std::uint64_t block_start = 0x10;
constexpr std::uint64_t rel = fc4_base - block_start;  // 8
}  // namespace

Result<bool> read_fc4(Container& c, std::span<const std::uint8_t> file, const Limits& limits) {
  auto bytes = file.subspan(block_start);
  io::ByteReader r(bytes, block_start);
  Fc4Header h;
  MAB_TRY(r.copy_to(h.unknown_10, "unknown_10"));
  MAB_TRY(r.copy_to(h.signature, "signature"));
  if (h.signature[0] != 'a' || h.signature[1] != 'N' || h.signature[2] != 'i') return false;
  MAB_ASSIGN(h.flags, r.u8("flags"));
  const std::uint64_t count_at = r.file_offset();
  MAB_ASSIGN(h.bone_count, r.u16("nbBones"));
  if (h.bone_count > limits.max_bones)
    return make_error(ErrorCode::limit_exceeded, count_at, "nbBones",
                      std::to_string(h.bone_count) + " bones exceeds the limit of " +
                          std::to_string(limits.max_bones));
  MAB_ASSIGN(h.unknown_1e, r.u16("unknown_1e"));
  MAB_ASSIGN(h.duration_bits, r.u32("duration"));
  MAB_ASSIGN(h.unknown_24, r.u32("unknown_24"));
  MAB_ASSIGN(h.flag_table_offset, r.u32("flagTableOffset"));
  MAB_ASSIGN(h.hash_table_offset, r.u32("hashTableOffset"));
  MAB_TRY(r.copy_to(h.unknown_30, "unknown_30"));
  for (std::size_t i = 0; i < h.section_offsets.size(); ++i) {
    MAB_ASSIGN(h.section_offsets[i], r.u16("sectionOffsets[" + std::to_string(i) + "]"));
  }

  Block b;
  b.original_base = block_start;
  std::vector<std::int64_t> values;
  std::vector<std::uint64_t> field_offsets;
  for (std::size_t i = 0; i < h.section_offsets.size(); ++i) {
    values.push_back(h.section_offsets[i] ? std::int64_t{h.section_offsets[i]} + std::int64_t{rel} : 0);
    field_offsets.push_back(0x40 + 2 * i);
  }
  values.push_back(h.flag_table_offset ? std::int64_t{h.flag_table_offset} + std::int64_t{rel} : 0);
  field_offsets.push_back(0x28);
  values.push_back(h.hash_table_offset ? std::int64_t{h.hash_table_offset} + std::int64_t{rel} : 0);
  field_offsets.push_back(0x2C);
  const std::uint64_t body_start = fc4_header_size + rel;
  b.header = h;
  b.size_rule = SizeRule::verbatim;  // FC4 has no m_animationDataSize we know of
  MAB_ASSIGN(auto anchors, checked_anchors(b, block_start, body_start, bytes.size(), values, field_offsets));
  MAB_TRY(partition(b, bytes, block_start, body_start, values.size(), anchors));

  // Bones live in two tables at the end (spec 4.4). Read them when both fit; a
  // missing or short table is reported by validate, not guessed around.
  const auto hashes = b.section(fc4_hash_table_slot);
  const auto flags = b.section(fc4_flag_table_slot);
  const std::size_t n = h.bone_count;
  if (hashes.size() >= 4 * n && flags.size() >= n) {
    b.bones.resize(n);
    io::ByteReader hr(hashes), fr(flags);
    for (std::size_t i = 0; i < n; ++i) {
      b.bones[i].hash = hr.u32("bone_hashes").value();
      b.bones[i].flags = fr.u8("bone_flags").value();
    }
  }
  c.blocks.push_back(std::move(b));
  return true;
}

void write_fc4_header(io::ByteWriter& w, const Fc4Header& h) {
  w.bytes(h.unknown_10);
  w.bytes(h.signature);
  w.u8(h.flags);
  w.u16(h.bone_count);
  w.u16(h.unknown_1e);
  w.u32(h.duration_bits);
  w.u32(h.unknown_24);
  w.u32(h.flag_table_offset);
  w.u32(h.hash_table_offset);
  w.bytes(h.unknown_30);
  for (auto o : h.section_offsets) w.u16(o);
}

}  // namespace mab::container
