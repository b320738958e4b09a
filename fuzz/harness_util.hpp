// Small helpers shared by the harnesses. Written for both the replay main (any compiler)
// and libFuzzer, so nothing here may depend on clang's FuzzedDataProvider.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <span>

namespace fuzz {

// Consumes an input front to back. Running out yields zeros rather than failing, so every
// input, however short, drives a complete and deterministic run of a harness.
class Input {
 public:
  Input(const std::uint8_t* data, std::size_t size) noexcept : data_(data), size_(size) {}

  std::size_t left() const noexcept { return size_ - pos_; }
  bool empty() const noexcept { return pos_ >= size_; }

  std::uint8_t u8() noexcept { return pos_ < size_ ? data_[pos_++] : 0; }
  std::uint16_t u16() noexcept {
    const auto lo = u8();
    return static_cast<std::uint16_t>(lo | (u8() << 8));
  }
  std::uint32_t u32() noexcept {
    const std::uint32_t lo = u16();
    return lo | (std::uint32_t{u16()} << 16);
  }
  std::uint64_t u64() noexcept {
    const std::uint64_t lo = u32();
    return lo | (std::uint64_t{u32()} << 32);
  }
  float f32() noexcept {
    const std::uint32_t bits = u32();
    float f;
    std::memcpy(&f, &bits, sizeof f);
    return f;
  }
  // Up to `n` bytes (fewer at the end of the input).
  std::span<const std::uint8_t> bytes(std::size_t n) noexcept {
    if (n > left()) n = left();
    const std::span<const std::uint8_t> s(data_ + pos_, n);
    pos_ += n;
    return s;
  }
  std::span<const std::uint8_t> rest() noexcept { return bytes(left()); }

 private:
  const std::uint8_t* data_;
  std::size_t size_;
  std::size_t pos_ = 0;
};

// splitmix64: a deterministic stream of choices seeded from the input, for harnesses whose
// input is a whole file and must not be consumed by the choices themselves.
class Rng {
 public:
  explicit Rng(std::uint64_t seed) noexcept : state_(seed) {}
  std::uint64_t next() noexcept {
    std::uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  // Uniform enough in [0, n) for choosing among a few thousand items; n > 0.
  std::size_t below(std::size_t n) noexcept { return static_cast<std::size_t>(next() % n); }
  // In [0, 1).
  double unit() noexcept { return static_cast<double>(next() >> 11) * 0x1.0p-53; }

 private:
  std::uint64_t state_;
};

// FNV-1a over the whole input: the seed for Rng.
inline std::uint64_t hash_bytes(const std::uint8_t* data, std::size_t size) noexcept {
  std::uint64_t h = 0xCBF29CE484222325ull;
  for (std::size_t i = 0; i < size; ++i) h = (h ^ data[i]) * 0x100000001B3ull;
  return h;
}

// A broken invariant. abort() is what both libFuzzer and the replay main report as a crash
// with a stack trace; the message says which property failed.
[[noreturn]] inline void fail(const char* what) {
  std::fprintf(stderr, "fuzz invariant broken: %s\n", what);
  std::fflush(stderr);
  std::abort();
}

inline void check(bool ok, const char* what) {
  if (!ok) [[unlikely]]
    fail(what);
}

}  // namespace fuzz
