// Checksum specifications for the header field at +0x04 (format 14): which algorithm,
// over which byte range, stored where. A spec has a one-line text form that
// `mab crc-search` prints and `mab crc-apply --algo` reads back:
//
//   algo=CRC-32/ISO-HDLC range=0x8..eof field=0x4:4:le
//   algo=crc width=32 poly=0x1edc6f41 init=0x12345678 refin=true refout=true xorout=0 range=0x0..eof,zeroed
//   algo=adler32 range=ani..size field=0x4:4:be
#pragma once

#include <mab/crc.hpp>
#include <mab/result.hpp>

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace mab::checksum {

enum class Kind : std::uint8_t {
  crc,
  adler32,
  fletcher32,  // 16-bit little-endian words, modulo 65535, odd tail padded with 0
  fnv1_32,
  fnv1a_32,
  sum32,        // sum of the bytes, modulo 2^32
  sum32_words,  // sum of little-endian u32 words, tail padded with 0
  xor32,        // XOR of little-endian u32 words, tail padded with 0
};

// Every non-CRC kind, in search order.
std::span<const Kind> other_kinds();
std::string_view kind_name(Kind kind);  // "adler32", "fnv1a32", ...
std::optional<Kind> parse_kind(std::string_view name);

// One-shot 32-bit checksums of the non-CRC kinds.
std::uint32_t compute_other(Kind kind, std::span<const std::uint8_t> data);

// Streaming form of the non-CRC kinds, for sweeping many range ends in one pass.
class OtherState {
 public:
  explicit OtherState(Kind kind) noexcept;
  void update(std::span<const std::uint8_t> data) noexcept;
  std::uint32_t value() const noexcept;  // of everything so far; the state is unchanged

 private:
  Kind kind_;
  std::uint64_t a_ = 0, b_ = 0;
  std::uint64_t count_ = 0;
  std::uint32_t word_ = 0;  // bytes of an incomplete word
};

// Which bits of an algorithm result wider than the field the field holds.
enum class Part : std::uint8_t { whole, low, high };

struct Algorithm {
  Kind kind = Kind::crc;
  crc::CrcParams crc{};  // kind == crc only
  Part part = Part::whole;

  unsigned width() const noexcept { return kind == Kind::crc ? crc.width : 32u; }
  // Catalogue name, kind name, or "CRC-<width> (custom)".
  std::string name() const;
  friend bool operator==(const Algorithm&, const Algorithm&) = default;
};

enum class Endian : std::uint8_t { little, big };

struct FieldSpec {
  std::uint64_t offset = 4;
  unsigned length = 4;  // 1..8 bytes
  Endian endian = Endian::little;
  friend bool operator==(const FieldSpec&, const FieldSpec&) = default;
};

// A byte range described relative to landmarks, so that one description fits files
// of different sizes.
struct RangeSpec {
  enum class Start : std::uint8_t { absolute, ani };  // ani: offset of the 'aNi' tag
  enum class End : std::uint8_t { eof, data_size };   // data_size: 0x10 + animationDataSize
  enum class FieldMode : std::uint8_t { zeroed, skipped };

  Start start_kind = Start::absolute;
  std::uint64_t start = 0;  // added to the start landmark
  End end_kind = End::eof;
  std::uint64_t end_back = 0;          // subtracted from the end landmark
  FieldMode mode = FieldMode::zeroed;  // only matters when the range covers the field
  friend bool operator==(const RangeSpec&, const RangeSpec&) = default;
};

struct ResolvedRange {
  std::uint64_t begin = 0;
  std::uint64_t end = 0;
  bool skip_field = false;  // the field lies inside and is removed, not zeroed
  friend bool operator==(const ResolvedRange&, const ResolvedRange&) = default;
};

// Offset of the 'aNi' (or 'aNp') tag in the first 0x40 bytes.
std::optional<std::uint64_t> find_ani(std::span<const std::uint8_t> file);
// The u32 after 'aNi' + flags byte (WD1 / WDL / FC5 layouts).
std::optional<std::uint64_t> animation_data_size(std::span<const std::uint8_t> file);

bool covers_field(const ResolvedRange& r, const FieldSpec& field);
Result<ResolvedRange> resolve(const RangeSpec& range, std::span<const std::uint8_t> file, const FieldSpec& field);
// The bytes the checksum covers: the range, with the field zeroed or removed.
std::vector<std::uint8_t> covered_bytes(std::span<const std::uint8_t> file, const ResolvedRange& r,
                                        const FieldSpec& field);

struct ChecksumSpec {
  Algorithm algo;
  RangeSpec range;
  FieldSpec field;
  friend bool operator==(const ChecksumSpec&, const ChecksumSpec&) = default;
};

std::string to_string(const RangeSpec& range, const FieldSpec& field);
std::string to_string(const FieldSpec& field);
std::string to_string(const Algorithm& algo);
std::string to_string(const ChecksumSpec& spec);
Result<RangeSpec> parse_range(std::string_view text);
Result<FieldSpec> parse_field(std::string_view text);  // "OFF:LEN[:le|be]", OFF decimal or 0x hex
// Keys: algo (or name), width, poly, init, refin, refout, xorout, part, range, field.
// Defaults: range=0x0..eof (field zeroed), field=0x4:4:le. check= and residue= are ignored.
Result<ChecksumSpec> parse_spec(std::string_view text);

// The algorithm's result reduced to what the field stores.
std::uint64_t field_value_of(const Algorithm& algo, std::uint64_t result, unsigned field_bytes);
std::uint64_t compute_raw(const Algorithm& algo, std::span<const std::uint8_t> message);

Result<std::uint64_t> read_field(std::span<const std::uint8_t> file, const FieldSpec& field);
Status store_field(std::span<std::uint8_t> file, const FieldSpec& field, std::uint64_t value);
// The value the field should hold under `spec`.
Result<std::uint64_t> compute_field(const ChecksumSpec& spec, std::span<const std::uint8_t> file);
// Recomputes and stores the field in place.
Status recompute(const ChecksumSpec& spec, std::span<std::uint8_t> file);

}  // namespace mab::checksum
