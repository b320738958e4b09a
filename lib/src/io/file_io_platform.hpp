// What lib/src/io/file_io.cpp needs from the operating system, implemented once per platform
// in file_io_posix.cpp and file_io_win32.cpp (CMakeLists.txt picks one). The rest of
// <mab/file_io.hpp> (resolve_output, AtomicFile's open/write/commit, keep_backup,
// file_identity) is implemented there too.
#pragma once

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <string>

namespace mab::platform {

// The file opened for reading in binary mode, or null with errno set.
std::FILE* open_for_reading(const std::filesystem::path& path);

// The size of the open file when it is a regular file (pipes and devices have none).
std::optional<std::uint64_t> regular_file_size(std::FILE* f);

// Closes a descriptor of AtomicFile and removes `temporary` when it is not empty.
void close_and_remove(int fd, const std::filesystem::path& temporary) noexcept;

// A path as UTF-8 text, for messages.
std::string display(const std::filesystem::path& path);

// errno's text.
std::string errno_text(int e);

}  // namespace mab::platform
