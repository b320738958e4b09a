// Internal: Writer::parallel_array (json_writer.hpp).
#pragma once

#include <atomic>
#include <exception>
#include <memory>
#include <mutex>
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
  // Element i is written into slot i % slots by whichever thread takes it first (every thread
  // takes the lowest element not yet taken whose slot is free); this thread also hands the slots'
  // texts to the output in element order as soon as the next one is ready, so the output's
  // writes overlap the other threads' formatting and no thread waits for a round to end. A slot
  // is free again once its text is out: memory stays at two elements per thread. An element
  // takes tens of microseconds, so a thread with nothing to do spins, then yields, rather than
  // sleeping: a wake-up costs more than that on a virtual machine (measured: 81 context
  // switches per export of the bench clip with a condition variable, two threads slower than one).
  const std::size_t slots = 2 * std::size_t{threads};
  constexpr std::size_t none = ~std::size_t{0};
  std::vector<std::string> texts(slots);
  std::vector<std::unique_ptr<Writer>> writers;
  for (auto& t : texts) writers.push_back(std::unique_ptr<Writer>(new Writer(t, indent, false)));
  std::unique_ptr<std::atomic<std::size_t>[]> ready(new std::atomic<std::size_t>[slots]);
  for (std::size_t i = 0; i < slots; ++i) ready[i].store(none);
  std::atomic<std::size_t> next_take{0}, next_out{0};
  std::atomic<bool> stop{false};
  std::mutex failure_mutex;
  std::exception_ptr failure;
  auto take = [&]() -> std::size_t {
    std::size_t t = next_take.load();
    while (!stop.load() && t < count && t < next_out.load() + slots)
      if (next_take.compare_exchange_weak(t, t + 1)) return t;
    return none;
  };
  auto write = [&](std::size_t i) {
    Writer& w = *writers[i % slots];
    w.restart_run(i == 0);
    try {
      element(w, i);
    } catch (...) {
      const std::lock_guard<std::mutex> lock(failure_mutex);
      if (!failure) failure = std::current_exception();
      stop.store(true);
    }
    ready[i % slots].store(i);
  };
  auto idle = [](unsigned& spins) {
    if (spins < 256) {
      ++spins;
#if defined(__x86_64__) || defined(__i386__)
      __builtin_ia32_pause();
#endif
    } else {
      std::this_thread::yield();
    }
  };
  std::vector<std::thread> workers;
  workers.reserve(threads - 1);
  try {
    for (unsigned t = 1; t < threads; ++t)
      workers.emplace_back([&] {
        unsigned spins = 0;
        while (!stop.load() && next_take.load() < count) {
          if (const std::size_t i = take(); i != none) {
            write(i);
            spins = 0;
          } else {
            idle(spins);
          }
        }
      });
  } catch (...) {
    // No thread to start (resources): whatever started still works, this thread does the rest.
  }
  unsigned spins = 0;
  while (!stop.load() && next_out.load() < count) {
    const std::size_t n = next_out.load(), s = n % slots;
    if (ready[s].load() == n) {
      const std::string_view text = writers[s]->take();
      if (sink_ != nullptr) {
        flush();
        if (sink_ok_ && !text.empty()) sink_ok_ = (*sink_)(text);
        if (!sink_ok_) stop.store(true);  // the rest would be discarded
      } else {
        put(text);
      }
      ready[s].store(none);
      next_out.store(n + 1);
      spins = 0;
    } else if (const std::size_t i = take(); i != none) {
      write(i);
      spins = 0;
    } else {
      idle(spins);
    }
  }
  stop.store(true);
  for (auto& t : workers) t.join();
  if (failure) std::rethrow_exception(failure);
  back().empty = false;
  close_spread(']');
}

}  // namespace mab::json_out
