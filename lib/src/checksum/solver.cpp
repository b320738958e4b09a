// Unknown 32-bit CRC solver (see solver.hpp for the mathematics).
//
// NTL (on gf2x) does the GF(2)[x] work: sub-quadratic half-GCD and multiplication
// keep a 64 KB pair (a degree ~524k polynomial) to a fraction of a second, where a
// schoolbook Euclid would take seconds per pair and a brute force over 2^31
// polynomials would take hours.
#include "solver.hpp"

#include <NTL/GF2X.h>
#include <NTL/GF2XFactoring.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <exception>
#include <map>
#include <mutex>
#include <thread>

namespace mab::checksum::detail {

namespace {

using crc::CrcParams;
using NTL::GF2X;

constexpr std::uint64_t all_ones = 0xFFFFFFFFu;
constexpr std::size_t max_candidates = 4096;
// Above this degree a polynomial is reduced to its 32-smooth part before factoring.
constexpr long direct_factor_degree = 4096;

std::uint8_t reflect8(std::uint8_t b) { return static_cast<std::uint8_t>(crc::reflect(b, 8)); }

std::uint64_t register_of(std::uint64_t value, bool refout) { return refout ? crc::reflect(value, 32) : value; }

GF2X from_le_bytes(const std::vector<std::uint8_t>& buf) {
  GF2X p;
  NTL::GF2XFromBytes(p, buf.data(), static_cast<long>(buf.size()));
  return p;
}

// Adds M(x) * x^32 to the little-endian coefficient buffer (message bits in CRC
// processing order, last byte lowest).
void add_message(std::vector<std::uint8_t>& buf, std::span<const std::uint8_t> m, bool refin) {
  const std::size_t n = m.size();
  for (std::size_t j = 0; j < n; ++j) buf[4 + (n - 1 - j)] ^= refin ? reflect8(m[j]) : m[j];
}

void add_u32(std::vector<std::uint8_t>& buf, std::size_t at, std::uint64_t v) {
  for (std::size_t i = 0; i < 4; ++i) buf[at + i] ^= static_cast<std::uint8_t>(v >> (8 * i));
}

// P divides (M_a + M_b) x^32 + init (x^(8 n_a) + x^(8 n_b)) + c_a + c_b.
GF2X difference_poly(std::span<const std::uint8_t> a, std::span<const std::uint8_t> b, bool refin, std::uint64_t creg,
                     std::uint64_t init) {
  const std::size_t n = std::max(a.size(), b.size());
  std::vector<std::uint8_t> buf(n + 8, 0);
  add_message(buf, a, refin);
  add_message(buf, b, refin);
  add_u32(buf, 0, creg);
  if (init != 0 && a.size() != b.size()) {
    add_u32(buf, a.size(), init);
    add_u32(buf, b.size(), init);
  }
  GF2X d = from_le_bytes(buf);
  // A CRC polynomial has a constant term, so factors of x carry no information.
  long low = 0;
  while (low <= NTL::deg(d) && NTL::IsZero(NTL::coeff(d, low))) ++low;
  if (low > 0 && !NTL::IsZero(d)) NTL::RightShift(d, d, low);
  return d;
}

// The part of d made of irreducible factors of degree <= 32: gcd(d, prod_{k=17..32}
// (x^(2^k) + x) mod d). Every degree 1..32 divides some k in 17..32.
GF2X smooth_part(const GF2X& d) {
  const long n = NTL::deg(d);
  NTL::GF2XModulus F(d);
  GF2X h, prod, t, x;
  NTL::SetX(x);
  NTL::SetX(h);
  bool first = true;
  for (long k = 1; k <= 32; ++k) {
    if ((1L << k) < n) {
      NTL::clear(h);
      NTL::SetCoeff(h, 1L << k);
    } else {
      NTL::SqrMod(h, h, F);
    }
    if (k < 17) continue;
    NTL::add(t, h, x);
    if (first) {
      prod = t;
      first = false;
    } else {
      NTL::MulMod(prod, prod, t, F);
    }
  }
  return NTL::GCD(d, prod);
}

// Irreducible factors of degree <= 32 with their multiplicity in d (capped at 32/deg).
std::vector<std::pair<GF2X, long>> low_degree_factors(const GF2X& d) {
  std::vector<std::pair<GF2X, long>> out;
  if (NTL::deg(d) < 1) return out;
  NTL::vec_pair_GF2X_long fac;
  if (NTL::deg(d) <= direct_factor_degree) {
    NTL::CanZass(fac, d);
    for (long i = 0; i < fac.length(); ++i) {
      const long dg = NTL::deg(fac[i].a);
      if (dg <= 32) out.emplace_back(fac[i].a, std::min(fac[i].b, 32 / dg));
    }
    return out;
  }
  const GF2X s = smooth_part(d);
  if (NTL::deg(s) < 1) return out;
  NTL::CanZass(fac, s);
  for (long i = 0; i < fac.length(); ++i) {
    const GF2X& f = fac[i].a;
    const long dg = NTL::deg(f);
    if (dg > 32) continue;
    long mult = 0;
    GF2X power = f, r;
    while (NTL::deg(power) <= 32) {
      NTL::rem(r, d, power);
      if (!NTL::IsZero(r)) break;
      ++mult;
      NTL::mul(power, power, f);
    }
    if (mult > 0) out.emplace_back(f, mult);
  }
  return out;
}

void enumerate_divisors(const std::vector<std::pair<GF2X, long>>& fac, std::size_t i, const GF2X& cur,
                        std::vector<std::uint64_t>& out) {
  if (out.size() >= max_candidates) return;
  const long d = NTL::deg(cur);
  if (d == 32) {
    std::uint64_t v = 0;
    for (long k = 0; k < 32; ++k)
      if (!NTL::IsZero(NTL::coeff(cur, k))) v |= std::uint64_t{1} << k;
    if (v & 1u) out.push_back(v);
    return;
  }
  if (i >= fac.size()) return;
  const long fd = NTL::deg(fac[i].first);
  GF2X next = cur;
  enumerate_divisors(fac, i + 1, cur, out);
  for (long e = 1; e <= fac[i].second && d + e * fd <= 32; ++e) {
    NTL::mul(next, next, fac[i].first);
    enumerate_divisors(fac, i + 1, next, out);
  }
}

std::vector<std::uint64_t> degree32_divisors(const GF2X& g) {
  std::vector<std::uint64_t> out;
  if (NTL::deg(g) < 32) return out;
  const auto fac = low_degree_factors(g);
  GF2X one;
  NTL::set(one);
  enumerate_divisors(fac, 0, one, out);
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

// ---- GF(2) linear algebra over the 64 unknowns (init bits 0..31, register-form
// xorout bits 32..63).

struct Row {
  std::uint64_t coef;
  std::uint8_t rhs;
};

struct LinearSolution {
  bool consistent = false;
  unsigned rank = 0;
  std::uint64_t x = 0;
};

LinearSolution gauss(std::vector<Row> rows) {
  LinearSolution s;
  std::array<int, 64> pivot_row;
  pivot_row.fill(-1);
  std::size_t rank = 0;
  for (unsigned col = 0; col < 64 && rank < rows.size(); ++col) {
    const std::uint64_t bit = std::uint64_t{1} << col;
    std::size_t r = rank;
    while (r < rows.size() && !(rows[r].coef & bit)) ++r;
    if (r == rows.size()) continue;
    std::swap(rows[r], rows[rank]);
    for (std::size_t k = 0; k < rows.size(); ++k) {
      if (k != rank && (rows[k].coef & bit)) {
        rows[k].coef ^= rows[rank].coef;
        rows[k].rhs ^= rows[rank].rhs;
      }
    }
    pivot_row[col] = static_cast<int>(rank);
    ++rank;
  }
  for (std::size_t r = rank; r < rows.size(); ++r)
    if (rows[r].coef == 0 && rows[r].rhs) return s;
  s.consistent = true;
  s.rank = static_cast<unsigned>(rank);
  for (unsigned col = 0; col < 64; ++col)
    if (pivot_row[col] >= 0 && rows[static_cast<std::size_t>(pivot_row[col])].rhs) s.x |= std::uint64_t{1} << col;
  return s;
}

void pin(std::vector<Row>& rows, unsigned first_var, std::uint64_t value) {
  for (unsigned b = 0; b < 32; ++b)
    rows.push_back(Row{std::uint64_t{1} << (first_var + b), static_cast<std::uint8_t>((value >> b) & 1u)});
}

struct FileEq {
  std::size_t file;
  std::span<const std::uint8_t> message;
};

struct Prepared {
  std::vector<FileEq> files;                               // distinct (message, value)
  std::vector<std::pair<std::size_t, std::size_t>> pairs;  // indices into files, equal lengths
  bool pinned_mode = false;                                // no equal-length pair: pairs of any length, init guessed
  std::uint64_t signature = 0;
};

std::uint64_t fnv64(std::uint64_t h, std::span<const std::uint8_t> data) {
  for (const auto c : data) h = (h ^ c) * 0x100000001B3ull;
  return h;
}

std::uint64_t fnv64_u64(std::uint64_t h, std::uint64_t v) {
  std::array<std::uint8_t, 8> b{};
  for (std::size_t i = 0; i < 8; ++i) b[i] = static_cast<std::uint8_t>(v >> (8 * i));
  return fnv64(h, b);
}

Prepared prepare(const SolverRange& range, std::span<const std::array<std::uint64_t, 2>> values) {
  Prepared p;
  std::map<std::pair<std::uint64_t, std::uint64_t>, std::size_t> seen;
  for (std::size_t f = 0; f < range.messages.size(); ++f) {
    const auto key = std::make_pair(
        fnv64(fnv64_u64(0xcbf29ce484222325ull, range.messages[f].size()), range.messages[f]), values[f][0]);
    if (seen.emplace(key, f).second) p.files.push_back(FileEq{f, range.messages[f]});
  }
  std::map<std::size_t, std::size_t> first_of_length;
  for (std::size_t i = 0; i < p.files.size(); ++i) {
    auto [it, inserted] = first_of_length.emplace(p.files[i].message.size(), i);
    if (!inserted) p.pairs.emplace_back(it->second, i);
  }
  if (p.pairs.empty()) {
    p.pinned_mode = true;
    for (std::size_t i = 1; i < p.files.size(); ++i) p.pairs.emplace_back(0, i);
  }
  // Ranges whose pair differences are the same polynomials share their candidates.
  std::uint64_t h = p.pinned_mode ? 0x9e3779b97f4a7c15ull : 0xcbf29ce484222325ull;
  for (const auto& [a, b] : p.pairs) {
    const auto ma = p.files[a].message;
    const auto mb = p.files[b].message;
    h = fnv64_u64(h, p.files[a].file);
    h = fnv64_u64(h, p.files[b].file);
    h = fnv64_u64(h, values[p.files[a].file][0] ^ values[p.files[b].file][0]);
    if (p.pinned_mode) {
      h = fnv64(fnv64_u64(h, ma.size()), ma);
      h = fnv64(fnv64_u64(h, mb.size()), mb);
      continue;
    }
    std::size_t j = 0;
    while (j < ma.size() && ma[j] == mb[j]) ++j;
    h = fnv64_u64(h, ma.size() - j);
    for (; j < ma.size(); ++j) h = (h ^ static_cast<std::uint8_t>(ma[j] ^ mb[j])) * 0x100000001B3ull;
  }
  p.signature = h;
  return p;
}

struct Combo {
  bool refin, refout;
  Endian endian;
};

struct Hypothesis {
  const char* name;
  int pin_init;  // -1 free, else pinned to 0 / all ones
  int pin_xor;
  double cost;  // bits paid for choosing it
};

struct Shared {
  std::span<const SolverRange> ranges;
  std::span<const std::array<std::uint64_t, 2>> values;
  std::vector<Prepared> prepared;
  std::mutex mutex;
  SolverResult result;
  std::atomic<std::uint64_t> polynomials{0}, hypotheses{0};
};

// Tests one candidate polynomial on one range; records a hit if some init/xorout
// hypothesis explains every file.
void test_candidate(Shared& sh, std::size_t ri, const Combo& combo, std::uint64_t poly, int pinned_init) {
  const auto& prep = sh.prepared[ri];
  auto raw = crc::CrcEngine::make(CrcParams{32, poly, 0, combo.refin, false, 0});
  if (!raw) return;
  const std::size_t e = combo.endian == Endian::little ? 0 : 1;
  std::vector<Row> rows;
  std::map<std::size_t, std::array<std::uint64_t, 32>> columns;  // per length: x^(8n + j) mod P
  for (const auto& fe : prep.files) {
    const std::size_t n = fe.message.size();
    auto it = columns.find(n);
    if (it == columns.end()) {
      std::array<std::uint64_t, 32> col{};
      col[0] = crc::xpow_mod(8 * static_cast<std::uint64_t>(n), poly, 32);
      for (std::size_t j = 1; j < 32; ++j) col[j] = crc::mulmod(col[j - 1], 2, poly, 32);
      it = columns.emplace(n, col).first;
    }
    const auto& col = it->second;
    const std::uint64_t b = raw->compute(fe.message);
    const std::uint64_t r = register_of(sh.values[fe.file][e], combo.refout) ^ b;
    for (unsigned bit = 0; bit < 32; ++bit) {
      std::uint64_t coef = std::uint64_t{1} << (32 + bit);
      for (unsigned j = 0; j < 32; ++j)
        if ((col[j] >> bit) & 1u) coef |= std::uint64_t{1} << j;
      rows.push_back(Row{coef, static_cast<std::uint8_t>((r >> bit) & 1u)});
    }
  }
  static constexpr Hypothesis free_hyps[] = {
      {"init and xorout solved", -1, -1, 0.0}, {"xorout 0", -1, 0, 2.0},
      {"xorout all ones", -1, 1, 2.0},         {"init 0", 0, -1, 2.0},
      {"init all ones", 1, -1, 2.0},
  };
  const Hypothesis pinned_hyps[] = {
      {"init guessed, xorout solved", pinned_init, -1, 1.0},
      {"init guessed, xorout 0", pinned_init, 0, 3.0},
      {"init guessed, xorout all ones", pinned_init, 1, 3.0},
  };
  const std::span<const Hypothesis> hyps =
      pinned_init < 0 ? std::span<const Hypothesis>(free_hyps) : std::span<const Hypothesis>(pinned_hyps);
  const double files = static_cast<double>(prep.files.size());
  double best_spare = -1e9;
  const Hypothesis* best = nullptr;
  LinearSolution best_sol;
  for (const auto& h : hyps) {
    ++sh.hypotheses;
    auto sys = rows;
    unsigned pinned_bits = 0;
    if (h.pin_init >= 0) {
      pin(sys, 0, h.pin_init ? all_ones : 0);
      pinned_bits += 32;
    }
    if (h.pin_xor >= 0) {
      pin(sys, 32, h.pin_xor ? all_ones : 0);
      pinned_bits += 32;
    }
    const auto sol = gauss(std::move(sys));
    if (!sol.consistent) continue;
    const double spare = 32.0 * files - 32.0 - static_cast<double>(sol.rank - pinned_bits) - h.cost;
    if (spare > best_spare) {
      best_spare = spare;
      best = &h;
      best_sol = sol;
    }
  }
  if (!best || best_spare <= 0) return;
  const unsigned unknowns = 64 - (best->pin_init >= 0 ? 32u : 0u) - (best->pin_xor >= 0 ? 32u : 0u);
  unsigned pinned = 64 - unknowns;
  const unsigned ambiguous = unknowns - (best_sol.rank - pinned);
  std::string note = best->name;
  if (ambiguous > 0) {
    // Show the most conventional member of the solution space.
    auto base = rows;
    if (best->pin_init >= 0) pin(base, 0, best->pin_init ? all_ones : 0);
    if (best->pin_xor >= 0) pin(base, 32, best->pin_xor ? all_ones : 0);
    int best_score = -1;
    for (const auto& [first, value] :
         {std::pair{32u, 0ull}, std::pair{32u, 0xFFFFFFFFull}, std::pair{0u, 0ull}, std::pair{0u, 0xFFFFFFFFull}}) {
      auto sys = base;
      pin(sys, first, value);
      const auto sol = gauss(std::move(sys));
      if (!sol.consistent) continue;
      const auto i = sol.x & all_ones, x = sol.x >> 32;
      const int score = ((i == 0 || i == all_ones) ? 1 : 0) + ((x == 0 || x == all_ones) ? 1 : 0);
      if (score > best_score) {
        best_score = score;
        best_sol.x = sol.x;
      }
    }
    note += "; " + std::to_string(ambiguous) + " bits of init/xorout are not determined by these files";
    if (ambiguous == 32) note += " (all the same length: any init works with a matching xorout)";
  }
  CrcParams params{32, poly, best_sol.x & all_ones, combo.refin, combo.refout, 0};
  const std::uint64_t xreg = best_sol.x >> 32;
  params.xorout = combo.refout ? crc::reflect(xreg, 32) : xreg;
  SolverHit hit;
  hit.range = ri;
  hit.endian = combo.endian;
  hit.params = params;
  hit.ambiguous_bits = ambiguous;
  hit.spare_bits = best_spare;
  hit.note = note;
  std::lock_guard lock(sh.mutex);
  sh.result.hits.push_back(std::move(hit));
}

std::vector<std::uint64_t> candidates_for(const Shared& sh, const Prepared& prep, const Combo& combo,
                                          std::uint64_t init_guess) {
  const std::size_t e = combo.endian == Endian::little ? 0 : 1;
  GF2X g;
  bool first = true;
  for (const auto& [a, b] : prep.pairs) {
    const auto& fa = prep.files[a];
    const auto& fb = prep.files[b];
    const std::uint64_t creg =
        register_of(sh.values[fa.file][e], combo.refout) ^ register_of(sh.values[fb.file][e], combo.refout);
    const GF2X d = difference_poly(fa.message, fb.message, combo.refin, creg, init_guess);
    if (NTL::IsZero(d)) continue;
    if (first) {
      g = d;
      first = false;
    } else {
      // Reduce the big polynomial by the small running GCD first: cheaper than a
      // second GCD of two big ones.
      if (NTL::deg(g) < NTL::deg(d)) {
        GF2X r;
        NTL::rem(r, d, g);
        g = NTL::GCD(g, r);
      } else {
        g = NTL::GCD(g, d);
      }
    }
    if (NTL::deg(g) < 32) return {};
  }
  if (first) return {};
  return degree32_divisors(g);
}

}  // namespace

Result<SolverResult> solve_crc32(std::span<const SolverRange> ranges,
                                 std::span<const std::array<std::uint64_t, 2>> values, std::span<const Endian> endians,
                                 const SolverOptions& options) {
  Shared sh;
  sh.ranges = ranges;
  sh.values = values;
  for (const auto& r : ranges) sh.prepared.push_back(prepare(r, values));

  // Group ranges with identical pair polynomials.
  std::vector<std::vector<std::size_t>> groups;
  std::map<std::uint64_t, std::size_t> by_sig;
  std::size_t too_few = 0;  // one note for them all
  for (std::size_t i = 0; i < ranges.size(); ++i) {
    const auto& p = sh.prepared[i];
    if (p.files.size() < 2) {
      ++too_few;
      continue;
    }
    auto [it, inserted] = by_sig.emplace(p.signature, groups.size());
    if (inserted) groups.emplace_back();
    groups[it->second].push_back(i);
  }
  if (too_few != 0)
    sh.result.notes.push_back("solver: " + std::to_string(too_few) + " range(s) skipped: fewer than 2 distinct files");

  std::vector<Combo> combos;
  for (const auto endian : endians) {
    combos.push_back({false, false, endian});
    combos.push_back({true, true, endian});
    if (options.mixed_reflection) {
      combos.push_back({false, true, endian});
      combos.push_back({true, false, endian});
    }
  }
  struct Task {
    std::size_t group;
    Combo combo;
    std::uint64_t init_guess;
    int pinned;
  };
  std::vector<Task> tasks;
  for (std::size_t g = 0; g < groups.size(); ++g) {
    const bool pinned = sh.prepared[groups[g][0]].pinned_mode;
    for (const auto& c : combos) {
      if (pinned) {
        tasks.push_back({g, c, 0, 0});
        tasks.push_back({g, c, all_ones, 1});
      } else {
        tasks.push_back({g, c, 0, -1});
      }
    }
  }
  bool any_pinned = false;
  for (const auto& g : groups) any_pinned = any_pinned || sh.prepared[g[0]].pinned_mode;
  if (any_pinned)
    sh.result.notes.push_back(
        "solver: some ranges have no two files of equal length; there init was assumed to be 0 or all ones");
  sh.result.systems = tasks.size();
  if (options.progress)
    options.progress("crc-search: solver: " + std::to_string(ranges.size()) + " ranges in " +
                     std::to_string(groups.size()) + " groups, " + std::to_string(tasks.size()) + " systems");

  std::atomic<std::size_t> next{0}, done{0};
  std::string failure;
  auto worker = [&] {
    for (;;) {
      const std::size_t i = next++;
      if (i >= tasks.size()) return;
      const auto& t = tasks[i];
      try {
        const auto cands = candidates_for(sh, sh.prepared[groups[t.group][0]], t.combo, t.init_guess);
        sh.polynomials += cands.size();
        for (const auto ri : groups[t.group])
          for (const auto poly : cands) test_candidate(sh, ri, t.combo, poly, t.pinned);
      } catch (const std::exception& e) {
        std::lock_guard lock(sh.mutex);
        if (failure.empty()) failure = e.what();
      }
      const auto d = ++done;
      if (options.progress) {
        std::lock_guard lock(sh.mutex);
        options.progress("crc-search: solver " + std::to_string(d) + "/" + std::to_string(tasks.size()) + " systems");
      }
    }
  };
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < std::max(1u, options.threads); ++t) pool.emplace_back(worker);
  worker();
  for (auto& th : pool) th.join();
  if (!failure.empty())
    return make_error(ErrorCode::invalid_argument, no_offset, "solver", "GF(2)[x] arithmetic failed: " + failure);
  sh.result.polynomials = sh.polynomials;
  sh.result.hypotheses = sh.hypotheses;
  // Deterministic order regardless of thread timing.
  std::sort(sh.result.hits.begin(), sh.result.hits.end(), [](const SolverHit& a, const SolverHit& b) {
    return std::tie(a.range, a.endian, a.params.refin, a.params.refout, a.params.poly) <
           std::tie(b.range, b.endian, b.params.refin, b.params.refout, b.params.poly);
  });
  return std::move(sh.result);
}

}  // namespace mab::checksum::detail
