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

// Format (version 1), one record per line; binary sections are
// length-prefixed:
//   strata-artifact 1
//   target sm_90
//   buffer <kind> <argument> <name|-> <dtype> <rank> <dims...> [<n>\n<bytes>]
//   launch <kernel> <gx gy gz> <bx by bz> <smem> <nargs> <buffer ids...>
//   outputs <n> <buffer ids...>
//   ptx <n>\n<bytes>
//   cubin <n>\n<bytes>
//   end
//
// Neither direction uses iostreams: on a GPU host, once PyTorch 2.11 was
// imported, istringstream extraction in this (pybind11) module segfaulted;
// plain string appends and std::from_chars depend on no locale machinery.
std::string Artifact::serialize() const {
  std::string os = "strata-artifact 1\ntarget " + target + "\n";
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

private:
  [[noreturn]] static void fail(const char *what) {
    throw ArtifactError(std::string("malformed artifact: expected ") + what);
  }

  std::string_view rest;
};
} // namespace

Artifact Artifact::parse(const std::string &text) {
  Reader r(text);
  if (r.read<std::string>("header") != "strata-artifact" ||
      r.read<int>("version") != 1)
    throw ArtifactError("not a Strata artifact (version 1)");
  Artifact a;
  for (;;) {
    auto record = r.read<std::string>("a record");
    if (record == "end")
      break;
    if (record == "target") {
      a.target = r.read<std::string>("target");
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
      for (size_t i = 0; i < rank; ++i) {
        b.shape.push_back(r.read<int64_t>("dimension"));
        if (b.shape.back() < 0)
          throw ArtifactError("malformed artifact: negative dimension");
      }
      if (b.kind == Buffer::Kind::Constant) {
        b.data = r.bytes("constant data");
        if ((int64_t)b.data.size() != b.bytes())
          throw ArtifactError("malformed artifact: constant of wrong size");
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
  return a;
}

} // namespace strata::runtime
