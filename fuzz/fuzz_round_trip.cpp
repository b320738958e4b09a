// If it parses, writing it must give back the input; parsing that again must give
// the same model (checked by writing it a second time). Aborts on any mismatch.
#include <mab/container.hpp>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <span>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  mab::Limits limits;
  limits.max_file_size = 1u << 20;
  auto c = mab::read_container(std::span<const std::uint8_t>(data, size), limits);
  if (!c) return 0;
  auto w = mab::write_container(*c);
  if (!w || w->size() != size || (size && std::memcmp(w->data(), data, size) != 0)) {
    std::fprintf(stderr, "round trip changed the bytes\n");
    std::abort();
  }
  auto again = mab::read_container(*w, limits);
  if (!again) {
    std::fprintf(stderr, "written file does not parse: %s\n", again.error().message().c_str());
    std::abort();
  }
  auto w2 = mab::write_container(*again);
  if (!w2 || *w2 != *w) std::abort();
  return 0;
}
