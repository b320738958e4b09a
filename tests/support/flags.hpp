// Library texts name options as {opt:NAME} (mab/error.hpp); tests that check a message names
// the option a user would pass spell it as the CLI does (cli::flag_spelling: --max-error).
#pragma once

#include <string>
#include <string_view>

namespace mab::test {

inline std::string as_flag(std::string_view name) {
  std::string flag = "--";
  for (const char ch : name) flag += ch == '_' ? '-' : ch;
  return flag;
}

}  // namespace mab::test
