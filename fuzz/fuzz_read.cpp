// Any bytes: parse, validate and validate_decode; must never crash, hang or over-allocate.
#include <mab/container.hpp>
#include <mab/validate.hpp>

#include <cstddef>
#include <cstdint>
#include <span>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  mab::Limits limits;
  limits.max_file_size = 1u << 20;
  auto c = mab::read_container(std::span<const std::uint8_t>(data, size), limits);
  if (c) {
    (void)mab::validate(*c, limits);
    (void)mab::validate_decode(*c, limits);
  }
  return 0;
}
