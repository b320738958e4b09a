#include "layouts.hpp"

#include <mab/text.hpp>

#include <algorithm>
#include <cstdio>

namespace mab::container {

Result<std::vector<Anchor>> checked_anchors(const Block& block, std::uint64_t base, std::uint64_t body_start,
                                            std::uint64_t extent, const std::vector<std::int64_t>& values,
                                            const std::vector<std::uint64_t>& field_offsets) {
  std::vector<Anchor> out;
  out.reserve(values.size());
  for (std::size_t slot = 0; slot < values.size(); ++slot) {
    const std::int64_t v = values[slot];
    if (v == 0) continue;  // absent section (format 4.1)
    const std::string field = block.slot_field_name(slot);
    if (v < 0)
      return make_error(ErrorCode::bad_offset, field_offsets[slot], field, "negative offset " + std::to_string(v));
    const auto uv = static_cast<std::uint64_t>(v);
    if (uv > extent)
      return make_error(ErrorCode::out_of_bounds, field_offsets[slot], field,
                        "offset " + hex_lower(uv) + " (file " + hex_lower(base + uv) +
                            ") is past the end of its block at file " + hex_lower(base + extent));
    if (uv < body_start)
      return make_error(
          ErrorCode::bad_offset, field_offsets[slot], field,
          "offset " + hex_lower(uv) + " points into the header or bone tables, which end at " + hex_lower(body_start));
    out.push_back({slot, uv, field_offsets[slot]});
  }
  return out;
}

Status partition(Block& block, std::span<const std::uint8_t> block_bytes, std::uint64_t base, std::uint64_t body_start,
                 std::size_t slot_count, const std::vector<Anchor>& anchors) {
  (void)base;
  const std::uint64_t extent = block_bytes.size();
  if (body_start > extent)
    return make_error(ErrorCode::truncated, base + extent, "body", "block shorter than its header");
  std::vector<std::uint64_t> starts;
  starts.reserve(anchors.size() + 1);
  starts.push_back(body_start);
  for (const auto& a : anchors) starts.push_back(a.value);
  std::sort(starts.begin(), starts.end());
  starts.erase(std::unique(starts.begin(), starts.end()), starts.end());
  // starts[0] == body_start is the preamble; it stays even when an anchor equals it,
  // as an empty segment, so segments[0] is always the preamble.
  block.segments.clear();
  block.segments.reserve(starts.size() + 1);
  block.segments.push_back({body_start, {}, -1});
  for (std::size_t i = 0; i < starts.size(); ++i) {
    const std::uint64_t begin = starts[i];
    const std::uint64_t end = i + 1 < starts.size() ? starts[i + 1] : extent;
    if (i == 0) {
      block.segments[0].bytes.assign(block_bytes.begin() + static_cast<std::ptrdiff_t>(begin),
                                     block_bytes.begin() + static_cast<std::ptrdiff_t>(end));
      continue;
    }
    Segment s;
    s.original_offset = begin;
    s.bytes.assign(block_bytes.begin() + static_cast<std::ptrdiff_t>(begin),
                   block_bytes.begin() + static_cast<std::ptrdiff_t>(end));
    block.segments.push_back(std::move(s));
  }
  // An anchor equal to body_start gets its own (non-preamble) segment.
  bool anchor_at_body_start = false;
  for (const auto& a : anchors) anchor_at_body_start |= a.value == body_start;
  if (anchor_at_body_start) {
    Segment s;
    s.original_offset = body_start;
    s.bytes = std::move(block.segments[0].bytes);
    block.segments[0].bytes.clear();
    block.segments.insert(block.segments.begin() + 1, std::move(s));
  }
  block.slot_segment.assign(slot_count, -1);
  for (const auto& a : anchors) {
    for (std::size_t i = 1; i < block.segments.size(); ++i) {
      if (block.segments[i].original_offset == a.value) {
        block.slot_segment[a.slot] = static_cast<int>(i);
        break;
      }
    }
  }
  return {};
}

}  // namespace mab::container
