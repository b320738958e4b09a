// Generic table-driven CRC engine (Williams / Rocksoft model, width 1..64) and the
// catalogue of parametrised CRCs, used by `mab crc-search` and `mab crc-apply` to
// identify and recompute the header checksum at +0x04 (format 14).
#pragma once

#include <mab/result.hpp>

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace mab::crc {

// Rocksoft model parameters. `poly` omits the x^width term; `init` is the value of
// the MSB-first register before the first bit, whatever refin says.
struct CrcParams {
  unsigned width = 32;
  std::uint64_t poly = 0;
  std::uint64_t init = 0;
  bool refin = false;
  bool refout = false;
  std::uint64_t xorout = 0;

  friend bool operator==(const CrcParams&, const CrcParams&) = default;
};

struct CatalogueEntry {
  std::string_view name;
  CrcParams params;
  std::uint64_t check;    // CRC of the ASCII bytes "123456789"
  std::uint64_t residue;  // register after an error-free codeword, before xorout
};

// The public CRC catalogue (all widths up to 64), plus Dunia's CRC-64 variant
// "CRC-64/DUNIA" (reflected poly 0x1B, init 0, xorout 0) at the end.
std::span<const CatalogueEntry> catalogue();

// Case-insensitive; also accepts common aliases ("CRC-32", "CRC-32C", "CRC32").
const CatalogueEntry* find_catalogue(std::string_view name);

// Catalogue name of exactly these parameters, or empty.
std::string_view catalogue_name(const CrcParams& p);

inline constexpr std::string_view check_input = "123456789";

std::uint64_t width_mask(unsigned width);
std::uint64_t reflect(std::uint64_t value, unsigned width);

// GF(2)[x] arithmetic modulo the degree-`width` polynomial x^width + poly, on values
// in normal (MSB = highest degree) order.
std::uint64_t mulmod(std::uint64_t a, std::uint64_t b, std::uint64_t poly, unsigned width);
// x^n mod P.
std::uint64_t xpow_mod(std::uint64_t n, std::uint64_t poly, unsigned width);
// x^-n mod P; requires poly odd (x invertible).
std::uint64_t xpow_inv_mod(std::uint64_t n, std::uint64_t poly, unsigned width);
// a * x^8 mod P, and a * x^-8 mod P (poly odd).
std::uint64_t mul_x8(std::uint64_t a, std::uint64_t poly, unsigned width);
std::uint64_t mul_xinv8(std::uint64_t a, std::uint64_t poly, unsigned width);

class CrcEngine {
 public:
  // Error (invalid_argument) when width is outside 1..64 or a value exceeds the width.
  static Result<CrcEngine> make(const CrcParams& params);

  const CrcParams& params() const noexcept { return params_; }

  std::uint64_t compute(std::span<const std::uint8_t> data) const;

  // Streaming: register values are in the engine's internal form.
  std::uint64_t start() const noexcept { return start_; }
  std::uint64_t update(std::uint64_t reg, std::span<const std::uint8_t> data) const;
  std::uint64_t finish(std::uint64_t reg) const;

  // Internal register <-> MSB-first (polynomial) register. With init = 0, the
  // polynomial register after data M is M(x) * x^width mod P, which makes CRCs of
  // sub-ranges computable from prefix registers (see crc_search).
  std::uint64_t to_poly(std::uint64_t reg) const;
  std::uint64_t from_poly(std::uint64_t poly_reg) const;
  // Output value (refout, xorout applied) of a polynomial-form register.
  std::uint64_t output_of_poly(std::uint64_t poly_reg) const;

 private:
  CrcParams params_;
  std::uint64_t start_ = 0;
  bool zlib_fast_ = false;  // standard reflected CRC-32 polynomial: zlib's crc32
  std::array<std::uint64_t, 256> table_{};
};

// One-shot convenience; error only on invalid parameters.
Result<std::uint64_t> compute(const CrcParams& params, std::span<const std::uint8_t> data);

// "width=32 poly=0x04c11db7 init=0xffffffff refin=true refout=true xorout=0xffffffff"
std::string describe(const CrcParams& p);

}  // namespace mab::crc
