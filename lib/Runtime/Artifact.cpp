#include "strata/Runtime/Artifact.h"

#include <charconv>
#include <string_view>
#include <type_traits>

namespace strata::runtime {

int64_t Artifact::elementBytes(const std::string &dtype) {
  if (dtype == "f64" || dtype == "i64")
    return 8;
  if (dtype == "f32" || dtype == "i32")
    return 4;
  if (dtype == "f16" || dtype == "bf16" || dtype == "i16")
    return 2;
  if (dtype == "i8" || dtype == "i1")
    return 1;
  throw ArtifactError("unknown dtype '" + dtype + "'");
}

int64_t Buffer::elements() const {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}

int64_t Buffer::bytes() const {
  return elements() * Artifact::elementBytes(dtype);
}

const char *kindName(Buffer::Kind kind) {
  switch (kind) {
  case Buffer::Kind::Argument:
    return "argument";
  case Buffer::Kind::Constant:
    return "constant";
  case Buffer::Kind::Intermediate:
    return "intermediate";
  }
  return "?";
}

// Format (version 4), one record per line; binary sections are
// length-prefixed:
//   strata-artifact 4
//   target <chip|->                                (- : no kernels)
//   buffer <kind> <argument> <name|-> <dtype> <rank> <dims...> [<n>\n<bytes>]
//   launch <kernel> <gx gy gz> <bx by bz> <smem> <nargs> <buffer ids...>
//   tensor_map <param> <swizzle> <rank> <box...> <shape...>
//                                                  (of the launch before it;
//                                                  no shape before version 4)
//   wave <tiles>                                   (of the launch before it)
//   outputs <n> <buffer ids...>
//   ptx <n>\n<bytes>
//   cubin <n>\n<bytes>
//   end
//
// Neither direction uses iostreams: on a GPU host, once PyTorch 2.11 was
// imported, istringstream extraction in this (pybind11) module segfaulted;
// plain string appends and std::from_chars depend on no locale machinery.
std::string Artifact::serialize() const {
  // A program without kernels (empty tensors, views) has no chip.
  std::string os = "strata-artifact " + std::to_string(kVersion) + "\ntarget " +
                   (target.empty() ? std::string("-") : target) + "\n";
  auto number = [&](auto value) { os += " " + std::to_string(value); };
  for (const Buffer &b : buffers) {
    os += std::string("buffer ") + kindName(b.kind);
    number(b.argument);
    os += " " + (b.name.empty() ? std::string("-") : b.name) + " " + b.dtype;
    number(b.shape.size());
    for (int64_t d : b.shape)
      number(d);
    if (b.kind == Buffer::Kind::Constant) {
      number(b.data.size());
      os += "\n" + b.data;
    }
    os += "\n";
  }
  for (const Launch &l : launches) {
    os += "launch " + l.kernel;
    for (unsigned g : l.grid)
      number(g);
    for (unsigned t : l.block)
      number(t);
    number(l.sharedBytes);
    number(l.args.size());
    for (int a : l.args)
      number(a);
    os += "\n";
    for (const TensorMap &m : l.tensorMaps) {
      os += "tensor_map";
      number(m.param);
      number(m.swizzle);
      number(m.box.size());
      for (int64_t e : m.box)
        number(e);
      for (int64_t e : m.shape)
        number(e);
      os += "\n";
    }
    if (l.waveTiles) {
      os += "wave";
      number(l.waveTiles);
      os += "\n";
    }
  }
  os += "outputs";
  number(outputs.size());
  for (int o : outputs)
    number(o);
  os += "\nptx";
  number(ptx.size());
  os += "\n" + ptx + "\ncubin";
  number(cubin.size());
  os += "\n" + cubin + "\nend\n";
  return os;
}

namespace {
/// A grid's x: what a wave may launch at most.
constexpr int64_t kMaxWaveTiles = (int64_t(1) << 31) - 1;

/// Reads records of an artifact, failing with the record that is wrong.
class Reader {
public:
  explicit Reader(const std::string &text) : rest(text) {}

  /// The next whitespace-separated token, as a string or a number.
  template <typename T>
  T read(const char *what) {
    size_t start = rest.find_first_not_of(" \t\r\n");
    if (start == std::string_view::npos)
      fail(what);
    rest.remove_prefix(start);
    std::string_view token = rest.substr(0, rest.find_first_of(" \t\r\n"));
    rest.remove_prefix(token.size());
    if constexpr (std::is_same_v<T, std::string>) {
      return std::string(token);
    } else {
      T value{};
      auto [end, error] =
          std::from_chars(token.data(), token.data() + token.size(), value);
      if (error != std::errc() || end != token.data() + token.size())
        fail(what);
      return value;
    }
  }

  /// A length-prefixed binary section: "<n>\n<n bytes>".
  std::string bytes(const char *what) {
    auto n = read<size_t>(what);
    if (rest.empty() || rest.front() != '\n' || rest.size() - 1 < n)
      throw ArtifactError(std::string("malformed artifact: truncated ") +
                          what);
    std::string data(rest.substr(1, n));
    rest.remove_prefix(1 + n);
    return data;
  }

  /// Whether only blanks are left.
  bool atEnd() const {
    return rest.find_first_not_of(" \t\r\n") == std::string_view::npos;
  }

private:
  [[noreturn]] static void fail(const char *what) {
    throw ArtifactError(std::string("malformed artifact: expected ") + what);
  }

  std::string_view rest;
};

[[noreturn]] void malformed(const std::string &what) {
  throw ArtifactError("malformed artifact: " + what);
}

/// The bytes of a buffer of `shape` and `dtype`, checked: no dimension is
/// negative and the product stays within kMaxBufferBytes.
int64_t checkedBytes(const Buffer &b, size_t id) {
  int64_t bytes = Artifact::elementBytes(b.dtype);
  for (int64_t d : b.shape) {
    if (d < 0)
      malformed("negative dimension " + std::to_string(d) + " of buffer " +
                std::to_string(id));
    if (d != 0 && bytes > Artifact::kMaxBufferBytes / d)
      malformed("buffer " + std::to_string(id) + " claims more than " +
                std::to_string(Artifact::kMaxBufferBytes) +
                " bytes, more than a GPU holds");
    bytes *= d;
  }
  return bytes;
}

/// Checks what the runtime relies on once every record is read: argument
/// buffers in the order of their positions, launch shapes CUDA can launch,
/// outputs that name buffers.
void validate(const Artifact &a) {
  int argument = 0;
  for (size_t id = 0; id < a.buffers.size(); ++id) {
    const Buffer &b = a.buffers[id];
    if (b.kind == Buffer::Kind::Argument && b.argument != argument++)
      malformed("buffer " + std::to_string(id) + " is argument " +
                std::to_string(b.argument) + ", expected " +
                std::to_string(argument - 1) + " (arguments come in order)");
  }
  for (const Launch &l : a.launches) {
    uint64_t threads = 1;
    for (unsigned t : l.block)
      threads *= t;
    for (unsigned g : l.grid)
      if (g == 0)
        malformed("launch of '" + l.kernel + "' has an empty grid");
    if (threads == 0 || threads > Artifact::kMaxThreadsPerBlock)
      malformed("launch of '" + l.kernel + "' has " +
                std::to_string(threads) + " threads per block (1 to " +
                std::to_string(Artifact::kMaxThreadsPerBlock) + ")");
    for (const TensorMap &m : l.tensorMaps) {
      std::string what = "tensor map of parameter " + std::to_string(m.param) +
                         " of '" + l.kernel + "'";
      if (m.param >= l.args.size())
        malformed(what + ": the launch has " + std::to_string(l.args.size()) +
                  " arguments");
      const Buffer &buffer = a.buffers[l.args[m.param]];
      if ((m.shape.empty() && m.box.size() > buffer.shape.size()) ||
          m.box.empty() || m.box.size() > Artifact::kMaxTensorMapRank)
        malformed(what + ": a box of rank " + std::to_string(m.box.size()) +
                  " for a buffer of rank " +
                  std::to_string(buffer.shape.size()) + " (1 to " +
                  std::to_string(Artifact::kMaxTensorMapRank) + ")");
      // A view of the buffer: its elements, in another shape.
      int64_t elements = 1;
      for (int64_t e : m.shape) {
        if (e < 1 || elements > buffer.elements() / e) {
          elements = -1; // Not a count of the buffer's, nor overflowing.
          break;
        }
        elements *= e;
      }
      if (!m.shape.empty() && elements != buffer.elements())
        malformed(what + ": a view of " + std::to_string(elements) +
                  " elements of a buffer of " +
                  std::to_string(buffer.elements()));
      for (int64_t e : m.box)
        if (e < 1 || e > Artifact::kMaxTensorMapBox)
          malformed(what + ": box extent " + std::to_string(e) + " (1 to " +
                    std::to_string(Artifact::kMaxTensorMapBox) + ")");
      if (m.swizzle != 0 && m.swizzle != 32 && m.swizzle != 64 &&
          m.swizzle != 128)
        malformed(what + ": swizzle " + std::to_string(m.swizzle) +
                  " (0, 32, 64 or 128 bytes)");
    }
    if (l.waveTiles &&
        (l.waveTiles < l.grid[0] || l.waveTiles > kMaxWaveTiles ||
         l.grid[1] != 1 || l.grid[2] != 1))
      malformed("launch of '" + l.kernel + "' is a wave over " +
                std::to_string(l.waveTiles) + " tiles with a grid of " +
                std::to_string(l.grid[0]) + " x " + std::to_string(l.grid[1]) +
                " x " + std::to_string(l.grid[2]) +
                " (a wave's grid is at most its tiles along x, 1 along y "
                "and z; at most " +
                std::to_string(kMaxWaveTiles) + " tiles)");
    if (l.sharedBytes > Artifact::kMaxSharedMemoryBytes)
      malformed("launch of '" + l.kernel + "' asks for " +
                std::to_string(l.sharedBytes) +
                " bytes of shared memory (at "
                "most " +
                std::to_string(Artifact::kMaxSharedMemoryBytes) + ")");
  }
  for (int o : a.outputs)
    if (o < 0 || o >= (int)a.buffers.size())
      malformed("output names unknown buffer " + std::to_string(o));
}
} // namespace

Artifact Artifact::parse(const std::string &text) {
  Reader r(text);
  if (r.read<std::string>("header") != "strata-artifact")
    throw ArtifactError("not a Strata artifact");
  int version = r.read<int>("version");
  if (version < 1 || version > kVersion)
    throw ArtifactError("artifact version " + std::to_string(version) +
                        " is not supported (this runtime reads versions 1 "
                        "to " +
                        std::to_string(kVersion) + ")");
  Artifact a;
  for (;;) {
    auto record = r.read<std::string>("a record");
    if (record == "end")
      break;
    if (record == "target") {
      a.target = r.read<std::string>("target");
      if (a.target == "-")
        a.target.clear();
    } else if (record == "buffer") {
      Buffer b;
      auto kind = r.read<std::string>("buffer kind");
      b.kind = kind == "argument"   ? Buffer::Kind::Argument
               : kind == "constant" ? Buffer::Kind::Constant
                                    : Buffer::Kind::Intermediate;
      if (kind != "argument" && kind != "constant" && kind != "intermediate")
        throw ArtifactError("malformed artifact: buffer kind '" + kind + "'");
      b.argument = r.read<int>("argument position");
      b.name = r.read<std::string>("buffer name");
      if (b.name == "-")
        b.name.clear();
      b.dtype = r.read<std::string>("dtype");
      elementBytes(b.dtype); // Validates it.
      auto rank = r.read<size_t>("rank");
      for (size_t i = 0; i < rank; ++i)
        b.shape.push_back(r.read<int64_t>("dimension"));
      int64_t bytes = checkedBytes(b, a.buffers.size());
      if (b.kind == Buffer::Kind::Constant) {
        b.data = r.bytes("constant data");
        if ((int64_t)b.data.size() != bytes)
          malformed("constant buffer " + std::to_string(a.buffers.size()) +
                    " holds " + std::to_string(b.data.size()) +
                    " bytes for " + std::to_string(bytes));
      }
      a.buffers.push_back(std::move(b));
    } else if (record == "launch") {
      Launch l;
      l.kernel = r.read<std::string>("kernel name");
      for (unsigned &g : l.grid)
        g = r.read<unsigned>("grid size");
      for (unsigned &t : l.block)
        t = r.read<unsigned>("block size");
      l.sharedBytes = r.read<unsigned>("shared memory size");
      auto n = r.read<size_t>("argument count");
      for (size_t i = 0; i < n; ++i) {
        int id = r.read<int>("argument buffer");
        if (id < 0 || id >= (int)a.buffers.size())
          throw ArtifactError("malformed artifact: launch of '" + l.kernel +
                              "' uses unknown buffer " + std::to_string(id));
        l.args.push_back(id);
      }
      a.launches.push_back(std::move(l));
    } else if (record == "tensor_map" && version >= 2) {
      if (a.launches.empty())
        malformed("a tensor map before any launch");
      TensorMap m;
      m.param = r.read<unsigned>("tensor map parameter");
      m.swizzle = r.read<int>("tensor map swizzle");
      auto rank = r.read<size_t>("tensor map rank");
      if (rank > Artifact::kMaxTensorMapRank)
        malformed("a tensor map of rank " + std::to_string(rank));
      for (size_t i = 0; i < rank; ++i)
        m.box.push_back(r.read<int64_t>("box extent"));
      for (size_t i = 0; i < rank && version >= 4; ++i)
        m.shape.push_back(r.read<int64_t>("tensor map dimension"));
      a.launches.back().tensorMaps.push_back(std::move(m));
    } else if (record == "wave" && version >= 3) {
      if (a.launches.empty())
        malformed("a wave before any launch");
      a.launches.back().waveTiles = r.read<int64_t>("wave tiles");
    } else if (record == "outputs") {
      auto n = r.read<size_t>("output count");
      for (size_t i = 0; i < n; ++i)
        a.outputs.push_back(r.read<int>("output buffer"));
    } else if (record == "ptx") {
      a.ptx = r.bytes("ptx");
    } else if (record == "cubin") {
      a.cubin = r.bytes("cubin");
    } else {
      throw ArtifactError("malformed artifact: unknown record '" + record +
                          "'");
    }
  }
  if (!r.atEnd())
    malformed("data after 'end'");
  validate(a);
  return a;
}

} // namespace strata::runtime
