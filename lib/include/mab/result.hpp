// Result<T>: a value or an Error (the simdjson / std::expected idea, for C++20).
#pragma once

#include <mab/error.hpp>

#include <type_traits>
#include <utility>
#include <variant>

namespace mab {

template <class T>
class [[nodiscard]] Result {
 public:
  Result(T value) : v_(std::in_place_index<0>, std::move(value)) {}
  Result(Error error) : v_(std::in_place_index<1>, std::move(error)) {}

  bool ok() const noexcept { return v_.index() == 0; }
  explicit operator bool() const noexcept { return ok(); }

  // Precondition: ok(). Callers check first; these are never reached with file data unchecked.
  T& value() & { return std::get<0>(v_); }
  const T& value() const& { return std::get<0>(v_); }
  T&& value() && { return std::get<0>(std::move(v_)); }
  T* operator->() { return &std::get<0>(v_); }
  const T* operator->() const { return &std::get<0>(v_); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }

  // Precondition: !ok().
  const Error& error() const& { return std::get<1>(v_); }
  Error&& error() && { return std::get<1>(std::move(v_)); }

 private:
  std::variant<T, Error> v_;
};

template <>
class [[nodiscard]] Result<void> {
 public:
  Result() = default;
  Result(Error error) : err_(std::move(error)), ok_(false) {}

  bool ok() const noexcept { return ok_; }
  explicit operator bool() const noexcept { return ok_; }
  const Error& error() const& { return err_; }
  Error&& error() && { return std::move(err_); }

 private:
  Error err_;
  bool ok_ = true;
};

using Status = Result<void>;

}  // namespace mab

#define MAB_CONCAT_INNER(a, b) a##b
#define MAB_CONCAT(a, b) MAB_CONCAT_INNER(a, b)

// Propagate an error from an expression returning Result<...>. The temporary has a name of
// its own per use, so a MAB_TRY inside a lambda inside a MAB_TRY shadows nothing.
#define MAB_TRY(expr) MAB_TRY_IMPL(MAB_CONCAT(mab_try_r_, __COUNTER__), expr)
#define MAB_TRY_IMPL(tmp, expr)              \
  do {                                       \
    auto tmp = (expr);                       \
    if (!tmp) return std::move(tmp).error(); \
  } while (0)
// Declare `lhs` from the value of a Result, or return its error.
#define MAB_ASSIGN(lhs, expr) MAB_ASSIGN_IMPL(MAB_CONCAT(mab_assign_r_, __LINE__), lhs, expr)
#define MAB_ASSIGN_IMPL(tmp, lhs, expr)    \
  auto tmp = (expr);                       \
  if (!tmp) return std::move(tmp).error(); \
  lhs = std::move(tmp).value()
