// `mab survey DIR...`: every .mab under the folders, in parallel, with per-file rows and
// aggregate statistics for format work (lib/include/mab/survey.hpp, docs/survey.md).
#include "command.hpp"
#include "common.hpp"
#include "survey_report.hpp"

#include <mab/checksum.hpp>
#include <mab/crc_search.hpp>
#include <mab/file_io.hpp>
#include <mab/survey.hpp>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <csignal>
#include <cstdio>
#include <deque>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <thread>

#include <unistd.h>  // isatty

namespace {

namespace fs = std::filesystem;
using namespace mab;

std::atomic<bool> g_stop{false};
extern "C" void on_interrupt(int) {
  g_stop = true;
  std::signal(SIGINT, SIG_DFL);  // a second Ctrl-C ends the process at once
  std::signal(SIGTERM, SIG_DFL);
}

// Paths from the walker to the workers, bounded so memory stays flat however large the tree.
class Queue {
 public:
  void push(std::string p) {
    std::unique_lock lock(m_);
    room_.wait(lock, [&] { return q_.size() < 4096 || g_stop; });
    if (g_stop) return;
    q_.push_back(std::move(p));
    ++found_;
    ready_.notify_one();
  }
  std::optional<std::string> pop() {
    std::unique_lock lock(m_);
    ready_.wait(lock, [&] { return !q_.empty() || done_ || g_stop; });
    if (q_.empty() || g_stop) return std::nullopt;
    auto p = std::move(q_.front());
    q_.pop_front();
    room_.notify_one();
    return p;
  }
  void close() {
    std::lock_guard lock(m_);
    done_ = true;
    ready_.notify_all();
  }
  void wake() {
    std::lock_guard lock(m_);
    ready_.notify_all();
    room_.notify_all();
  }
  std::size_t found() const { return found_; }
  bool walk_done() const { return done_; }

 private:
  std::mutex m_;
  std::condition_variable ready_, room_;
  std::deque<std::string> q_;
  std::atomic<std::size_t> found_{0};
  std::atomic<bool> done_{false};
};

bool is_mab(const fs::path& p) { return cli::has_extension(p, ".mab"); }

// Depth-first over the folders, following links to folders once: a folder reached again
// (same identity: device and inode, or on Windows volume and file index) is a loop,
// reported and not entered.
void walk(const std::vector<std::string>& roots, std::vector<std::string>& problems,
          const std::function<void(const std::string&)>& visit) {
  std::set<FileIdentity> seen;
  std::vector<fs::path> stack;
  for (const auto& r : roots) {
    std::error_code ec;
    const auto status = fs::status(path_from_utf8(r), ec);
    if (ec || !fs::exists(status)) {
      problems.push_back(r + ": no such file or folder");
      continue;
    }
    if (fs::is_regular_file(status)) {
      visit(r);
      continue;
    }
    stack.emplace_back(path_from_utf8(r));
  }
  while (!stack.empty() && !g_stop) {
    const fs::path dir = stack.back();
    stack.pop_back();
    const auto id = file_identity(dir);
    if (!id) {
      problems.push_back(dir.string() + ": cannot be read (" + mab::cli::spelled(id.error().detail) + ")");
      continue;
    }
    if (!seen.insert(*id).second) {
      problems.push_back(dir.string() + ": a symbolic link loop (this folder was already surveyed); not entered again");
      continue;
    }
    std::error_code ec;
    fs::directory_iterator it(dir, ec);
    if (ec) {
      problems.push_back(dir.string() + ": cannot be listed (" + ec.message() + ")");
      continue;
    }
    std::vector<fs::path> files, dirs;
    for (; it != fs::directory_iterator() && !g_stop; it.increment(ec)) {
      if (ec) {
        problems.push_back(dir.string() + ": listing stopped (" + ec.message() + ")");
        break;
      }
      std::error_code e2;
      const auto status = it->status(e2);  // follows links
      if (e2) {
        if (it->is_symlink(e2)) problems.push_back(it->path().string() + ": a broken symbolic link");
        continue;
      }
      if (fs::is_directory(status)) dirs.push_back(it->path());
      else if (fs::is_regular_file(status) && is_mab(it->path())) files.push_back(it->path());
    }
    std::sort(files.begin(), files.end());
    std::sort(dirs.rbegin(), dirs.rend());  // popped in ascending order
    for (const auto& f : files) visit(f.string());
    for (const auto& d : dirs) stack.push_back(d);
  }
}

std::string eta(double seconds) {
  char buf[32];
  if (seconds < 60) std::snprintf(buf, sizeof buf, "%.0f s", seconds);
  else std::snprintf(buf, sizeof buf, "%.0f min", seconds / 60);
  return buf;
}

// --crc: the crc-search hypotheses on a sample of each variant, then the best one checked on
// every file of that variant (a second walk, so nothing per file is kept in memory).
std::vector<cli::survey_report::CrcResult> crc_survey(const std::vector<std::string>& roots,
                                                      const std::map<std::string, std::vector<std::string>>& samples,
                                                      bool quiet) {
  std::vector<cli::survey_report::CrcResult> out;
  for (const auto& entry : samples) {
    const std::string& variant = entry.first;  // a plain name: lambdas cannot capture bindings in C++20
    const std::vector<std::string>& paths = entry.second;
    cli::survey_report::CrcResult r;
    r.variant = variant;
    std::vector<checksum::InputFile> files;
    for (const auto& p : paths) {
      auto b = read_file(p);
      if (b) files.push_back({p, std::move(b).value()});
    }
    r.sample = files.size();
    if (files.size() < 3) {
      r.note = "fewer than 3 readable files";
      out.push_back(r);
      continue;
    }
    if (!quiet) std::fprintf(stderr, "mab: survey: crc-search on %zu %s files...\n", files.size(), variant.c_str());
    checksum::SearchOptions so;
    auto rep = checksum::search(files, so);
    if (!rep || rep->matches.empty()) {
      r.note = rep ? "no match" : mab::cli::message(rep.error());
      out.push_back(r);
      continue;
    }
    const auto spec = rep->matches.front().spec;
    r.hypothesis = checksum::to_string(spec);
    std::vector<std::string> problems;
    walk(roots, problems, [&](const std::string& path) {
      auto b = read_file(path);
      if (!b) return;
      auto v = detect_variant(*b);
      if (!v || (*v)->short_name != variant) return;
      ++r.checked;
      auto want = checksum::compute_field(spec, *b);
      auto have = checksum::read_field(*b, spec.field);
      if (want && have && *want == *have) ++r.holds;
    });
    out.push_back(r);
  }
  return out;
}

struct Options {
  std::vector<std::string> dirs;
  unsigned jobs = 0;
  std::string json, csv, html;
  bool crc = false, quiet = false, verbose = false;
  unsigned json_every = 1;
};

// The per-file reports (--csv, --json), opened before the walk, so one that cannot be written
// stops the survey at once.
struct Reports {
  std::unique_ptr<cli::OutputStream> csv, json;
  std::size_t json_rows = 0;
};

bool open_reports(const Options& o, Reports& r) {
  if (!o.csv.empty()) {
    r.csv = cli::OutputStream::open("survey", o.csv);
    if (!r.csv) return false;
    *r.csv << cli::survey_report::csv_header();
  }
  if (!o.json.empty()) {
    r.json = cli::OutputStream::open("survey", o.json);
    if (!r.json) return false;
    *r.json << "{\"format\": \"mabkit-survey\", \"version\": 1, \"files\": [\n";
  }
  return true;
}

// The summary's end of the reports and the --html page; false after printing what failed.
bool finish_reports(const Options& o, Reports& r, const cli::survey_report::Summary& sum) {
  bool ok = true;
  if (r.csv && !r.csv->commit()) ok = false;
  if (r.json) {
    *r.json << "\n],\n\"summary\": " << cli::survey_report::json_summary(sum) << "\n}\n";
    if (!r.json->commit()) ok = false;
  }
  if (!o.html.empty()) {
    const std::string page = cli::survey_report::html(sum);
    const auto* p = reinterpret_cast<const std::uint8_t*>(page.data());
    if (auto st = write_file_atomic(o.html, {p, page.size()}); !st) {
      std::fprintf(stderr, "mab: survey: %s\n", mab::cli::message(st.error()).c_str());
      ok = false;
    }
  }
  return ok;
}

// What the workers gather over the walk.
struct Gathered {
  std::vector<survey::Stats> stats;  // one per worker, merged at the end
  std::vector<survey::FileResult> failures;
  std::map<std::string, std::vector<std::string>> crc_samples;
  std::vector<std::string> walk_problems;
};

// Waits until the walk is done and every file it found surveyed, or Ctrl-C; on a terminal, a
// progress line with the rate and the time left.
void wait_for_workers(const Queue& queue, std::mutex& out_mutex, const std::atomic<std::size_t>& done, bool tty,
                      std::chrono::steady_clock::time_point start) {
  while (true) {
    bool finished = true;
    {
      std::unique_lock lock(out_mutex);
      finished = queue.walk_done() && done == queue.found();
    }
    if (finished || g_stop) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    if (tty) {
      const double t = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      const double rate = static_cast<double>(done) / std::max(t, 1e-3);
      std::string line = "\r  " + std::to_string(done) + "/" + std::to_string(queue.found()) +
                         (queue.walk_done() ? "" : "+") + " files, " + std::to_string(static_cast<int>(rate)) +
                         " files/s";
      if (queue.walk_done() && rate > 0) line += ", " + eta(static_cast<double>(queue.found() - done) / rate) + " left";
      std::fprintf(stderr, "%s   ", line.c_str());
    }
  }
}

// One thread walks the folders into a bounded queue, `jobs` workers survey the files and write
// their rows; Ctrl-C (SIGINT, SIGTERM) stops both.
Gathered survey_files(const Options& o, unsigned jobs, Reports& reports, std::chrono::steady_clock::time_point start) {
  Gathered g;
  g.stats.resize(jobs);
  std::signal(SIGINT, on_interrupt);
  std::signal(SIGTERM, on_interrupt);
  Queue queue;
  std::mutex out_mutex;
  std::atomic<std::size_t> done{0};
  survey::Options so;
  so.json_every = o.json_every;
  std::thread walker([&] {
    walk(o.dirs, g.walk_problems, [&](const std::string& p) { queue.push(p); });
    queue.close();
  });
  std::vector<std::thread> workers;
  for (unsigned w = 0; w < jobs; ++w) {
    workers.emplace_back([&, w] {
      while (auto path = queue.pop()) {
        survey::FileResult r;
        auto bytes = read_file(*path, so.limits);
        if (!bytes) r = survey::unreadable(*path, bytes.error(), g.stats[w]);
        else r = survey::survey_file(*bytes, *path, g.stats[w], so);
        std::lock_guard lock(out_mutex);
        if (reports.csv) *reports.csv << cli::survey_report::csv_row(r);
        if (reports.json) *reports.json << (reports.json_rows++ ? ",\n" : "") << cli::survey_report::json_row(r);
        if ((!r.round_trip || !r.sane) && g.failures.size() < 50) g.failures.push_back(r);
        if (o.crc && r.parsed && g.crc_samples[r.variant].size() < 12) g.crc_samples[r.variant].push_back(r.path);
        if (o.verbose)
          std::printf(
              "%s  %s  (%s%s)\n", r.round_trip && r.sane ? "PASS" : "FAIL", r.path.c_str(), r.variant.c_str(),
              r.first_error.empty() ? (r.sane ? "" : (", " + r.sanity).c_str()) : (", " + r.first_error).c_str());
        ++done;
      }
    });
  }
  const bool tty = ::isatty(STDERR_FILENO) && !o.quiet;
  wait_for_workers(queue, out_mutex, done, tty, start);
  if (g_stop) queue.wake();
  walker.join();
  for (auto& t : workers) t.join();
  std::signal(SIGINT, SIG_DFL);
  std::signal(SIGTERM, SIG_DFL);
  if (tty) std::fprintf(stderr, "\r%60s\r", "");
  return g;
}

int run(const Options& o) {
  g_stop = false;
  const unsigned jobs = o.jobs ? o.jobs : std::max(1u, std::thread::hardware_concurrency());
  Reports reports;
  if (!open_reports(o, reports)) return cli::exit_usage;
  const auto start = std::chrono::steady_clock::now();
  const Gathered g = survey_files(o, jobs, reports, start);
  survey::Stats all;
  for (const auto& s : g.stats) all.merge(s);
  cli::survey_report::Summary sum;
  sum.stats = &all;
  sum.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  sum.jobs = jobs;
  sum.interrupted = g_stop;
  sum.walk_problems = g.walk_problems;
  sum.failures = g.failures;
  sum.roots = o.dirs;
  if (o.crc && !g_stop) sum.crc = crc_survey(o.dirs, g.crc_samples, o.quiet);
  const bool ok = finish_reports(o, reports, sum);
  cli::survey_report::print_table(stdout, sum);
  if (!ok) return cli::exit_usage;
  return all.round_trips == all.files && !sum.interrupted && all.files > 0 ? cli::exit_ok : cli::exit_refused;
}

void setup(CLI::App& app, int& exit_code) {
  auto o = std::make_shared<Options>();
  auto* cmd = app.add_subcommand("survey",
                                 "Survey a whole extracted game folder: which files round-trip, which "
                                 "decode sanely, and statistics of what is not understood yet");
  cmd->add_option("DIR", o->dirs, "Folders (searched recursively for *.mab) or files")->required();
  cmd->add_option("-j,--jobs", o->jobs, "Worker threads (default: every core)");
  cmd->add_option("--json", o->json, "Write one JSON document: a row per file, then the summary and histograms");
  cmd->add_option("--csv", o->csv, "Write a CSV file, a row per file");
  cmd->add_option("--html", o->html, "Write a self-contained HTML report (inline SVG histograms, no network)");
  cmd->add_flag("--crc", o->crc, "Try the crc-search hypotheses on each variant and check the best on all its files");
  cmd->add_option("--json-check", o->json_every,
                  "Check the JSON export/import identity of one file in N, chosen by a hash of the path (default 1: "
                  "every file; 0: none). It is the slowest step, some five times the rest: N = 8 surveys a dump "
                  "about four times as fast");
  cmd->add_flag("-q,--quiet", o->quiet, "No progress line and no notes");
  cmd->add_flag("-v,--verbose", o->verbose, "One line per file, as `mab verify` prints");
  cmd->footer(
      "Example (from the source folder; point it at your extracted game folder instead):\n"
      "  mab survey corpus --json survey.json --html survey.html --crc\n"
      "Per file: variant and layout confidence, byte-identical round trip, structural checks, decode\n"
      "sanity (unit quaternions, increasing key times, a duration matching the last key, every chunk\n"
      "consumed exactly), JSON export/import identity and the first error. The summary lists files\n"
      "per variant, first errors and opaque sections; the reports add histograms of flag bytes, bit\n"
      "depths, cflags, sections, counts, key counts and durations, with example files for rare values.\n"
      "Ctrl-C stops and reports what was surveyed. Exit status: 0 when every file round-tripped,\n"
      "1 when some did not (or the survey was interrupted), 2 on a usage or output error.");
  cmd->callback([o, &exit_code] { exit_code = run(*o); });
}

}  // namespace

MAB_REGISTER_COMMAND(survey, setup);
