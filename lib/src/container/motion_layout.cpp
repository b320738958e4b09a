// Where an 'aNi' block keeps translations, root motion and part entries (format 8.1, 8.2, 12).
#include "container/motion_layout.hpp"

namespace mab::container {

MotionLayout motion_layout(const Block& b) noexcept {
  MotionLayout l;
  if (const auto* a = b.ani()) {
    if (a->shape == AniShape::fc5) return {0, 1, 2, 4, 6, 7};
    return {1, 2, 3, 5, 7, 8};
  }
  if (b.fc4()) l.translations = 5;
  return l;
}

std::uint64_t nested_origin(NestedBase base, PartHeader header, std::uint64_t block_base, std::uint64_t section_at,
                            std::size_t entry) noexcept {
  switch (base) {
    case NestedBase::entry: return section_at + part_header_size(header) + part_entry_size * entry;
    case NestedBase::section: return section_at;
    case NestedBase::block:
    case NestedBase::none: break;
  }
  return block_base;
}

}  // namespace mab::container
