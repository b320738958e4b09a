// Internal: a streaming JSON writer with the layout of the "mabkit-clip" documents
// (docs/json-format.md): an array of scalars stays on one line, so does any value whose
// one-line text fits in 100 columns after its indentation, everything else is spread over
// indented lines. Values are written straight into the output; whether a composite fits is
// found by writing it on one line first and, once it passes its budget, stopping that attempt
// (generators poll full()) and writing it again spread out. Each level is thus written at most
// once more, cut short after about 100 characters.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace mab::json_out {

class Writer {
 public:
  static constexpr std::size_t width = 100;

  explicit Writer(std::string& out) : out_(out) {}

  // Scalars, as elements of the current array or values of the last key().
  void null_value();
  void uint(std::uint64_t v);
  void sint(std::int64_t v);
  void number(double v);  // shortest text that reads back as v; ".0" keeps it a float
  // A float written as the shortest decimal that reads back as that float; null if not finite.
  void float_value(float f);
  // Fails (returns false) only for text that is not valid UTF-8.
  bool string(std::string_view s);
  void key(std::string_view k);  // object member name (plain ASCII, not escaped)

  // An array whose elements are all scalars: always on one line.
  template <class F>
  void scalar_array(F&& elements) {
    before_value();
    push(false, true);
    out_ += '[';
    elements();
    out_ += ']';
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

  // A trial on one line ran over its budget: generators stop early, the writer retries.
  bool full() const noexcept { return full_; }

 private:
  struct Frame {
    bool object;
    bool inline_mode;
    bool empty = true;
    bool after_key = false;
    std::size_t indent = 0;
  };

  void before_value();
  void push(bool object, bool inline_mode);
  void pop() { frames_.pop_back(); }
  void check_budget() {
    if (!full_ && budget_end_ != npos && out_.size() > budget_end_) full_ = true;
  }
  std::size_t child_indent() const noexcept { return frames_.empty() ? 0 : frames_.back().indent + 2; }
  bool in_inline() const noexcept { return !frames_.empty() && frames_.back().inline_mode; }

  template <class F>
  void composite(bool object, F& body) {
    before_value();
    if (full_) return;
    const char open = object ? '{' : '[', close = object ? '}' : ']';
    if (in_inline()) {
      push(object, true);
      out_ += open;
      body();
      out_ += close;
      pop();
      check_budget();
      return;
    }
    // Pretty mode: try one line within what is left of the 100 columns.
    const std::size_t indent = child_indent();
    const std::size_t start = out_.size();
    const std::size_t saved_budget = budget_end_;
    budget_end_ = indent <= width ? start + (width - indent) : start;
    push(object, true);
    out_ += open;
    body();
    out_ += close;
    pop();
    check_budget();
    const bool fits = !full_;
    full_ = false;
    budget_end_ = saved_budget;
    if (fits) return;
    out_.resize(start);
    push(object, false);
    frames_.back().indent = indent;
    out_ += open;
    body();
    if (!frames_.back().empty) {
      out_ += '\n';
      out_.append(indent, ' ');
    }
    out_ += close;
    pop();
  }

  static constexpr std::size_t npos = ~std::size_t{0};
  std::string& out_;
  std::vector<Frame> frames_;
  std::size_t budget_end_ = npos;
  bool full_ = false;
};

}  // namespace mab::json_out
