#include <mab/file_io.hpp>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <random>
#include <unistd.h>

namespace mab {

Result<std::vector<std::uint8_t>> read_file(const std::filesystem::path& path, const Limits& limits,
                                            std::size_t zero_padding) {
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
    out.reserve(static_cast<std::size_t>(size) + zero_padding);
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
  out.resize(out.size() + zero_padding);
  return out;
}

Status write_file_atomic(const std::filesystem::path& path, std::span<const std::uint8_t> bytes) {
  auto f = AtomicFile::open(path);
  if (!f) return std::move(f).error();
  if (auto st = f->write(bytes); !st) return st;
  return f->commit();
}

Result<AtomicFile> AtomicFile::open(const std::filesystem::path& path) {
  const auto dir = path.has_parent_path() ? path.parent_path() : std::filesystem::path(".");
  std::random_device rd;
  // O_EXCL: a name another writer holds is retried rather than shared.
  for (int attempt = 0; attempt < 16; ++attempt) {
    auto tmp = dir / ("." + path.filename().string() + ".tmp" + std::to_string(rd() % 1000000));
    const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd >= 0) return AtomicFile(path, std::move(tmp), fd);
    if (errno != EEXIST) break;
  }
  return make_error(ErrorCode::io_error, no_offset, path.string(),
                    std::string("cannot create temporary file: ") + std::strerror(errno));
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
  ::close(fd_);
  ::unlink(temporary_.c_str());
  fd_ = -1;
}

Status AtomicFile::write(std::span<const std::uint8_t> bytes) {
  if (fd_ < 0) return make_error(ErrorCode::io_error, no_offset, target_.string(), "file is not open");
  std::size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::write(fd_, bytes.data() + done, bytes.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      const int e = errno;
      discard();
      return make_error(ErrorCode::io_error, no_offset, target_.string(), std::string("write failed: ") + std::strerror(e));
    }
    done += static_cast<std::size_t>(n);
  }
  return {};
}

Status AtomicFile::commit() {
  if (fd_ < 0) return make_error(ErrorCode::io_error, no_offset, target_.string(), "file is not open");
  const int fd = fd_;
  fd_ = -1;
  const int synced = ::fsync(fd);
  const int e_sync = errno;
  const int closed = ::close(fd);
  if (synced != 0 || closed != 0) {
    const int e = synced != 0 ? e_sync : errno;
    ::unlink(temporary_.c_str());
    return make_error(ErrorCode::io_error, no_offset, target_.string(), std::string("flush failed: ") + std::strerror(e));
  }
  if (std::rename(temporary_.c_str(), target_.c_str()) != 0) {
    const int e = errno;
    ::unlink(temporary_.c_str());
    return make_error(ErrorCode::io_error, no_offset, target_.string(), std::string("rename failed: ") + std::strerror(e));
  }
  return {};
}

}  // namespace mab
