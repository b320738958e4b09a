// Internal: the refusal of the error policy (edit_policy, legacy_edit_policy; decision 21), one
// text for every encoder and command.
#pragma once

#include <mab/error.hpp>

#include <string>

namespace mab::encode {

// invalid_argument, field "max_error": "<what> is E degrees off, above --max-error B; nothing
// written (--max-error E' accepts it)". `what` names the bone or track and why it cannot be
// stored finer.
Error max_error_refusal(const std::string& what, double error_deg, double bound_deg);

// The same for a translation track: "... is E units off, above --max-translation-error B; ...".
Error max_translation_error_refusal(const std::string& what, double error, double bound);

}  // namespace mab::encode
