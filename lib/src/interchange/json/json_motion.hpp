// Internal: translations, root motion and part entries in a mabkit-clip document (docs/motion.md,
// docs/json-format.md "motion"), kept apart from the rotation clip's reader and writer.
#pragma once

#include <mab/clip.hpp>
#include <mab/evidence.hpp>

#include "interchange/json/json_read.hpp"
#include "interchange/json/json_writer.hpp"

#include <optional>
#include <string_view>
#include <utility>
#include <vector>

namespace mab::interchange {

// Whether a decode with evidence `e` holds anything a "motion" member holds (some evidence
// accepted). Documents of blocks without (every file from before motion decoding) have no "motion",
// so their bytes are unchanged.
bool has_motion(const BlockEvidence& e);

// The "motion" object of clip `c` (which may be edited) decoded with evidence `e`.
void write_motion(json_out::Writer& w, const Clip& c, const BlockEvidence& e);

// What a document's "motion" states; a member it lacks is nullopt (= as the file holds it).
struct ParsedMotion {
  struct Track {
    std::size_t bone = 0;
    std::uint32_t hash = 0;
    std::string path;  // for errors
    std::vector<Vec3> keys;
  };
  struct Constant {
    std::size_t bone = 0;
    std::uint32_t hash = 0;
    std::string path;
    Vec3 value{};
  };
  std::optional<std::vector<Track>> translations;
  std::optional<std::vector<Constant>> constant_translations;
  std::optional<RootMotion> root_motion;
  std::optional<std::vector<ClipPart>> parts;
  // A translation component written null (not finite: JSON has no NaN; Far Cry 2/3 stores raw
  // floats) stands for the stored value at the same place, which apply_motion puts there.
  struct Null {
    unsigned list = 0;  // 0 translations[entry].keys[key], 1 constant_translations[entry], 2 root translations[key]
    std::size_t entry = 0, key = 0;
    unsigned component = 0;
    std::string path;
  };
  std::vector<Null> nulls;
};

// [x, y, z] at `p`, a null component recorded in `nulls` as `where` with its component and path;
// read_vec3s: an array of them, the nulls' key their index. A Far Cry 2/3 "legacy_clip" (version
// 1, 2) reads its translations with them: its nulls then resolve as this member's do.
Result<Vec3> read_vec3(const json_in::Val& v, const json_in::Path& p, std::vector<ParsedMotion::Null>& nulls,
                       ParsedMotion::Null where);
Result<std::vector<Vec3>> read_vec3s(const json_in::Val& a, const json_in::Path& path,
                                     std::vector<ParsedMotion::Null>& nulls, unsigned list, std::size_t entry);

// The document's "motion" value `j` at `path` (json_read.hpp). parse_error naming the JSON path
// ("/motion/translations/0/keys/3/1") for anything malformed; counts above `limits` are
// limit_exceeded before allocation.
Result<ParsedMotion> parse_motion(const json_in::Val& j, const json_in::Path& path, const Limits& limits);

// The edited clip's translations, root motion and parts: each member the document states, the
// original's for every other (carry_original_motion). A listed bone must exist at that index
// with that hash (parse_error otherwise); bones not listed in a stated member have none.
Status apply_motion(Clip& edited, const ParsedMotion& motion, const Clip& original);

// A document without "motion" (every version-1 document written before motion decoding, and those
// of blocks with nothing decoded beyond rotations) leaves translations, root motion and part
// entries as the file holds them: they are copied from the original decode onto the
// document's clip, bones matched by hash. Changing the key count that way would leave them one
// value per old key, so it is refused (parse_error at /clip/key_times) naming why.
Status carry_original_motion(Clip& edited, const Clip& original);

}  // namespace mab::interchange
