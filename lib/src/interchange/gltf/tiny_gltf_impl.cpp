// The one translation unit that compiles tinygltf's implementation (Debian's
// libtinygltf-dev ships it in the header). Built here rather than linked from
// libtinygltf.so so that sanitizers and libFuzzer's coverage see its code too.
#include <fstream>  // tiny_gltf.h uses std::ofstream without including it under TINYGLTF_NO_FS
// tiny_gltf.h includes nlohmann/json.hpp under `#pragma GCC visibility push(hidden)`: a standard
// header first included there is hidden, and so is then mab::Error's std::optional member
// (an error on MinGW, whose other headers do not include <optional> earlier).
#include <optional>
#define TINYGLTF_IMPLEMENTATION
#include "interchange/gltf/gltf_document.hpp"
