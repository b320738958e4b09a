// Whole-file reads with a size cap, and atomic writes (temporary file in the same
// folder, then rename): an error never leaves a half-written output behind.
#pragma once

#include <mab/limits.hpp>
#include <mab/result.hpp>

#include <cstdint>
#include <filesystem>
#include <span>
#include <string_view>
#include <vector>

namespace mab {

// `zero_padding` zero bytes are appended after the file's bytes, in the same allocation (a
// reader that may read past the end, as simdjson does, then needs no copy).
Result<std::vector<std::uint8_t>> read_file(const std::filesystem::path& path,
                                            const Limits& limits = default_limits, std::size_t zero_padding = 0);

// Writes `bytes` to a temporary file next to `path`, flushes it, then renames it
// over `path`. On any failure the temporary file is removed and `path` is untouched.
Status write_file_atomic(const std::filesystem::path& path, std::span<const std::uint8_t> bytes);

// The same, for output written in pieces (a streamed JSON export): the temporary file is
// created by open(), filled by write(), flushed and renamed over the target by commit().
// Destroyed without a commit (an error half-way), it removes the temporary file and the
// target keeps its old contents, if any.
class AtomicFile {
 public:
  static Result<AtomicFile> open(const std::filesystem::path& path);
  AtomicFile(AtomicFile&& other) noexcept;
  AtomicFile& operator=(AtomicFile&& other) noexcept;
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;
  ~AtomicFile();

  Status write(std::span<const std::uint8_t> bytes);
  Status write(std::string_view text) {
    return write({reinterpret_cast<const std::uint8_t*>(text.data()), text.size()});
  }
  Status commit();

 private:
  AtomicFile(std::filesystem::path target, std::filesystem::path temporary, int fd)
      : target_(std::move(target)), temporary_(std::move(temporary)), fd_(fd) {}
  void discard() noexcept;

  std::filesystem::path target_, temporary_;
  int fd_ = -1;
};

}  // namespace mab
