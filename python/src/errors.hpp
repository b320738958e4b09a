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

template <class T>
T take(mab::Result<T> r) {
  if (!r) raise(r.error());
  return std::move(r).value();
}
inline void take(const mab::Status& s) {
  if (!s) raise(s.error());
}

}  // namespace mabpy
