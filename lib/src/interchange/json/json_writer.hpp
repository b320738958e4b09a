// Internal: a streaming JSON writer with the layout of the "mabkit-clip" documents
// (docs/json-format.md): an array of scalars stays on one line, so does any value whose
// one-line text fits in 100 columns after its indentation, everything else is spread over
// indented lines. Values are written straight into the output; whether a composite fits is
// found by writing it on one line first and, once it passes its budget, stopping that attempt
// (generators poll full()) and writing it again spread out. Each level is thus written at most
// once more, cut short after about 100 characters.
//
// The text goes into a buffer that grows geometrically and is cut to size by finish() (or the
// destructor); until then the string holds slack. With a sink, the buffer is handed to it and
// reused whenever it passes the flush size at a point no one-line trial can rewind past (between
// the elements of a spread-out composite), so a document of any size needs a fixed buffer and
// touches no fresh memory. A large spread-out array can be written by several threads
// (parallel_array), each element into one of a few reused buffers, handed out in order: the
// layout of an element depends only on its indentation and whether it is the first, so the
// bytes are the same as written by one thread.
#pragma once

#include "interchange/json/float_text.hpp"

#include <array>
#include <cstdint>
#include <cstring>
#include <exception>
#include <string>
#include <functional>
#include <string_view>
#include <vector>

namespace mab::json_out {

// Receives the text in order; false stops the output (the writer then discards the rest).
using Sink = std::function<bool(std::string_view)>;

class Writer {
 public:
  static constexpr std::size_t width = 100;

  explicit Writer(std::string& out, const Sink* sink = nullptr, std::size_t flush_size = 256 * 1024)
      : out_(out), pos_(out.size()), sink_(sink), flush_size_(flush_size) {}
  Writer(const Writer&) = delete;
  Writer& operator=(const Writer&) = delete;
  ~Writer() { finish(); }

  // Cuts the string to the text written so far (with a sink: hands it over and empties the
  // buffer); writing may go on afterwards.
  void finish() {
    if (sink_ != nullptr) flush();
    out_.resize(pos_);
  }
  // With a sink: false once the sink refused text.
  bool sink_ok() const noexcept { return sink_ok_; }

  // Scalars, as elements of the current array or values of the last key().
  void null_value() {
    before_value();
    put("null", 4);
    check_budget();
  }
  void uint(std::uint64_t v) {
    before_value();
    reserve(24);
    pos_ += put_uint(out_.data() + pos_, v);
    check_budget();
  }
  void sint(std::int64_t v);
  void number(double v);  // shortest text that reads back as v; ".0" keeps it a float
  // A float written as the shortest decimal that reads back as that float; null if not finite.
  void float_value(float f);
  // The scalar array [a, b, c, d] (a quaternion), as scalar_array of four float_value calls
  // writes it, in one step.
  void float_array4(float a, float b, float c, float d);
  // Fails (returns false) only for text that is not valid UTF-8.
  bool string(std::string_view s);
  void key(std::string_view k);  // object member name (plain ASCII, not escaped)
  // A string of two lowercase hex digits per byte.
  void hex_string(const std::uint8_t* bytes, std::size_t n);

  // An array whose elements are all scalars: always on one line.
  template <class F>
  void scalar_array(F&& elements) {
    before_value();
    push(false, true);
    put('[');
    elements();
    put(']');
    pop();
  }
  template <class T>
  void uint_array(const T& values) {
    scalar_array([&] {
      for (const auto v : values) uint(v);
    });
  }

  // An array or object holding composites: on one line if it fits, else spread out.
  template <class F>
  void array(F&& elements) {
    composite(false, elements);
  }
  template <class F>
  void object(F&& members) {
    composite(true, members);
  }

  // array() of `count` elements, element(writer, i) writing element i. Spread out (the usual
  // case for a large array), the elements are cut into `threads` runs written concurrently,
  // each by its own Writer. element must write exactly one value and touch no shared state.
  template <class F>
  void parallel_array(std::size_t count, unsigned threads, F&& element);

  // A trial on one line ran over its budget: generators stop early, the writer retries.
  bool full() const noexcept { return full_; }

 private:
  struct Frame {
    bool object;
    bool inline_mode;
    bool empty = true;
    std::size_t indent = 0;
  };

  // A writer for a run of elements of a spread-out array at `indent` (parallel_array).
  Writer(std::string& out, std::size_t indent, bool first) : out_(out), pos_(out.size()) {
    push(false, false);
    frames_[0] = {false, false, first, indent};
  }

  void reserve(std::size_t n) {
    if (out_.size() - pos_ < n) grow(n);
  }
  void grow(std::size_t n);
  void flush() {
    if (sink_ok_ && pos_ != 0) sink_ok_ = (*sink_)(std::string_view(out_.data(), pos_));
    pos_ = 0;
  }
  // The text so far, taken out of this writer's buffer (a parallel_array element).
  std::string_view take() {
    const std::string_view t(out_.data(), pos_);
    pos_ = 0;
    return t;
  }
  // Ready for the next element of its array; `first`: no separating comma before it.
  void restart_run(bool first) {
    pos_ = 0;
    depth_ = 1;
    frames_[0].empty = first;
    budget_end_ = npos;
    full_ = false;
  }
  void put(char c) {
    reserve(1);
    out_[pos_++] = c;
  }
  void put(const char* s, std::size_t n) {
    reserve(n);
    std::memcpy(out_.data() + pos_, s, n);
    pos_ += n;
  }
  void put(std::string_view s) { put(s.data(), s.size()); }
  void put_spaces(std::size_t n) {
    reserve(n);
    std::memset(out_.data() + pos_, ' ', n);
    pos_ += n;
  }
  static std::size_t put_uint(char* out, std::uint64_t v) noexcept;

  // The separator before a value or key: ", " on a line, ",\n" and the indentation spread out.
  void separator(Frame& f) {
    if (f.inline_mode) {
      if (!f.empty) put(", ", 2);
    } else {
      if (sink_ != nullptr && pos_ >= flush_size_) flush();
      reserve(f.indent + 4);
      char* o = out_.data() + pos_;
      if (!f.empty) *o++ = ',';
      *o++ = '\n';
      std::memset(o, ' ', f.indent + 2);
      pos_ = static_cast<std::size_t>(o - out_.data()) + f.indent + 2;
    }
    f.empty = false;
  }
  void before_value() {
    if (depth_ == 0) return;
    Frame& f = back();
    if (!f.object) separator(f);
  }
  // The documents nest at most 8 deep (top, codes, rotations, chunks, chunk, entry, raw,
  // component); the depth follows from the code, never from data.
  void push(bool object, bool inline_mode) {
    if (depth_ == max_depth) std::terminate();
    frames_[depth_++] = {object, inline_mode, true, 0};
  }
  void pop() { --depth_; }
  void check_budget() {
    if (budget_end_ != npos && pos_ > budget_end_) full_ = true;
  }
  std::size_t child_indent() const noexcept { return depth_ == 0 ? 0 : back().indent + 2; }
  bool in_inline() const noexcept { return depth_ != 0 && back().inline_mode; }
  Frame& back() noexcept { return frames_[depth_ - 1]; }
  const Frame& back() const noexcept { return frames_[depth_ - 1]; }

  // The one-line trial of a composite in pretty mode; true if it fitted (and stays written).
  template <class F>
  bool try_one_line(bool object, F& body) {
    const std::size_t indent = child_indent();
    const std::size_t start = pos_;
    const std::size_t saved_budget = budget_end_;
    budget_end_ = indent <= width ? start + (width - indent) : start;
    push(object, true);
    put(object ? '{' : '[');
    body();
    put(object ? '}' : ']');
    pop();
    check_budget();
    const bool fits = !full_;
    full_ = false;
    budget_end_ = saved_budget;
    if (!fits) pos_ = start;
    return fits;
  }
  void close_spread(char close) {
    if (!back().empty) {
      const std::size_t indent = back().indent;
      put('\n');
      put_spaces(indent);
    }
    put(close);
    pop();
  }

  template <class F>
  void composite(bool object, F& body) {
    before_value();
    if (full_) return;
    const char open = object ? '{' : '[', close = object ? '}' : ']';
    if (in_inline()) {
      push(object, true);
      put(open);
      body();
      put(close);
      pop();
      check_budget();
      return;
    }
    const std::size_t indent = child_indent();
    if (try_one_line(object, body)) return;
    push(object, false);
    back().indent = indent;
    put(open);
    body();
    close_spread(close);
  }

  static constexpr std::size_t npos = ~std::size_t{0};
  std::string& out_;
  std::size_t pos_;  // end of the text; out_ may hold slack beyond it
  const Sink* sink_ = nullptr;
  std::size_t flush_size_ = 256 * 1024;
  bool sink_ok_ = true;
  static constexpr std::size_t max_depth = 16;
  std::array<Frame, max_depth> frames_{};
  std::size_t depth_ = 0;
  std::size_t budget_end_ = npos;
  bool full_ = false;
};

}  // namespace mab::json_out

#include "interchange/json/json_writer_parallel.hpp"
