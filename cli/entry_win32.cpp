// wmain() on Windows (docs/windows.md): the command line arrives in UTF-16 and is handed on
// in UTF-8, as on Linux (main() would get it in the ANSI code page, which cannot spell every
// file name); standard input and output carry bytes (text mode turned "\n" into "\r\n" and
// stopped reading a .glb at byte 0x1A); the console shows UTF-8.
#include "entry.hpp"

#include <fcntl.h>
#include <io.h>
#include <stdio.h>
#include <string>
#include <vector>
#include <windows.h>

namespace {

std::string utf8(const wchar_t* w) {
  const int n = WideCharToMultiByte(CP_UTF8, 0, w, -1, nullptr, 0, nullptr, nullptr);
  if (n <= 1) return {};
  std::string out(static_cast<std::size_t>(n - 1), '\0');
  WideCharToMultiByte(CP_UTF8, 0, w, -1, out.data(), n, nullptr, nullptr);
  return out;
}

}  // namespace

int wmain(int argc, wchar_t** wargv) {
  _setmode(_fileno(stdin), _O_BINARY);
  _setmode(_fileno(stdout), _O_BINARY);
  _setmode(_fileno(stderr), _O_BINARY);
  SetConsoleOutputCP(CP_UTF8);
  std::vector<std::string> args;
  for (int i = 0; i < argc; ++i) args.push_back(utf8(wargv[i]));
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  return mab::cli::run_main(argc, argv.data());
}
