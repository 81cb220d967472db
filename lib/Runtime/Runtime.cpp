// The CUDA driver API, loaded at run time so that the runtime builds and
// reports "no driver" cleanly on machines without CUDA.

#include "strata/Runtime/Runtime.h"

#include <algorithm>
#include <dlfcn.h>
#include <mutex>
#include <string>

namespace strata::runtime {

namespace {
// The few driver types and entry points the runtime uses (cuda.h's ABI).
using CUresult = int;
using CUdevice = int;
using CUdeviceptr = unsigned long long;
using Handle = void *;
constexpr CUresult kSuccess = 0;
constexpr int kComputeCapabilityMajor = 75, kComputeCapabilityMinor = 76;

struct Driver {
  CUresult (*cuInit)(unsigned);
  CUresult (*cuDeviceGetCount)(int *);
  CUresult (*cuDeviceGet)(CUdevice *, int);
  CUresult (*cuDeviceGetName)(char *, int, CUdevice);
  CUresult (*cuDeviceGetAttribute)(int *, int, CUdevice);
  CUresult (*cuDevicePrimaryCtxRetain)(Handle *, CUdevice);
  CUresult (*cuCtxSetCurrent)(Handle);
  CUresult (*cuCtxSynchronize)();
  CUresult (*cuModuleLoadData)(Handle *, const void *);
  CUresult (*cuModuleUnload)(Handle);
  CUresult (*cuModuleGetFunction)(Handle *, Handle, const char *);
  CUresult (*cuFuncSetAttribute)(Handle, int, int);
  CUresult (*cuOccupancyMaxActiveBlocksPerMultiprocessor)(int *, Handle, int,
                                                          size_t);
  CUresult (*cuMemAlloc)(CUdeviceptr *, size_t);
  CUresult (*cuMemFree)(CUdeviceptr);
  CUresult (*cuMemcpyHtoD)(CUdeviceptr, const void *, size_t);
  CUresult (*cuMemcpyDtoDAsync)(CUdeviceptr, CUdeviceptr, size_t, Handle);
  CUresult (*cuLaunchKernel)(Handle, unsigned, unsigned, unsigned, unsigned,
                             unsigned, unsigned, unsigned, Handle, void **,
                             void **);
  CUresult (*cuGetErrorName)(CUresult, const char **);
  // CUDA 12's; bound where the driver has it, needed by plans with TMA.
  CUresult (*cuTensorMapEncodeTiled)(void *, int, unsigned, void *,
                                     const uint64_t *, const uint64_t *,
                                     const unsigned *, const unsigned *, int,
                                     int, int, int) = nullptr;
  CUdevice device = 0;
  Handle context = nullptr;
};

std::string errorName(const Driver &d, CUresult r) {
  const char *name = nullptr;
  if (d.cuGetErrorName && d.cuGetErrorName(r, &name) == kSuccess && name)
    return name;
  return "CUDA error " + std::to_string(r);
}

void check(const Driver &d, CUresult r, const std::string &what) {
  if (r != kSuccess)
    throw RuntimeError(what + " failed: " + errorName(d, r));
}

template <typename F>
void bind(void *lib, F &f, const char *name) {
  f = reinterpret_cast<F>(dlsym(lib, name));
  if (!f)
    throw RuntimeError(std::string("the CUDA driver lacks ") + name);
}

/// The driver, its first device and that device's primary context, set up
/// once per process.
Driver &driver() {
  static std::once_flag once;
  static Driver d;
  static std::string failure;
  std::call_once(once, [] {
    try {
      void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_GLOBAL);
      if (!lib)
        throw RuntimeError("no CUDA driver: libcuda.so.1 cannot be loaded "
                           "(is this a machine with an NVIDIA GPU?)");
      bind(lib, d.cuInit, "cuInit");
      bind(lib, d.cuDeviceGetCount, "cuDeviceGetCount");
      bind(lib, d.cuDeviceGet, "cuDeviceGet");
      bind(lib, d.cuDeviceGetName, "cuDeviceGetName");
      bind(lib, d.cuDeviceGetAttribute, "cuDeviceGetAttribute");
      bind(lib, d.cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain");
      bind(lib, d.cuCtxSetCurrent, "cuCtxSetCurrent");
      bind(lib, d.cuCtxSynchronize, "cuCtxSynchronize");
      bind(lib, d.cuModuleLoadData, "cuModuleLoadData");
      bind(lib, d.cuModuleUnload, "cuModuleUnload");
      bind(lib, d.cuModuleGetFunction, "cuModuleGetFunction");
      bind(lib, d.cuFuncSetAttribute, "cuFuncSetAttribute");
      bind(lib, d.cuOccupancyMaxActiveBlocksPerMultiprocessor,
           "cuOccupancyMaxActiveBlocksPerMultiprocessor");
      bind(lib, d.cuMemAlloc, "cuMemAlloc_v2");
      bind(lib, d.cuMemFree, "cuMemFree_v2");
      bind(lib, d.cuMemcpyHtoD, "cuMemcpyHtoD_v2");
      bind(lib, d.cuMemcpyDtoDAsync, "cuMemcpyDtoDAsync_v2");
      bind(lib, d.cuLaunchKernel, "cuLaunchKernel");
      bind(lib, d.cuGetErrorName, "cuGetErrorName");
      d.cuTensorMapEncodeTiled =
          reinterpret_cast<decltype(d.cuTensorMapEncodeTiled)>(
              dlsym(lib, "cuTensorMapEncodeTiled"));
      check(d, d.cuInit(0), "cuInit");
      int count = 0;
      check(d, d.cuDeviceGetCount(&count), "cuDeviceGetCount");
      if (count == 0)
        throw RuntimeError("no CUDA device: the driver sees no GPU");
      check(d, d.cuDeviceGet(&d.device, 0), "cuDeviceGet");
      check(d, d.cuDevicePrimaryCtxRetain(&d.context, d.device),
            "cuDevicePrimaryCtxRetain");
    } catch (const RuntimeError &e) {
      failure = e.what();
    }
  });
  if (!failure.empty())
    throw RuntimeError(failure);
  check(d, d.cuCtxSetCurrent(d.context), "cuCtxSetCurrent");
  return d;
}

/// cuda.h's CUtensorMap: 128 opaque bytes, 64-aligned.
struct alignas(64) EncodedTensorMap {
  uint64_t words[16];
};

/// The tensor map `m` of `buffer` at `pointer` (TMA reads it as a
/// const __grid_constant__ parameter): dimensions, strides and box
/// innermost first; elements as unsigned integers of their size, so that
/// what lies outside the tensor reads as zero bits.
EncodedTensorMap encodeTensorMap(Driver &d, const TensorMap &m,
                                 const Buffer &buffer, uint64_t pointer,
                                 const std::string &what) {
  if (!d.cuTensorMapEncodeTiled)
    throw RuntimeError(what + " needs cuTensorMapEncodeTiled, which this "
                              "CUDA driver lacks (CUDA 12 or newer)");
  // TMA reads from 16-byte-aligned addresses alone (the driver's own
  // refusal would not say which tensor): a view that starts elsewhere,
  // e.g. x[1:] of halves, needs a copy first.
  if (pointer % 16 != 0)
    throw RuntimeError(what +
                       " needs its tensor at a 16-byte-aligned "
                       "address (TMA), got one 16 n + " +
                       std::to_string(pointer % 16) +
                       ": pass a contiguous copy");
  int64_t bytes = Artifact::elementBytes(buffer.dtype);
  // CU_TENSOR_MAP_DATA_TYPE_UINT8 / 16 / 32 / 64.
  int type = bytes == 1 ? 0 : bytes == 2 ? 1 : bytes == 4 ? 2 : 4;
  // CU_TENSOR_MAP_SWIZZLE_NONE / 32B / 64B / 128B.
  int swizzle = m.swizzle == 0    ? 0
                : m.swizzle == 32 ? 1
                : m.swizzle == 64 ? 2
                                  : 3;
  // The map's rank is the box's: the artifact's view of the buffer or,
  // before version 4, the buffer's leading dimensions beyond it seen as one
  // (row-major, so its outermost dimension's extent is their product and
  // its stride the innermost of them).
  size_t rank = m.box.size();
  std::vector<uint64_t> shape(m.shape.begin(), m.shape.end());
  if (shape.empty()) {
    shape.assign(buffer.shape.end() - rank, buffer.shape.end());
    for (size_t k = 0; k + rank < buffer.shape.size(); ++k)
      shape.front() *= buffer.shape[k];
  }
  std::vector<uint64_t> dims, strides;
  std::vector<unsigned> box, elementStrides(rank, 1);
  uint64_t stride = bytes;
  for (size_t k = 0; k < rank; ++k) {
    dims.push_back(shape[rank - 1 - k]);
    box.push_back(m.box[rank - 1 - k]);
    stride *= shape[rank - 1 - k];
    if (k + 1 < rank)
      strides.push_back(stride);
  }
  EncodedTensorMap map{};
  constexpr int kInterleaveNone = 0, kL2Promotion128B = 2, kOobFillZeros = 0;
  check(d,
        d.cuTensorMapEncodeTiled(
            &map, type, rank, reinterpret_cast<void *>(pointer), dims.data(),
            strides.data(), box.data(), elementStrides.data(), kInterleaveNone,
            swizzle, kL2Promotion128B, kOobFillZeros),
        "encoding the " + what);
  return map;
}

std::string deviceChip(Driver &d) {
  int major = 0, minor = 0;
  check(d, d.cuDeviceGetAttribute(&major, kComputeCapabilityMajor, d.device),
        "cuDeviceGetAttribute");
  check(d, d.cuDeviceGetAttribute(&minor, kComputeCapabilityMinor, d.device),
        "cuDeviceGetAttribute");
  return "sm_" + std::to_string(major) + std::to_string(minor);
}
} // namespace

std::string describeDevice() {
  Driver &d = driver();
  char name[256] = {0};
  check(d, d.cuDeviceGetName(name, sizeof(name), d.device), "cuDeviceGetName");
  return std::string(name) + " (" + deviceChip(d) + ")";
}

/// The blocks of one exact wave of the wave launch `l` of `f`: as many as
/// the SMs hold at once (the occupancy the driver computes from the
/// compiled kernel's registers, threads and shared memory), at most its
/// tiles. A kernel that fits no block still gets one per SM, which the
/// launch then reports.
static unsigned waveOf(Driver &d, void *f, const Launch &l) {
  constexpr int kMultiprocessorCount = 16; // CUdevice_attribute.
  int sms = 0, blocks = 0;
  check(d, d.cuDeviceGetAttribute(&sms, kMultiprocessorCount, d.device),
        "counting the device's multiprocessors");
  check(d,
        d.cuOccupancyMaxActiveBlocksPerMultiprocessor(
            &blocks, f, (int)(l.block[0] * l.block[1] * l.block[2]),
            l.sharedBytes),
        "computing the occupancy of kernel '" + l.kernel + "'");
  int64_t wave = (int64_t)std::max(sms, 1) * std::max(blocks, 1);
  return (unsigned)std::min<int64_t>(wave, l.waveTiles);
}

Program::Program(Artifact artifact) : plan(std::move(artifact)) {
  Driver &d = driver();
  // The cubin where it was built for this device, PTX (JIT) otherwise.
  fromCubin = !plan.cubin.empty() && plan.target == deviceChip(d);
  const std::string &image = fromCubin ? plan.cubin : plan.ptx;
  // A plan without launches (a program on empty tensors) needs no module.
  if (image.empty() && !plan.launches.empty())
    throw RuntimeError("the artifact has neither a cubin for " +
                       deviceChip(d) + " nor PTX");
  if (!plan.launches.empty())
    check(d, d.cuModuleLoadData(&module, image.c_str()),
          fromCubin ? "loading the cubin" : "JIT-compiling the PTX");
  for (const Launch &l : plan.launches) {
    void *f = nullptr;
    check(d, d.cuModuleGetFunction(&f, module, l.kernel.c_str()),
          "finding kernel '" + l.kernel + "'");
    // Beyond the 48 KiB every block may have, a kernel must opt in to its
    // dynamic shared memory.
    constexpr unsigned kDefaultSharedBytes = 48 * 1024;
    constexpr int kMaxDynamicSharedSizeBytes = 8; // CUfunction_attribute.
    if (l.sharedBytes > kDefaultSharedBytes)
      check(d,
            d.cuFuncSetAttribute(f, kMaxDynamicSharedSizeBytes,
                                 (int)l.sharedBytes),
            "allowing kernel '" + l.kernel + "' " +
                std::to_string(l.sharedBytes) + " bytes of shared memory");
    functions.push_back(f);
    grids.push_back(l.grid);
    if (l.waveTiles)
      grids.back() = {waveOf(d, f, l), 1, 1};
  }
  allocations.assign(plan.buffers.size(), 0);
  for (size_t i = 0; i < plan.buffers.size(); ++i) {
    const Buffer &b = plan.buffers[i];
    if (b.kind == Buffer::Kind::Argument)
      continue;
    CUdeviceptr pointer = 0;
    check(d, d.cuMemAlloc(&pointer, std::max<int64_t>(b.bytes(), 1)),
          "allocating buffer " + std::to_string(i));
    allocations[i] = pointer;
    if (b.kind == Buffer::Kind::Constant)
      check(d, d.cuMemcpyHtoD(allocations[i], b.data.data(), b.data.size()),
            "uploading constant buffer " + std::to_string(i));
  }
}

Program::~Program() {
  try {
    Driver &d = driver();
    for (uint64_t p : allocations)
      if (p)
        d.cuMemFree(p);
    if (module)
      d.cuModuleUnload(module);
  } catch (...) {
  }
}

void Program::run(const std::vector<uint64_t> &arguments,
                  const std::vector<uint64_t> &outputs, uint64_t stream) {
  Driver &d = driver();
  std::vector<uint64_t> pointers = allocations;
  size_t nextArgument = 0;
  for (size_t i = 0; i < plan.buffers.size(); ++i) {
    if (plan.buffers[i].kind != Buffer::Kind::Argument)
      continue;
    if (nextArgument >= arguments.size())
      throw RuntimeError("the program takes more arguments than given");
    pointers[i] = arguments[nextArgument++];
  }
  if (nextArgument != arguments.size() || outputs.size() != plan.outputs.size())
    throw RuntimeError("the program takes " + std::to_string(nextArgument) +
                       " arguments and " + std::to_string(plan.outputs.size()) +
                       " outputs");
  // Kernels read and write up to 16 bytes at a time at 16-byte boundaries
  // (kernelir vector accesses); the driver's allocations are 256-aligned,
  // a view into the middle of one may not be.
  auto checkAligned = [](uint64_t pointer, const std::string &what) {
    if (pointer % kBufferAlignment != 0)
      throw RuntimeError(what + " is not " + std::to_string(kBufferAlignment) +
                         "-byte aligned");
  };
  // A null pointer is an empty tensor's (PyTorch gives those none), and
  // nothing else's.
  auto checkPresent = [](uint64_t pointer, const Buffer &b,
                         const std::string &what) {
    if (pointer == 0 && b.bytes() != 0)
      throw RuntimeError(what + " is a null pointer");
  };
  for (size_t i = 0, a = 0; i < plan.buffers.size(); ++i)
    if (plan.buffers[i].kind == Buffer::Kind::Argument) {
      std::string what = "argument " + std::to_string(a) +
                         (plan.buffers[i].name.empty()
                              ? std::string()
                              : " ('" + plan.buffers[i].name + "')");
      checkPresent(arguments[a], plan.buffers[i], what);
      checkAligned(arguments[a++], what);
    }
  for (size_t o = 0; o < outputs.size(); ++o) {
    checkPresent(outputs[o], plan.buffers[plan.outputs[o]],
                 "output " + std::to_string(o));
    checkAligned(outputs[o], "output " + std::to_string(o));
  }
  // Kernel arguments are noalias: an output may not be written over an
  // argument the kernels read.
  std::vector<std::pair<uint64_t, uint64_t>> argumentRanges;
  for (size_t i = 0; i < plan.buffers.size(); ++i)
    if (plan.buffers[i].kind == Buffer::Kind::Argument)
      argumentRanges.push_back({pointers[i], plan.buffers[i].bytes()});
  for (size_t o = 0; o < outputs.size(); ++o) {
    uint64_t bytes = plan.buffers[plan.outputs[o]].bytes();
    for (size_t a = 0; a < argumentRanges.size(); ++a) {
      auto [start, length] = argumentRanges[a];
      if (outputs[o] < start + length && start < outputs[o] + bytes)
        throw RuntimeError("output " + std::to_string(o) +
                           " overlaps argument " + std::to_string(a));
    }
  }
  // Results computed into intermediates write straight to the caller's
  // outputs; others (an argument returned as is) are copied at the end.
  std::vector<std::pair<size_t, uint64_t>> copies;
  for (size_t o = 0; o < outputs.size(); ++o) {
    int id = plan.outputs[o];
    if (plan.buffers[id].kind == Buffer::Kind::Intermediate)
      pointers[id] = outputs[o];
    else
      copies.push_back({o, pointers[id]});
  }
  Handle s = reinterpret_cast<Handle>(stream);
  for (size_t k = 0; k < plan.launches.size(); ++k) {
    const Launch &l = plan.launches[k];
    std::vector<uint64_t> values;
    for (int id : l.args)
      values.push_back(pointers[id]);
    std::vector<void *> params;
    for (uint64_t &v : values)
      params.push_back(&v);
    // Tensor-map parameters take the map itself, by value.
    std::vector<EncodedTensorMap> maps;
    maps.reserve(l.tensorMaps.size());
    for (const TensorMap &m : l.tensorMaps) {
      maps.push_back(
          encodeTensorMap(d, m, plan.buffers[l.args[m.param]], values[m.param],
                          "tensor map of parameter " + std::to_string(m.param) +
                              " of kernel '" + l.kernel + "'"));
      params[m.param] = &maps.back();
    }
    check(d,
          d.cuLaunchKernel(functions[k], grids[k][0], grids[k][1], grids[k][2],
                           l.block[0], l.block[1], l.block[2], l.sharedBytes, s,
                           params.data(), nullptr),
          "launching kernel '" + l.kernel + "'");
  }
  for (auto [o, source] : copies)
    check(d,
          d.cuMemcpyDtoDAsync(outputs[o], source,
                              plan.buffers[plan.outputs[o]].bytes(), s),
          "copying output " + std::to_string(o));
}

void Program::synchronize() {
  Driver &d = driver();
  check(d, d.cuCtxSynchronize(), "cuCtxSynchronize");
}

} // namespace strata::runtime
