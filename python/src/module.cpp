// The compiled part of the mabkit package (python/mabkit/__init__.py wraps it): pybind11
// bindings over the library's public API (lib/include/mab), docs/python.md, docs/python.md.
#include "handle.hpp"

#include <pybind11/pybind11.h>

PYBIND11_MODULE(_mabkit, m) {
  m.doc() = "mabkit's compiled core; use the mabkit package, not this module";
  m.attr("version") = MABKIT_VERSION;
  mabpy::bind_file(m);
  mabpy::bind_ani(m);
  mabpy::bind_legacy(m);
  mabpy::bind_bench(m);
}
