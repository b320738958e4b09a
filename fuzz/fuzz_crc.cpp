// The CRC engine (lib/include/mab/crc.hpp) against a plain bit-at-a-time Rocksoft model, for
// random parameters of every width 1..64, both table-driven paths (refin and not) and the
// zlib fast path (width 32, poly 0x04C11DB7, refin), one-shot and split into two updates.
// Also the GF(2)[x] helpers the CRC search builds on, against schoolbook arithmetic.
//
// Input: a mode byte, parameters (or a catalogue index), a split point, then the data.
#include "harness_util.hpp"

#include <mab/crc.hpp>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <span>
#include <string>

namespace {

using fuzz::check;
using mab::crc::CrcParams;

std::uint64_t mask_of(unsigned width) { return width >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << width) - 1; }

std::uint64_t reflect_bits(std::uint64_t v, unsigned width) {
  std::uint64_t r = 0;
  for (unsigned i = 0; i < width; ++i) r |= ((v >> i) & 1u) << (width - 1 - i);
  return r;
}

// The Rocksoft model as written in Williams' paper: an MSB-first register of `width` bits
// fed one message bit at a time, each byte taken LSB first when refin.
std::uint64_t model_register(const CrcParams& p, std::span<const std::uint8_t> data) {
  const std::uint64_t mask = mask_of(p.width);
  std::uint64_t reg = p.init;
  for (const std::uint8_t byte : data) {
    for (unsigned i = 0; i < 8; ++i) {
      const unsigned bit = p.refin ? (byte >> i) & 1u : (byte >> (7 - i)) & 1u;
      const auto top = static_cast<unsigned>((reg >> (p.width - 1)) & 1u);
      reg = (reg << 1) & mask;
      if (top ^ bit) reg ^= p.poly;
    }
  }
  return reg;
}

std::uint64_t model_output(const CrcParams& p, std::uint64_t reg) {
  return (p.refout ? reflect_bits(reg, p.width) : reg) ^ p.xorout;
}

// a * b mod (x^width + poly), schoolbook: shift-and-add with reduction at every step.
std::uint64_t model_mulmod(std::uint64_t a, std::uint64_t b, std::uint64_t poly, unsigned width) {
  const std::uint64_t mask = mask_of(width);
  std::uint64_t r = 0;
  for (unsigned i = 0; i < width; ++i) {
    if ((b >> i) & 1u) r ^= a;
    const bool top = ((a >> (width - 1)) & 1u) != 0;
    a = (a << 1) & mask;
    if (top) a ^= poly;
  }
  return r;
}

void report(const CrcParams& p, const char* what, std::uint64_t got, std::uint64_t want) {
  std::fprintf(stderr, "%s: %s: got 0x%llx, model 0x%llx\n", mab::crc::describe(p).c_str(), what,
               static_cast<unsigned long long>(got), static_cast<unsigned long long>(want));
  fuzz::fail(what);
}

void engine_against_model(const CrcParams& p, std::size_t split, std::span<const std::uint8_t> data) {
  auto made = mab::crc::CrcEngine::make(p);
  if (!made) {
    std::fprintf(stderr, "%s: %s\n", mab::crc::describe(p).c_str(), made.error().message().c_str());
    fuzz::fail("CrcEngine::make rejected valid parameters");
  }
  const mab::crc::CrcEngine& e = *made;
  const std::uint64_t reg = model_register(p, data);
  const std::uint64_t want = model_output(p, reg);

  if (const std::uint64_t got = e.compute(data); got != want) report(p, "compute()", got, want);
  if (split > data.size()) split = data.size();
  const std::uint64_t r = e.update(e.update(e.start(), data.first(split)), data.subspan(split));
  if (const std::uint64_t got = e.finish(r); got != want) report(p, "update() split in two", got, want);
  if (const std::uint64_t got = e.to_poly(r); got != reg) report(p, "to_poly(register)", got, reg);
  if (const std::uint64_t got = e.from_poly(reg); got != r) report(p, "from_poly(register)", got, r);
  if (const std::uint64_t got = e.to_poly(e.start()); got != p.init) report(p, "to_poly(start())", got, p.init);
  if (const std::uint64_t got = e.output_of_poly(reg); got != want) report(p, "output_of_poly()", got, want);

  auto once = mab::crc::compute(p, data);
  check(once.ok() && *once == want, "crc::compute() disagrees with the engine");
}

void arithmetic_against_model(const CrcParams& p, std::uint64_t a, std::uint64_t b, std::uint64_t n) {
  const unsigned w = p.width;
  const std::uint64_t mask = mask_of(w);
  a &= mask;
  b &= mask;
  if (mab::crc::width_mask(w) != mask) report(p, "width_mask()", mab::crc::width_mask(w), mask);
  if (mab::crc::reflect(a, w) != reflect_bits(a, w))
    report(p, "reflect()", mab::crc::reflect(a, w), reflect_bits(a, w));
  const std::uint64_t prod = model_mulmod(a, b, p.poly, w);
  if (const std::uint64_t got = mab::crc::mulmod(a, b, p.poly, w); got != prod) report(p, "mulmod()", got, prod);

  // x^n by square-and-multiply in the model, to check the library's exponentiation.
  const std::uint64_t x = w == 1 ? (p.poly & 1u) : 2u;  // x mod P (for width 1, x = poly)
  std::uint64_t xn = 1u, base = x;
  for (std::uint64_t e = n; e != 0; e >>= 1) {
    if (e & 1u) xn = model_mulmod(xn, base, p.poly, w);
    base = model_mulmod(base, base, p.poly, w);
  }
  if (const std::uint64_t got = mab::crc::xpow_mod(n, p.poly, w); got != xn) report(p, "xpow_mod()", got, xn);
  std::uint64_t x_to_8 = 1u;
  for (int i = 0; i < 8; ++i) x_to_8 = model_mulmod(x_to_8, x, p.poly, w);
  const std::uint64_t x8 = model_mulmod(a, x_to_8, p.poly, w);
  if (const std::uint64_t got = mab::crc::mul_x8(a, p.poly, w); got != x8) report(p, "mul_x8()", got, x8);

  // x is invertible modulo P exactly when P has a constant term.
  if (p.poly & 1u) {
    if (const std::uint64_t got = mab::crc::mul_xinv8(x8, p.poly, w); got != a)
      report(p, "mul_xinv8(mul_x8(a))", got, a);
    const std::uint64_t inv = mab::crc::xpow_inv_mod(n, p.poly, w);
    if (const std::uint64_t one = model_mulmod(inv, xn, p.poly, w); one != 1u) report(p, "x^-n * x^n", one, 1u);
  }
}

void invalid_parameters(CrcParams p) {
  const bool wide = p.width >= 64;
  p.width = wide ? 65u : 0u;
  check(!mab::crc::CrcEngine::make(p).ok(), "CrcEngine::make accepted width 0 or 65");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  fuzz::Input in(data, size);
  const std::uint8_t mode = in.u8();
  CrcParams p;
  const auto catalogue = mab::crc::catalogue();
  if ((mode & 3u) == 0 && !catalogue.empty()) {
    // Catalogue parameters, with their published check value as a third opinion.
    const auto& entry = catalogue[in.u8() % catalogue.size()];
    p = entry.params;
    const std::string_view check_input = mab::crc::check_input;
    const auto* chk = reinterpret_cast<const std::uint8_t*>(check_input.data());
    const std::uint64_t model =
        model_output(p, model_register(p, std::span<const std::uint8_t>(chk, check_input.size())));
    if (model != entry.check) report(p, "catalogue check value", entry.check, model);
  } else {
    p.width = 1u + in.u8() % 64u;
    const std::uint64_t mask = mask_of(p.width);
    p.poly = in.u64() & mask;
    p.init = in.u64() & mask;
    p.xorout = in.u64() & mask;
    p.refin = (mode & 4u) != 0;
    p.refout = (mode & 8u) != 0;
    if ((mode & 3u) == 1) {
      // The zlib fast path: standard CRC-32 polynomial with refin, any init/xorout/refout.
      p.width = 32;
      p.poly = 0x04C11DB7;
      p.refin = true;
      p.init &= 0xFFFFFFFFu;
      p.xorout &= 0xFFFFFFFFu;
    }
  }
  const std::uint64_t a = in.u64(), b = in.u64(), n = in.u64();
  const std::size_t split = in.u16();
  if (mode & 16u) {
    // Values wider than the width are rejected, never silently masked.
    CrcParams bad = p;
    if (bad.width < 64) {
      bad.init |= std::uint64_t{1} << bad.width;
      check(!mab::crc::CrcEngine::make(bad).ok(), "CrcEngine::make accepted init wider than the width");
    }
    invalid_parameters(p);
  }
  engine_against_model(p, split, in.rest());
  arithmetic_against_model(p, a, b, n);
  return 0;
}
