#include "errors.hpp"

#include <cmath>

namespace py = pybind11;

namespace mabpy {

void raise(const mab::Error& e) {
  // Leaked on purpose: a static py::object would be released after the interpreter is gone.
  static const auto* cls = new py::object(py::module_::import("mabkit._errors").attr("MabError"));
  py::object offset = e.offset == mab::no_offset ? py::object(py::none()) : py::object(py::int_(e.offset));
  py::object bit = e.bit ? py::object(py::int_(*e.bit)) : py::object(py::none());
  py::object inst =
      (*cls)(e.message(), py::arg("code") = std::string(mab::to_string(e.code)),
             py::arg("code_value") = static_cast<int>(e.code), py::arg("field") = e.field, py::arg("offset") = offset,
             py::arg("bit") = bit, py::arg("detail") = mab::spell_options(e.detail));
  PyErr_SetObject(cls->ptr(), inst.ptr());
  throw py::error_already_set();
}

void raise(mab::ErrorCode code, std::string field, std::string detail) {
  raise(mab::make_error(code, mab::no_offset, std::move(field), std::move(detail)));
}

void not_landed(std::string field, const std::string& what) {
  raise(mab::ErrorCode::round_trip_mismatch, std::move(field),
        what + ": the edit did not land; nothing was written (please report this as a bug)");
}

double checked_max_error(double max_error_deg) {
  if (!(max_error_deg > 0) || !std::isfinite(max_error_deg))
    raise(mab::ErrorCode::invalid_argument, "max_error", "the bound must be a positive number of degrees");
  return max_error_deg;
}

}  // namespace mabpy
