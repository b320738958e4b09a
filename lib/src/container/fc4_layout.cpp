// Far Cry 4 'aNi' variant (format 4.4; format 16 (C8): layout unverified, decision 10).
// The block starts at file 0x10 so the 8 unknown bytes before 'aNi' belong to it;
// the file's offsets are relative to 0x18, i.e. block-relative value - 8.
#include "header_fields.hpp"
#include "layouts.hpp"

#include <utility>

namespace mab::container {
namespace {
constexpr std::uint64_t block_start = 0x10;
constexpr std::uint64_t rel = fc4_base - block_start;  // 8
}  // namespace

Status check_fc4_signature(const Fc4Header& h, std::uint64_t at, const Limits&) {
  if (h.signature[0] != 'a' || h.signature[1] != 'N' || h.signature[2] != 'i')
    return make_error(ErrorCode::bad_signature, at, "signature", "no 'aNi' at 0x18");
  return {};
}

Status check_fc4_bone_count(const Fc4Header& h, std::uint64_t at, const Limits& limits) {
  if (h.bone_count > limits.max_bones)
    return make_error(ErrorCode::limit_exceeded, at, "nbBones",
                      std::to_string(h.bone_count) + " bones exceeds the limit of " + std::to_string(limits.max_bones));
  return {};
}

Result<bool> read_fc4(Container& c, std::span<const std::uint8_t> file, const Limits& limits) {
  auto bytes = file.subspan(block_start);
  io::ByteReader r(bytes, block_start);
  Fc4Header h;
  if (auto read = fc4_header_fields(h, FieldReader(r, limits)); !read) {
    if (read.error().code == ErrorCode::bad_signature) return false;  // the caller keeps the body opaque
    return std::move(read).error();
  }

  Block b;
  b.original_base = block_start;
  const auto field_at = [&](std::string_view key) {
    FieldSizer sizer(key);
    (void)fc4_header_fields(std::as_const(h), sizer);
    return block_start + sizer.bytes();
  };
  std::vector<std::int64_t> values;
  std::vector<std::uint64_t> field_offsets;
  for (std::size_t i = 0; i < h.section_offsets.size(); ++i) {
    values.push_back(h.section_offsets[i] ? std::int64_t{h.section_offsets[i]} + std::int64_t{rel} : 0);
    field_offsets.push_back(field_at("section_offsets") + 2 * i);
  }
  values.push_back(h.flag_table_offset ? std::int64_t{h.flag_table_offset} + std::int64_t{rel} : 0);
  field_offsets.push_back(field_at("flag_table_offset"));
  values.push_back(h.hash_table_offset ? std::int64_t{h.hash_table_offset} + std::int64_t{rel} : 0);
  field_offsets.push_back(field_at("hash_table_offset"));
  const std::uint64_t body_start = fc4_header_size + rel;
  b.header = h;
  b.size_rule = SizeRule::verbatim;  // FC4 has no m_animationDataSize we know of
  MAB_ASSIGN(auto anchors, checked_anchors(b, block_start, body_start, bytes.size(), values, field_offsets));
  MAB_TRY(partition(b, bytes, block_start, body_start, values.size(), anchors));

  // Bones live in two tables at the end (format 4.4). Read them when both fit; a
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

void write_fc4_header(io::ByteWriter& w, const Fc4Header& h) { (void)fc4_header_fields(h, FieldWriter(w)); }

}  // namespace mab::container
