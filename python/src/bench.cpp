// The C++ side of scripts/bench/python: the library's own decode (decode_clip, every key into
// the editable clip) timed in this process, so the module's decode compares with it in one run.
#include "errors.hpp"
#include "handle.hpp"

#include <mab/decode_clip.hpp>

#include <pybind11/stl.h>

#include <chrono>

namespace mabpy {

void bind_bench(pybind11::module_& m) {
  m.def("bench_cpp_decode", [](const FileHandle& f, std::size_t block, std::size_t repeats) {
    f.block(block);
    std::vector<double> seconds;
    for (std::size_t i = 0; i < repeats; ++i) {
      const auto t0 = std::chrono::steady_clock::now();
      const mab::DecodedClip d = take(mab::decode_clip(f.c(), block));
      const auto t1 = std::chrono::steady_clock::now();
      if (d.clip.bones.size() != f.c().blocks[block].bones.size())
        raise(mab::ErrorCode::count_mismatch, "bones", "decode");
      seconds.push_back(std::chrono::duration<double>(t1 - t0).count());
    }
    return seconds;
  });
}

}  // namespace mabpy
