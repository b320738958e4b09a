// Runs the `mab` binary under test (MAB_CLI_PATH) through the shell for CLI tests.
#pragma once

#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <sys/wait.h>
#include <unistd.h>

namespace mab::test {

// A file's bytes as a string (empty when it cannot be read), and a string written as bytes.
inline std::string read_text(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

inline void write_text(const std::filesystem::path& p, const std::string& s) {
  std::ofstream(p, std::ios::binary) << s;
}

struct CliRun {
  int status = -1;  // exit status, -1 when the command did not exit normally
  std::string out;  // stdout
};

// Any command line, through the shell: its stdout and exit status.
inline CliRun run_shell(const std::string& cmd) {
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

// `redirect` says where stderr goes, e.g. "2>&1", "2>/dev/null" or "2>FILE".
inline CliRun run_mab(const std::string& args, const std::string& redirect) {
  return run_shell(std::string(MAB_CLI_PATH) + " " + args + " " + redirect);
}

// As run_mab, with stderr kept apart in *err (when given), so a test can tell the report on
// stdout from the errors.
inline CliRun run_mab_split(const std::string& args, std::string* err = nullptr) {
  const auto err_file = std::filesystem::temp_directory_path() / ("mab_cli_err_" + std::to_string(::getpid()));
  const CliRun r = run_mab(args, "2>" + err_file.string());
  std::ifstream e(err_file);
  std::stringstream ss;
  ss << e.rdbuf();
  if (err) *err = ss.str();
  std::filesystem::remove(err_file);
  return r;
}

// A fresh, empty folder for the running test: <tmp>/<prefix>_<pid>_<test name>.
inline std::filesystem::path test_temp_dir(const std::string& prefix) {
  auto d = std::filesystem::temp_directory_path() / (prefix + "_" + std::to_string(::getpid()) + "_" +
                                                     ::testing::UnitTest::GetInstance()->current_test_info()->name());
  std::filesystem::remove_all(d);
  std::filesystem::create_directories(d);
  return d;
}

}  // namespace mab::test
