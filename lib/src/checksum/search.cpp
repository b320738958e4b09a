// crc-search driver: candidate ranges, the catalogue / other-checksum / free-init
// sweeps over them, the solver, then verification, ranking and deduplication.
#include <mab/crc_search.hpp>

#include "solver.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <exception>
#include <map>
#include <mutex>
#include <set>
#include <thread>

namespace mab::checksum {

namespace {

using crc::CrcEngine;
using crc::CrcParams;

struct FileData {
  std::span<const std::uint8_t> bytes;
  std::array<std::vector<std::uint8_t>, 2> view;  // [0]: field zeroed, [1]: field removed
  std::array<std::uint64_t, 2> values{};          // field read little / big endian
};

struct Candidate {
  RangeSpec spec;
  std::string label;
  bool standard = false;
  std::vector<ResolvedRange> resolved;  // per file
};

// Where a resolved range lives: which view, and its bounds in that view.
struct ViewSpan {
  std::uint8_t view = 0;
  std::uint64_t begin = 0, end = 0;
};

ViewSpan view_span(const ResolvedRange& r, const FieldSpec& f) {
  if (!r.skip_field) return {0, r.begin, r.end};
  const auto map = [&](std::uint64_t p) {
    if (p <= f.offset) return p;
    return p >= f.offset + f.length ? p - f.length : f.offset;
  };
  return {1, map(r.begin), map(r.end)};
}

std::span<const std::uint8_t> message_of(const FileData& fd, const ResolvedRange& r, const FieldSpec& f) {
  const auto v = view_span(r, f);
  return std::span<const std::uint8_t>(fd.view[v.view])
      .subspan(static_cast<std::size_t>(v.begin), static_cast<std::size_t>(v.end - v.begin));
}

// Prefix registers are needed at these positions, and x^(8L) for these lengths.
struct RangeRef {
  std::uint8_t view;
  std::uint32_t si, ei, li;
};

struct PrefixIndex {
  std::array<std::vector<std::uint64_t>, 2> positions;
  std::vector<std::uint64_t> lengths;
  std::vector<RangeRef> refs;  // per candidate
};

std::uint32_t index_of(const std::vector<std::uint64_t>& sorted, std::uint64_t v) {
  return static_cast<std::uint32_t>(std::lower_bound(sorted.begin(), sorted.end(), v) - sorted.begin());
}

PrefixIndex build_index(const std::vector<Candidate>& cands, std::size_t file, const FieldSpec& field) {
  PrefixIndex ix;
  for (const auto& c : cands) {
    const auto v = view_span(c.resolved[file], field);
    ix.positions[v.view].push_back(v.begin);
    ix.positions[v.view].push_back(v.end);
    ix.lengths.push_back(v.end - v.begin);
  }
  for (auto* vec : {&ix.positions[0], &ix.positions[1], &ix.lengths}) {
    std::sort(vec->begin(), vec->end());
    vec->erase(std::unique(vec->begin(), vec->end()), vec->end());
  }
  for (const auto& c : cands) {
    const auto v = view_span(c.resolved[file], field);
    ix.refs.push_back(RangeRef{v.view, index_of(ix.positions[v.view], v.begin), index_of(ix.positions[v.view], v.end),
                               index_of(ix.lengths, v.end - v.begin)});
  }
  return ix;
}

// Polynomial-form registers of the raw CRC (init 0) at every indexed position.
std::array<std::vector<std::uint64_t>, 2> prefix_registers(const CrcEngine& raw, const FileData& fd,
                                                           const PrefixIndex& ix) {
  std::array<std::vector<std::uint64_t>, 2> out;
  for (std::size_t v = 0; v < 2; ++v) {
    std::uint64_t reg = 0, prev = 0;
    out[v].reserve(ix.positions[v].size());
    const std::span<const std::uint8_t> data(fd.view[v]);
    for (const auto p : ix.positions[v]) {
      reg = raw.update(reg, data.subspan(static_cast<std::size_t>(prev), static_cast<std::size_t>(p - prev)));
      prev = p;
      out[v].push_back(raw.to_poly(reg));
    }
  }
  return out;
}

// x^(8L) (or x^(-8L)) mod P for each indexed length, stepping between neighbours.
std::vector<std::uint64_t> shift_table(const std::vector<std::uint64_t>& lengths, const CrcParams& p, bool inverse) {
  std::vector<std::uint64_t> out;
  out.reserve(lengths.size());
  std::uint64_t cur = 1, prev = 0;
  for (const auto len : lengths) {
    const std::uint64_t delta = len - prev;
    if (delta <= 16) {
      for (std::uint64_t i = 0; i < delta; ++i)
        cur = inverse ? crc::mul_xinv8(cur, p.poly, p.width) : crc::mul_x8(cur, p.poly, p.width);
    } else {
      const auto step =
          inverse ? crc::xpow_inv_mod(8 * delta, p.poly, p.width) : crc::xpow_mod(8 * delta, p.poly, p.width);
      cur = crc::mulmod(cur, step, p.poly, p.width);
    }
    prev = len;
    out.push_back(cur);
  }
  return out;
}

std::string range_label(const RangeSpec& r, const FieldSpec& field, std::string_view name) {
  const auto text = to_string(r, field);
  return name.empty() ? text : std::string(name) + " (" + text + ")";
}

struct Shared {
  const std::vector<FileData>& files;
  const std::vector<Candidate>& cands;
  const SearchOptions& opt;
  std::vector<Endian> endians;
  std::mutex mutex;
  std::vector<Match> found;
  std::atomic<std::uint64_t> candidates{0}, free_candidates{0};
  std::atomic<std::size_t> done{0};
  std::size_t total_tasks = 0;

  void progress(const std::string& s) {
    if (!opt.progress) return;
    std::lock_guard lock(mutex);
    opt.progress(s);
  }
};

bool verify(const Shared& sh, const Algorithm& algo, const Candidate& c, Endian endian) {
  const unsigned fb = sh.opt.field.length;
  for (std::size_t f = 0; f < sh.files.size(); ++f) {
    const auto msg = message_of(sh.files[f], c.resolved[f], sh.opt.field);
    const auto v = field_value_of(algo, compute_raw(algo, msg), fb);
    if (v != sh.files[f].values[endian == Endian::little ? 0 : 1]) return false;
  }
  return true;
}

void record(Shared& sh, const Algorithm& algo, const Candidate& c, Endian endian, Method method, std::string note) {
  Match m;
  m.spec = ChecksumSpec{algo, c.spec, sh.opt.field};
  m.spec.field.endian = endian;
  m.method = method;
  m.range_label = c.label;
  m.note = std::move(note);
  std::lock_guard lock(sh.mutex);
  sh.found.push_back(std::move(m));
}

std::vector<Part> parts_for(unsigned width, unsigned field_bits) {
  if (width <= field_bits) return {Part::whole};
  return {Part::low, Part::high};
}

void crc_task(Shared& sh, const CrcParams& params, const PrefixIndex& ix0, const PrefixIndex* ix1) {
  const unsigned fb = sh.opt.field.length * 8;
  auto raw = CrcEngine::make(CrcParams{params.width, params.poly, 0, params.refin, false, 0});
  auto full = CrcEngine::make(params);
  if (!raw || !full) return;
  const auto r0 = prefix_registers(*raw, sh.files[0], ix0);
  const auto t0 = shift_table(ix0.lengths, params, false);
  const bool free_init = sh.opt.free_init && ix1 != nullptr && params.width == 32 && fb == 32 && (params.poly & 1u);
  std::array<std::vector<std::uint64_t>, 2> r1;
  std::vector<std::uint64_t> t1, tinv0;
  if (free_init) {
    r1 = prefix_registers(*raw, sh.files[1], *ix1);
    t1 = shift_table(ix1->lengths, params, false);
    tinv0 = shift_table(ix0.lengths, params, true);
  }
  const auto parts = parts_for(params.width, fb);
  std::uint64_t tried = 0, free_tried = 0;
  for (std::size_t ci = 0; ci < sh.cands.size(); ++ci) {
    const auto& ref = ix0.refs[ci];
    const auto rs = r0[ref.view][ref.si];
    const auto re = r0[ref.view][ref.ei];
    const auto reg = re ^ crc::mulmod(rs ^ params.init, t0[ref.li], params.poly, params.width);
    const auto out = full->output_of_poly(reg);
    for (const auto endian : sh.endians) {
      const auto want = sh.files[0].values[endian == Endian::little ? 0 : 1];
      for (const auto part : parts) {
        ++tried;
        const Algorithm algo{Kind::crc, params, part};
        if (field_value_of(algo, out, fb / 8) == want && verify(sh, algo, sh.cands[ci], endian))
          record(sh, algo, sh.cands[ci], endian, Method::catalogue, {});
      }
      if (!free_init) continue;
      // Solve the init that explains file 0, then test it on file 1 (then all).
      ++free_tried;
      std::uint64_t treg = want ^ params.xorout;
      if (params.refout) treg = crc::reflect(treg, 32);
      const auto init = crc::mulmod(treg ^ re, tinv0[ref.li], params.poly, 32) ^ rs;
      if (init == params.init) continue;
      const auto& ref1 = ix1->refs[ci];
      const auto reg1 =
          r1[ref1.view][ref1.ei] ^ crc::mulmod(r1[ref1.view][ref1.si] ^ init, t1[ref1.li], params.poly, 32);
      if (full->output_of_poly(reg1) != sh.files[1].values[endian == Endian::little ? 0 : 1]) continue;
      CrcParams p = params;
      p.init = init;
      const Algorithm algo{Kind::crc, p, Part::whole};
      if (verify(sh, algo, sh.cands[ci], endian))
        record(sh, algo, sh.cands[ci], endian, Method::free_init,
               std::string(crc::catalogue_name(params)) + " with a different init");
    }
  }
  sh.candidates += tried;
  sh.free_candidates += free_tried;
}

void other_task(Shared& sh, Kind kind) {
  const unsigned fb = sh.opt.field.length * 8;
  const auto& fd = sh.files[0];
  // Group candidates by (view, start) so that one pass serves every end.
  std::map<std::pair<std::uint8_t, std::uint64_t>, std::vector<std::pair<std::uint64_t, std::size_t>>> groups;
  for (std::size_t ci = 0; ci < sh.cands.size(); ++ci) {
    const auto v = view_span(sh.cands[ci].resolved[0], sh.opt.field);
    groups[{v.view, v.begin}].emplace_back(v.end, ci);
  }
  std::uint64_t tried = 0;
  const Algorithm algo{kind, {}, Part::whole};
  for (auto& [key, ends] : groups) {
    std::sort(ends.begin(), ends.end());
    const std::span<const std::uint8_t> data(fd.view[key.first]);
    OtherState st(kind);
    std::uint64_t pos = key.second;
    for (const auto& [end, ci] : ends) {
      st.update(data.subspan(static_cast<std::size_t>(pos), static_cast<std::size_t>(end - pos)));
      pos = end;
      const auto v = field_value_of(algo, st.value(), fb / 8);
      for (const auto endian : sh.endians) {
        ++tried;
        if (v == fd.values[endian == Endian::little ? 0 : 1] && verify(sh, algo, sh.cands[ci], endian))
          record(sh, algo, sh.cands[ci], endian, Method::other, {});
      }
    }
  }
  sh.candidates += tried;
}

void run_parallel(std::size_t count, unsigned threads, const std::function<void(std::size_t)>& fn,
                  std::exception_ptr& failure) {
  std::atomic<std::size_t> next{0};
  std::mutex m;
  auto worker = [&] {
    for (;;) {
      const std::size_t i = next++;
      if (i >= count) return;
      try {
        fn(i);
      } catch (...) {
        std::lock_guard lock(m);
        if (!failure) failure = std::current_exception();
      }
    }
  };
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < threads; ++t) pool.emplace_back(worker);
  worker();
  for (auto& t : pool) t.join();
}

struct ResolvedLess {
  bool operator()(const std::vector<ResolvedRange>& a, const std::vector<ResolvedRange>& b) const {
    return std::lexicographical_compare(a.begin(), a.end(), b.begin(), b.end(), [](const auto& x, const auto& y) {
      return std::tie(x.begin, x.end, x.skip_field) < std::tie(y.begin, y.end, y.skip_field);
    });
  }
};

std::vector<Candidate> build_candidates(const std::vector<FileData>& files, const SearchOptions& opt,
                                        std::size_t& standard_count) {
  const auto& f = opt.field;
  using S = RangeSpec::Start;
  using E = RangeSpec::End;
  using M = RangeSpec::FieldMode;
  std::vector<std::pair<RangeSpec, std::string>> specs{
      {{S::absolute, 0, E::eof, 0, M::zeroed}, "whole file, field zeroed"},
      {{S::absolute, 0, E::eof, 0, M::skipped}, "whole file, field skipped"},
      {{S::absolute, f.offset + f.length, E::eof, 0, M::zeroed}, "field end to end of file"},
      {{S::absolute, 0x08, E::eof, 0, M::zeroed}, "from 0x08"},
      {{S::absolute, 0x10, E::eof, 0, M::zeroed}, "from 0x10"},
      {{S::ani, 0, E::eof, 0, M::zeroed}, "'aNi' block to end of file"},
      {{S::absolute, 0x10, E::data_size, 0, M::zeroed}, "animationDataSize bytes from 0x10"},
      {{S::ani, 0, E::data_size, 0, M::zeroed}, "'aNi' block to 0x10 + animationDataSize"},
  };
  const std::size_t named = specs.size();
  // Exhaustive sweep: every start below S, every end within K of the end of file.
  const std::size_t k_max = std::min<std::size_t>(16, std::max<std::size_t>(1, opt.max_ranges));
  const std::size_t s_max = std::max<std::size_t>(1, opt.max_ranges / k_max);
  for (std::size_t s = 0; s < s_max; ++s)
    for (std::size_t k = 0; k < k_max; ++k) {
      specs.push_back({{S::absolute, s, E::eof, k, M::zeroed}, {}});
      if (s < f.offset + f.length) specs.push_back({{S::absolute, s, E::eof, k, M::skipped}, {}});
    }
  std::vector<Candidate> out;
  std::map<std::vector<ResolvedRange>, std::size_t, ResolvedLess> index;
  standard_count = 0;
  for (std::size_t i = 0; i < specs.size(); ++i) {
    Candidate c;
    c.spec = specs[i].first;
    c.standard = i < named;
    bool ok = true;
    for (const auto& fd : files) {
      auto r = resolve(c.spec, fd.bytes, f);
      if (!r || r->end == r->begin) {
        ok = false;
        break;
      }
      // A range that covers only part of the field is never what a writer does.
      if (covers_field(*r, f) && (r->begin > f.offset || r->end < f.offset + f.length)) {
        ok = false;
        break;
      }
      c.resolved.push_back(*r);
    }
    if (!ok) continue;
    // Skipping a field the range does not reach is the same range as zeroing it.
    if (c.spec.mode == M::skipped && !c.resolved[0].skip_field) continue;
    auto [it, inserted] = index.emplace(c.resolved, out.size());
    if (!inserted) {
      if (c.standard && !specs[i].second.empty()) {
        auto& prev = out[it->second];
        if (prev.standard) prev.label += " = " + specs[i].second;
      }
      continue;
    }
    c.label = range_label(c.spec, f, specs[i].second);
    if (c.standard) ++standard_count;
    out.push_back(std::move(c));
  }
  return out;
}

std::string key_of(const Match& m) {
  const auto& a = m.spec.algo;
  char buf[160];
  std::snprintf(buf, sizeof buf, "%d/%u/%llx/%d/%d/%d/%d/%llu/%d", static_cast<int>(a.kind), a.crc.width,
                static_cast<unsigned long long>(a.crc.poly), a.crc.refin, a.crc.refout, static_cast<int>(a.part),
                static_cast<int>(m.spec.range.end_kind), static_cast<unsigned long long>(m.spec.range.end_back),
                static_cast<int>(m.spec.field.endian));
  return buf;
}

Status check_options(std::span<const InputFile> inputs, const SearchOptions& opt) {
  if (inputs.size() < 2)
    return make_error(ErrorCode::invalid_argument, no_offset, "files", "need at least 2 files (3 or more recommended)");
  if (opt.field.length < 1 || opt.field.length > 8)
    return make_error(ErrorCode::invalid_argument, no_offset, "field", "field length must be 1..8 bytes");
  return {};
}

// Each file's field value in both byte orders, and its two views (field zeroed,
// field removed).
Result<std::vector<FileData>> load_files(std::span<const InputFile> inputs, const SearchOptions& opt) {
  std::vector<FileData> files(inputs.size());
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    auto& fd = files[i];
    fd.bytes = inputs[i].bytes;
    for (int e = 0; e < 2; ++e) {
      FieldSpec fs = opt.field;
      fs.endian = e == 0 ? Endian::little : Endian::big;
      auto v = read_field(fd.bytes, fs);
      if (!v) {
        auto err = std::move(v).error();
        err.detail = inputs[i].name + ": " + err.detail;
        return err;
      }
      fd.values[static_cast<std::size_t>(e)] = *v;
    }
    const ResolvedRange whole{0, fd.bytes.size(), false};
    fd.view[0] = covered_bytes(fd.bytes, whole, opt.field);
    fd.view[1] = covered_bytes(fd.bytes, ResolvedRange{0, fd.bytes.size(), true}, opt.field);
  }
  return files;
}

// Every catalogue CRC (with free init) and every other checksum over every
// candidate range, one task per algorithm on the thread pool.
Status sweep_catalogue(Shared& sh, unsigned threads, SearchStats& st) {
  const auto& cands = sh.cands;
  if (!sh.opt.catalogue) {
    st.notes.push_back("catalogue and checksum sweep disabled");
    return {};
  }
  if (cands.empty()) return {};
  const auto ix0 = build_index(cands, 0, sh.opt.field);
  const auto ix1 = build_index(cands, 1, sh.opt.field);
  const auto cat = crc::catalogue();
  const auto others = other_kinds();
  const std::size_t tasks = cat.size() + others.size();
  st.algorithms = tasks;
  sh.progress("crc-search: " + std::to_string(cands.size()) + " candidate ranges (" +
              std::to_string(st.standard_ranges) + " standard), " + std::to_string(tasks) + " algorithms, " +
              std::to_string(threads) + " threads");
  std::exception_ptr failure;
  run_parallel(
      tasks, threads,
      [&](std::size_t i) {
        if (i < cat.size()) crc_task(sh, cat[i].params, ix0, &ix1);
        else other_task(sh, others[i - cat.size()]);
        const auto d = ++sh.done;
        if (d % 16 == 0 || d == tasks)
          sh.progress("crc-search: catalogue " + std::to_string(d) + "/" + std::to_string(tasks) + " algorithms");
      },
      failure);
  if (failure) {
    try {
      std::rethrow_exception(failure);
    } catch (const std::exception& e) {
      return make_error(ErrorCode::invalid_argument, no_offset, "search", std::string("internal failure: ") + e.what());
    }
  }
  st.candidates = sh.candidates;
  st.free_init_candidates = sh.free_candidates;
  return {};
}

// Evidence: bits each match had to agree on, less the bits spent on choosing it.
// Identical copies of a file agree with anything the first copy agrees with.
void score_sweep_matches(Shared& sh, const SearchStats& st) {
  std::set<std::pair<std::size_t, std::uint64_t>> contents;
  for (const auto& fd : sh.files) {
    std::uint64_t h = 0xcbf29ce484222325ull;
    for (const auto c : fd.bytes) h = (h ^ c) * 0x100000001B3ull;
    contents.emplace(fd.bytes.size(), h);
  }
  const unsigned fb = sh.opt.field.length * 8;
  const double distinct = static_cast<double>(contents.size());
  const double cat_cost = std::log2(std::max<double>(1.0, static_cast<double>(st.candidates)));
  const double free_cost = std::log2(std::max<double>(1.0, static_cast<double>(st.free_init_candidates)));
  for (auto& m : sh.found) {
    const double per_file = std::min<double>(m.spec.algo.width(), fb);
    if (m.method == Method::free_init) m.evidence_bits = per_file * (distinct - 1) - free_cost;
    else m.evidence_bits = per_file * distinct - cat_cost;
  }
}

// Fully unknown 32-bit CRCs over the standard ranges (solver.cpp); each hit is
// verified on every file before it counts.
Status run_solver(Shared& sh, unsigned threads, SearchStats& st) {
  if (!sh.opt.solver) return {};
  if (sh.opt.field.length * 8 != 32) {
    st.notes.push_back("solver skipped: it needs a 4-byte field");
    return {};
  }
  const auto& cands = sh.cands;
  std::vector<detail::SolverRange> sranges;
  std::vector<std::size_t> smap;
  for (std::size_t ci = 0; ci < cands.size(); ++ci) {
    if (!cands[ci].standard) continue;
    detail::SolverRange sr;
    for (std::size_t f = 0; f < sh.files.size(); ++f)
      sr.messages.push_back(message_of(sh.files[f], cands[ci].resolved[f], sh.opt.field));
    sranges.push_back(std::move(sr));
    smap.push_back(ci);
  }
  std::vector<std::array<std::uint64_t, 2>> values;
  for (const auto& fd : sh.files) values.push_back(fd.values);
  detail::SolverOptions so;
  so.mixed_reflection = sh.opt.solver_mixed_reflection;
  so.threads = threads;
  so.progress = [&](const std::string& s) { sh.progress(s); };
  MAB_ASSIGN(auto solved, detail::solve_crc32(sranges, values, sh.endians, so));
  st.solver_systems = solved.systems;
  st.solver_polynomials = solved.polynomials;
  for (auto& n : solved.notes) st.notes.push_back(std::move(n));
  const double cost = std::log2(std::max<double>(1.0, static_cast<double>(solved.hypotheses)));
  for (const auto& hit : solved.hits) {
    const auto& cand = cands[smap[hit.range]];
    const Algorithm algo{Kind::crc, hit.params, Part::whole};
    if (!verify(sh, algo, cand, hit.endian)) {
      st.notes.push_back("solver result failed verification (bug): " + crc::describe(hit.params));
      continue;
    }
    Match m;
    m.spec = ChecksumSpec{algo, cand.spec, sh.opt.field};
    m.spec.field.endian = hit.endian;
    m.method = Method::solver;
    m.range_label = cand.label;
    m.ambiguous_bits = hit.ambiguous_bits;
    m.evidence_bits = hit.spare_bits - cost;
    m.note = hit.note;
    sh.found.push_back(std::move(m));
  }
  return {};
}

// Rank: method, then range (standard ranges in their listed order first), then
// byte order; drop weak matches and variants equivalent to a better one.
std::vector<Match> rank_matches(Shared& sh, SearchStats& st) {
  const auto& cands = sh.cands;
  const auto& opt = sh.opt;
  std::map<std::string, std::size_t> cand_order;
  for (std::size_t i = 0; i < cands.size(); ++i) cand_order[to_string(cands[i].spec, opt.field)] = i;
  auto order = [&](const Match& m) {
    const auto it = cand_order.find(to_string(m.spec.range, opt.field));
    return std::make_tuple(static_cast<int>(m.method), it == cand_order.end() ? cands.size() : it->second,
                           static_cast<int>(m.spec.field.endian), static_cast<int>(m.spec.algo.part));
  };
  std::stable_sort(sh.found.begin(), sh.found.end(),
                   [&](const Match& a, const Match& b) { return order(a) < order(b); });
  std::vector<Match> out;
  std::set<std::string> keys;
  for (auto& m : sh.found) {
    if (m.evidence_bits < opt.min_evidence_bits) {
      ++st.weak_matches;
      continue;
    }
    const auto key = key_of(m);
    if ((m.method == Method::free_init || m.method == Method::solver) && keys.count(key)) {
      ++st.suppressed;
      continue;
    }
    keys.insert(key);
    if (out.size() >= opt.max_results) {
      ++st.suppressed;
      continue;
    }
    out.push_back(std::move(m));
  }
  return out;
}

}  // namespace

std::string_view method_name(Method m) {
  switch (m) {
    case Method::catalogue: return "catalogue";
    case Method::other: return "checksum";
    case Method::free_init: return "catalogue-free-init";
    case Method::solver: return "solver";
  }
  return "unknown";
}

Result<SearchReport> search(std::span<const InputFile> inputs, const SearchOptions& opt) {
  const auto t_start = std::chrono::steady_clock::now();
  MAB_TRY(check_options(inputs, opt));
  MAB_ASSIGN(const auto files, load_files(inputs, opt));
  SearchReport report;
  auto& st = report.stats;
  st.files = files.size();
  const auto cands = build_candidates(files, opt, st.standard_ranges);
  st.ranges = cands.size();

  Shared sh{files, cands, opt, {}, {}, {}, {}, {}, {}, 0};
  sh.endians =
      opt.both_endians ? std::vector<Endian>{Endian::little, Endian::big} : std::vector<Endian>{opt.field.endian};
  const unsigned threads = opt.threads != 0 ? opt.threads : std::max(1u, std::thread::hardware_concurrency());
  MAB_TRY(sweep_catalogue(sh, threads, st));
  score_sweep_matches(sh, st);
  MAB_TRY(run_solver(sh, threads, st));
  report.matches = rank_matches(sh, st);
  st.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t_start).count();
  return report;
}

}  // namespace mab::checksum
