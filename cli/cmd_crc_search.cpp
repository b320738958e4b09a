// `mab crc-search FILES...`: identify the algorithm behind a header checksum field.
#include "command.hpp"
#include "common.hpp"

#include <mab/crc_search.hpp>
#include <mab/file_io.hpp>

#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <memory>

namespace {

struct Options {
  std::vector<std::string> files;
  std::string field = "0x4:4";
  std::size_t max_ranges = 4096;
  unsigned threads = 0;
  bool no_solver = false, no_free_init = false, no_catalogue = false, mixed_reflection = false;
  double min_evidence = 20.0;
  std::size_t max_results = 20;
  bool json = false, quiet = false;
};

std::string with_commas(std::uint64_t v) {
  auto s = std::to_string(v);
  for (int i = static_cast<int>(s.size()) - 3; i > 0; i -= 3) s.insert(static_cast<std::size_t>(i), ",");
  return s;
}

nlohmann::json match_json(const mab::checksum::Match& m, std::size_t rank) {
  using mab::cli::hex;
  const auto& a = m.spec.algo;
  nlohmann::json j{{"rank", rank},
                   {"algorithm", a.name()},
                   {"method", std::string(mab::checksum::method_name(m.method))},
                   {"spec", mab::checksum::to_string(m.spec)},
                   {"range", mab::checksum::to_string(m.spec.range, m.spec.field)},
                   {"range_label", m.range_label},
                   {"endian", m.spec.field.endian == mab::checksum::Endian::little ? "little" : "big"},
                   {"evidence_bits", std::round(m.evidence_bits * 10) / 10},
                   {"ambiguous_bits", m.ambiguous_bits},
                   {"note", m.note}};
  if (a.kind == mab::checksum::Kind::crc) {
    const int digits = static_cast<int>((a.crc.width + 3) / 4);
    j["params"] = {{"width", a.crc.width}, {"poly", hex(a.crc.poly, digits)}, {"init", hex(a.crc.init, digits)},
                   {"refin", a.crc.refin}, {"refout", a.crc.refout},          {"xorout", hex(a.crc.xorout, digits)}};
    j["part"] = a.part == mab::checksum::Part::low ? "low" : a.part == mab::checksum::Part::high ? "high" : "whole";
  }
  return j;
}

std::string tried_summary(const mab::checksum::SearchStats& st) {
  std::string s = with_commas(st.algorithms) + " algorithms over " + with_commas(st.ranges) + " ranges (" +
                  with_commas(st.standard_ranges) + " standard): " + with_commas(st.candidates) + " candidates";
  if (st.free_init_candidates)
    s += "; free init for 32-bit CRCs: " + with_commas(st.free_init_candidates) + " candidates";
  if (st.solver_systems)
    s += "; solver: " + with_commas(st.solver_systems) + " systems, " + with_commas(st.solver_polynomials) +
         " candidate polynomials";
  return s;
}

mab::checksum::SearchOptions search_options(const Options& o, const mab::checksum::FieldSpec& field) {
  mab::checksum::SearchOptions so;
  so.field = field;
  so.both_endians = o.field.find(":le") == std::string::npos && o.field.find(":be") == std::string::npos;
  so.max_ranges = o.max_ranges;
  so.threads = o.threads;
  so.catalogue = !o.no_catalogue;
  so.free_init = !o.no_free_init;
  so.solver = !o.no_solver;
  so.solver_mixed_reflection = o.mixed_reflection;
  so.min_evidence_bits = o.min_evidence;
  so.max_results = o.max_results;
  if (!o.quiet) so.progress = [](const std::string& s) { std::fprintf(stderr, "%s\n", s.c_str()); };
  return so;
}

void print_json(const Options& o, const mab::checksum::SearchOptions& so, const mab::checksum::SearchReport& report) {
  const auto& st = report.stats;
  nlohmann::json j;
  j["files"] = o.files;
  j["field"] = mab::checksum::to_string(so.field);
  j["both_endians"] = so.both_endians;
  j["matches"] = nlohmann::json::array();
  for (std::size_t i = 0; i < report.matches.size(); ++i) j["matches"].push_back(match_json(report.matches[i], i + 1));
  j["stats"] = {{"ranges", st.ranges},
                {"standard_ranges", st.standard_ranges},
                {"algorithms", st.algorithms},
                {"candidates", st.candidates},
                {"free_init_candidates", st.free_init_candidates},
                {"solver_systems", st.solver_systems},
                {"solver_polynomials", st.solver_polynomials},
                {"weak_matches", st.weak_matches},
                {"suppressed", st.suppressed},
                {"notes", st.notes},
                {"seconds", std::round(st.seconds * 1000) / 1000}};
  std::printf("%s\n", j.dump(2).c_str());
}

void print_text(const mab::checksum::SearchOptions& so, const mab::checksum::SearchReport& report) {
  using namespace mab::checksum;
  const auto& st = report.stats;
  if (report.matches.empty()) {
    std::printf("no match in %zu files (field %s%s).\n", st.files, to_string(so.field).c_str(),
                so.both_endians ? ", both byte orders" : "");
    std::printf("tried: %s.\n", tried_summary(st).c_str());
    if (st.weak_matches)
      std::printf("%zu algorithms matched every file but with too little evidence to count: add more files.\n",
                  st.weak_matches);
  } else {
    std::printf("%zu match%s in %zu files (%.2f s):\n", report.matches.size(), report.matches.size() == 1 ? "" : "es",
                st.files, st.seconds);
    for (std::size_t i = 0; i < report.matches.size(); ++i) {
      const auto& m = report.matches[i];
      std::printf("%zu. %s over %s, field %s-endian  [%s; evidence %.0f bits]\n", i + 1, m.spec.algo.name().c_str(),
                  m.range_label.c_str(), m.spec.field.endian == Endian::little ? "little" : "big",
                  std::string(method_name(m.method)).c_str(), m.evidence_bits);
      if (m.spec.algo.kind == Kind::crc) std::printf("   %s\n", mab::crc::describe(m.spec.algo.crc).c_str());
      if (!m.note.empty()) std::printf("   note: %s\n", m.note.c_str());
      std::printf("   spec: %s\n", to_string(m.spec).c_str());
    }
    std::printf("tried: %s.\n", tried_summary(st).c_str());
    if (st.suppressed) std::printf("%zu equivalent or lower-ranked variants not shown.\n", st.suppressed);
  }
  for (const auto& n : st.notes) std::printf("note: %s\n", n.c_str());
}

int run(const Options& o) {
  using namespace mab::checksum;
  if (o.files.size() < 3) {
    std::fprintf(stderr, "mab: crc-search: need at least 3 files, got %zu\n", o.files.size());
    return mab::cli::exit_usage;
  }
  auto field = parse_field(o.field);
  if (!field) {
    std::fprintf(stderr, "mab: crc-search: --field: %s\n", mab::cli::message(field.error()).c_str());
    return mab::cli::exit_usage;
  }
  const SearchOptions so = search_options(o, *field);
  std::vector<InputFile> inputs;
  for (const auto& f : o.files) {
    auto bytes = mab::read_file(f);
    if (!bytes) {
      std::fprintf(stderr, "mab: crc-search: %s: %s\n", f.c_str(), mab::cli::message(bytes.error()).c_str());
      return mab::cli::exit_usage;
    }
    // The same file twice adds no equation: the search would count it as evidence it is not.
    for (const auto& earlier : inputs) {
      std::error_code ec;
      const bool same_file = std::filesystem::equivalent(earlier.name, f, ec);
      if (same_file || earlier.bytes == *bytes) {
        std::fprintf(stderr,
                     "mab: crc-search: %s and %s %s: each file adds its own checksum equations, so give 3 or "
                     "more different files\n",
                     earlier.name.c_str(), f.c_str(), same_file ? "are the same file" : "have the same bytes");
        return mab::cli::exit_usage;
      }
    }
    inputs.push_back(InputFile{f, std::move(bytes).value()});
  }
  auto report = search(inputs, so);
  if (!report) {
    std::fprintf(stderr, "mab: crc-search: %s\n", mab::cli::message(report.error()).c_str());
    return mab::cli::exit_usage;
  }
  if (o.json) print_json(o, so, *report);
  else print_text(so, *report);
  return report->matches.empty() ? mab::cli::exit_refused : mab::cli::exit_ok;
}

void setup(CLI::App& app, int& exit_code) {
  auto o = std::make_shared<Options>();
  auto* cmd =
      app.add_subcommand("crc-search",
                         "Find the checksum algorithm and byte range behind a header field (default: the u32 at +0x04) "
                         "from 3 or more files. Works on any binary files.");
  cmd->add_option("FILES", o->files, "Files sharing the field layout (3 or more)")->required();
  cmd->add_option("--field", o->field, "Field as OFF:LEN[:le|be]; without a byte order both are tried")
      ->capture_default_str();
  cmd->add_option("--max-ranges", o->max_ranges, "Budget of the exhaustive start x end range sweep")
      ->capture_default_str();
  cmd->add_option("--threads", o->threads, "Worker threads (0: one per core)")->capture_default_str();
  cmd->add_flag("--no-solver", o->no_solver, "Skip the unknown-polynomial solver");
  cmd->add_flag("--no-free-init", o->no_free_init, "Skip catalogue CRC-32s with a free initial value");
  cmd->add_flag("--no-catalogue", o->no_catalogue, "Skip the catalogue and checksum sweep");
  cmd->add_flag("--mixed-reflection", o->mixed_reflection, "Solver: also try refin != refout (twice the work)");
  cmd->add_option("--min-evidence", o->min_evidence, "Bits of evidence a match needs")->capture_default_str();
  cmd->add_option("--max-results", o->max_results, "Matches to show")->capture_default_str();
  cmd->add_flag("--json", o->json, "Machine-readable report on stdout");
  cmd->add_flag("-q,--quiet", o->quiet, "No progress on stderr");
  cmd->footer(
      "Exit status: 0 match found, 1 no match, 2 usage or I/O error.\n"
      "Examples (from the source folder; three files given a known checksum in the temporary folder,\n"
      "  not the source tree, then the checksum found again):\n"
      "  mab crc-apply --algo 'algo=CRC-32/BZIP2 range=0x10..eof field=0x4:4:le' "
      "corpus/wd1/long_k100.mab -o \"${TMPDIR:-/tmp}/mab_crc_a.mab\"\n"
      "  mab crc-apply --algo 'algo=CRC-32/BZIP2 range=0x10..eof field=0x4:4:le' "
      "corpus/wd1/bit15_k7.mab -o \"${TMPDIR:-/tmp}/mab_crc_b.mab\"\n"
      "  mab crc-apply --algo 'algo=CRC-32/BZIP2 range=0x10..eof field=0x4:4:le' "
      "corpus/wd1/one_bone_k8.mab -o \"${TMPDIR:-/tmp}/mab_crc_c.mab\"\n"
      "  mab crc-search -q \"${TMPDIR:-/tmp}\"/mab_crc_a.mab \"${TMPDIR:-/tmp}\"/mab_crc_b.mab "
      "\"${TMPDIR:-/tmp}\"/mab_crc_c.mab\n"
      "then, on an edited file: mab crc-apply --algo 'SPEC' --in-place edited.mab");
  cmd->callback([o, &exit_code] { exit_code = run(*o); });
}

}  // namespace

MAB_REGISTER_COMMAND(crc_search, setup);
