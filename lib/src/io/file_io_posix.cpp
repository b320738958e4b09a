#include <mab/file_io.hpp>

#include "io/file_io_platform.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <optional>
#include <random>
#include <string>
#include <sys/stat.h>
#include <unistd.h>

namespace mab {

namespace platform {

std::FILE* open_for_reading(const std::filesystem::path& path) { return std::fopen(path.c_str(), "rb"); }

std::optional<std::uint64_t> regular_file_size(std::FILE* f) {
  struct stat st {};
  if (::fstat(::fileno(f), &st) != 0 || !S_ISREG(st.st_mode)) return std::nullopt;
  return static_cast<std::uint64_t>(st.st_size);
}

void close_and_remove(int fd, const std::filesystem::path& temporary) noexcept {
  ::close(fd);
  if (!temporary.empty()) ::unlink(temporary.c_str());
}

std::string display(const std::filesystem::path& path) { return path.string(); }

std::string errno_text(int e) { return std::strerror(e); }

}  // namespace platform

namespace {

namespace fs = std::filesystem;

constexpr int k_max_links = 40;  // Linux's own limit for a path lookup (ELOOP)

Error output_error(const OutputTarget& t, const std::string& what) {
  // Through a link, the message says where the link led.
  const std::string where = t.through_link ? "(a link to " + t.file.string() + ") " : std::string();
  return make_error(ErrorCode::io_error, no_offset, t.path.string(), where + what);
}

using platform::errno_text;

bool under_proc(const fs::path& p) {
  std::error_code ec;
  const std::string s = fs::absolute(p, ec).string();
  return s.rfind("/proc/", 0) == 0;
}

// The kinds of file an output may be, by mode (the end of any link chain).
Result<OutputKind> kind_of(const OutputTarget& t, mode_t mode) {
  if (S_ISREG(mode)) return OutputKind::replace_file;
  if (S_ISCHR(mode) || S_ISFIFO(mode)) return OutputKind::stream;
  if (S_ISDIR(mode)) return output_error(t, "is a directory; name a file to write");
  if (S_ISSOCK(mode)) return output_error(t, "is a socket; mab writes files, FIFOs and character devices");
  if (S_ISBLK(mode))
    return output_error(t, "is a block device (a disk); mab writes files, FIFOs and character devices");
  return output_error(t, "is neither a file, a FIFO nor a character device");
}

// The folder a new or replaced regular file's temporary goes in must exist and be writable.
Status check_folder(const OutputTarget& t) {
  const fs::path dir = t.file.has_parent_path() ? t.file.parent_path() : fs::path(".");
  struct stat st {};
  if (::stat(dir.c_str(), &st) != 0)
    return output_error(t, "cannot write in folder " + dir.string() + ": " + errno_text(errno));
  if (!S_ISDIR(st.st_mode)) return output_error(t, "cannot write in " + dir.string() + ": not a folder");
  if (::access(dir.c_str(), W_OK | X_OK) != 0)
    return output_error(t, "cannot write in folder " + dir.string() + ": " + errno_text(errno));
  return {};
}

// Follows the chain of links `t.path` starts, one hop at a time (relative targets from the
// link's own folder). Stops at the first name that is no link, or that does not exist.
// Returns false with `st` unset when the chain ends at nothing.
Result<bool> follow_links(OutputTarget& t, struct stat& st) {
  for (int hops = 0;; ++hops) {
    if (::lstat(t.file.c_str(), &st) != 0) {
      if (errno == ENOENT) return false;
      return output_error(t, errno_text(errno));
    }
    if (!S_ISLNK(st.st_mode)) return true;
    t.through_link = true;
    if (hops == k_max_links) return output_error(t, "more than 40 symbolic links in a chain (a loop?)");
    if (under_proc(t.file)) return true;  // a /proc link names an open file, not a path
    std::string target(4096, '\0');
    const ssize_t n = ::readlink(t.file.c_str(), target.data(), target.size());
    if (n < 0 || static_cast<std::size_t>(n) >= target.size())
      return output_error(t, "cannot read link " + t.file.string() + ": " + errno_text(n < 0 ? errno : ENAMETOOLONG));
    target.resize(static_cast<std::size_t>(n));
    const fs::path next(target);
    t.file = next.is_absolute() || !t.file.has_parent_path() ? next : t.file.parent_path() / next;
  }
}

}  // namespace

Result<OutputTarget> resolve_output(const fs::path& path) {
  OutputTarget t;
  t.path = path;
  t.file = path;
  if (path.empty()) return output_error(t, "no file name");
  struct stat st {};
  MAB_ASSIGN(const bool exists, follow_links(t, st));
  if (!exists) {
    MAB_TRY(check_folder(t));
    t.kind = OutputKind::new_file;
    return t;
  }
  if (S_ISLNK(st.st_mode)) {
    // /dev/stdout, /dev/fd/N: whatever is open there is written as a stream; the shell that
    // opened a regular file there already chose to truncate it or not (written with O_APPEND).
    if (::stat(t.path.c_str(), &st) != 0) return output_error(t, errno_text(errno));
    MAB_ASSIGN(t.kind, kind_of(t, st.st_mode));
    t.kind = OutputKind::stream;
    t.file = t.path;
    return t;
  }
  MAB_ASSIGN(t.kind, kind_of(t, st.st_mode));
  if (t.kind == OutputKind::replace_file) {
    // A file its owner made read-only is not replaced behind their back (root may).
    if (::access(t.file.c_str(), W_OK) != 0)
      return output_error(t, "is not writable (" + errno_text(errno) + "); nothing written");
    MAB_TRY(check_folder(t));
    t.hard_links = static_cast<std::uint64_t>(st.st_nlink);
  }
  return t;
}

namespace {

// A regular target's temporary: in the target's folder (rename does not cross file systems),
// named after it, created exclusively. A replaced file's permission bits and owner carry over.
Result<std::pair<fs::path, int>> create_temporary(const OutputTarget& t) {
  const auto dir = t.file.has_parent_path() ? t.file.parent_path() : fs::path(".");
  struct stat old {};
  const bool replacing = t.kind == OutputKind::replace_file && ::stat(t.file.c_str(), &old) == 0;
  std::random_device rd;
  int err = 0;
  for (int attempt = 0; attempt < 16; ++attempt) {
    auto tmp = dir / ("." + t.file.filename().string() + ".tmp" + std::to_string(rd() % 1000000));
    const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, replacing ? 0600 : 0666);
    if (fd >= 0) {
      if (replacing) {
        // Best effort: only root (or a group member) may give the file away; the mode is ours to set.
        [[maybe_unused]] const int owned = ::fchown(fd, old.st_uid, old.st_gid);
        if (::fchmod(fd, old.st_mode & 0777) != 0) {
          err = errno;
          ::close(fd);
          ::unlink(tmp.c_str());
          break;
        }
      }
      return std::pair{std::move(tmp), fd};
    }
    err = errno;
    if (err != EEXIST) break;
  }
  return output_error(t, "cannot create a temporary file in " + dir.string() + ": " + errno_text(err));
}

}  // namespace

Result<AtomicFile> AtomicFile::open(const fs::path& path) {
  MAB_ASSIGN(OutputTarget t, resolve_output(path));
  if (t.kind == OutputKind::stream) {
    // Blocks on a FIFO until a reader opens it, as a shell's `>` does.
    const int fd = ::open(t.path.c_str(), O_WRONLY | O_CLOEXEC | O_NOCTTY);
    if (fd < 0) return output_error(t, errno_text(errno));
    struct stat st {};
    if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) ::fcntl(fd, F_SETFL, O_APPEND);
    return AtomicFile(std::move(t), {}, fd);
  }
  MAB_ASSIGN(auto tmp, create_temporary(t));
  return AtomicFile(std::move(t), std::move(tmp.first), tmp.second);
}

Status AtomicFile::write(std::span<const std::uint8_t> bytes) {
  if (fd_ < 0) return output_error(target_, "file is not open");
  std::size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::write(fd_, bytes.data() + done, bytes.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      const int e = errno;
      discard();
      return failure("write failed", e);
    }
    done += static_cast<std::size_t>(n);
  }
  return {};
}

Status AtomicFile::commit() {
  if (fd_ < 0) return output_error(target_, "file is not open");
  const int fd = fd_;
  fd_ = -1;
  // A FIFO or a terminal has nothing to sync (EINVAL); a device that does may still fail.
  const int synced = ::fsync(fd) == 0 || (temporary_.empty() && (errno == EINVAL || errno == EROFS)) ? 0 : -1;
  const int e_sync = errno;
  const int closed = ::close(fd);
  if (synced != 0 || closed != 0) {
    const int e = synced != 0 ? e_sync : errno;
    if (!temporary_.empty()) ::unlink(temporary_.c_str());
    return failure("flush failed", e);
  }
  if (temporary_.empty()) return {};
  if (std::rename(temporary_.c_str(), target_.file.c_str()) != 0) {
    const int e = errno;
    ::unlink(temporary_.c_str());
    return failure("rename failed", e);
  }
  return {};
}

namespace {

// The rest of the open file `from` into `to`, flushed to disk; errors say which step failed.
Status copy_into(int from, int to) {
  auto failed = [](const char* what) {
    return make_error(ErrorCode::io_error, no_offset, "", std::string(what) + " failed: " + errno_text(errno));
  };
  std::uint8_t buf[1 << 16];
  for (;;) {
    const ssize_t n = ::read(from, buf, sizeof buf);
    if (n == 0) break;
    if (n < 0) {
      if (errno == EINTR) continue;
      return failed("read");
    }
    for (ssize_t done = 0; done < n;) {
      const ssize_t w = ::write(to, buf + done, static_cast<std::size_t>(n - done));
      if (w < 0 && errno != EINTR) return failed("write");
      done += w < 0 ? 0 : w;
    }
  }
  if (::fsync(to) != 0) return failed("flush");
  return {};
}

}  // namespace

Result<fs::path> keep_backup(const fs::path& file) {
  auto error = [](const fs::path& p, const std::string& what) {
    return make_error(ErrorCode::io_error, no_offset, p.string(), what);
  };
  const int from = ::open(file.c_str(), O_RDONLY | O_CLOEXEC);
  if (from < 0) return error(file, "cannot read it for a backup: " + errno_text(errno));
  struct stat st {};
  const mode_t mode = ::fstat(from, &st) == 0 ? (st.st_mode & 0777) : 0644;
  Result<fs::path> out = error(file, "FILE.bak and FILE.bak.1 to .bak.999 all exist; remove old backups first");
  for (int n = 0; n < 1000; ++n) {
    fs::path bak = file;
    bak += n == 0 ? std::string(".bak") : ".bak." + std::to_string(n);
    // O_EXCL | O_NOFOLLOW: an existing backup, or a link or FIFO of that name, is never written.
    const int to = ::open(bak.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
    if (to < 0 && errno == EEXIST) continue;
    if (to < 0) {
      out = error(bak, "cannot create the backup: " + errno_text(errno));
      break;
    }
    Status copied = copy_into(from, to);
    if (::close(to) != 0 && copied) copied = make_error(ErrorCode::io_error, no_offset, "", "close failed");
    if (copied) {
      out = bak;
    } else {
      ::unlink(bak.c_str());
      out = error(bak, "backup of " + file.string() + ": " + copied.error().detail);
    }
    break;
  }
  ::close(from);
  return out;
}

Result<FileIdentity> file_identity(const fs::path& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0)
    return make_error(ErrorCode::io_error, no_offset, path.string(), errno_text(errno));
  return FileIdentity{static_cast<std::uint64_t>(st.st_dev), static_cast<std::uint64_t>(st.st_ino)};
}

}  // namespace mab
