// CRC engine, catalogue check values and the other checksums.
#include <mab/checksum.hpp>
#include <mab/crc.hpp>

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

namespace {

using mab::crc::CrcParams;

std::vector<std::uint8_t> bytes_of(std::string_view s) { return {s.begin(), s.end()}; }

// Bit-at-a-time reference straight from the Rocksoft model, independent of the
// table-driven engine.
std::uint64_t reference_crc(const CrcParams& p, std::span<const std::uint8_t> data) {
  const std::uint64_t mask = mab::crc::width_mask(p.width);
  std::uint64_t reg = p.init;
  for (std::uint8_t byte : data) {
    for (int i = 0; i < 8; ++i) {
      const unsigned bit = p.refin ? (unsigned{byte} >> i) & 1u : (unsigned{byte} >> (7 - i)) & 1u;
      const std::uint64_t top = (reg >> (p.width - 1)) & 1u;
      reg = (reg << 1) & mask;
      if (top ^ bit) reg ^= p.poly;
    }
  }
  if (p.refout) reg = mab::crc::reflect(reg, p.width);
  return reg ^ p.xorout;
}

TEST(Crc, CatalogueCheckValues) {
  const auto input = bytes_of(mab::crc::check_input);
  ASSERT_GE(mab::crc::catalogue().size(), 110u);
  for (const auto& e : mab::crc::catalogue()) {
    auto engine = mab::crc::CrcEngine::make(e.params);
    ASSERT_TRUE(engine) << e.name;
    EXPECT_EQ(engine->compute(input), e.check) << e.name;
    EXPECT_EQ(reference_crc(e.params, input), e.check) << e.name;
  }
}

TEST(Crc, CatalogueCoversEveryWidthGroup) {
  int w32 = 0, w16 = 0, w8 = 0, w64 = 0;
  for (const auto& e : mab::crc::catalogue()) {
    w32 += e.params.width == 32;
    w16 += e.params.width == 16;
    w8 += e.params.width == 8;
    w64 += e.params.width == 64;
  }
  EXPECT_EQ(w32, 12);
  EXPECT_EQ(w16, 31);
  EXPECT_EQ(w8, 20);
  EXPECT_EQ(w64, 8);  // seven catalogue entries + CRC-64/DUNIA
}

TEST(Crc, ResidueOfCodewordMatchesCatalogue) {
  // Appending the CRC (in the algorithm's bit order) to the message must leave the
  // published residue in the register: checks refout handling at every width.
  const auto input = bytes_of(mab::crc::check_input);
  for (const auto& e : mab::crc::catalogue()) {
    if (e.params.width % 8 != 0 || e.params.refin != e.params.refout) continue;
    auto msg = input;
    const std::uint64_t crc = e.check;
    const unsigned nbytes = e.params.width / 8;
    for (unsigned i = 0; i < nbytes; ++i) {
      const unsigned shift = e.params.refin ? 8 * i : 8 * (nbytes - 1 - i);
      msg.push_back(static_cast<std::uint8_t>(crc >> shift));
    }
    auto engine = mab::crc::CrcEngine::make(e.params);
    ASSERT_TRUE(engine);
    const std::uint64_t reg = engine->to_poly(engine->update(engine->start(), msg));
    const std::uint64_t residue = e.params.refout ? mab::crc::reflect(reg, e.params.width) : reg;
    EXPECT_EQ(residue, e.residue) << e.name;
  }
}

TEST(Crc, RandomParametersMatchReference) {
  std::mt19937_64 rng(7);
  std::vector<std::uint8_t> data(333);
  for (auto& b : data) b = static_cast<std::uint8_t>(rng());
  for (unsigned width = 1; width <= 64; ++width) {
    for (int variant = 0; variant < 4; ++variant) {
      const auto mask = mab::crc::width_mask(width);
      CrcParams p{width, rng() & mask, rng() & mask, (variant & 1) != 0, (variant & 2) != 0, rng() & mask};
      auto engine = mab::crc::CrcEngine::make(p);
      ASSERT_TRUE(engine);
      EXPECT_EQ(engine->compute(data), reference_crc(p, data)) << mab::crc::describe(p);
    }
  }
}

TEST(Crc, ZlibFastPathAgreesWithTable) {
  std::mt19937_64 rng(11);
  std::vector<std::uint8_t> data(5000);
  for (auto& b : data) b = static_cast<std::uint8_t>(rng());
  for (std::uint64_t init : {0x0ull, 0xFFFFFFFFull, 0x12345678ull}) {
    CrcParams p{32, 0x04C11DB7, init, true, true, 0xFFFFFFFF};
    auto engine = mab::crc::CrcEngine::make(p);
    ASSERT_TRUE(engine);
    EXPECT_EQ(engine->compute(data), reference_crc(p, data));
  }
}

TEST(Crc, RejectsInvalidParameters) {
  EXPECT_FALSE(mab::crc::CrcEngine::make(CrcParams{0, 1, 0, false, false, 0}));
  EXPECT_FALSE(mab::crc::CrcEngine::make(CrcParams{65, 1, 0, false, false, 0}));
  EXPECT_FALSE(mab::crc::CrcEngine::make(CrcParams{8, 0x107, 0, false, false, 0}));
  EXPECT_FALSE(mab::crc::CrcEngine::make(CrcParams{8, 0x07, 0x100, false, false, 0}));
}

TEST(Crc, SubrangeFromPrefixRegisters) {
  // crc[s, e) = R(e) + (R(s) + init) x^(8(e-s)) mod P, the identity the range sweep uses.
  std::mt19937_64 rng(3);
  std::vector<std::uint8_t> data(700);
  for (auto& b : data) b = static_cast<std::uint8_t>(rng());
  for (const char* name : {"CRC-32/ISO-HDLC", "CRC-16/XMODEM", "CRC-64/XZ", "CRC-5/USB", "CRC-12/UMTS"}) {
    const auto* e = mab::crc::find_catalogue(name);
    ASSERT_NE(e, nullptr);
    const auto& p = e->params;
    auto raw = mab::crc::CrcEngine::make(CrcParams{p.width, p.poly, 0, p.refin, p.refout, 0});
    auto full = mab::crc::CrcEngine::make(p);
    ASSERT_TRUE(raw && full);
    const std::size_t s = 37, end = 611;
    const auto rs = raw->to_poly(raw->update(0, std::span(data).first(s)));
    const auto re = raw->to_poly(raw->update(0, std::span(data).first(end)));
    const auto shift = mab::crc::xpow_mod(8 * (end - s), p.poly, p.width);
    const auto reg = re ^ mab::crc::mulmod(rs ^ p.init, shift, p.poly, p.width);
    EXPECT_EQ(full->output_of_poly(reg), full->compute(std::span(data).subspan(s, end - s))) << name;
    // x^n * x^-n == 1
    EXPECT_EQ(mab::crc::mulmod(shift, mab::crc::xpow_inv_mod(8 * (end - s), p.poly, p.width), p.poly, p.width), 1u);
  }
}

TEST(Crc, Lookup) {
  ASSERT_NE(mab::crc::find_catalogue("crc-32"), nullptr);
  EXPECT_EQ(mab::crc::find_catalogue("crc-32")->name, "CRC-32/ISO-HDLC");
  EXPECT_EQ(mab::crc::find_catalogue("CRC-32C")->name, "CRC-32/ISCSI");
  EXPECT_EQ(mab::crc::find_catalogue("nope"), nullptr);
  EXPECT_EQ(mab::crc::catalogue_name(mab::crc::find_catalogue("CRC-32/BZIP2")->params), "CRC-32/BZIP2");
}

TEST(OtherChecksums, KnownVectors) {
  using mab::checksum::compute_other;
  using mab::checksum::Kind;
  EXPECT_EQ(compute_other(Kind::adler32, bytes_of("Wikipedia")), 0x11E60398u);
  EXPECT_EQ(compute_other(Kind::fletcher32, bytes_of("abcde")), 0xF04FC729u);
  EXPECT_EQ(compute_other(Kind::fletcher32, bytes_of("abcdef")), 0x56502D2Au);
  EXPECT_EQ(compute_other(Kind::fnv1a_32, bytes_of("")), 0x811C9DC5u);
  EXPECT_EQ(compute_other(Kind::fnv1a_32, bytes_of("a")), 0xE40C292Cu);
  EXPECT_EQ(compute_other(Kind::fnv1_32, bytes_of("a")), 0x050C5D7Eu);
  EXPECT_EQ(compute_other(Kind::fnv1a_32, bytes_of("foobar")), 0xBF9CF968u);
  EXPECT_EQ(compute_other(Kind::sum32, bytes_of("123456789")), 477u);
  const std::vector<std::uint8_t> words{1, 0, 0, 0, 2};
  EXPECT_EQ(compute_other(Kind::sum32_words, words), 3u);
  EXPECT_EQ(compute_other(Kind::xor32, words), 3u);
  EXPECT_EQ(compute_other(Kind::xor32, bytes_of("\x01\x02\x03\x04\x01")), 0x04030200u);
}

TEST(OtherChecksums, StreamingEqualsOneShot) {
  std::mt19937_64 rng(5);
  std::vector<std::uint8_t> data(20000);
  for (auto& b : data) b = static_cast<std::uint8_t>(rng());
  for (const auto kind : mab::checksum::other_kinds()) {
    mab::checksum::OtherState s(kind);
    std::size_t pos = 0;
    for (std::size_t step : {1u, 2u, 3u, 6000u, 7u, 9000u}) {
      s.update(std::span(data).subspan(pos, step));
      pos += step;
      EXPECT_EQ(s.value(), mab::checksum::compute_other(kind, std::span(data).first(pos)))
          << mab::checksum::kind_name(kind) << " at " << pos;
    }
  }
}

}  // namespace
