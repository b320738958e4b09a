// `mab verify PATH...`: parse, write back, compare bytes, validate. Never stops
// at the first bad file.
#include "command.hpp"
#include "common.hpp"

#include <mab/file_io.hpp>

#include <cstdio>
#include <iostream>

namespace {

struct Outcome {
  bool pass = false;
  std::string variant;
  std::string reason;  // first failure, one line
  std::size_t errors = 0, warnings = 0;
  std::vector<std::string> warning_lines;
  nlohmann::json json;
};

std::string finding_line(const mab::Finding& f) {
  std::string out = "warning: ";
  if (f.block >= 0) out += "block " + std::to_string(f.block) + ": ";
  return out + mab::cli::message(mab::make_error(f.code, f.offset, f.field, f.message));
}

Outcome verify_one(const std::filesystem::path& path, bool strict) {
  Outcome o;
  o.json = {{"path", path.string()}};
  auto fail = [&](const mab::Error& e, const char* stage) {
    o.reason = std::string(stage) + ": " + mab::cli::message(e);
    o.json["status"] = "fail";
    o.json["stage"] = stage;
    o.json["error"] = mab::cli::to_json(e);
    return o;
  };
  auto bytes = mab::read_file(path);
  if (!bytes) return fail(bytes.error(), "read");
  auto c = mab::read_container(*bytes);
  if (!c) return fail(c.error(), "parse");
  o.variant = std::string(c->variant->short_name);
  o.json["variant"] = o.variant;
  auto written = mab::write_container(*c);
  if (!written) return fail(written.error(), "write");
  const auto& in = *bytes;
  const auto& out = *written;
  bool identical = in == out;
  o.json["identical"] = identical;
  if (!identical) {
    std::size_t at = 0;
    while (at < in.size() && at < out.size() && in[at] == out[at]) ++at;
    return fail(mab::make_error(mab::ErrorCode::round_trip_mismatch, at, "bytes",
                                "written file differs (input " + std::to_string(in.size()) + " bytes, output " +
                                    std::to_string(out.size()) + ")"),
                "round-trip");
  }
  // Structure, then what decoding finds (a clip whose tracks do not decode, a code with no
  // quaternion): a file that verifies with --strict is one every command reads whole.
  auto findings = mab::validate(*c);
  for (auto& f : mab::validate_decode(*c)) findings.push_back(std::move(f));
  nlohmann::json fj = nlohmann::json::array();
  const mab::Finding* first_bad = nullptr;
  for (const auto& f : findings) {
    fj.push_back(mab::cli::to_json(f));
    if (f.severity == mab::Severity::error) ++o.errors;
    if (f.severity == mab::Severity::warning) ++o.warnings;
    const bool bad = f.severity == mab::Severity::error || (strict && f.severity == mab::Severity::warning);
    if (bad && !first_bad) first_bad = &f;
  }
  o.json["findings"] = std::move(fj);
  for (const auto& f : findings)
    if (f.severity == mab::Severity::warning) o.warning_lines.push_back(finding_line(f));
  if (first_bad) {
    return fail(mab::make_error(first_bad->code, first_bad->offset, first_bad->field, first_bad->message), "validate");
  }
  o.pass = true;
  o.json["status"] = "pass";
  return o;
}

struct Options {
  std::vector<std::string> paths;
  bool json = false, strict = false, quiet = false;
};

int run(const Options& o) {
  std::vector<std::string> missing;
  const auto files = mab::cli::collect_inputs(o.paths, missing);
  std::size_t passed = 0, failed = missing.size(), unreadable = missing.size();
  nlohmann::json report = nlohmann::json::array();
  for (const auto& m : missing) {
    if (o.json) report.push_back({{"path", m}, {"status", "fail"}, {"stage", "read"}});
    else std::printf("FAIL  %s  read: no such file or directory\n", m.c_str());
  }
  for (const auto& path : files) {
    Outcome r = verify_one(path, o.strict);
    (r.pass ? passed : failed)++;
    unreadable += !r.pass && r.json.contains("error") && r.json["error"]["code"] == "io_error";
    if (o.json) {
      report.push_back(std::move(r.json));
    } else if (r.pass) {
      if (!o.quiet) {
        std::printf("PASS  %s  (%s, identical, %zu warnings)\n", path.string().c_str(), r.variant.c_str(), r.warnings);
        for (const auto& w : r.warning_lines) std::printf("      %s\n", w.c_str());
      }
    } else {
      std::printf("FAIL  %s  %s\n", path.string().c_str(), r.reason.c_str());
    }
    std::fflush(stdout);
  }
  if (o.json) {
    std::cout << nlohmann::json{{"files", report}, {"passed", passed}, {"failed", failed}}.dump(2) << "\n";
  } else {
    std::printf("%zu passed, %zu failed\n", passed, failed);
  }
  if (files.empty() && missing.empty()) {
    std::fprintf(stderr, "mab: verify: no .mab files found\n");
    return mab::cli::exit_usage;
  }
  return unreadable ? mab::cli::exit_usage : failed ? mab::cli::exit_refused : mab::cli::exit_ok;
}

void setup(CLI::App& app, int& exit_code) {
  auto o = std::make_shared<Options>();
  auto* cmd = app.add_subcommand(
      "verify", "Check that each file parses, writes back byte for byte and passes the structural checks");
  cmd->add_option("PATH", o->paths, "Files, or directories searched recursively for *.mab")->required();
  cmd->add_flag("--json", o->json, "Print a JSON report instead of text");
  cmd->add_flag("--strict", o->strict, "Count warnings as failures");
  cmd->add_flag("-q,--quiet", o->quiet, "Print only failures and the summary");
  cmd->footer(
      "Each file: read -> parse -> write -> compare bytes -> validate -> decode every block as\n"
      "mab export does. Warnings: a clip whose tracks do not decode (Far Cry 2/3 consistency checks,\n"
      "'aNi' rotations, translations or root motion kept as bytes), a 6-byte code with no valid\n"
      "quaternion (named by bone and key), key times that do not increase (format 9.4, named by key);\n"
      "Far Cry 2 banks: a tag table that does not decode, a tag record reaching no clip start, a\n"
      "pointer slot that is not 0, a version field with a high byte.\n"
      "One line per file and its warnings, then 'N passed, N failed'.\n"
      "Exit status: 0 every file passed (with --strict: and had no warning); 1 a file failed;\n"
      "2 a file is missing or unreadable, or none was found.\n"
      "Examples (from the source folder; corpus/ holds synthetic clips):\n"
      "  mab verify corpus\n"
      "  mab verify --strict -q corpus/wd2 corpus/fc5/three_blocks.mab");
  cmd->callback([o, &exit_code] { exit_code = run(*o); });
}

}  // namespace

MAB_REGISTER_COMMAND(verify, setup);
