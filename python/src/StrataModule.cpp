// pybind11 bindings of the Strata compiler: parse, run pipelines, print.

#include "Builder.h"
#include "Compiler.h"

#include "strata/Dialect/TensorIR/IR/TensorIR.h"
#include "strata/Dialect/TileIR/Analysis/TrafficModel.h"

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

namespace py = pybind11;
using strata::python::CompilerError;
using strata::python::GpuObject;
using strata::python::Module;
using strata::python::AttrValue;
using strata::python::ProgramBuilder;

/// Python attribute values: a tensorir enum (ReduceKind, CmpPredicate),
/// bool (a flag), int, float, str, or a list of ints.
static std::map<std::string, AttrValue> toAttrs(const py::dict &attrs) {
  std::map<std::string, AttrValue> result;
  for (auto [key, value] : attrs) {
    std::string name = py::cast<std::string>(key);
    AttrValue v{};
    if (py::isinstance<strata::tensorir::ReduceKind>(value)) {
      v.kind = AttrValue::Kind::I32;
      v.i = static_cast<int64_t>(py::cast<strata::tensorir::ReduceKind>(value));
    } else if (py::isinstance<strata::tensorir::CmpPredicate>(value)) {
      v.kind = AttrValue::Kind::I32;
      v.i =
          static_cast<int64_t>(py::cast<strata::tensorir::CmpPredicate>(value));
    } else if (py::isinstance<py::bool_>(value)) {
      v.kind = AttrValue::Kind::Flag;
      v.i = py::cast<bool>(value);
    } else if (py::isinstance<py::int_>(value)) {
      v.kind = AttrValue::Kind::Int;
      v.i = py::cast<int64_t>(value);
    } else if (py::isinstance<py::float_>(value)) {
      v.kind = AttrValue::Kind::Float;
      v.f = py::cast<double>(value);
    } else if (py::isinstance<py::str>(value)) {
      v.kind = AttrValue::Kind::Str;
      v.s = py::cast<std::string>(value);
    } else if (py::isinstance<py::list>(value) ||
               py::isinstance<py::tuple>(value)) {
      v.kind = AttrValue::Kind::Ints;
      v.ints = py::cast<std::vector<int64_t>>(value);
    } else {
      throw CompilerError("attribute '" + name + "' has an unsupported type");
    }
    result[name] = v;
  }
  return result;
}

/// Python operands, in the op's operand groups: a value id, None (an
/// absent optional operand) or a list of ids (a variadic operand).
static std::vector<std::vector<int>> toOperandGroups(const py::list &operands) {
  std::vector<std::vector<int>> groups;
  for (py::handle operand : operands) {
    if (operand.is_none())
      groups.emplace_back();
    else if (py::isinstance<py::list>(operand) ||
             py::isinstance<py::tuple>(operand))
      groups.push_back(py::cast<std::vector<int>>(operand));
    else
      groups.push_back({py::cast<int>(operand)});
  }
  return groups;
}

/// Binds a TableGen enum of tensorir as a Python enum whose members are
/// its cases (0 to `max`), named as the IR spells them (the generated
/// stringifyEnum): the front end passes them as attributes instead of
/// mirroring their numbers.
template <typename Enum>
static void bindEnum(py::module_ &m, const char *name, const char *doc,
                     uint64_t max) {
  py::enum_<Enum> bound(m, name, doc);
  for (uint64_t i = 0; i <= max; ++i)
    if (llvm::StringRef case_ = stringifyEnum(static_cast<Enum>(i));
        !case_.empty())
      bound.value(case_.data(), static_cast<Enum>(i));
}

PYBIND11_MODULE(_strata, m) {
  bindEnum<strata::tensorir::ReduceKind>(
      m, "ReduceKind", "The combiner of tensorir.reduce and arg_reduce.",
      strata::tensorir::getMaxEnumValForReduceKind());
  bindEnum<strata::tensorir::CmpPredicate>(
      m, "CmpPredicate", "The comparison of tensorir.cmp.",
      strata::tensorir::getMaxEnumValForCmpPredicate());
  m.def(
      "roofline",
      [] {
        strata::tileir::Roofline r;
        py::dict figures;
        figures["bandwidth"] = r.bytesPerSecond;
        figures["f16"] = r.halfFlopsPerSecond;
        figures["tf32"] = r.tf32FlopsPerSecond;
        figures["f32"] = r.f32FlopsPerSecond;
        figures["multiprocessors"] = r.multiprocessors;
        return figures;
      },
      "The H200 figures of the traffic model: copy bandwidth (bytes/s), "
      "the peak FLOP/s of each math unit, and the multiprocessors.");
  m.doc() = "Strata compiler core (C++/MLIR).";
  py::register_exception<CompilerError>(m, "CompilerError");

  py::class_<GpuObject>(m, "GpuObject")
      .def_readonly("module", &GpuObject::module)
      .def_readonly("chip", &GpuObject::chip)
      .def_readonly("format", &GpuObject::format)
      .def_property_readonly(
          "data", [](const GpuObject &o) { return py::bytes(o.data); });

  m.def("set_reproducer_directory", &strata::python::setReproducerDirectory,
        py::arg("directory"),
        "Where a failing pass pipeline writes its reproducer (the module "
        "before the pipeline, with the pipeline, for strata-opt "
        "--run-reproducer); '' writes none.");

  py::class_<Module>(m, "Module")
      .def_static("parse", &Module::parse, py::arg("text"),
                  py::arg("filename") = "<string>",
                  "Parses MLIR text into a module.")
      .def("run", &Module::run, py::arg("pipeline"), py::arg("timing") = false,
           py::arg("verify_each") = true,
           "Runs a pass pipeline (a registered pipeline name, a list of "
           "passes, or builtin.module(...)); with timing=True returns the "
           "time of every pass. verify_each=False verifies the module once, "
           "at the end, instead of after every pass (faster).")
      .def("verify", &Module::verify)
      .def("clone", &Module::clone,
           "A copy of the module: passes run on it leave this one as it is.")
      .def("count", &Module::count, py::arg("name"),
           "How many ops named `name` (e.g. 'loopir.kernel') it holds.")
      .def("to_string", &Module::str, py::arg("generic") = false)
      .def("__str__", [](const Module &m) { return m.str(false); })
      .def("gpu_objects", &Module::gpuObjects,
           "The objects (PTX, cubin, ...) of every gpu.binary.")
      .def(
          "artifact",
          [](const Module &m, const std::string &entry,
             const std::vector<std::string> &names, const Module *cubin) {
            return py::bytes(m.artifact(entry, names, cubin));
          },
          py::arg("entry"), py::arg("argument_names"),
          py::arg("cubin") = nullptr,
          "The artifact (launch plan, PTX, cubin) of a program lowered by "
          "strata-lower-to-nvvm.")
      .def("result_types", &Module::resultTypes, py::arg("entry"),
           "(shape, element type) of each result of the tensor function "
           "`entry`.")
      .def(
          "traffic",
          [](const Module &m, bool tensorCores, bool tf32) {
            py::list kernels;
            strata::tileir::Roofline roofline;
            for (const auto &k :
                 strata::tileir::modelModule(m.op(), tensorCores, tf32)) {
              py::dict row;
              row["name"] = k.name;
              row["kind"] = k.kind;
              row["programs"] = k.programs;
              row["bytes_read"] = k.bytesRead;
              row["bytes_written"] = k.bytesWritten;
              row["tile_bytes_read"] = k.tileBytesRead;
              row["tile_bytes_written"] = k.tileBytesWritten;
              row["flops"] = k.flops;
              row["unit"] = k.unit == strata::tileir::MathUnit::Half   ? "f16"
                            : k.unit == strata::tileir::MathUnit::TF32 ? "tf32"
                                                                       : "f32";
              row["seconds"] = k.seconds(roofline);
              kernels.append(row);
            }
            return kernels;
          },
          py::arg("tensor_cores") = true, py::arg("tf32") = false,
          "The traffic model of every scheduled tile kernel (a module at "
          "tileir): name, kind, programs, bytes read and written, FLOPs, "
          "the math unit and the H200 roofline's time. A model, not a "
          "measurement.")
      .def(
          "ideal_bytes",
          [](const Module &m) { return strata::tileir::idealBytes(m.op()); },
          "Bytes of every argument and result of the host functions.")
      .def("to_cuda", &Module::cuda,
           "The kernelir kernels as readable CUDA C++.")
      .def(
          "run_on_cpu",
          [](Module &m, const std::string &entry, const std::string &pipeline,
             const std::vector<py::buffer> &inputs,
             const std::vector<py::buffer> &outputs) {
            auto toHost = [](const std::vector<py::buffer> &buffers,
                             bool writable) {
              std::vector<strata::python::HostBuffer> result;
              for (const py::buffer &b : buffers) {
                py::buffer_info info = b.request(writable);
                // Row-major and contiguous: the descriptor assumes it.
                ssize_t expected = info.itemsize;
                for (ssize_t d = info.ndim - 1; d >= 0; --d) {
                  if (info.shape[d] > 1 && info.strides[d] != expected)
                    throw CompilerError("buffers must be C-contiguous");
                  expected *= info.shape[d];
                }
                bool isFloat = info.format == "f" || info.format == "d" ||
                               info.format == "e";
                result.push_back(
                    {info.ptr,
                     std::vector<int64_t>(info.shape.begin(), info.shape.end()),
                     info.itemsize, isFloat});
              }
              return result;
            };
            m.runOnCPU(entry, pipeline, toHost(inputs, false),
                       toHost(outputs, true));
          },
          py::arg("entry"), py::arg("pipeline"), py::arg("inputs"),
          py::arg("outputs"),
          "Runs the tensor function `entry` on the CPU through `pipeline` "
          "(numpy arrays in, preallocated numpy arrays out).");

  py::class_<ProgramBuilder>(m, "ProgramBuilder",
                             "Builds a tensorir function op by op.")
      .def(py::init<const std::string &>(), py::arg("name"))
      .def("input", &ProgramBuilder::input, py::arg("shape"), py::arg("dtype"))
      .def("set_location", &ProgramBuilder::setLocation, py::arg("file"),
           py::arg("line"), py::arg("what") = "")
      .def(
          "constant",
          [](ProgramBuilder &b, py::bytes data,
             const std::vector<int64_t> &shape, const std::string &dtype) {
            return b.constant(std::string(data), shape, dtype);
          },
          py::arg("data"), py::arg("shape"), py::arg("dtype"))
      // Python ints take the exact integer overload (tried first: pybind
      // does not convert a float to an integer).
      .def("splat",
           py::overload_cast<int64_t, const std::vector<int64_t> &,
                             const std::string &>(&ProgramBuilder::splat),
           py::arg("value"), py::arg("shape"), py::arg("dtype"))
      .def("splat",
           py::overload_cast<double, const std::vector<int64_t> &,
                             const std::string &>(&ProgramBuilder::splat),
           py::arg("value"), py::arg("shape"), py::arg("dtype"))
      .def("pad", &ProgramBuilder::pad, py::arg("input"), py::arg("low"),
           py::arg("high"), py::arg("value"))
      .def(
          "op",
          [](ProgramBuilder &b, const std::string &name,
             const py::list &operands,
             const std::vector<std::pair<std::vector<int64_t>, std::string>>
                 &results,
             const py::dict &attrs) {
            return b.op(name, toOperandGroups(operands), results,
                        toAttrs(attrs));
          },
          py::arg("name"), py::arg("operands"), py::arg("results"),
          py::arg("attrs") = py::dict())
      .def("shape", &ProgramBuilder::shape)
      .def("dtype", &ProgramBuilder::dtype)
      .def("finish", &ProgramBuilder::finish, py::arg("outputs"));
}
