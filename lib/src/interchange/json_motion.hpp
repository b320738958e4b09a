// Internal: translations, root motion and part entries in a mabkit-clip document (issue 16),
// kept apart from the rotation clip's reader and writer.
#pragma once

#include <mab/codec_file.hpp>

namespace mab::interchange {

// A document without "motion" (every version-1 document written before issue 16, and those
// of blocks with nothing decoded beyond rotations) leaves translations, root motion and part
// entries as the file holds them: they are copied from the original decode onto the
// document's clip, bones matched by hash. Changing the key count that way would leave them one
// value per old key, so it is refused (parse_error at /clip/key_times) naming why.
Status carry_original_motion(Clip& edited, const Clip& original);

}  // namespace mab::interchange
