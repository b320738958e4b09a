// Internal: Writer::parallel_array (json_writer.hpp).
#pragma once

#include <condition_variable>
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
  // is free again once its text is out: memory stays at two elements per thread.
  const std::size_t slots = 2 * std::size_t{threads};
  std::vector<std::string> texts(slots);
  std::vector<std::unique_ptr<Writer>> writers;
  for (auto& t : texts) writers.push_back(std::unique_ptr<Writer>(new Writer(t, indent, false)));
  constexpr std::size_t none = ~std::size_t{0};
  std::vector<std::size_t> ready(slots, none);  // the element whose text a slot holds, once written
  std::mutex m;
  std::condition_variable changed;
  std::size_t next_take = 0, next_out = 0;
  bool stop = false;
  std::exception_ptr failure;
  // Takes and writes one element; false when none can be taken now. Called with `lock` held.
  auto write_one = [&](std::unique_lock<std::mutex>& lock) {
    if (stop || next_take >= count || next_take >= next_out + slots) return false;
    const std::size_t i = next_take++;
    lock.unlock();
    Writer& w = *writers[i % slots];
    w.restart_run(i == 0);
    std::exception_ptr error;
    try {
      element(w, i);
    } catch (...) {
      error = std::current_exception();
    }
    lock.lock();
    if (error) {
      if (!failure) failure = error;
      stop = true;
    } else {
      ready[i % slots] = i;
    }
    changed.notify_all();
    return true;
  };
  std::vector<std::thread> workers;
  workers.reserve(threads - 1);
  try {
    for (unsigned t = 1; t < threads; ++t)
      workers.emplace_back([&] {
        std::unique_lock<std::mutex> lock(m);
        while (!stop && next_take < count)
          if (!write_one(lock)) changed.wait(lock);
      });
  } catch (...) {
    // No thread to start (resources): whatever started still works, this thread does the rest.
  }
  {
    std::unique_lock<std::mutex> lock(m);
    while (!stop && next_out < count) {
      const std::size_t s = next_out % slots;
      if (ready[s] == next_out) {
        lock.unlock();
        const std::string_view text = writers[s]->take();
        if (sink_ != nullptr) {
          flush();
          if (sink_ok_ && !text.empty()) sink_ok_ = (*sink_)(text);
        } else {
          put(text);
        }
        lock.lock();
        ready[s] = none;
        ++next_out;
        if (sink_ != nullptr && !sink_ok_) stop = true;  // the rest would be discarded
        changed.notify_all();
      } else if (!write_one(lock)) {
        changed.wait(lock);
      }
    }
    stop = true;
    changed.notify_all();
  }
  for (auto& t : workers) t.join();
  if (failure) std::rethrow_exception(failure);
  back().empty = false;
  close_spread(']');
}

}  // namespace mab::json_out
