// pybind11 bindings of Strata's CUDA runtime: artifacts and programs.

#include "strata/Runtime/Runtime.h"

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

namespace py = pybind11;
using namespace strata::runtime;

PYBIND11_MODULE(_strata_runtime, m) {
  m.doc() = "Strata's CUDA runtime (driver API; no LLVM/MLIR).";
  py::register_exception<RuntimeError>(m, "RuntimeError");
  py::register_exception<ArtifactError>(m, "ArtifactError");

  py::class_<Buffer>(m, "Buffer")
      .def_property_readonly("kind",
                             [](const Buffer &b) { return kindName(b.kind); })
      .def_readonly("argument", &Buffer::argument)
      .def_readonly("name", &Buffer::name)
      .def_readonly("dtype", &Buffer::dtype)
      .def_readonly("shape", &Buffer::shape)
      .def_property_readonly("bytes", &Buffer::bytes);

  py::class_<TensorMap>(m, "TensorMap")
      .def_readonly("param", &TensorMap::param)
      .def_readonly("box", &TensorMap::box)
      .def_readonly("shape", &TensorMap::shape)
      .def_readonly("swizzle", &TensorMap::swizzle);
  py::class_<Launch>(m, "Launch")
      .def_readonly("kernel", &Launch::kernel)
      .def_readonly("grid", &Launch::grid)
      .def_readonly("block", &Launch::block)
      .def_readonly("shared_bytes", &Launch::sharedBytes)
      .def_readonly("args", &Launch::args)
      .def_readonly("tensor_maps", &Launch::tensorMaps)
      .def_readonly("wave_tiles", &Launch::waveTiles);

  py::class_<Artifact>(m, "Artifact")
      .def_static("parse",
                  [](py::bytes data) { return Artifact::parse(data); })
      .def("serialize",
           [](const Artifact &a) { return py::bytes(a.serialize()); })
      .def_readonly("target", &Artifact::target)
      .def_readonly("buffers", &Artifact::buffers)
      .def_readonly("launches", &Artifact::launches)
      .def_readonly("outputs", &Artifact::outputs)
      .def_property_readonly("ptx", [](const Artifact &a) { return a.ptx; })
      .def_property_readonly(
          "cubin", [](const Artifact &a) { return py::bytes(a.cubin); });

  m.def("describe_device", &describeDevice,
        "The first CUDA device; raises RuntimeError without driver or GPU.");

  py::class_<Program>(m, "Program")
      .def(py::init([](py::bytes data) {
             return std::make_unique<Program>(Artifact::parse(data));
           }),
           py::arg("artifact"))
      .def("run", &Program::run, py::arg("arguments"), py::arg("outputs"),
           py::arg("stream") = 0,
           "Launches the plan on device pointers (asynchronously).")
      .def("synchronize", &Program::synchronize)
      .def_property_readonly("used_cubin", &Program::usedCubin)
      .def("launched_grid", &Program::launchedGrid, py::arg("launch"),
           "The grid launch `launch` takes: its plan's, or a wave's exact "
           "wave (the SMs times the blocks one holds, at most its tiles).");
}
