#include <mab/error.hpp>
#include <mab/text.hpp>

namespace mab {

std::string_view to_string(ErrorCode code) noexcept {
  switch (code) {
    case ErrorCode::ok: return "ok";
    case ErrorCode::truncated: return "truncated";
    case ErrorCode::out_of_bounds: return "out_of_bounds";
    case ErrorCode::unsupported_version: return "unsupported_version";
    case ErrorCode::bad_signature: return "bad_signature";
    case ErrorCode::limit_exceeded: return "limit_exceeded";
    case ErrorCode::bad_offset: return "bad_offset";
    case ErrorCode::overlap: return "overlap";
    case ErrorCode::count_mismatch: return "count_mismatch";
    case ErrorCode::size_mismatch: return "size_mismatch";
    case ErrorCode::bad_value: return "bad_value";
    case ErrorCode::bit_overrun: return "bit_overrun";
    case ErrorCode::trailing_data: return "trailing_data";
    case ErrorCode::bad_chunk_table: return "bad_chunk_table";
    case ErrorCode::not_decodable: return "not_decodable";
    case ErrorCode::invalid_argument: return "invalid_argument";
    case ErrorCode::io_error: return "io_error";
    case ErrorCode::parse_error: return "parse_error";
    case ErrorCode::not_found: return "not_found";
    case ErrorCode::round_trip_mismatch: return "round_trip_mismatch";
    case ErrorCode::ambiguous_layout: return "ambiguous_layout";
  }
  return "unknown_error";
}

std::string spell_options(std::string_view text, OptionSpelling spell) {
  static constexpr std::string_view open = "{opt:";
  std::string out;
  out.reserve(text.size());
  for (std::size_t at = 0;;) {
    const std::size_t start = text.find(open, at);
    const std::size_t end = start == std::string_view::npos ? start : text.find('}', start);
    if (end == std::string_view::npos) return out.append(text.substr(at));
    const std::string_view name = text.substr(start + open.size(), end - start - open.size());
    out.append(text.substr(at, start - at)).append(spell ? spell(name) : std::string(name));
    at = end + 1;
  }
}

std::string Error::message(OptionSpelling spell) const {
  std::string out(to_string(code));
  if (offset != no_offset) out += " at " + hex_lower(offset);
  if (bit) out += " bit " + std::to_string(*bit);
  if (!field.empty()) out += " (" + field + ")";
  if (!detail.empty()) out += ": " + spell_options(detail, spell);
  return out;
}

Error make_error(ErrorCode code, std::uint64_t offset, std::string field, std::string detail) {
  Error e;
  e.code = code;
  e.offset = offset;
  e.field = std::move(field);
  e.detail = std::move(detail);
  return e;
}

}  // namespace mab
