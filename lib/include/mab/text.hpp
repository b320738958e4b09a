// The one way numbers, hashes and bones are spelled in messages and reports (library and CLI),
// so that a hash printed by one command is found by searching another's output.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace mab {

// "0x" and v in upper-case hex digits, zero-padded to at least `digits`: hashes and field values
// ("0xB6C65665" with digits = 8).
std::string hex(std::uint64_t v, int digits = 0);
// "0x" and v in lower-case hex digits, unpadded: byte offsets in messages ("0x1a0") and the
// checksum specification text ("poly=0x1edc6f41").
std::string hex_lower(std::uint64_t v);
// Lower-case hex pairs, no separator ("00ff10"): bytes kept as stored.
std::string hex_bytes(std::span<const std::uint8_t> bytes);
// "bone 0xB6C65665", or "bone 0xB6C65665 (\"Root\")" when the name is known.
std::string bone_label(std::uint32_t hash, std::string_view name = {});

}  // namespace mab
