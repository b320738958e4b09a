// Library texts name options as {opt:NAME} (mab/error.hpp); tests that check a message names
// the option a user would pass spell it as the CLI does, by the CLI's own rule.
#pragma once

#include "../../cli/flag_spelling.hpp"

#include <string>
#include <string_view>

namespace mab::test {

inline std::string as_flag(std::string_view name) { return cli::flag_spelling(name); }

}  // namespace mab::test
