// Report writers for `mab survey`: CSV and JSON rows streamed as files finish, the summary
// table, and a self-contained HTML report (inline SVG, no network) that parses as XML.
#pragma once

#include <mab/survey.hpp>

#include <cstdio>
#include <string>
#include <vector>

namespace mab::cli::survey_report {

struct CrcResult {
  std::string variant;
  std::size_t sample = 0;              // files searched
  std::string hypothesis;              // the best match, empty when none
  std::size_t checked = 0, holds = 0;  // verified over every file of the variant
  std::string note;
};

struct Summary {
  const survey::Stats* stats = nullptr;
  double seconds = 0;
  unsigned jobs = 1;
  bool interrupted = false;
  std::vector<std::string> walk_problems;    // unreadable folders, symlink loops
  std::vector<survey::FileResult> failures;  // the first failing files
  std::vector<CrcResult> crc;
  std::vector<std::string> roots;
};

std::string csv_header();
std::string csv_row(const survey::FileResult& r);
std::string json_row(const survey::FileResult& r);
// The closing part of the JSON report: the summary object after the rows.
std::string json_summary(const Summary& s);
void print_table(std::FILE* out, const Summary& s);
std::string html(const Summary& s);

}  // namespace mab::cli::survey_report
