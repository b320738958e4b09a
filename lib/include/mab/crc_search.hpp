// crc-search: identify the checksum stored in a header field from a set of files.
//
// Three families are tried, over candidate byte ranges:
//  * every catalogue CRC (and Dunia's CRC-64 halves) and the other checksums, over the
//    standard ranges plus an exhaustive start/end sweep (incremental CRC);
//  * every 32-bit catalogue CRC with a free initial value (solved, then checked);
//  * a solver for fully unknown 32-bit CRCs (poly, init, xorout, reflection) from
//    differences of equal-length messages, via GF(2)[x] GCD / factoring and GF(2)
//    linear algebra (docs/crc-search.md).
#pragma once

#include <mab/checksum.hpp>
#include <mab/result.hpp>

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

namespace mab::checksum {

struct InputFile {
  std::string name;
  std::vector<std::uint8_t> bytes;
};

struct SearchOptions {
  FieldSpec field{};  // its endian is the only one tried unless both_endians
  bool both_endians = true;
  std::size_t max_ranges = 4096;  // budget of the start x end sweep
  unsigned threads = 0;           // 0: one per hardware thread
  bool catalogue = true;          // catalogue CRCs and the other checksums
  bool free_init = true;          // 32-bit catalogue CRCs with any init
  bool solver = true;             // unknown 32-bit CRC parameters
  // Also refin != refout: doubles the solver's work for a combination that no 32-bit
  // catalogue CRC uses (CRC-12/UMTS is the only catalogue CRC with it).
  bool solver_mixed_reflection = false;
  // A match must leave this many bits of evidence after paying for every hypothesis
  // tried (log2 of their number): about one false positive in 2^N searches.
  double min_evidence_bits = 20.0;
  std::size_t max_results = 20;
  std::function<void(const std::string&)> progress;  // may be called from worker threads, serialised
};

enum class Method : std::uint8_t { catalogue, other, free_init, solver };
std::string_view method_name(Method m);

struct Match {
  ChecksumSpec spec;
  Method method = Method::catalogue;
  std::string range_label;      // e.g. "from 0x10 to end of file"
  double evidence_bits = 0;     // see SearchOptions::min_evidence_bits
  unsigned ambiguous_bits = 0;  // init/xorout bits the files cannot pin down
  std::string note;
};

struct SearchStats {
  std::size_t files = 0;
  std::size_t ranges = 0;           // distinct candidate ranges after deduplication
  std::size_t standard_ranges = 0;  // of which named ranges (the solver's)
  std::size_t algorithms = 0;       // CRCs + other checksums
  std::uint64_t candidates = 0;     // (algorithm, range, byte order, part) hypotheses
  std::uint64_t free_init_candidates = 0;
  std::uint64_t solver_systems = 0;      // (range group, reflection, byte order) systems
  std::uint64_t solver_polynomials = 0;  // candidate polynomials tested
  std::size_t weak_matches = 0;          // matched every file but with too little evidence
  std::size_t suppressed = 0;            // equivalent variants of a better match
  std::vector<std::string> notes;        // why some things were not tried
  double seconds = 0;
};

struct SearchReport {
  std::vector<Match> matches;  // best first; each verified on every file
  SearchStats stats;
};

// Needs at least two files (three or more to make matches meaningful) whose field
// lies inside the file.
Result<SearchReport> search(std::span<const InputFile> files, const SearchOptions& options);

}  // namespace mab::checksum
