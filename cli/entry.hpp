// The program's entry is per platform (cli/entry_posix.cpp: main; cli/entry_win32.cpp: wmain),
// each preparing the process its own way; both then run the commands here (cli/main.cpp).
#pragma once

namespace mab::cli {

// argv in UTF-8 on every platform.
int run_main(int argc, char** argv);

}  // namespace mab::cli
