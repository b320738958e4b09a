// <mab/file_io.hpp> on Windows (docs/windows.md): the same rules as file_io_posix.cpp with
// Win32 calls. A regular file is replaced by MoveFileExW(MOVEFILE_REPLACE_EXISTING), which
// replaces an existing file atomically (rename does not); every file is opened in binary mode;
// paths are wide. A symbolic link or junction is kept: the file it ends at is written.
// Windows has no FIFOs or device nodes in its file system: a character device (NUL, CON) or a
// named pipe is written as a stream; a directory is refused.
#include <mab/file_io.hpp>

#include "io/file_io_platform.hpp"

#include <cerrno>
#include <climits>
#include <cstring>
#include <fcntl.h>
#include <io.h>
#include <random>
#include <string>
#include <sys/stat.h>
#include <windows.h>

namespace mab {

namespace fs = std::filesystem;

namespace {

// The wide path to hand to Windows. A path made from a std::string holds its bytes one per
// character (the C locale); when those bytes are UTF-8 (the command line, cli/entry_win32.cpp)
// they are decoded, so that every caller may pass UTF-8 text as it does on Linux.
std::wstring native(const fs::path& p) {
  const std::wstring& w = p.native();
  std::string bytes;
  bool high = false;
  for (wchar_t c : w) {
    if (c > 0xFF) return w;
    high = high || c > 0x7F;
    bytes.push_back(static_cast<char>(c));
  }
  if (!high) return w;
  const int n =
      MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, bytes.data(), static_cast<int>(bytes.size()), nullptr, 0);
  if (n <= 0) return w;  // not UTF-8: the characters are what they say
  std::wstring out(static_cast<std::size_t>(n), L'\0');
  MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, bytes.data(), static_cast<int>(bytes.size()), out.data(), n);
  return out;
}

// UTF-8 text of a path for messages.
std::string text(const fs::path& p) {
  const fs::path decoded(native(p));
  const std::u8string u = decoded.u8string();
  return std::string(u.begin(), u.end());
}

std::string win32_text(DWORD e) {
  char buf[512];
  DWORD n = FormatMessageA(FORMAT_MESSAGE_FROM_SYSTEM | FORMAT_MESSAGE_IGNORE_INSERTS, nullptr, e, 0, buf, sizeof buf,
                           nullptr);
  while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == '\r' || buf[n - 1] == ' ' || buf[n - 1] == '.')) --n;
  std::string s = n > 0 ? std::string(buf, n) : std::string("error");
  return s + " (Windows error " + std::to_string(e) + ")";
}

Error output_error(const OutputTarget& t, const std::string& what) {
  const std::string where = t.through_link ? "(a link to " + text(t.file) + ") " : std::string();
  return make_error(ErrorCode::io_error, no_offset, text(t.path), where + what);
}

struct Handle {
  HANDLE h = INVALID_HANDLE_VALUE;
  ~Handle() {
    if (h != INVALID_HANDLE_VALUE) CloseHandle(h);
  }
};

// Opens what `path` names (through links) for its attributes only; FILE_FLAG_BACKUP_SEMANTICS
// lets a folder be opened too.
HANDLE open_for_query(const std::wstring& path) {
  return CreateFileW(path.c_str(), 0, FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, nullptr, OPEN_EXISTING,
                     FILE_FLAG_BACKUP_SEMANTICS, nullptr);
}

Status check_folder(const OutputTarget& t) {
  const fs::path dir = t.file.has_parent_path() ? t.file.parent_path() : fs::path(".");
  const DWORD a = GetFileAttributesW(native(dir).c_str());
  if (a == INVALID_FILE_ATTRIBUTES)
    return output_error(t, "cannot write in folder " + text(dir) + ": " + win32_text(GetLastError()));
  if (!(a & FILE_ATTRIBUTE_DIRECTORY)) return output_error(t, "cannot write in " + text(dir) + ": not a folder");
  return {};
}

// The file a link or junction ends at, by the name Windows gives the open file.
Result<fs::path> final_path(const OutputTarget& t, HANDLE h) {
  std::wstring buf(32768, L'\0');
  const DWORD n = GetFinalPathNameByHandleW(h, buf.data(), static_cast<DWORD>(buf.size()), FILE_NAME_NORMALIZED);
  if (n == 0 || n >= buf.size()) return output_error(t, "cannot resolve the link: " + win32_text(GetLastError()));
  buf.resize(n);
  return fs::path(buf);
}

}  // namespace

namespace platform {

std::FILE* open_for_reading(const fs::path& path) { return _wfopen(native(path).c_str(), L"rb"); }

std::optional<std::uint64_t> regular_file_size(std::FILE* f) {
  struct _stat64 st {};
  if (_fstat64(_fileno(f), &st) != 0 || (st.st_mode & _S_IFMT) != _S_IFREG) return std::nullopt;
  return static_cast<std::uint64_t>(st.st_size);
}

void close_and_remove(int fd, const fs::path& temporary) noexcept {
  _close(fd);
  if (!temporary.empty()) _wunlink(native(temporary).c_str());
}

std::string display(const fs::path& path) { return text(path); }

std::string errno_text(int e) { return std::strerror(e); }

}  // namespace platform

Result<OutputTarget> resolve_output(const fs::path& path) {
  OutputTarget t;
  t.path = path;
  t.file = fs::path(native(path));
  if (path.empty()) return output_error(t, "no file name");
  Handle h{open_for_query(t.file.native())};
  if (h.h == INVALID_HANDLE_VALUE) {
    const DWORD e = GetLastError();
    if (e != ERROR_FILE_NOT_FOUND) return output_error(t, win32_text(e));
    MAB_TRY(check_folder(t));
    t.kind = OutputKind::new_file;
    return t;
  }
  const DWORD type = GetFileType(h.h);
  if (type == FILE_TYPE_CHAR || type == FILE_TYPE_PIPE) {
    t.kind = OutputKind::stream;
    return t;
  }
  BY_HANDLE_FILE_INFORMATION info{};
  if (!GetFileInformationByHandle(h.h, &info)) return output_error(t, win32_text(GetLastError()));
  if (info.dwFileAttributes & FILE_ATTRIBUTE_DIRECTORY) return output_error(t, "is a directory; name a file to write");
  if (GetFileAttributesW(t.file.c_str()) & FILE_ATTRIBUTE_REPARSE_POINT) {
    t.through_link = true;
    MAB_ASSIGN(t.file, final_path(t, h.h));
  }
  // A file its owner made read-only is not replaced behind their back.
  if (info.dwFileAttributes & FILE_ATTRIBUTE_READONLY)
    return output_error(t, "is not writable (read-only); nothing written");
  MAB_TRY(check_folder(t));
  t.kind = OutputKind::replace_file;
  t.hard_links = info.nNumberOfLinks;
  return t;
}

namespace {

// A regular target's temporary: in the target's folder (MoveFileExW stays on one volume),
// named after it, created exclusively.
Result<std::pair<fs::path, int>> create_temporary(const OutputTarget& t) {
  const fs::path dir = t.file.has_parent_path() ? t.file.parent_path() : fs::path(".");
  std::random_device rd;
  int err = 0;
  for (int attempt = 0; attempt < 16; ++attempt) {
    fs::path tmp = dir / (L"." + t.file.filename().native() + L".tmp" + std::to_wstring(rd() % 1000000));
    const int fd = _wopen(tmp.c_str(), _O_WRONLY | _O_CREAT | _O_EXCL | _O_BINARY | _O_NOINHERIT, _S_IREAD | _S_IWRITE);
    if (fd >= 0) return std::pair{std::move(tmp), fd};
    err = errno;
    if (err != EEXIST) break;
  }
  return output_error(t, "cannot create a temporary file in " + text(dir) + ": " + platform::errno_text(err));
}

}  // namespace

Result<AtomicFile> AtomicFile::open(const fs::path& path) {
  MAB_ASSIGN(OutputTarget t, resolve_output(path));
  if (t.kind == OutputKind::stream) {
    const int fd = _wopen(t.file.c_str(), _O_WRONLY | _O_BINARY | _O_NOINHERIT);
    if (fd < 0) return output_error(t, platform::errno_text(errno));
    return AtomicFile(std::move(t), {}, fd);
  }
  MAB_ASSIGN(auto tmp, create_temporary(t));
  return AtomicFile(std::move(t), std::move(tmp.first), tmp.second);
}

Status AtomicFile::write(std::span<const std::uint8_t> bytes) {
  if (fd_ < 0) return output_error(target_, "file is not open");
  std::size_t done = 0;
  while (done < bytes.size()) {
    const auto piece = static_cast<unsigned>(std::min<std::size_t>(bytes.size() - done, INT_MAX));
    const int n = _write(fd_, bytes.data() + done, piece);
    if (n < 0) {
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
  // A device or pipe has nothing to flush to disk.
  const bool synced = _commit(fd) == 0 || temporary_.empty();
  const int e_sync = errno;
  const bool closed = _close(fd) == 0;
  if (!synced || !closed) {
    const int e = !synced ? e_sync : errno;
    if (!temporary_.empty()) _wunlink(temporary_.c_str());
    return failure("flush failed", e);
  }
  if (temporary_.empty()) return {};
  if (!MoveFileExW(temporary_.c_str(), target_.file.c_str(), MOVEFILE_REPLACE_EXISTING | MOVEFILE_WRITE_THROUGH)) {
    const DWORD e = GetLastError();
    _wunlink(temporary_.c_str());
    return output_error(target_, "rename failed: " + win32_text(e));
  }
  return {};
}

namespace {

Status copy_into(int from, int to) {
  auto failed = [](const char* what) {
    return make_error(ErrorCode::io_error, no_offset, "",
                      std::string(what) + " failed: " + platform::errno_text(errno));
  };
  std::uint8_t buf[1 << 16];
  for (;;) {
    const int n = _read(from, buf, sizeof buf);
    if (n == 0) break;
    if (n < 0) return failed("read");
    for (int done = 0; done < n;) {
      const int w = _write(to, buf + done, static_cast<unsigned>(n - done));
      if (w < 0) return failed("write");
      done += w;
    }
  }
  if (_commit(to) != 0) return failed("flush");
  return {};
}

}  // namespace

Result<fs::path> keep_backup(const fs::path& file) {
  auto error = [](const fs::path& p, const std::string& what) {
    return make_error(ErrorCode::io_error, no_offset, text(p), what);
  };
  const std::wstring name = native(file);
  const int from = _wopen(name.c_str(), _O_RDONLY | _O_BINARY | _O_NOINHERIT);
  if (from < 0) return error(file, "cannot read it for a backup: " + platform::errno_text(errno));
  Result<fs::path> out = error(file, "FILE.bak and FILE.bak.1 to .bak.999 all exist; remove old backups first");
  for (int n = 0; n < 1000; ++n) {
    fs::path bak(name + (n == 0 ? std::wstring(L".bak") : L".bak." + std::to_wstring(n)));
    // _O_EXCL: an existing backup is never written.
    const int to = _wopen(bak.c_str(), _O_WRONLY | _O_CREAT | _O_EXCL | _O_BINARY | _O_NOINHERIT, _S_IREAD | _S_IWRITE);
    if (to < 0 && errno == EEXIST) continue;
    if (to < 0) {
      out = error(bak, "cannot create the backup: " + platform::errno_text(errno));
      break;
    }
    Status copied = copy_into(from, to);
    if (_close(to) != 0 && copied) copied = make_error(ErrorCode::io_error, no_offset, "", "close failed");
    if (copied) {
      out = bak;
    } else {
      _wunlink(bak.c_str());
      out = error(bak, "backup of " + text(file) + ": " + copied.error().detail);
    }
    break;
  }
  _close(from);
  return out;
}

Result<FileIdentity> file_identity(const fs::path& path) {
  Handle h{open_for_query(native(path))};
  BY_HANDLE_FILE_INFORMATION info{};
  if (h.h == INVALID_HANDLE_VALUE || !GetFileInformationByHandle(h.h, &info))
    return make_error(ErrorCode::io_error, no_offset, text(path), win32_text(GetLastError()));
  return FileIdentity{info.dwVolumeSerialNumber,
                      (static_cast<std::uint64_t>(info.nFileIndexHigh) << 32) | info.nFileIndexLow};
}

}  // namespace mab
