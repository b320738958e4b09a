#include <mab/file_io.hpp>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <random>
#include <unistd.h>

namespace mab {

Result<std::vector<std::uint8_t>> read_file(const std::filesystem::path& path, const Limits& limits) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    return make_error(ErrorCode::io_error, no_offset, path.string(), "is a directory");
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) return make_error(ErrorCode::io_error, no_offset, path.string(), std::strerror(errno));
  std::vector<std::uint8_t> out;
  // A regular file says its size: one larger than the limit is refused before any of it is
  // read, and the buffer is sized once. (Pipes and the like are read to the limit.)
  struct stat st {};
  if (::fstat(::fileno(f), &st) == 0 && S_ISREG(st.st_mode)) {
    const auto size = static_cast<std::uint64_t>(st.st_size);
    if (size > limits.max_file_size) {
      std::fclose(f);
      return make_error(ErrorCode::limit_exceeded, 0, path.string(),
                        "file of " + std::to_string(size) + " bytes is larger than the limit of " +
                            std::to_string(limits.max_file_size) + " bytes");
    }
    out.reserve(static_cast<std::size_t>(size));
  }
  std::uint8_t buf[1 << 16];
  for (;;) {
    const std::size_t n = std::fread(buf, 1, sizeof buf, f);
    if (out.size() + n > limits.max_file_size) {
      std::fclose(f);
      return make_error(ErrorCode::limit_exceeded, out.size(), path.string(),
                        "file larger than the limit of " + std::to_string(limits.max_file_size) + " bytes");
    }
    out.insert(out.end(), buf, buf + n);
    if (n < sizeof buf) break;
  }
  const bool failed = std::ferror(f) != 0;
  std::fclose(f);
  if (failed) return make_error(ErrorCode::io_error, no_offset, path.string(), "read failed");
  return out;
}

Status write_file_atomic(const std::filesystem::path& path, std::span<const std::uint8_t> bytes) {
  const auto dir = path.has_parent_path() ? path.parent_path() : std::filesystem::path(".");
  std::random_device rd;
  const auto tmp = dir / ("." + path.filename().string() + ".tmp" + std::to_string(rd() % 1000000));
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) return make_error(ErrorCode::io_error, no_offset, path.string(),
                                std::string("cannot create temporary file: ") + std::strerror(errno));
  std::size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      const int e = errno;
      ::close(fd);
      ::unlink(tmp.c_str());
      return make_error(ErrorCode::io_error, no_offset, path.string(), std::string("write failed: ") + std::strerror(e));
    }
    done += static_cast<std::size_t>(n);
  }
  if (::fsync(fd) != 0 || ::close(fd) != 0) {
    const int e = errno;
    ::unlink(tmp.c_str());
    return make_error(ErrorCode::io_error, no_offset, path.string(), std::string("flush failed: ") + std::strerror(e));
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    const int e = errno;
    ::unlink(tmp.c_str());
    return make_error(ErrorCode::io_error, no_offset, path.string(), std::string("rename failed: ") + std::strerror(e));
  }
  return {};
}

}  // namespace mab
