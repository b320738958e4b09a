// Internal: the header duration of a Far Cry 2/3 clip given a new lastFrame (a trim, a speed
// change): legacy_from_clip's (implemented in legacy_bridge.cpp); the tests' trim oracle
// (tests/support/legacy_trim.hpp) uses it too.
#pragma once

#include <mab/legacy.hpp>

#include <cstdint>
#include <string>

namespace mab {

// `clip`'s rule where it held one exactly ("lastFrame / rate" or "(lastFrame + 1) / rate"),
// else its duration minus (or plus) the frames removed (added); *rule names which.
float legacy_duration_for(const LegacyClip& clip, std::uint16_t new_last, std::string* rule);

}  // namespace mab
