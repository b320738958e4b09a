// Solver for unknown 32-bit CRC parameters (internal to crc_search).
//
// For two messages of equal length n with checksums c1, c2 in register form,
// c1 + c2 = (M1 + M2) x^32 mod P: init and xorout cancel, so P divides
// D = (M1 + M2) x^32 + c1 + c2. With several pairs P divides their GCD; with one pair
// P is a degree-32 product of D's irreducible factors of degree <= 32, found by
// extracting D's 32-smooth part (GCD with prod (x^(2^k) - x) mod D) and factoring it.
// Given P, init and xorout are unknowns of a GF(2) linear system, one equation per
// file bit; what is left over after solving is the evidence.
#pragma once

#include <mab/checksum.hpp>
#include <mab/result.hpp>

#include <array>
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

namespace mab::checksum::detail {

struct SolverRange {
  std::vector<std::span<const std::uint8_t>> messages;  // one per file: covered bytes
};

struct SolverOptions {
  bool mixed_reflection = false;
  unsigned threads = 1;
  std::function<void(const std::string&)> progress;
};

struct SolverHit {
  std::size_t range = 0;  // index into the ranges given
  Endian endian = Endian::little;
  crc::CrcParams params;
  unsigned ambiguous_bits = 0;
  double spare_bits = 0;  // before paying for the number of hypotheses
  std::string note;
};

struct SolverResult {
  std::vector<SolverHit> hits;
  std::uint64_t systems = 0;
  std::uint64_t polynomials = 0;
  std::uint64_t hypotheses = 0;  // every (polynomial, init/xorout hypothesis) tested
  std::vector<std::string> notes;
};

// values[f][e]: field value of file f read little- (e = 0) or big-endian (e = 1).
// `endians` lists which of the two to try.
Result<SolverResult> solve_crc32(std::span<const SolverRange> ranges,
                                 std::span<const std::array<std::uint64_t, 2>> values, std::span<const Endian> endians,
                                 const SolverOptions& options);

}  // namespace mab::checksum::detail
