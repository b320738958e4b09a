// `mab survey` reports (survey_report.hpp).
#include "survey_report.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>

namespace mab::cli::survey_report {

namespace {

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
  std::string out = "\"";
  for (const char c : s) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + '"';
}

std::string xml(const std::string& s) {
  std::string out;
  out.reserve(s.size());
  for (const char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      default:
        // XML 1.0 allows no control characters but tab and newlines.
        if (c < 0x20 && c != '\t' && c != '\n') out += ' ';
        else out += ch;
    }
  }
  return out;
}

nlohmann::json row_json(const survey::FileResult& r) {
  nlohmann::json j{{"path", r.path},
                   {"size", r.size},
                   {"variant", r.variant},
                   {"confidence", r.confidence},
                   {"parsed", r.parsed},
                   {"round_trip", r.round_trip},
                   {"errors", r.errors},
                   {"warnings", r.warnings},
                   {"blocks", r.blocks},
                   {"decoded_blocks", r.decoded_blocks},
                   {"sane", r.sane},
                   {"sanity", r.sanity},
                   {"first_error", r.first_error},
                   {"error_code", r.error_code}};
  j["json_identity"] = r.json_identity ? nlohmann::json(*r.json_identity) : nlohmann::json(nullptr);
  return j;
}

double pct(std::uint64_t a, std::uint64_t b) {
  return b ? 100.0 * static_cast<double>(a) / static_cast<double>(b) : 0.0;
}

std::string fmt(const char* f, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}

}  // namespace

std::string csv_header() {
  return "path,size,variant,confidence,parsed,round_trip,errors,warnings,blocks,decoded_blocks,sane,json_identity,"
         "error_code,first_error,sanity\n";
}

std::string csv_row(const survey::FileResult& r) {
  auto b = [](bool v) { return std::string(v ? "1" : "0"); };
  return csv_field(r.path) + "," + std::to_string(r.size) + "," + r.variant + "," + r.confidence + "," + b(r.parsed) +
         "," + b(r.round_trip) + "," + std::to_string(r.errors) + "," + std::to_string(r.warnings) + "," +
         std::to_string(r.blocks) + "," + std::to_string(r.decoded_blocks) + "," + b(r.sane) + "," +
         (r.json_identity ? b(*r.json_identity) : std::string()) + "," + r.error_code + "," + csv_field(r.first_error) +
         "," + csv_field(r.sanity) + "\n";
}

std::string json_row(const survey::FileResult& r) { return row_json(r).dump(); }

std::string json_summary(const Summary& s) {
  const auto& st = *s.stats;
  nlohmann::json j{{"files", st.files},
                   {"bytes", st.bytes},
                   {"parsed", st.parsed},
                   {"round_trips", st.round_trips},
                   {"sane", st.sane},
                   {"json_checked", st.json_checked},
                   {"json_ok", st.json_ok},
                   {"blocks", st.blocks},
                   {"decoded_blocks", st.decoded_blocks},
                   {"seconds", s.seconds},
                   {"jobs", s.jobs},
                   {"interrupted", s.interrupted},
                   {"walk_problems", s.walk_problems}};
  nlohmann::json hs = nlohmann::json::object();
  for (const auto& [name, hist] : st.histograms) {
    nlohmann::json jh = nlohmann::json::object();
    for (const auto& [value, b] : hist.buckets)
      jh[value] = {{"count", b.count}, {"bytes", b.bytes}, {"examples", b.examples}};
    hs[name] = std::move(jh);
  }
  j["histograms"] = std::move(hs);
  nlohmann::json crc = nlohmann::json::array();
  for (const auto& c : s.crc)
    crc.push_back({{"variant", c.variant},
                   {"sample", c.sample},
                   {"hypothesis", c.hypothesis},
                   {"checked", c.checked},
                   {"holds", c.holds},
                   {"note", c.note}});
  j["crc"] = std::move(crc);
  return j.dump(1);
}

void print_table(std::FILE* out, const Summary& s) {
  const auto& st = *s.stats;
  std::fprintf(out, "\nmab survey: %llu files, %.1f MB in %.2f s with %u job(s) (%.0f files/s)%s\n",
               static_cast<unsigned long long>(st.files), static_cast<double>(st.bytes) / 1e6, s.seconds, s.jobs,
               s.seconds > 0 ? static_cast<double>(st.files) / s.seconds : 0.0,
               s.interrupted ? " -- INTERRUPTED, partial" : "");
  std::fprintf(out, "  parsed            %llu (%.1f%%)\n", static_cast<unsigned long long>(st.parsed),
               pct(st.parsed, st.files));
  std::fprintf(out, "  round trip        %llu byte for byte (%.1f%%)\n",
               static_cast<unsigned long long>(st.round_trips), pct(st.round_trips, st.files));
  std::fprintf(out,
               "  decoded blocks    %llu of %llu (rotations, and Far Cry 2/3 tracks, as mab export decodes them)\n",
               static_cast<unsigned long long>(st.decoded_blocks), static_cast<unsigned long long>(st.blocks));
  std::fprintf(out, "  decode sanity     %llu sane (%.1f%%)\n", static_cast<unsigned long long>(st.sane),
               pct(st.sane, st.files));
  if (st.json_checked)
    std::fprintf(out, "  JSON identity     %llu of %llu\n", static_cast<unsigned long long>(st.json_ok),
                 static_cast<unsigned long long>(st.json_checked));
  if (auto it = st.histograms.find(survey::h::variants); it != st.histograms.end()) {
    std::fprintf(out, "  %-22s %8s %12s\n", "variant", "files", "bytes");
    for (const auto& [v, b] : it->second.buckets)
      std::fprintf(out, "  %-22s %8llu %12llu\n", v.c_str(), static_cast<unsigned long long>(b.count),
                   static_cast<unsigned long long>(b.bytes));
  }
  if (auto it = st.histograms.find(survey::h::errors); it != st.histograms.end()) {
    std::fprintf(out, "  first errors:\n");
    for (const auto& [v, b] : it->second.buckets)
      std::fprintf(out, "    %-40s %8llu  e.g. %s\n", v.c_str(), static_cast<unsigned long long>(b.count),
                   b.examples.empty() ? "" : b.examples.front().c_str());
  }
  if (auto it = st.histograms.find(survey::h::opaque); it != st.histograms.end()) {
    std::fprintf(out, "  opaque sections (not decoded yet):\n");
    for (const auto& [v, b] : it->second.buckets)
      std::fprintf(out, "    %-40s %8llu files %12llu bytes\n", v.c_str(), static_cast<unsigned long long>(b.count),
                   static_cast<unsigned long long>(b.bytes));
  }
  for (const auto& p : s.walk_problems) std::fprintf(out, "  walk: %s\n", p.c_str());
  for (const auto& c : s.crc) {
    if (c.hypothesis.empty())
      std::fprintf(out, "  crc %-6s no hypothesis holds on a sample of %zu files%s%s\n", c.variant.c_str(), c.sample,
                   c.note.empty() ? "" : ": ", c.note.c_str());
    else
      std::fprintf(out, "  crc %-6s %s: holds on %zu of %zu files\n", c.variant.c_str(), c.hypothesis.c_str(), c.holds,
                   c.checked);
  }
  std::fprintf(out, "  histograms of flags, depths, sections and counts: --json, --csv or --html\n");
}

std::string html(const Summary& s) {
  const auto& st = *s.stats;
  std::string o;
  o +=
      "<!DOCTYPE html>\n<html xmlns=\"http://www.w3.org/1999/xhtml\" lang=\"en\">\n<head>\n<meta charset=\"utf-8\"/>\n";
  o += "<title>mab survey</title>\n<style>\n"
       "body{font-family:sans-serif;margin:2em;max-width:72em;color:#222}\n"
       "table{border-collapse:collapse;margin:0.5em 0 1.5em}\n"
       "td,th{border:1px solid #bbb;padding:0.2em 0.6em;text-align:left;font-size:0.9em}\n"
       "td.n{text-align:right}\n.bad{color:#a00}\nsvg{display:block;margin-bottom:0.3em}\n"
       "details{margin-bottom:1em}\n</style>\n</head>\n<body>\n";
  o += "<h1>mab survey</h1>\n<p>Folders: " + xml([&] {
         std::string r;
         for (const auto& x : s.roots) r += (r.empty() ? "" : ", ") + x;
         return r;
       }()) +
       "</p>\n";
  if (s.interrupted) o += "<p class=\"bad\">Interrupted: the report covers the files surveyed before.</p>\n";
  o += "<table>\n";
  auto row = [&](const std::string& k, const std::string& v) {
    o += "<tr><th>" + xml(k) + "</th><td class=\"n\">" + xml(v) + "</td></tr>\n";
  };
  row("files", std::to_string(st.files));
  row("bytes", std::to_string(st.bytes));
  row("parsed", std::to_string(st.parsed) + " (" + fmt("%.1f", pct(st.parsed, st.files)) + "%)");
  row("round trip byte for byte",
      std::to_string(st.round_trips) + " (" + fmt("%.1f", pct(st.round_trips, st.files)) + "%)");
  row("decoded blocks", std::to_string(st.decoded_blocks) + " of " + std::to_string(st.blocks));
  row("decode sanity", std::to_string(st.sane) + " (" + fmt("%.1f", pct(st.sane, st.files)) + "%)");
  if (st.json_checked) row("JSON identity", std::to_string(st.json_ok) + " of " + std::to_string(st.json_checked));
  row("time", fmt("%.2f s", s.seconds) + " with " + std::to_string(s.jobs) + " job(s)");
  o += "</table>\n";
  if (!s.walk_problems.empty()) {
    o += "<h2>Walking the folders</h2>\n<ul>\n";
    for (const auto& p : s.walk_problems) o += "<li>" + xml(p) + "</li>\n";
    o += "</ul>\n";
  }
  if (!s.crc.empty()) {
    o += "<h2>Header checksum "
         "(crc-search)</h2>\n<table>\n<tr><th>variant</th><th>sample</th><th>hypothesis</th><th>holds</th></tr>\n";
    for (const auto& c : s.crc)
      o += "<tr><td>" + xml(c.variant) + "</td><td class=\"n\">" + std::to_string(c.sample) + "</td><td>" +
           xml(c.hypothesis.empty() ? "none (" + c.note + ")" : c.hypothesis) + "</td><td class=\"n\">" +
           (c.hypothesis.empty() ? "" : std::to_string(c.holds) + " of " + std::to_string(c.checked)) + "</td></tr>\n";
    o += "</table>\n";
  }
  if (!s.failures.empty()) {
    o += "<h2>First files that did not round-trip or decode "
         "sanely</h2>\n<table>\n<tr><th>file</th><th>variant</th><th>first error</th></tr>\n";
    for (const auto& f : s.failures)
      o += "<tr><td>" + xml(f.path) + "</td><td>" + xml(f.variant) + "</td><td class=\"bad\">" +
           xml(f.first_error.empty() ? f.sanity : f.first_error) + "</td></tr>\n";
    o += "</table>\n";
  }
  o += "<h2>Histograms</h2>\n<p>Each bar is a value's share of its histogram; rare values list example files.</p>\n";
  for (const auto& [name, hist] : st.histograms) {
    std::uint64_t top = 1;
    for (const auto& [v, b] : hist.buckets) top = std::max(top, b.count);
    o += "<details open=\"open\"><summary><b>" + xml(name) + "</b> (" + std::to_string(hist.buckets.size()) +
         " values, " + std::to_string(hist.total) + " in all)</summary>\n";
    const std::size_t h = 18 * hist.buckets.size() + 4;
    o += "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"760\" height=\"" + std::to_string(h) + "\" role=\"img\">\n";
    std::size_t y = 2;
    for (const auto& [v, b] : hist.buckets) {
      const double w = 380.0 * static_cast<double>(b.count) / static_cast<double>(top);
      o += "<text x=\"0\" y=\"" + std::to_string(y + 12) + "\" font-size=\"11\">" +
           xml(v.size() > 48 ? v.substr(0, 45) + "..." : v) + "</text>\n";
      o += "<rect x=\"300\" y=\"" + std::to_string(y + 2) + "\" width=\"" + fmt("%.1f", std::max(w, 1.0)) +
           "\" height=\"12\" fill=\"#4a7fb5\"/>\n";
      o += "<text x=\"" + fmt("%.1f", 304 + w) + "\" y=\"" + std::to_string(y + 12) + "\" font-size=\"11\">" +
           std::to_string(b.count) + (b.bytes ? " (" + std::to_string(b.bytes) + " B)" : std::string()) + "</text>\n";
      y += 18;
    }
    o += "</svg>\n";
    bool any_rare = false;
    for (const auto& [v, b] : hist.buckets) any_rare = any_rare || (b.count * 100 < hist.total && !b.examples.empty());
    if (any_rare) {
      o += "<table>\n<tr><th>rare value</th><th>count</th><th>examples</th></tr>\n";
      for (const auto& [v, b] : hist.buckets) {
        if (!(b.count * 100 < hist.total)) continue;
        std::string ex;
        for (const auto& e : b.examples) ex += (ex.empty() ? "" : ", ") + e;
        o += "<tr><td>" + xml(v) + "</td><td class=\"n\">" + std::to_string(b.count) + "</td><td>" + xml(ex) +
             "</td></tr>\n";
      }
      o += "</table>\n";
    }
    o += "</details>\n";
  }
  o += "<p>Written by mabkit's <code>mab survey</code>. Synthetic files give synthetic statistics; real game files are "
       "what close the gaps in the format's description.</p>\n</body>\n</html>\n";
  return o;
}

}  // namespace mab::cli::survey_report
