// Compatibility: the declarations this header held now live in headers named after them
// (decode_clip.hpp, encode_clip.hpp, edit_policy.hpp, requantise.hpp). Include those; this one
// goes once nothing includes it.
#pragma once

#include <mab/decode_clip.hpp>
#include <mab/edit_policy.hpp>
#include <mab/encode_clip.hpp>
#include <mab/requantise.hpp>
