// mabkit-clip documents and the data issue 16 decodes beyond rotations.
#include "interchange/json_motion.hpp"

#include "encode/encode_common.hpp"

namespace mab::interchange {

Status carry_original_motion(Clip& edited, const Clip& original) {
  bool any = !original.root_motion.empty() || !original.parts.empty();
  for (const auto& b : original.bones) any = any || !b.translations.empty() || b.constant_translation;
  if (!any) return {};
  bool per_key = !original.root_motion.empty();
  for (const auto& b : original.bones) per_key = per_key || !b.translations.empty();
  if (per_key && edited.key_count() != original.key_count())
    return make_error(ErrorCode::parse_error, no_offset, "/clip/key_times",
                      std::to_string(edited.key_count()) + " keys, the file has " + std::to_string(original.key_count()) +
                          ", and its translations or root motion hold one value per key: a document without "
                          "\"motion\" cannot change the key count (export it again with this mabkit to get one)");
  for (std::size_t i = 0; i < edited.bones.size(); ++i) {
    ClipBone& eb = edited.bones[i];
    const int o = encode::original_index(original, i, eb.hash);
    if (o < 0) continue;
    const ClipBone& ob = original.bones[static_cast<std::size_t>(o)];
    eb.translations = ob.translations;
    eb.constant_translation = ob.constant_translation;
  }
  edited.root_motion = original.root_motion;
  edited.parts = original.parts;
  return {};
}

}  // namespace mab::interchange
