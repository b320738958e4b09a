// The bone-name hash (decision 11), below every other layer so that the model can use it too.
#include <mab/bone_hash.hpp>

#include <zlib.h>

#include <algorithm>

namespace mab {

std::uint32_t bone_hash(std::string_view name) noexcept {
  const auto* p = reinterpret_cast<const Bytef*>(name.data());
  uLong crc = crc32(0L, Z_NULL, 0);
  // zlib takes uInt lengths; names are short, but feed long input in pieces anyway.
  while (name.size() > 0) {
    const auto n = static_cast<uInt>(std::min<std::size_t>(name.size(), 1u << 30));
    crc = crc32(crc, p, n);
    p += n;
    name.remove_prefix(n);
  }
  return static_cast<std::uint32_t>(crc);
}

}  // namespace mab
