// mab::Error -> mabkit.MabError (python/mabkit/_errors.py): the library's code, field, byte
// offset and bit offset travel with the exception instead of being folded into its text.
#pragma once

#include <mab/result.hpp>

#include <pybind11/pybind11.h>

#include <string>
#include <utility>

namespace mabpy {

[[noreturn]] void raise(const mab::Error& e);
[[noreturn]] void raise(mab::ErrorCode code, std::string field, std::string detail);

// An edit that did not read back from the bytes written: round_trip_mismatch, so the caller
// writes nothing (the verification of Clip.encode and LegacyClip.encode).
[[noreturn]] void not_landed(std::string field, const std::string& what);

// A 6-byte quaternion (format 9.1: constants, root and trajectory rotations) is within 0.005
// degrees of what it stores.
inline constexpr double quat48_bound_deg = 0.01;

// The encoders' error bound, checked: a positive number of degrees.
double checked_max_error(double max_error_deg);

template <class T>
T take(mab::Result<T> r) {
  if (!r) raise(r.error());
  return std::move(r).value();
}
inline void take(const mab::Status& s) {
  if (!s) raise(s.error());
}

}  // namespace mabpy
