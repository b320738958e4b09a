// Table-driven CRC engine and GF(2)[x] helpers for widths 1..64.
#include <mab/crc.hpp>

#include <zlib.h>

#include <cstdio>

namespace mab::crc {

namespace {

constexpr std::uint64_t top_bit = std::uint64_t{1} << 63;

// The polynomial zlib's crc32 hard-codes; any CRC with it and refin = true can use
// zlib's vectorised loop for the register update and apply its own init/xorout.
constexpr std::uint64_t zlib_poly = 0x04C11DB7;

std::uint64_t mul_x(std::uint64_t r, std::uint64_t poly, unsigned width) {
  const std::uint64_t top = (r >> (width - 1)) & 1u;
  r = (r << 1) & width_mask(width);
  return top ? r ^ poly : r;
}

std::uint64_t mul_xinv(std::uint64_t r, std::uint64_t poly, unsigned width) {
  if ((r & 1u) == 0) return r >> 1;
  return ((r ^ poly) >> 1) | (std::uint64_t{1} << (width - 1));
}

std::uint64_t pow_mod(std::uint64_t base, std::uint64_t n, std::uint64_t poly, unsigned width) {
  std::uint64_t result = 1u;
  while (n != 0) {
    if (n & 1u) result = mulmod(result, base, poly, width);
    base = mulmod(base, base, poly, width);
    n >>= 1;
  }
  return result;
}

}  // namespace

std::uint64_t width_mask(unsigned width) { return width >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << width) - 1u; }

std::uint64_t reflect(std::uint64_t value, unsigned width) {
  std::uint64_t out = 0;
  for (unsigned i = 0; i < width; ++i) {
    out = (out << 1) | (value & 1u);
    value >>= 1;
  }
  return out;
}

std::uint64_t mulmod(std::uint64_t a, std::uint64_t b, std::uint64_t poly, unsigned width) {
  std::uint64_t r = 0;
  for (unsigned i = width; i-- > 0;) {
    r = mul_x(r, poly, width);
    if ((b >> i) & 1u) r ^= a;
  }
  return r;
}

std::uint64_t xpow_mod(std::uint64_t n, std::uint64_t poly, unsigned width) {
  return pow_mod(mul_x(1u, poly, width), n, poly, width);
}

std::uint64_t xpow_inv_mod(std::uint64_t n, std::uint64_t poly, unsigned width) {
  return pow_mod(mul_xinv(1u, poly, width), n, poly, width);
}

std::uint64_t mul_x8(std::uint64_t a, std::uint64_t poly, unsigned width) {
  for (int i = 0; i < 8; ++i) a = mul_x(a, poly, width);
  return a;
}

std::uint64_t mul_xinv8(std::uint64_t a, std::uint64_t poly, unsigned width) {
  for (int i = 0; i < 8; ++i) a = mul_xinv(a, poly, width);
  return a;
}

Result<CrcEngine> CrcEngine::make(const CrcParams& p) {
  if (p.width < 1 || p.width > 64)
    return make_error(ErrorCode::invalid_argument, no_offset, "width",
                      "CRC width " + std::to_string(p.width) + " is outside 1..64");
  const std::uint64_t mask = width_mask(p.width);
  if ((p.poly & ~mask) != 0 || (p.init & ~mask) != 0 || (p.xorout & ~mask) != 0)
    return make_error(ErrorCode::invalid_argument, no_offset, "poly",
                      "poly, init or xorout has bits above the width " + std::to_string(p.width));
  CrcEngine e;
  e.params_ = p;
  if (p.refin) {
    const std::uint64_t polyr = reflect(p.poly, p.width);
    for (unsigned i = 0; i < 256; ++i) {
      std::uint64_t c = i;
      for (int k = 0; k < 8; ++k) c = (c & 1u) ? (c >> 1) ^ polyr : c >> 1;
      e.table_[i] = c;
    }
    e.zlib_fast_ = p.width == 32 && p.poly == zlib_poly;
  } else {
    const std::uint64_t poly64 = p.poly << (64 - p.width);
    for (unsigned i = 0; i < 256; ++i) {
      std::uint64_t c = std::uint64_t{i} << 56;
      for (int k = 0; k < 8; ++k) c = (c & top_bit) ? (c << 1) ^ poly64 : c << 1;
      e.table_[i] = c;
    }
  }
  e.start_ = e.from_poly(p.init);
  return e;
}

std::uint64_t CrcEngine::update(std::uint64_t reg, std::span<const std::uint8_t> data) const {
  if (zlib_fast_) {
    // zlib keeps the register complemented between calls.
    const auto c = crc32_z(static_cast<uLong>(reg ^ 0xFFFFFFFFu), data.data(), data.size());
    return (static_cast<std::uint64_t>(c) ^ 0xFFFFFFFFu) & 0xFFFFFFFFu;
  }
  if (params_.refin) {
    for (const std::uint8_t b : data) reg = (reg >> 8) ^ table_[(reg ^ b) & 0xFFu];
  } else {
    for (const std::uint8_t b : data) reg = (reg << 8) ^ table_[((reg >> 56) ^ b) & 0xFFu];
  }
  return reg;
}

std::uint64_t CrcEngine::to_poly(std::uint64_t reg) const {
  return params_.refin ? reflect(reg, params_.width) : reg >> (64 - params_.width);
}

std::uint64_t CrcEngine::from_poly(std::uint64_t poly_reg) const {
  return params_.refin ? reflect(poly_reg, params_.width) : poly_reg << (64 - params_.width);
}

std::uint64_t CrcEngine::output_of_poly(std::uint64_t poly_reg) const {
  const std::uint64_t v = params_.refout ? reflect(poly_reg, params_.width) : poly_reg;
  return v ^ params_.xorout;
}

std::uint64_t CrcEngine::finish(std::uint64_t reg) const { return output_of_poly(to_poly(reg)); }

std::uint64_t CrcEngine::compute(std::span<const std::uint8_t> data) const { return finish(update(start_, data)); }

Result<std::uint64_t> compute(const CrcParams& params, std::span<const std::uint8_t> data) {
  MAB_ASSIGN(auto engine, CrcEngine::make(params));
  return engine.compute(data);
}

std::string describe(const CrcParams& p) {
  const int digits = static_cast<int>((p.width + 3) / 4);
  char buf[256];
  std::snprintf(buf, sizeof buf, "width=%u poly=0x%0*llx init=0x%0*llx refin=%s refout=%s xorout=0x%0*llx", p.width,
                digits, static_cast<unsigned long long>(p.poly), digits, static_cast<unsigned long long>(p.init),
                p.refin ? "true" : "false", p.refout ? "true" : "false", digits,
                static_cast<unsigned long long>(p.xorout));
  return buf;
}

}  // namespace mab::crc
