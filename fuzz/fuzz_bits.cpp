// Bit reader and writer (format 9.2 "Bit reading", decision 6) against a one-bit-at-a-time
// model, for arbitrary widths (0..63, so the > 32 failure path too) and alignments.
//
// Input: a mode byte, then
//   mode even: a stream length byte, the stream, then reader ops (read / read_many / skip);
//   mode odd:  writer ops (write / align / append), then the same ops are read back.
#include "harness_util.hpp"

#include <mab/bits.hpp>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <span>
#include <vector>

namespace {

using fuzz::check;

// The reference: bit i of a stream is bit (i % 8) of byte i / 8 (LSB-first, format 9.2).
unsigned model_bit(std::span<const std::uint8_t> s, std::uint64_t i) {
  return (unsigned{s[static_cast<std::size_t>(i >> 3)]} >> (i & 7)) & 1u;
}

std::uint32_t model_read(std::span<const std::uint8_t> s, std::uint64_t pos, unsigned width) {
  std::uint32_t v = 0;
  for (unsigned b = 0; b < width; ++b) v |= std::uint32_t{model_bit(s, pos + b)} << b;
  return v;
}

// A reader's sticky-failure contract: once failed, nothing moves and reads give 0.
struct ModelReader {
  std::span<const std::uint8_t> s;
  std::uint64_t pos = 0;
  bool failed = false;
  std::uint64_t fail_bit = 0, fail_width = 0;

  std::uint64_t bits() const { return std::uint64_t{s.size()} * 8; }
  void fail(std::uint64_t width) {
    if (failed) return;
    failed = true;
    fail_bit = pos;
    fail_width = width;
  }
  std::uint32_t read(unsigned width) {
    if (failed) return 0;
    if (width > 32 || width > bits() - pos) {
      fail(width);
      return 0;
    }
    const std::uint32_t v = model_read(s, pos, width);
    pos += width;
    return v;
  }
  void skip(std::uint64_t n) {
    if (failed) return;
    if (n > bits() - pos) {
      fail(n);
      return;
    }
    pos += n;
  }
};

void same_state(const mab::BitReader& r, const ModelReader& m) {
  check(r.ok() == !m.failed, "BitReader::ok() disagrees with the model");
  check(r.bit_position() == m.pos, "BitReader position disagrees with the model");
  check(r.bit_size() == m.bits(), "BitReader::bit_size()");
  check(r.bits_left() == m.bits() - m.pos, "BitReader::bits_left()");
  if (m.failed) {
    check(r.overrun_bit() == m.fail_bit, "BitReader::overrun_bit()");
    check(r.overrun_width() == m.fail_width, "BitReader::overrun_width()");
  }
}

// Decision 6 as the model sees it: after a clean read, the pad bits to the end of the
// current byte are zero and no whole byte follows.
void check_end_statuses(const mab::BitReader& r, const ModelReader& m) {
  const auto st = r.status("s");
  check(st.ok() == !m.failed, "BitReader::status()");
  if (!st) check(st.error().code == mab::ErrorCode::bit_overrun, "status() code is not bit_overrun");

  const auto fin = r.finish_exact("s");
  if (m.failed) {
    check(!fin && fin.error().code == mab::ErrorCode::bit_overrun, "finish_exact after overrun");
    return;
  }
  const std::uint64_t end_byte = (m.pos + 7) / 8;
  bool pad_clear = true;
  for (std::uint64_t i = m.pos; i < end_byte * 8; ++i) pad_clear = pad_clear && model_bit(m.s, i) == 0;
  const bool expect_ok = pad_clear && end_byte == m.s.size();
  check(fin.ok() == expect_ok, "finish_exact() disagrees with the model");
  if (!fin) check(fin.error().code == mab::ErrorCode::trailing_data, "finish_exact code is not trailing_data");

  check(r.expect_end(m.pos, "s").ok(), "expect_end(position) failed");
  const auto longer = r.expect_end(m.pos + 1, "s");
  check(!longer && longer.error().code == mab::ErrorCode::trailing_data, "expect_end(position + 1)");
  if (m.pos > 0) {
    const auto shorter = r.expect_end(m.pos - 1, "s");
    check(!shorter && shorter.error().code == mab::ErrorCode::bit_overrun, "expect_end(position - 1)");
  }
}

void reader_against_model(fuzz::Input& in) {
  const auto stream = in.bytes(in.u8());
  mab::BitReader r(stream, 0x100);
  ModelReader m{stream};
  while (!in.empty()) {
    const std::uint8_t op = in.u8();
    if (op >= 0xD0 && op < 0xE0) {
      // read_many: up to 8 values of 0..16 bits, each as the model reads it.
      const unsigned width = in.u8() % 17u, count = (op & 15u) % 9u;
      std::uint16_t got[8] = {};
      r.read_many(width, count, got);
      for (unsigned i = 0; i < count; ++i) check(got[i] == m.read(width), "BitReader::read_many value");
    } else if (op < 0xE0) {
      // Widths 0..63: above 32 must fail like an overrun.
      const unsigned width = op & 63u;
      const std::uint32_t got = r.read(width);
      const std::uint32_t want = m.read(width);
      if (got != want) {
        std::fprintf(stderr, "read(%u) at bit %llu: got 0x%x, model 0x%x\n", width,
                     static_cast<unsigned long long>(m.pos), got, want);
        fuzz::fail("BitReader::read value");
      }
    } else {
      // Skips reach far past the end too (up to 2^16 bits).
      const std::uint64_t n = op == 0xFF ? in.u16() : op & 31u;
      r.skip(n);
      m.skip(n);
    }
    same_state(r, m);
  }
  check_end_statuses(r, m);
  if (!m.failed && m.pos < m.bits()) {
    const std::uint64_t off = r.file_offset_of(m.pos);
    check(off == 0x100 + m.pos / 8, "file_offset_of()");
  }
}

// The writer's reference: a growing bit string.
struct ModelWriter {
  std::vector<std::uint8_t> bytes;
  std::uint64_t bits = 0;

  void put(unsigned bit) {
    if (bits % 8 == 0) bytes.push_back(0);
    bytes.back() = static_cast<std::uint8_t>(bytes.back() | (bit << (bits % 8)));
    ++bits;
  }
  void align() {
    while (bits % 8) put(0);
  }
};

struct Op {
  enum Kind : std::uint8_t { write, align, append } kind;
  std::uint32_t value;
  unsigned width;                      // write: the width actually written (<= 32)
  std::vector<std::uint8_t> appended;  // append
};

void writer_round_trip(fuzz::Input& in) {
  // A prefix makes the writer start after existing bytes, as the constructor allows.
  const auto prefix = in.bytes(in.u8() & 7u);
  mab::BitWriter w(std::vector<std::uint8_t>(prefix.begin(), prefix.end()));
  ModelWriter m;
  for (const std::uint8_t b : prefix)
    for (unsigned i = 0; i < 8; ++i) m.put((b >> i) & 1u);

  std::vector<Op> ops;
  while (!in.empty() && ops.size() < 4096) {
    const std::uint8_t op = in.u8();
    if (op < 0xF0) {
      // Widths 0..47: the writer treats anything above 32 as 32.
      const unsigned asked = op % 48u;
      const unsigned width = asked > 32 ? 32 : asked;
      const std::uint32_t value = in.u32();
      w.write(value, asked);
      for (unsigned i = 0; i < width; ++i) m.put((value >> i) & 1u);
      ops.push_back({Op::write, value, width, {}});
    } else if (op < 0xF8) {
      w.align_to_byte();
      m.align();
      ops.push_back({Op::align, 0, 0, {}});
    } else {
      const auto extra = in.bytes(op & 7u);
      w.append_bytes(extra);
      m.align();
      for (const std::uint8_t b : extra)
        for (unsigned i = 0; i < 8; ++i) m.put((b >> i) & 1u);
      ops.push_back({Op::append, 0, 0, {extra.begin(), extra.end()}});
    }
    check(w.bit_position() == m.bits, "BitWriter::bit_position() disagrees with the model");
  }

  const std::vector<std::uint8_t> out = w.finish();
  m.align();
  check(out == m.bytes, "BitWriter bytes differ from the model");
  check(w.bit_position() == 0 && w.finish().empty(), "BitWriter not empty after finish()");

  // Reading the ops back in order gives every value, and the stream ends exactly (decision 6).
  mab::BitReader r(out);
  r.skip(std::uint64_t{prefix.size()} * 8);
  for (const Op& op : ops) {
    switch (op.kind) {
      case Op::write: {
        const std::uint32_t mask = op.width == 32 ? 0xFFFFFFFFu : (1u << op.width) - 1u;
        check(r.read(op.width) == (op.value & mask), "written value reads back differently");
        break;
      }
      case Op::align: r.skip((8 - r.bit_position() % 8) % 8); break;
      case Op::append:
        r.skip((8 - r.bit_position() % 8) % 8);
        for (const std::uint8_t b : op.appended) check(r.read(8) == b, "appended byte reads back differently");
        break;
    }
    check(r.ok(), "reading back what was written overran");
  }
  check(r.finish_exact("round trip").ok(), "written stream does not end exactly (decision 6)");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  fuzz::Input in(data, size);
  if (in.u8() & 1u) writer_round_trip(in);
  else reader_against_model(in);
  return 0;
}
