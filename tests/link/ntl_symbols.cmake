# ctest libmab_without_ntl (CONTRIBUTING.md): libmab carries no NTL, gf2x or GMP symbol, defined
# or undefined, so a program that links only mab::mab needs none of them; the crc-search
# solver (mab::crc_search) is their only user. Run on both archives: EXPECT none for
# libmab, EXPECT some for libmab_crc_search (which shows the check can see them).
#   cmake -DNM=<nm> -DARCHIVE=<lib.a> -DEXPECT=none|some -P ntl_symbols.cmake
cmake_minimum_required(VERSION 3.22)
execute_process(COMMAND ${NM} -C ${ARCHIVE} COMMAND grep -E "NTL::|gf2x_|__gmp"
  OUTPUT_VARIABLE symbols ERROR_QUIET RESULTS_VARIABLE rcs)
list(GET rcs 0 rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${NM} failed on ${ARCHIVE}")
endif()
string(REPLACE "\n" ";" hits "${symbols}")
list(FILTER hits EXCLUDE REGEX "^$")
list(LENGTH hits count)
if(EXPECT STREQUAL "none" AND count GREATER 0)
  list(GET hits 0 first)
  message(FATAL_ERROR "${ARCHIVE}: ${count} NTL/gf2x/GMP symbols, e.g. ${first}")
elseif(EXPECT STREQUAL "some" AND count EQUAL 0)
  message(FATAL_ERROR "${ARCHIVE}: no NTL symbol found: the check cannot see them")
endif()
message(STATUS "${ARCHIVE}: ${count} NTL/gf2x/GMP symbols (expected ${EXPECT})")
