// pybind11 bindings of the Strata compiler: parse, run pipelines, print.

#include "Compiler.h"

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

namespace py = pybind11;
using strata::python::CompilerError;
using strata::python::GpuObject;
using strata::python::Module;

PYBIND11_MODULE(_strata, m) {
  m.doc() = "Strata compiler core (C++/MLIR).";
  py::register_exception<CompilerError>(m, "CompilerError");

  py::class_<GpuObject>(m, "GpuObject")
      .def_readonly("module", &GpuObject::module)
      .def_readonly("chip", &GpuObject::chip)
      .def_readonly("format", &GpuObject::format)
      .def_property_readonly(
          "data", [](const GpuObject &o) { return py::bytes(o.data); });

  py::class_<Module>(m, "Module")
      .def_static("parse", &Module::parse, py::arg("text"),
                  py::arg("filename") = "<string>",
                  "Parses MLIR text into a module.")
      .def("run", &Module::run, py::arg("pipeline"),
           "Runs a pass pipeline (a registered pipeline name, a list of "
           "passes, or builtin.module(...)).")
      .def("verify", &Module::verify)
      .def("to_string", &Module::str, py::arg("generic") = false)
      .def("__str__", [](const Module &m) { return m.str(false); })
      .def("gpu_objects", &Module::gpuObjects,
           "The objects (PTX, cubin, ...) of every gpu.binary.");
}
