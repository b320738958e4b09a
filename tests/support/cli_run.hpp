// Runs the `mab` binary under test (MAB_CLI_PATH) through the shell for CLI tests.
#pragma once

#include <cstdio>
#include <string>
#include <sys/wait.h>

namespace mab::test {

struct CliRun {
  int status = -1;  // exit status, -1 when the command did not exit normally
  std::string out;  // stdout
};

// `redirect` says where stderr goes, e.g. "2>&1", "2>/dev/null" or "2>FILE".
inline CliRun run_mab(const std::string& args, const std::string& redirect) {
  const std::string cmd = std::string(MAB_CLI_PATH) + " " + args + " " + redirect;
  CliRun r;
  std::FILE* p = popen(cmd.c_str(), "r");
  if (!p) return r;
  char buf[4096];
  std::size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) r.out.append(buf, n);
  const int st = pclose(p);
  r.status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  return r;
}

}  // namespace mab::test
