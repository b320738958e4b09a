// The encoder's translation re-quantiser (format 10.1): quantise_translation_chunk with the
// caller's bound in the choice between a constant and a varying component.
#pragma once

#include <mab/translation_codec.hpp>

namespace mab::detail {

// quantise_translation_chunk, but a component is stored as a 16-bit constant (whose step, the
// scale / 32767.5, no depth refines: 0.0138 units at a scale of 453) only where that is no
// further off than the varying form or within `constant_tolerance` units (and half a constant
// step); elsewhere the varying form, whose error a finer depth lowers (decision 21), with
// the closest header of all for keys that hold one value.
Result<QuantisedTranslationChunk> quantise_translation_chunk_within(std::span<const Vec3> keys, TranslationEntry entry,
                                                                    double constant_tolerance);

}  // namespace mab::detail
