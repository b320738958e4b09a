// Internal: Writer::parallel_array (json_writer.hpp).
#pragma once

#include <exception>
#include <memory>
#include <thread>

namespace mab::json_out {

template <class F>
void Writer::parallel_array(std::size_t count, unsigned threads, F&& element) {
  auto sequential = [&] {
    for (std::size_t i = 0; i < count && !full_; ++i) element(*this, i);
  };
  before_value();
  if (full_) return;
  if (in_inline()) {
    push(false, true);
    put('[');
    sequential();
    put(']');
    pop();
    check_budget();
    return;
  }
  const std::size_t indent = child_indent();
  if (try_one_line(false, sequential)) return;
  push(false, false);
  back().indent = indent;
  put('[');
  if (threads > count) threads = static_cast<unsigned>(count);
  if (threads <= 1) {
    sequential();
    close_spread(']');
    return;
  }
  // Rounds of `threads` runs of `run` elements: run 0 of a round is written here, straight into
  // the output, the others by workers into buffers kept from round to round, then taken in
  // order. About 16 rounds: few thread starts, and buffers of a sixteenth of the array.
  const std::size_t rounds = std::min<std::size_t>(16, (count + threads - 1) / threads);
  const std::size_t run = (count + threads * rounds - 1) / (threads * rounds);
  std::vector<std::string> buffers(threads - 1);
  std::vector<std::unique_ptr<Writer>> subs;
  for (auto& b : buffers) subs.push_back(std::unique_ptr<Writer>(new Writer(b, indent, false)));
  std::vector<std::exception_ptr> failures(threads);
  std::vector<std::thread> workers;
  workers.reserve(threads - 1);
  for (std::size_t begin = 0; begin < count; begin += run * threads) {
    auto run_of = [&](unsigned r, Writer& w) {
      try {
        const std::size_t first = begin + run * r, last = std::min(count, first + run);
        for (std::size_t i = first; i < last; ++i) element(w, i);
      } catch (...) {
        failures[r] = std::current_exception();
      }
    };
    workers.clear();
    for (unsigned r = 1; r < threads && begin + run * r < count; ++r)
      workers.emplace_back([&, r] { run_of(r, *subs[r - 1]); });
    run_of(0, *this);
    for (auto& t : workers) t.join();
    for (const auto& e : failures)
      if (e) std::rethrow_exception(e);
    for (unsigned r = 1; r <= workers.size(); ++r) {
      const std::string_view text = subs[r - 1]->take();
      if (sink_ != nullptr) {
        flush();
        if (sink_ok_ && !text.empty()) sink_ok_ = (*sink_)(text);
      } else {
        put(text);
      }
    }
  }
  back().empty = false;
  close_spread(']');
}

}  // namespace mab::json_out
