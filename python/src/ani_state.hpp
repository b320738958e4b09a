// An 'aNi' clip as the Python Clip holds it (a dict of NumPy arrays and lists, keys named as
// Clip's attributes) and back: the one place where the array layout is decided.
#pragma once

#include <mab/clip.hpp>
#include <mab/evidence.hpp>

#include <pybind11/pybind11.h>

#include <vector>

namespace mabpy {

// Bone-major rotations (bone b's keys at [b * K, (b + 1) * K)): constants repeated, bones
// without rotations identity. Clip::rotations is this buffer seen as (K, B, 4).
std::vector<mab::Quat> rotation_buffer(const mab::Clip& clip);

// The state of `clip`, whose rotations are `rotations` (rotation_buffer's layout).
pybind11::dict clip_state(const mab::Clip& clip, std::vector<mab::Quat> rotations);

// The clip a state describes. Bones follow their values: a constant or rotation-less bone whose
// rows now differ becomes animated, a rotation-less bone given one rotation becomes constant.
// Arrays of the wrong shape, non-finite rotations and half-NaN translations raise MabError
// naming the array and the index.
mab::Clip clip_from_state(const pybind11::dict& state);

// How a block's motion data was read (`mab info`'s words), by kind of data.
pybind11::dict evidence_dict(const mab::BlockEvidence& e);

}  // namespace mabpy
