// Internal: the encoder side of decode_motion (docs/motion.md).
#pragma once

#include <mab/decode_clip.hpp>
#include <mab/encode_clip.hpp>

#include <vector>

namespace mab::encode {

// Writes the edited clip's translations, constant translations, root motion and part entries
// into `b` (the block being encoded, a copy of the original's), each the way decode_motion read
// it (DecodedClip::motion). Values equal bit for bit to the original decode keep their bytes;
// edited translation chunks are re-quantised. The counts the decoder checked
// (m_dataCounts[0], [1], [3], [5], [6]) follow where they agreed in the input. Appends the
// slots whose bytes change to `rewritten`.
// Translation chunks follow options.max_translation_error under raise_depth (EncodeOptions).
Status encode_motion(const DecodedClip& original, const Clip& edited, Block& b, const EncodeOptions& options,
                     EncodeReport& report, std::vector<int>& rewritten);

// Nested-block offsets of part entries (format 12) are positions: when an edit moves blocks,
// every block whose links were proven in `before` gets them rewritten in `after` so they point
// at the same blocks again. Refused (overlap) when the part array shares its bytes with
// another section; limit_exceeded when an offset no longer fits 32 bits. `options` are those the
// clip was decoded with: under --strict-layout no link is proven, so none is rewritten.
// An opaque part array of a file whose blocks moved adds a line to `warnings`.
Status relink_parts(const Container& before, Container& after, const DecodeOptions& options,
                    std::vector<std::string>& warnings);

}  // namespace mab::encode
