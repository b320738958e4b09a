// An 'aNi' clip as the Python Clip holds it (a dict of NumPy arrays and lists, keys named as
// Clip's attributes) and back: the one place where the array layout is decided.
#pragma once

#include <mab/clip.hpp>
#include <mab/evidence.hpp>

#include <pybind11/pybind11.h>

#include <functional>
#include <string>
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

// A bone argument of an edit (an index, or a name or id as the clip's family names bones) as the
// index of that bone of `clip`; raises MabError when there is none.
using BoneArg = std::function<std::size_t(const mab::Clip& clip, pybind11::handle arg)>;
std::size_t bone_arg(const mab::Clip& c, pybind11::handle a);  // 'aNi': index, name or hash text
mab::Quat quat_arg(pybind11::handle a);

// One operation of `mab edit` on `c` (ani.cpp; Clip._edit's op and arguments). Returns the
// operation's notes (list of str), the inserted key's index, or the reduce report.
pybind11::object apply_edit(mab::Clip& c, const std::string& op, const pybind11::tuple& args, const BoneArg& bone);

// `got` (the written clip read back) against `want`: same key times and bones, each bone's
// rotations within bone_bound[b] degrees (1e-4 past the list), translations within t_bound units,
// root motion present where edited. Raises round_trip_mismatch; returns the largest angle.
double compare_landed(const mab::Clip& want, const mab::Clip& got, const std::vector<double>& bone_bound,
                      double t_bound);

}  // namespace mabpy
