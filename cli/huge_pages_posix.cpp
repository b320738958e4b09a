#include "huge_pages.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <string_view>

namespace mab::cli {

namespace {

// Commands that hold a whole clip (or two, or a parsed document) in fresh memory and gained
// from huge pages in scripts/bench/cli. Not export (it streams: the JSON export took 1.19x
// as long with them) nor dump (no gain).
bool grows_with_input(std::string_view command) {
  for (std::string_view c : {"convert", "diff", "edit", "import"})
    if (command == c) return true;
  return false;
}

// Below this, the second start costs more than the page faults it saves (scripts/bench/cli).
constexpr off_t large_input = 256 * 1024;

bool names_a_large_file(int argc, char** argv) {
  for (int i = 2; i < argc; ++i) {
    struct stat st;
    if (::stat(argv[i], &st) == 0 && S_ISREG(st.st_mode) && st.st_size >= large_input) return true;
  }
  return false;
}

}  // namespace

void use_huge_pages(int argc, char** argv) {
  // glibc reads its tunables once, before main: the setting needs a fresh image of this
  // program. GLIBC_TUNABLES set by the user (any value) is theirs and left alone, which also
  // ends the recursion. MAB_HUGE_PAGES=0: never; 1: whatever the input's size.
  if (argc < 2 || std::getenv("GLIBC_TUNABLES") != nullptr || !grows_with_input(argv[1])) return;
  const char* opt = std::getenv("MAB_HUGE_PAGES");
  const std::string_view choice = opt != nullptr ? opt : "";
  if (choice == "0" || (choice != "1" && !names_a_large_file(argc, argv))) return;
  if (::setenv("GLIBC_TUNABLES", "glibc.malloc.hugetlb=1", 1) != 0) return;
  ::execv("/proc/self/exe", argv);
  // No /proc, or the binary is gone: carry on in this image, with the pages as they are.
  ::unsetenv("GLIBC_TUNABLES");
}

}  // namespace mab::cli
