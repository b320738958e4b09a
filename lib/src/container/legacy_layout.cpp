// Legacy 'AnD' clips: FC2 (format 13, JB-DOC) and FC3 (9-word masks: a guess that
// puts duration at 0xC4 and the section table at 0xC8, as BUU reads them).
#include "header_fields.hpp"
#include "layouts.hpp"

#include <mab/text.hpp>

#include <deque>
#include <utility>

namespace mab::container {

std::uint64_t legacy_header_size(std::uint32_t mask_words) noexcept {
  LegacyHeader h;
  h.mask_words = mask_words;
  FieldSizer sizer;
  (void)legacy_header_fields(std::as_const(h), sizer);
  return sizer.bytes();
}

Status check_legacy_tag(const LegacyHeader& h, std::uint64_t at, const Limits&) {
  if (h.tag != std::array<std::uint8_t, 4>{{'A', 'n', 'D', 0x1A}})
    return make_error(ErrorCode::bad_signature, at, "tag",
                      "expected 'AnD\\x1a', found " + hex_lower(h.tag[0]) + " " + hex_lower(h.tag[1]) + " " +
                          hex_lower(h.tag[2]) + " " + hex_lower(h.tag[3]));
  return {};
}

namespace {

Result<Block> read_clip(std::span<const std::uint8_t> bytes, std::uint64_t base, std::uint32_t mask_words) {
  io::ByteReader r(bytes, base);
  LegacyHeader h;
  h.mask_words = mask_words;
  // No check of this header needs the limits: its counts are the variant's (format 13).
  MAB_TRY(legacy_header_fields(h, FieldReader(r, default_limits)));
  FieldSizer to_table("sections");
  (void)legacy_header_fields(std::as_const(h), to_table);
  const std::uint64_t table_at = base + to_table.bytes();

  Block b;
  b.original_base = base;
  b.size_rule = SizeRule::verbatim;
  std::vector<std::int64_t> values(h.sections.begin(), h.sections.end());
  std::vector<std::uint64_t> field_offsets;
  for (std::size_t i = 0; i < values.size(); ++i) field_offsets.push_back(table_at + 4 * i);
  b.header = std::move(h);
  const std::uint64_t body_start = legacy_header_size(mask_words);
  MAB_ASSIGN(auto anchors, checked_anchors(b, base, body_start, bytes.size(), values, field_offsets));
  MAB_TRY(partition(b, bytes, base, body_start, values.size(), anchors));
  return b;
}

}  // namespace

Result<bool> read_legacy(Container& c, std::span<const std::uint8_t> file, std::uint32_t mask_words,
                         bool opaque_if_no_tag, const Limits& limits) {
  constexpr std::uint64_t first_base = 0x10;
  // Chained clips (format 13, slot 8) are read with a work list, never by recursion.
  struct Pending {
    std::uint64_t base, end;
    int parent, parent_segment;
  };
  std::deque<Pending> work{{first_base, file.size(), -1, -1}};
  while (!work.empty()) {
    const Pending p = work.front();
    work.pop_front();
    auto clip = read_clip(file.subspan(p.base, p.end - p.base), p.base, mask_words);
    if (!clip) {
      if (c.blocks.empty() && opaque_if_no_tag && clip.error().code == ErrorCode::bad_signature) return false;
      return std::move(clip).error();
    }
    if (c.blocks.size() >= limits.max_blocks)
      return make_error(ErrorCode::limit_exceeded, p.base, "sections[8]",
                        "more than " + std::to_string(limits.max_blocks) + " chained clips");
    Block b = std::move(clip).value();
    b.parent = p.parent;
    const int index = static_cast<int>(c.blocks.size());
    if (p.parent >= 0) {
      c.blocks[static_cast<std::size_t>(p.parent)].segments[static_cast<std::size_t>(p.parent_segment)].child_block =
          index;
    }
    const int chained = b.slot_segment[8];
    // JB-DOC: slot 8 is always set, and the last clip of a chain points it at its own end. That
    // empty section ends the chain; it stays an empty segment, so the offset is written back.
    if (chained >= 0 && !b.segments[static_cast<std::size_t>(chained)].bytes.empty()) {
      auto& seg = b.segments[static_cast<std::size_t>(chained)];
      const std::uint64_t child_base = p.base + seg.original_offset;
      work.push_back({child_base, child_base + seg.bytes.size(), index, chained});
      seg.bytes.clear();  // the chained clip owns these bytes now
      seg.bytes.shrink_to_fit();
    }
    c.blocks.push_back(std::move(b));
  }
  return true;
}

void write_legacy_header(io::ByteWriter& w, const LegacyHeader& h) { (void)legacy_header_fields(h, FieldWriter(w)); }

}  // namespace mab::container
