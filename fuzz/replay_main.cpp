// Replays files through a libFuzzer-style harness without libFuzzer, so any
// compiler (and ctest) can run every harness over the corpus. Arguments are files
// or directories (recursive); missing paths are skipped, and arguments starting
// with '-' are ignored so libFuzzer command lines can be reused as they are.
#include <algorithm>
#include <csignal>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include <unistd.h>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);

// Present only when a sanitizer runtime is linked (weak, so plain builds link too).
extern "C" void __sanitizer_set_death_callback(void (*callback)(void)) __attribute__((weak));

namespace {

// The input being replayed, kept for the crash message: a sanitizer report or an abort()
// from a harness does not say which of the corpus files caused it.
std::string current;
volatile std::sig_atomic_t reported = 0;

void say_which_input() {
  if (reported || current.empty()) return;
  reported = 1;
  static const char prefix[] = "\n==replay== crashed on input: ";
  // write(2) only: this runs in signal handlers and sanitizer death callbacks.
  ssize_t ignored = write(STDERR_FILENO, prefix, sizeof prefix - 1);
  ignored = write(STDERR_FILENO, current.data(), current.size());
  ignored = write(STDERR_FILENO, "\n", 1);
  (void)ignored;
}

extern "C" void on_fatal_signal(int sig) {
  say_which_input();
  std::signal(sig, SIG_DFL);
  std::raise(sig);
}

std::size_t run_file(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  current = p.string();
  LLVMFuzzerTestOneInput(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size());
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  // abort() from a harness (a broken invariant) arrives as SIGABRT. Sanitizers report
  // through their death callback; without one, catch the crash signals ourselves (doing so
  // with a sanitizer linked would replace its own SIGSEGV handler and lose its report).
  std::signal(SIGABRT, on_fatal_signal);
  if (__sanitizer_set_death_callback) {
    __sanitizer_set_death_callback(say_which_input);
  } else {
    std::signal(SIGSEGV, on_fatal_signal);
    std::signal(SIGBUS, on_fatal_signal);
    std::signal(SIGFPE, on_fatal_signal);
    std::signal(SIGILL, on_fatal_signal);
  }

  std::size_t runs = 0;
  for (int i = 1; i < argc; ++i) {
    if (argv[i][0] == '-') continue;
    const std::filesystem::path root(argv[i]);
    std::error_code ec;
    if (std::filesystem::is_regular_file(root, ec)) {
      runs += run_file(root);
    } else if (std::filesystem::is_directory(root, ec)) {
      // Sorted, so a replay is the same sequence on every machine.
      std::vector<std::filesystem::path> files;
      for (const auto& e : std::filesystem::recursive_directory_iterator(root, ec))
        if (e.is_regular_file()) files.push_back(e.path());
      std::sort(files.begin(), files.end());
      for (const auto& f : files) runs += run_file(f);
    }
  }
  current.clear();
  std::printf("replayed %zu inputs\n", runs);
  return runs == 0 ? 1 : 0;
}
