// The options of the one error policy (decision 21). Its Far Cry 2/3 form, legacy_edit_policy, is
// declared in legacy.hpp (it returns LegacyEncodeOptions) and implemented beside this one.
#pragma once

#include <mab/encode_clip.hpp>

#include <optional>

namespace mab {

// The one error policy of every command that writes a user's edit (`mab import` of JSON and
// glTF, `mab edit`; decision 21, docs/json-format.md "Error policy"): a changed bone keeps its
// bit depth unless that misses max_error_deg, then gets the smallest depth meeting it (16 at
// most); a depth the edit asked for is kept; whatever still misses the bound (a key at 16 bits,
// a requested depth, a 6-byte constant) is refused, nothing written. Far Cry 2/3 clips have no
// depth: legacy_edit_policy (legacy.hpp) applies the same bound through the sparse key writer.
// Translations: max_translation_error, default_max_translation_error when not given, refused
// when missed as the rotation bound is (refuse_above_max_translation_error).
EncodeOptions edit_policy(double max_error_deg = default_max_error_deg,
                          std::optional<double> max_translation_error = std::nullopt);

}  // namespace mab
