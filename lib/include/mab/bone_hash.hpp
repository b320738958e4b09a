// The bone-name hash: 'aNi' clips name bones by it (decision 11). The one implementation that the
// library (container, edit operations), `mab hash` and the Python module use; the Blender add-on's
// matching.crc32 is tested against `mab hash` (tests/blender_addon/test_packaging.py).
#pragma once

#include <cstdint>
#include <string_view>

namespace mab {

// zlib's CRC-32 of the name's bytes, case-sensitive; a name given as text is hashed as UTF-8.
std::uint32_t bone_hash(std::string_view name) noexcept;

}  // namespace mab
