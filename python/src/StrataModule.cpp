// pybind11 bindings of the Strata compiler: parse, run pipelines, print.

#include "Builder.h"
#include "Compiler.h"

#include "strata/Dialect/TensorIR/IR/TensorIR.h"
#include "strata/Dialect/TileIR/Analysis/TrafficModel.h"
#include "strata/Pipelines/Pipelines.h"

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

namespace py = pybind11;
using strata::python::CompilerError;
using strata::python::GpuObject;
using strata::python::Module;
using strata::python::ProgramBuilder;

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

/// The typed constructors of ProgramBuilder, one method per tensorir op,
/// named as the op (Builder.h).
static void bindTypedOps(py::class_<ProgramBuilder> &builder) {
  using namespace strata::tensorir;
  using B = ProgramBuilder;
#define STRATA_UNARY(name, Op) builder.def(#name, &B::unary<Op>, py::arg("x"));
#define STRATA_BINARY(name, Op)                                                \
  builder.def(#name, &B::binary<Op>, py::arg("lhs"), py::arg("rhs"));
#include "ElementwiseOps.def"
  builder
      .def("cmp", &B::cmp, py::arg("predicate"), py::arg("lhs"), py::arg("rhs"))
      .def("select", &B::select, py::arg("condition"), py::arg("true_value"),
           py::arg("false_value"))
      .def("cast", &B::cast, py::arg("x"), py::arg("dtype"))
      .def("bitcast", &B::bitcast, py::arg("x"), py::arg("dtype"))
      .def("iota", &B::iota, py::arg("shape"), py::arg("dim"), py::arg("dtype"))
      .def("clamp", &B::clamp, py::arg("x"), py::arg("min") = py::none(),
           py::arg("max") = py::none())
      .def("gelu", &B::gelu, py::arg("x"), py::arg("tanh") = false)
      .def("reshape", &B::reshape, py::arg("x"), py::arg("shape"))
      .def("broadcast", &B::broadcast, py::arg("x"), py::arg("shape"),
           py::arg("dims"))
      .def("transpose", &B::transpose, py::arg("x"), py::arg("perm"))
      .def("slice", &B::slice, py::arg("x"), py::arg("offsets"),
           py::arg("shape"), py::arg("strides"))
      .def("window", &B::window, py::arg("x"), py::arg("sizes"),
           py::arg("strides"), py::arg("dilations"))
      .def("concat", &B::concat, py::arg("inputs"), py::arg("axis"))
      .def("gather", &B::gather, py::arg("x"), py::arg("indices"),
           py::arg("axis"))
      .def("reduce", &B::reduce, py::arg("kind"), py::arg("x"), py::arg("axes"),
           py::arg("keepdim") = false)
      .def("arg_reduce", &B::argReduce, py::arg("kind"), py::arg("x"),
           py::arg("axis"), py::arg("keepdim") = false)
      .def("mean", &B::mean, py::arg("x"), py::arg("axes"),
           py::arg("keepdim") = false)
      .def("var", &B::var, py::arg("x"), py::arg("axes"), py::arg("correction"),
           py::arg("keepdim") = false)
      .def("matmul", &B::matmul, py::arg("lhs"), py::arg("rhs"))
      .def("einsum", &B::einsum, py::arg("equation"), py::arg("inputs"))
      .def("linear", &B::linear, py::arg("x"), py::arg("weight"),
           py::arg("bias") = py::none())
      .def("softmax", &B::softmax, py::arg("x"), py::arg("axis"))
      .def("log_softmax", &B::logSoftmax, py::arg("x"), py::arg("axis"))
      .def("layer_norm", &B::layerNorm, py::arg("x"),
           py::arg("weight") = py::none(), py::arg("bias") = py::none(),
           py::arg("normalized_rank"), py::arg("eps"))
      .def("conv", &B::conv, py::arg("x"), py::arg("weight"),
           py::arg("bias") = py::none(), py::arg("strides"), py::arg("padding"),
           py::arg("dilations"), py::arg("groups"),
           py::arg("output_padding") = py::none());
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

  m.def(
      "lowering_stages",
      [] {
        py::list stages;
        for (const strata::LoweringStage &s : strata::getLoweringStages())
          stages.append(
              py::make_tuple(s.name.str(), s.pipeline.str(), s.readable));
        return stages;
      },
      "Every lowering stage, in lowering order: (name, the pipeline "
      "registered for it, whether its result is IR to read).");
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
              row["schedule"] = k.schedule;
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
          "tileir): name, kind, schedule (tile, threads, band), programs, "
          "bytes read and written, FLOPs, the math unit and the H200 "
          "roofline's time. A model, not a measurement.")
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

  py::class_<ProgramBuilder> builder(m, "ProgramBuilder",
                                     "Builds a tensorir function op by op.");
  builder.def(py::init<const std::string &>(), py::arg("name"))
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
      .def("shape", &ProgramBuilder::shape)
      .def("dtype", &ProgramBuilder::dtype)
      .def("finish", &ProgramBuilder::finish, py::arg("outputs"));
  bindTypedOps(builder);
}
