// The error policy shared by `mab import` (JSON and glTF) and `mab edit` (decision 21): one bound,
// one way to meet it, one refusal (docs/json-format.md "Error policy").
#include <mab/edit_policy.hpp>
#include <mab/encode_clip.hpp>
#include <mab/legacy.hpp>

#include "encode/edit_policy.hpp"

#include <cmath>
#include <cstdio>

namespace mab {

EncodeOptions edit_policy(double max_error_deg, std::optional<double> max_translation_error) {
  EncodeOptions o;
  o.max_error_deg = max_error_deg;
  o.raise_depth = true;
  o.refuse_above_max_error = true;
  o.max_translation_error = max_translation_error.value_or(default_max_translation_error);
  o.refuse_above_max_translation_error = true;
  return o;
}

LegacyEncodeOptions legacy_edit_policy(double max_error_deg) {
  LegacyEncodeOptions o;
  o.max_error_deg = max_error_deg;
  o.refuse_above_max_error = true;
  return o;
}

namespace encode {

namespace {

// The bound that accepts the error, rounded up at its second significant digit.
double accepting_bound(double error) {
  const double scale = std::pow(10.0, std::floor(std::log10(error)) - 1);
  return std::ceil(error / scale) * scale;
}

}  // namespace

Error max_error_refusal(const std::string& what, double error_deg, double bound_deg) {
  char text[256];
  std::snprintf(text, sizeof text,
                " is %.6f degrees off, above {opt:max_error} %g; nothing written ({opt:max_error} %g accepts it)",
                error_deg, bound_deg, accepting_bound(error_deg));
  return make_error(ErrorCode::invalid_argument, no_offset, "max_error", what + text);
}

Error max_translation_error_refusal(const std::string& what, double error, double bound) {
  char text[256];
  std::snprintf(
      text, sizeof text,
      " is %.6f units off, above {opt:max_translation_error} %g; nothing written ({opt:max_translation_error} %g "
      "accepts it)",
      error, bound, accepting_bound(error));
  return make_error(ErrorCode::invalid_argument, no_offset, "max_translation_error", what + text);
}

}  // namespace encode

}  // namespace mab
