#include <mab/error.hpp>

#include <cstdio>

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

std::string Error::message() const {
  std::string out(to_string(code));
  if (offset != no_offset) {
    char buf[32];
    std::snprintf(buf, sizeof buf, " at 0x%llx", static_cast<unsigned long long>(offset));
    out += buf;
  }
  if (bit) out += " bit " + std::to_string(*bit);
  if (!field.empty()) out += " (" + field + ")";
  if (!detail.empty()) out += ": " + detail;
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
