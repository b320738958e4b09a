// A read .mab as the module holds it: the container, shared (read-only) by the File object,
// its blocks and the clips decoded from it.
#pragma once

#include <mab/container.hpp>

#include <pybind11/pybind11.h>

#include <memory>

namespace mabpy {

struct FileHandle {
  std::shared_ptr<const mab::Container> container;

  const mab::Container& c() const { return *container; }
  // The block's index checked: not_found naming it otherwise.
  const mab::Block& block(std::size_t index) const;
};

void bind_file(pybind11::module_& m);
void bind_ani(pybind11::module_& m);
void bind_legacy(pybind11::module_& m);
void bind_bench(pybind11::module_& m);

}  // namespace mabpy
