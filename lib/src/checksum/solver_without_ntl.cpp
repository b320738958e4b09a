// The crc-search solver where NTL, gf2x and GMP have no build (Windows, MinGW-w64): it
// solves nothing and says so, once per search, in the notes `mab crc-search` prints. The
// other methods (catalogue, other checksums, catalogue CRCs with a free init) need no NTL
// and run as on Linux (docs/crc-search.md, "Windows").
#include "solver.hpp"

namespace mab::checksum::detail {

Result<SolverResult> solve_crc32(std::span<const SolverRange>, std::span<const std::array<std::uint64_t, 2>>,
                                 std::span<const Endian>, const SolverOptions&) {
  SolverResult out;
  out.notes.push_back(
      "solver: not in this build (NTL has no Windows build): fully unknown 32-bit CRC parameters were not "
      "searched; the catalogue CRCs, the other checksums and catalogue CRCs with a free init were");
  return out;
}

}  // namespace mab::checksum::detail
