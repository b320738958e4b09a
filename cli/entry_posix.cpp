// main() on Linux: huge pages for the large commands, then the commands (cli/main.cpp).
#include "entry.hpp"
#include "huge_pages.hpp"

#include <csignal>

int main(int argc, char** argv) {
  mab::cli::use_huge_pages(argc, argv);
  // A file size limit (ulimit -f) makes a write fail with EFBIG, which is reported and cleaned
  // up, instead of killing the process with a temporary file left behind.
  std::signal(SIGXFSZ, SIG_IGN);
  return mab::cli::run_main(argc, argv);
}
