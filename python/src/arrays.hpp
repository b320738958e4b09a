// NumPy arrays to and from the library's vectors, with the shape checks that turn a wrong
// array into a MabError naming it (never a silent truncation).
#pragma once

#include "errors.hpp"

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <cstdint>
#include <string>
#include <vector>

namespace mabpy {

namespace py = pybind11;

// An array over `v`'s memory that owns it: a capsule deletes the vector with the array, so
// a decode hands its buffers to NumPy without a copy. `shape` and byte `strides` as NumPy's.
template <class Elem, class T>
py::array_t<Elem> owned_array(std::vector<T>&& v, std::vector<py::ssize_t> shape, std::vector<py::ssize_t> strides) {
  auto* p = new std::vector<T>(std::move(v));
  py::capsule owner(p, [](void* q) { delete static_cast<std::vector<T>*>(q); });
  return py::array_t<Elem>(std::move(shape), std::move(strides), reinterpret_cast<const Elem*>(p->data()), owner);
}

template <class T>
py::array_t<T> vector_array(const std::vector<T>& v) {
  py::array_t<T> a(static_cast<py::ssize_t>(v.size()));
  std::copy(v.begin(), v.end(), a.mutable_data());
  return a;
}

// (n, N) float32 rows of quaternions (N = 4) or vectors (N = 3).
template <std::size_t N, class T>
py::array_t<float> rows_array(const std::vector<T>& v) {
  py::array_t<float> a({static_cast<py::ssize_t>(v.size()), static_cast<py::ssize_t>(N)});
  float* out = a.mutable_data();
  for (const auto& x : v)
    for (unsigned j = 0; j < N; ++j) *out++ = x[j];
  return a;
}

std::string shape_text(const py::array& a);

// `obj` as an array of T (converted when its dtype differs) with `ndim` dimensions whose sizes
// equal `shape` where it is not -1; otherwise invalid_argument naming `field`.
template <class T>
py::array_t<T, py::array::forcecast> checked_array(py::handle obj, const std::string& field,
                                                   std::vector<py::ssize_t> shape) {
  auto a = py::array_t<T, py::array::forcecast>::ensure(obj);
  if (!a) {
    PyErr_Clear();
    raise(mab::ErrorCode::invalid_argument, field, "expected an array of numbers");
  }
  bool ok = a.ndim() == static_cast<py::ssize_t>(shape.size());
  for (std::size_t i = 0; ok && i < shape.size(); ++i)
    ok = shape[i] < 0 || a.shape(static_cast<py::ssize_t>(i)) == shape[i];
  if (!ok) {
    std::string want = "(";
    for (std::size_t i = 0; i < shape.size(); ++i)
      want += (i ? ", " : "") + (shape[i] < 0 ? std::string("n") : std::to_string(shape[i]));
    want += shape.size() == 1 ? ",)" : ")";
    raise(mab::ErrorCode::invalid_argument, field,
          "shape " + shape_text(a) + " where " + want + " is needed (key_times and the bone tables give the sizes)");
  }
  return a;
}

}  // namespace mabpy
