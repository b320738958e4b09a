// The platform-independent part of <mab/file_io.hpp>; file_io_platform.hpp lists the rest.
#include <mab/file_io.hpp>

#include "io/file_io_platform.hpp"

#include <cerrno>
#include <string>

namespace mab {

Result<std::vector<std::uint8_t>> read_file(const std::filesystem::path& path, const Limits& limits,
                                            std::size_t zero_padding) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    return make_error(ErrorCode::io_error, no_offset, platform::display(path), "is a directory");
  std::FILE* f = platform::open_for_reading(path);
  if (!f) return make_error(ErrorCode::io_error, no_offset, platform::display(path), platform::errno_text(errno));
  std::vector<std::uint8_t> out;
  // A regular file says its size: one larger than the limit is refused before any of it is
  // read, and the buffer is sized once. (Pipes and the like are read to the limit.)
  if (const auto size = platform::regular_file_size(f)) {
    if (*size > limits.max_file_size) {
      std::fclose(f);
      return make_error(ErrorCode::limit_exceeded, 0, platform::display(path),
                        "file of " + std::to_string(*size) + " bytes is larger than the limit of " +
                            std::to_string(limits.max_file_size) + " bytes");
    }
    out.reserve(static_cast<std::size_t>(*size) + zero_padding);
  }
  std::uint8_t buf[1 << 16];
  for (;;) {
    const std::size_t n = std::fread(buf, 1, sizeof buf, f);
    if (out.size() + n > limits.max_file_size) {
      std::fclose(f);
      return make_error(ErrorCode::limit_exceeded, out.size(), platform::display(path),
                        "file larger than the limit of " + std::to_string(limits.max_file_size) + " bytes");
    }
    out.insert(out.end(), buf, buf + n);
    if (n < sizeof buf) break;
  }
  const bool failed = std::ferror(f) != 0;
  std::fclose(f);
  if (failed) return make_error(ErrorCode::io_error, no_offset, platform::display(path), "read failed");
  out.resize(out.size() + zero_padding);
  return out;
}

Status write_file_atomic(const std::filesystem::path& path, std::span<const std::uint8_t> bytes) {
  auto f = AtomicFile::open(path);
  if (!f) return std::move(f).error();
  if (auto st = f->write(bytes); !st) return st;
  return f->commit();
}

AtomicFile::AtomicFile(AtomicFile&& other) noexcept
    : target_(std::move(other.target_)), temporary_(std::move(other.temporary_)), fd_(other.fd_) {
  other.fd_ = -1;
}

AtomicFile& AtomicFile::operator=(AtomicFile&& other) noexcept {
  if (this != &other) {
    discard();
    target_ = std::move(other.target_);
    temporary_ = std::move(other.temporary_);
    fd_ = other.fd_;
    other.fd_ = -1;
  }
  return *this;
}

AtomicFile::~AtomicFile() { discard(); }

void AtomicFile::discard() noexcept {
  if (fd_ < 0) return;
  platform::close_and_remove(fd_, temporary_);
  fd_ = -1;
}

Error AtomicFile::failure(std::string_view what, int err) const {
  const std::string where =
      target_.through_link ? "(a link to " + platform::display(target_.file) + ") " : std::string();
  return make_error(ErrorCode::io_error, no_offset, platform::display(target_.path),
                    where + std::string(what) + ": " + platform::errno_text(err));
}

std::filesystem::path path_from_utf8(std::string_view text) {
  return std::filesystem::path(std::u8string(text.begin(), text.end()));
}

}  // namespace mab
