// Error reporting for everything that reads untrusted input.
// The library never throws on bad input: it returns mab::Result<T> carrying an Error.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace mab {

// Pinned values: they appear in JSON reports and scripts may match on them.
enum class ErrorCode : std::uint16_t {
  ok = 0,
  truncated = 1,             // a read ran past the end of the data
  out_of_bounds = 2,         // an offset or extent points outside the file or block
  unsupported_version = 3,   // unknown magic
  bad_signature = 4,         // 'aNi' / 'AnD\x1a' tag missing
  limit_exceeded = 5,        // a count or size is above mab::Limits
  bad_offset = 6,            // an offset points into a header or table
  overlap = 7,               // two extents overlap
  count_mismatch = 8,        // a count disagrees with the data it counts
  size_mismatch = 9,         // a size field disagrees with the real size
  bad_value = 10,            // a field holds a value the format forbids
  bit_overrun = 11,          // a bit read ran past the end of its stream
  trailing_data = 12,        // a stream did not end where its table says
  bad_chunk_table = 13,      // JointRotations chunk table malformed
  not_decodable = 14,        // layout known only as opaque bytes (decision 10)
  invalid_argument = 15,     // caller error (API misuse, bad option)
  io_error = 16,             // file system
  parse_error = 17,          // text formats (JSON, glTF)
  not_found = 18,            // a requested item does not exist
  round_trip_mismatch = 19,  // written bytes differ from the input
  ambiguous_layout = 20,     // an edit would make the file read back with other blocks (format 4.3)
};

std::string_view to_string(ErrorCode code) noexcept;

inline constexpr std::uint64_t no_offset = ~std::uint64_t{0};

// Error texts and edit notes name the caller's settings as {opt:NAME}, NAME the option's library
// name in snake_case ("max_error", "speed"), never as one front end spells it: the CLI turns it
// into its flag (--max-error), Python keeps the name its keyword arguments use (issue 33 item 4).
// A spelling maps NAME to the front end's text; none keeps NAME.
using OptionSpelling = std::string (*)(std::string_view name);
std::string spell_options(std::string_view text, OptionSpelling spell = nullptr);

struct Error {
  ErrorCode code = ErrorCode::ok;
  std::uint64_t offset = no_offset;  // byte offset in the file, if known
  std::optional<std::uint64_t> bit;  // bit offset inside a bit stream, if any
  std::string field;                 // name of the field being read, e.g. "m_offsets[6]"
  std::string detail;                // human text, no trailing newline

  // One line: "truncated at 0x1c (m_duration): need 4 bytes, 2 left", options spelled by `spell`.
  std::string message(OptionSpelling spell = nullptr) const;
};

Error make_error(ErrorCode code, std::uint64_t offset, std::string field, std::string detail = {});

}  // namespace mab
