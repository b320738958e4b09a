// Whole-file reads with a size cap, and atomic writes (temporary file in the same
// folder, then rename): an error never leaves a half-written output behind.
#pragma once

#include <mab/limits.hpp>
#include <mab/result.hpp>

#include <cstdint>
#include <filesystem>
#include <span>
#include <vector>

namespace mab {

Result<std::vector<std::uint8_t>> read_file(const std::filesystem::path& path,
                                            const Limits& limits = default_limits);

// Writes `bytes` to a temporary file next to `path`, flushes it, then renames it
// over `path`. On any failure the temporary file is removed and `path` is untouched.
Status write_file_atomic(const std::filesystem::path& path, std::span<const std::uint8_t> bytes);

}  // namespace mab
