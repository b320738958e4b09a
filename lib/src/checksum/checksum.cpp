// Non-CRC checksums, checksum specs (text form, range resolution) and field I/O.
#include <mab/checksum.hpp>
#include <mab/text.hpp>

#include "io/bytes.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <cstdio>

namespace mab::checksum {

namespace {

constexpr std::array others{Kind::adler32, Kind::fletcher32,  Kind::fnv1_32, Kind::fnv1a_32,
                            Kind::sum32,   Kind::sum32_words, Kind::xor32};
constexpr std::uint32_t fnv_basis = 0x811C9DC5u;
constexpr std::uint32_t fnv_prime = 0x01000193u;

std::string lower(std::string_view s) {
  std::string out(s);
  for (auto& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

Error bad_spec(std::string field, std::string detail) {
  return make_error(ErrorCode::parse_error, no_offset, std::move(field), std::move(detail));
}

std::optional<std::uint64_t> parse_number(std::string_view s) {
  int base = 10;
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
    s.remove_prefix(2);
    base = 16;
  }
  if (s.empty()) return std::nullopt;
  std::uint64_t v = 0;
  const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v, base);
  if (ec != std::errc{} || ptr != s.data() + s.size()) return std::nullopt;
  return v;
}

std::optional<bool> parse_bool(std::string_view s) {
  const auto l = lower(s);
  if (l == "true" || l == "1" || l == "yes") return true;
  if (l == "false" || l == "0" || l == "no") return false;
  return std::nullopt;
}

}  // namespace

std::span<const Kind> other_kinds() { return others; }

std::string_view kind_name(Kind kind) {
  switch (kind) {
    case Kind::crc: return "crc";
    case Kind::adler32: return "adler32";
    case Kind::fletcher32: return "fletcher32";
    case Kind::fnv1_32: return "fnv1-32";
    case Kind::fnv1a_32: return "fnv1a-32";
    case Kind::sum32: return "sum32";
    case Kind::sum32_words: return "sum32-words";
    case Kind::xor32: return "xor32";
  }
  return "unknown";
}

std::optional<Kind> parse_kind(std::string_view name) {
  const auto l = lower(name);
  if (l == "crc") return Kind::crc;
  for (const Kind k : others)
    if (l == kind_name(k)) return k;
  if (l == "fnv1a" || l == "fnv-1a" || l == "fnv1a32") return Kind::fnv1a_32;
  if (l == "fnv1" || l == "fnv-1" || l == "fnv132") return Kind::fnv1_32;
  if (l == "adler-32") return Kind::adler32;
  if (l == "fletcher-32") return Kind::fletcher32;
  return std::nullopt;
}

OtherState::OtherState(Kind kind) noexcept : kind_(kind) {
  if (kind == Kind::adler32) a_ = 1;
  if (kind == Kind::fnv1_32 || kind == Kind::fnv1a_32) a_ = fnv_basis;
}

void OtherState::update(std::span<const std::uint8_t> data) noexcept {
  switch (kind_) {
    case Kind::adler32: {
      // Deferring the modulo is safe for 5552 bytes (the zlib bound) between reductions.
      std::size_t i = 0;
      while (i < data.size()) {
        const std::size_t n = std::min<std::size_t>(5552, data.size() - i);
        for (std::size_t k = 0; k < n; ++k) {
          a_ += data[i + k];
          b_ += a_;
        }
        a_ %= 65521u;
        b_ %= 65521u;
        i += n;
      }
      break;
    }
    case Kind::fletcher32:
      for (const std::uint8_t c : data) {
        if ((count_ & 1u) == 0) {
          word_ = c;
        } else {
          a_ = (a_ + (word_ | (std::uint32_t{c} << 8))) % 65535u;
          b_ = (b_ + a_) % 65535u;
        }
        ++count_;
      }
      break;
    case Kind::fnv1_32: {
      auto h = static_cast<std::uint32_t>(a_);
      for (const std::uint8_t c : data) h = (h * fnv_prime) ^ c;
      a_ = h;
      break;
    }
    case Kind::fnv1a_32: {
      auto h = static_cast<std::uint32_t>(a_);
      for (const std::uint8_t c : data) h = (h ^ c) * fnv_prime;
      a_ = h;
      break;
    }
    case Kind::sum32:
      for (const std::uint8_t c : data) a_ += c;
      break;
    case Kind::sum32_words:
    case Kind::xor32:
      for (const std::uint8_t c : data) {
        const auto shift = static_cast<unsigned>((count_ & 3u) * 8u);
        word_ |= std::uint32_t{c} << shift;
        if ((count_ & 3u) == 3u) {
          if (kind_ == Kind::xor32) a_ ^= word_;
          else a_ += word_;
          word_ = 0;
        }
        ++count_;
      }
      break;
    case Kind::crc: break;
  }
}

std::uint32_t OtherState::value() const noexcept {
  switch (kind_) {
    case Kind::adler32: return static_cast<std::uint32_t>((b_ << 16) | a_);
    case Kind::fletcher32: {
      std::uint64_t a = a_, b = b_;
      if (count_ & 1u) {
        a = (a + word_) % 65535u;
        b = (b + a) % 65535u;
      }
      return static_cast<std::uint32_t>((b << 16) | a);
    }
    case Kind::sum32_words: return static_cast<std::uint32_t>(a_ + ((count_ & 3u) ? word_ : 0u));
    case Kind::xor32: return static_cast<std::uint32_t>(a_ ^ ((count_ & 3u) ? word_ : 0u));
    default: return static_cast<std::uint32_t>(a_);
  }
}

std::uint32_t compute_other(Kind kind, std::span<const std::uint8_t> data) {
  OtherState s(kind);
  s.update(data);
  return s.value();
}

std::string Algorithm::name() const {
  if (kind != Kind::crc) return std::string(kind_name(kind));
  const auto n = crc::catalogue_name(crc);
  if (!n.empty()) return std::string(n);
  return "CRC-" + std::to_string(crc.width) + " (custom)";
}

std::optional<std::uint64_t> find_ani(std::span<const std::uint8_t> file) {
  const std::size_t limit = std::min<std::size_t>(file.size(), 0x40);
  for (std::size_t i = 0; i + 3 <= limit; ++i)
    if (file[i] == 'a' && file[i + 1] == 'N' && (file[i + 2] == 'i' || file[i + 2] == 'p')) return i;
  return std::nullopt;
}

std::optional<std::uint64_t> animation_data_size(std::span<const std::uint8_t> file) {
  const auto ani = find_ani(file);
  if (!ani || *ani + 8 > file.size()) return std::nullopt;
  return io::load_u32(file, static_cast<std::size_t>(*ani + 4));
}

bool covers_field(const ResolvedRange& r, const FieldSpec& f) {
  return r.begin < f.offset + f.length && f.offset < r.end;
}

Result<ResolvedRange> resolve(const RangeSpec& range, std::span<const std::uint8_t> file, const FieldSpec& field) {
  const std::uint64_t n = file.size();
  std::uint64_t begin = range.start;
  if (range.start_kind == RangeSpec::Start::ani) {
    const auto ani = find_ani(file);
    if (!ani) return make_error(ErrorCode::bad_signature, no_offset, "aNi", "no 'aNi' tag in the first 0x40 bytes");
    begin += *ani;
  }
  std::uint64_t end_mark = n;
  if (range.end_kind == RangeSpec::End::data_size) {
    const auto size = animation_data_size(file);
    if (!size) return make_error(ErrorCode::bad_signature, no_offset, "animationDataSize", "no 'aNi' block");
    end_mark = 0x10 + *size;
  }
  if (range.end_back > end_mark)
    return make_error(ErrorCode::out_of_bounds, end_mark, "range", "range end before the file start");
  const std::uint64_t end = end_mark - range.end_back;
  if (end > n) return make_error(ErrorCode::out_of_bounds, end, "range", "range end past the end of the file");
  if (begin > end) return make_error(ErrorCode::out_of_bounds, begin, "range", "range start after its end");
  ResolvedRange r{begin, end, false};
  r.skip_field = range.mode == RangeSpec::FieldMode::skipped && covers_field(r, field);
  return r;
}

std::vector<std::uint8_t> covered_bytes(std::span<const std::uint8_t> file, const ResolvedRange& r,
                                        const FieldSpec& field) {
  const auto b = static_cast<std::size_t>(r.begin);
  const auto e = static_cast<std::size_t>(r.end);
  std::vector<std::uint8_t> out(file.begin() + static_cast<std::ptrdiff_t>(b),
                                file.begin() + static_cast<std::ptrdiff_t>(e));
  if (!covers_field(r, field)) return out;
  const auto fb = static_cast<std::size_t>(std::max(r.begin, field.offset) - r.begin);
  const auto fe = static_cast<std::size_t>(std::min(r.end, field.offset + field.length) - r.begin);
  if (r.skip_field) {
    out.erase(out.begin() + static_cast<std::ptrdiff_t>(fb), out.begin() + static_cast<std::ptrdiff_t>(fe));
  } else {
    std::fill(out.begin() + static_cast<std::ptrdiff_t>(fb), out.begin() + static_cast<std::ptrdiff_t>(fe),
              std::uint8_t{0});
  }
  return out;
}

std::string to_string(const FieldSpec& f) {
  return hex_lower(f.offset) + ":" + std::to_string(f.length) + (f.endian == Endian::little ? ":le" : ":be");
}

std::string to_string(const RangeSpec& r, const FieldSpec& field) {
  std::string s = r.start_kind == RangeSpec::Start::ani ? "ani" : hex_lower(r.start);
  if (r.start_kind == RangeSpec::Start::ani && r.start != 0) s += "+" + hex_lower(r.start);
  s += "..";
  s += r.end_kind == RangeSpec::End::eof ? "eof" : "size";
  if (r.end_back != 0) s += "-" + hex_lower(r.end_back);
  // The mode only means something when the range can reach the field.
  if (r.start_kind == RangeSpec::Start::absolute && r.start < field.offset + field.length)
    s += r.mode == RangeSpec::FieldMode::skipped ? ",skipped" : ",zeroed";
  return s;
}

std::string to_string(const Algorithm& a) {
  std::string s;
  const auto n = a.kind == Kind::crc ? crc::catalogue_name(a.crc) : std::string_view{};
  if (a.kind != Kind::crc) {
    s = "algo=" + std::string(kind_name(a.kind));
  } else if (!n.empty()) {
    s = "algo=" + std::string(n);
  } else {
    s = "algo=crc " + crc::describe(a.crc);
  }
  if (a.part == Part::low) s += " part=low";
  if (a.part == Part::high) s += " part=high";
  return s;
}

std::string to_string(const ChecksumSpec& spec) {
  return to_string(spec.algo) + " range=" + to_string(spec.range, spec.field) + " field=" + to_string(spec.field);
}

Result<FieldSpec> parse_field(std::string_view text) {
  FieldSpec f;
  const auto c1 = text.find(':');
  if (c1 == std::string_view::npos) return bad_spec("field", "expected OFF:LEN, got '" + std::string(text) + "'");
  const auto off = parse_number(text.substr(0, c1));
  auto rest = text.substr(c1 + 1);
  const auto c2 = rest.find(':');
  const auto len = parse_number(rest.substr(0, c2));
  if (!off || !len || *len < 1 || *len > 8)
    return bad_spec("field", "expected OFF:LEN with LEN 1..8, got '" + std::string(text) + "'");
  f.offset = *off;
  f.length = static_cast<unsigned>(*len);
  if (c2 != std::string_view::npos) {
    const auto e = lower(rest.substr(c2 + 1));
    if (e == "le") f.endian = Endian::little;
    else if (e == "be") f.endian = Endian::big;
    else return bad_spec("field", "byte order must be le or be, got '" + e + "'");
  }
  return f;
}

Result<RangeSpec> parse_range(std::string_view text) {
  RangeSpec r;
  auto comma = text.find(',');
  if (comma != std::string_view::npos) {
    const auto m = lower(text.substr(comma + 1));
    if (m == "skipped" || m == "skip") r.mode = RangeSpec::FieldMode::skipped;
    else if (m == "zeroed" || m == "zero") r.mode = RangeSpec::FieldMode::zeroed;
    else return bad_spec("range", "field mode must be zeroed or skipped, got '" + m + "'");
    text = text.substr(0, comma);
  }
  const auto dots = text.find("..");
  if (dots == std::string_view::npos) return bad_spec("range", "expected START..END, got '" + std::string(text) + "'");
  const auto start = lower(text.substr(0, dots));
  const auto end = lower(text.substr(dots + 2));
  if (start.rfind("ani", 0) == 0) {
    r.start_kind = RangeSpec::Start::ani;
    if (start.size() > 3) {
      const auto v = start[3] == '+' ? parse_number(std::string_view(start).substr(4)) : std::nullopt;
      if (!v) return bad_spec("range", "bad start '" + start + "'");
      r.start = *v;
    }
  } else {
    const auto v = parse_number(start);
    if (!v) return bad_spec("range", "bad start '" + start + "'");
    r.start = *v;
  }
  std::string_view e = end;
  if (e.rfind("eof", 0) == 0) {
    r.end_kind = RangeSpec::End::eof;
    e.remove_prefix(3);
  } else if (e.rfind("size", 0) == 0) {
    r.end_kind = RangeSpec::End::data_size;
    e.remove_prefix(4);
  } else {
    return bad_spec("range", "end must be eof[-N] or size[-N], got '" + end + "'");
  }
  if (!e.empty()) {
    const auto v = e[0] == '-' ? parse_number(e.substr(1)) : std::nullopt;
    if (!v) return bad_spec("range", "bad end '" + end + "'");
    r.end_back = *v;
  }
  return r;
}

Result<ChecksumSpec> parse_spec(std::string_view text) {
  ChecksumSpec spec;
  std::string algo_name;
  std::optional<std::uint64_t> width, poly, init, xorout;
  std::optional<bool> refin, refout;
  std::size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i]))) ++i;
    if (i >= text.size()) break;
    std::size_t j = i;
    while (j < text.size() && !std::isspace(static_cast<unsigned char>(text[j]))) ++j;
    const auto token = text.substr(i, j - i);
    i = j;
    const auto eq = token.find('=');
    if (eq == std::string_view::npos) {
      if (algo_name.empty()) {
        algo_name = std::string(token);
        continue;
      }
      return bad_spec("spec", "expected key=value, got '" + std::string(token) + "'");
    }
    const auto key = lower(token.substr(0, eq));
    auto value = token.substr(eq + 1);
    if (value.size() >= 2 && value.front() == '"' && value.back() == '"') value = value.substr(1, value.size() - 2);
    auto number = [&](std::optional<std::uint64_t>& out) -> Status {
      out = parse_number(value);
      if (!out) return bad_spec(key, "not a number: '" + std::string(value) + "'");
      return {};
    };
    auto boolean = [&](std::optional<bool>& out) -> Status {
      out = parse_bool(value);
      if (!out) return bad_spec(key, "not true/false: '" + std::string(value) + "'");
      return {};
    };
    if (key == "algo" || key == "name") algo_name = std::string(value);
    else if (key == "width") {
      MAB_TRY(number(width));
    } else if (key == "poly") {
      MAB_TRY(number(poly));
    } else if (key == "init") {
      MAB_TRY(number(init));
    } else if (key == "xorout") {
      MAB_TRY(number(xorout));
    } else if (key == "refin") {
      MAB_TRY(boolean(refin));
    } else if (key == "refout") {
      MAB_TRY(boolean(refout));
    } else if (key == "check" || key == "residue") continue;
    else if (key == "part") {
      const auto p = lower(value);
      if (p == "low") spec.algo.part = Part::low;
      else if (p == "high") spec.algo.part = Part::high;
      else if (p == "whole") spec.algo.part = Part::whole;
      else return bad_spec("part", "must be low, high or whole");
    } else if (key == "range") {
      MAB_ASSIGN(spec.range, parse_range(value));
    } else if (key == "field") {
      MAB_ASSIGN(spec.field, parse_field(value));
    } else {
      return bad_spec(key, "unknown key '" + key + "'");
    }
  }
  const bool has_params = width || poly || init || xorout || refin || refout;
  if (algo_name.empty() && !has_params) return bad_spec("algo", "no algorithm given (algo=NAME or width=/poly=/...)");
  const auto kind = algo_name.empty() ? std::optional<Kind>(Kind::crc) : parse_kind(algo_name);
  if (kind && *kind != Kind::crc) {
    if (has_params) return bad_spec("algo", algo_name + " takes no CRC parameters");
    spec.algo.kind = *kind;
  } else {
    spec.algo.kind = Kind::crc;
    if (!kind) {
      const auto* e = crc::find_catalogue(algo_name);
      if (!e) return bad_spec("algo", "unknown algorithm '" + algo_name + "'");
      spec.algo.crc = e->params;  // explicit keys below refine a named CRC
    } else if (!width || !poly) {
      return bad_spec("algo", "algo=crc needs at least width= and poly=");
    }
    auto& p = spec.algo.crc;
    if (width) p.width = static_cast<unsigned>(std::min<std::uint64_t>(*width, 65));
    if (poly) p.poly = *poly;
    if (init) p.init = *init;
    if (xorout) p.xorout = *xorout;
    if (refin) p.refin = *refin;
    if (refout) p.refout = *refout;
    if (auto e = crc::CrcEngine::make(p); !e) return bad_spec("algo", e.error().detail);
  }
  return spec;
}

std::uint64_t field_value_of(const Algorithm& algo, std::uint64_t result, unsigned field_bytes) {
  const unsigned fb = field_bytes * 8;
  const unsigned w = algo.width();
  if (algo.part == Part::high && w > fb) return result >> (w - fb);
  return result & crc::width_mask(std::min(fb, 64u));
}

std::uint64_t compute_raw(const Algorithm& algo, std::span<const std::uint8_t> message) {
  if (algo.kind != Kind::crc) return compute_other(algo.kind, message);
  auto engine = crc::CrcEngine::make(algo.crc);
  return engine ? engine->compute(message) : 0;
}

Result<std::uint64_t> read_field(std::span<const std::uint8_t> file, const FieldSpec& f) {
  if (f.length < 1 || f.length > 8)
    return make_error(ErrorCode::invalid_argument, f.offset, "field", "length must be 1..8");
  if (f.offset > file.size() || file.size() - f.offset < f.length)
    return make_error(ErrorCode::truncated, f.offset, "field",
                      "need " + std::to_string(f.length) + " bytes, file has " + std::to_string(file.size()));
  std::uint64_t v = 0;
  for (unsigned i = 0; i < f.length; ++i) {
    const std::uint64_t byte = file[static_cast<std::size_t>(f.offset + i)];
    if (f.endian == Endian::little) v |= byte << (8 * i);
    else v = (v << 8) | byte;
  }
  return v;
}

Status store_field(std::span<std::uint8_t> file, const FieldSpec& f, std::uint64_t value) {
  MAB_TRY(read_field(file, f));
  for (unsigned i = 0; i < f.length; ++i) {
    const unsigned shift = f.endian == Endian::little ? 8 * i : 8 * (f.length - 1 - i);
    file[static_cast<std::size_t>(f.offset + i)] = static_cast<std::uint8_t>(value >> shift);
  }
  return {};
}

Result<std::uint64_t> compute_field(const ChecksumSpec& spec, std::span<const std::uint8_t> file) {
  MAB_TRY(read_field(file, spec.field));
  if (spec.algo.kind == Kind::crc) MAB_TRY(crc::CrcEngine::make(spec.algo.crc));
  MAB_ASSIGN(const auto r, resolve(spec.range, file, spec.field));
  const auto message = covered_bytes(file, r, spec.field);
  return field_value_of(spec.algo, compute_raw(spec.algo, message), spec.field.length);
}

Status recompute(const ChecksumSpec& spec, std::span<std::uint8_t> file) {
  MAB_ASSIGN(const auto v, compute_field(spec, file));
  return store_field(file, spec.field, v);
}

}  // namespace mab::checksum
