// Whole-file reads with a size cap, and the one way outputs are written (docs/cli.md,
// "Outputs"): a regular file is replaced atomically (temporary file in its folder, then
// rename), so an error never leaves a half-written file; a symbolic link is kept and the file
// it ends at is written that way; a character device or FIFO is written in place, as the
// bytes come; anything else (a directory, a socket, a block device) is refused.
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
Result<std::vector<std::uint8_t>> read_file(const std::filesystem::path& path, const Limits& limits = default_limits,
                                            std::size_t zero_padding = 0);

enum class OutputKind : std::uint8_t {
  new_file = 0,      // nothing there yet: a regular file is created, atomically
  replace_file = 1,  // a regular file: replaced atomically, its permission bits (and owner, where allowed) kept
  stream = 2,        // a character device or FIFO: opened and written in place, never replaced
};

// Where writing `path` goes. `file` is the end of the chain of symbolic links `path` starts
// (`path` itself when it is no link): the file that is created or replaced, while every link
// stays as it is. A dangling link gets its target created, as a shell's `>` does. Links
// through /proc (/dev/stdout, /dev/fd/N) are streamed to: they name open files, not paths.
struct OutputTarget {
  std::filesystem::path path;  // as given
  std::filesystem::path file;  // what is written
  OutputKind kind = OutputKind::new_file;
  bool through_link = false;     // `path` is a symbolic link
  std::uint64_t hard_links = 1;  // replace_file: names of the file; the others keep the old contents
};

// Refused with io_error naming `path`: a directory, a socket, a block device, a chain of more
// than 40 links, a folder that does not exist, a regular file that is not writable.
Result<OutputTarget> resolve_output(const std::filesystem::path& path);

// Writes `bytes` to `path` by the rules above. On any failure a regular target is untouched
// and no temporary file is left.
Status write_file_atomic(const std::filesystem::path& path, std::span<const std::uint8_t> bytes);

// The same, for output written in pieces (a streamed JSON export): open() resolves the target
// (and creates the temporary file, or opens the device), write() hands over pieces, commit()
// flushes and renames. Destroyed without a commit (an error half-way), it removes the
// temporary file and a regular target keeps its old contents; what a stream received stays
// received.
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
  const OutputTarget& target() const noexcept { return target_; }

 private:
  AtomicFile(OutputTarget target, std::filesystem::path temporary, int fd)
      : target_(std::move(target)), temporary_(std::move(temporary)), fd_(fd) {}
  void discard() noexcept;
  Error failure(std::string_view what, int err) const;

  OutputTarget target_;
  std::filesystem::path temporary_;  // empty for a stream
  int fd_ = -1;
};

// Copies `file` to the first of FILE.bak, FILE.bak.1, FILE.bak.2, ... FILE.bak.999 that does
// not exist (as anything: a file, a link, a FIFO), created exclusively, so an earlier backup
// is never overwritten: FILE.bak stays the oldest. Returns the name used.
Result<std::filesystem::path> keep_backup(const std::filesystem::path& file);

// What a file or folder is, whatever name (link, junction) reached it: two paths with the same
// identity are the same file. Linux: device and inode; Windows: volume serial number and
// file index (it has no inodes). `mab survey` finds folder loops with it.
struct FileIdentity {
  std::uint64_t volume = 0;
  std::uint64_t file = 0;
  auto operator<=>(const FileIdentity&) const = default;
};
Result<FileIdentity> file_identity(const std::filesystem::path& path);

// A path from UTF-8 text (a command-line argument), on every platform. On Windows a path made
// from a std::string reads its bytes in the C locale, one character each; the functions above
// turn such a path's bytes back into the characters when they are UTF-8 (docs/windows.md).
std::filesystem::path path_from_utf8(std::string_view text);

}  // namespace mab
