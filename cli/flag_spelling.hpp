// How mab spells a library option name ({opt:NAME} in library texts, mab/error.hpp) as its flag:
// max_error -> --max-error. Header-only so the tests that check a library message names the
// option spell it by this very rule without linking the CLI (tests/support/flags.hpp).
#pragma once

#include <string>
#include <string_view>

namespace mab::cli {

inline std::string flag_spelling(std::string_view name) {
  std::string flag = "--";
  for (const char ch : name) flag += ch == '_' ? '-' : ch;
  return flag;
}

}  // namespace mab::cli
