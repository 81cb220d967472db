// Builds a tensorir program op by op, for the Python front end: one typed
// constructor per op, so the importer, which knows PyTorch, chooses the ops
// and Strata's C++ types them; the verifier checks every one when the
// program is finished.
#ifndef STRATA_PYTHON_BUILDER_H
#define STRATA_PYTHON_BUILDER_H

#include "Compiler.h"
#include "strata/Dialect/TensorIR/IR/TensorIR.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace strata::python {

class ProgramBuilder {
public:
  explicit ProgramBuilder(const std::string &name);
  ~ProgramBuilder();

  /// Adds a function argument; returns its value id.
  int input(const std::vector<int64_t> &shape, const std::string &dtype);
  /// The location of the ops built next (a PyTorch source line).
  void setLocation(const std::string &file, int line, const std::string &what);
  /// A constant from row-major raw bytes of the element type.
  int constant(const std::string &bytes, const std::vector<int64_t> &shape,
               const std::string &dtype);
  /// A splat constant. An integer value of an integer type is exact (a
  /// double holds integers only up to 2^53: i64's extremes need this).
  int splat(int64_t value, const std::vector<int64_t> &shape,
            const std::string &dtype);
  int splat(double value, const std::vector<int64_t> &shape,
            const std::string &dtype);
  /// `input` padded by `low`/`high` elements of `value` (tensorir.pad, its
  /// value typed as the input's elements).
  int pad(int input, const std::vector<int64_t> &low,
          const std::vector<int64_t> &high, double value);
  // Typed constructors, one per tensorir op the front end builds (Triton's
  // ir.cc is the model): value ids in, result ids out, attributes as typed
  // arguments, and each result typed by the op's own inference
  // (InferTypeOpInterface) or by the argument that is the op's meaning (a
  // cast's dtype, a reshape's shape). What the op's inference rejects is a
  // CompilerError here, in the op's words; the verifier checks the rest
  // when the program is finished.

  /// An elementwise op typed as its operands (ElementwiseOps.def).
  template <typename OpTy> int unary(int x);
  template <typename OpTy> int binary(int lhs, int rhs);
  int cmp(tensorir::CmpPredicate predicate, int lhs, int rhs);
  int select(int condition, int trueValue, int falseValue);
  int cast(int x, const std::string &dtype);
  int bitcast(int x, const std::string &dtype);
  int iota(const std::vector<int64_t> &shape, int64_t dim,
           const std::string &dtype);
  int clamp(int x, std::optional<double> min, std::optional<double> max);
  int gelu(int x, bool tanh);

  int reshape(int x, const std::vector<int64_t> &shape);
  int broadcast(int x, const std::vector<int64_t> &shape,
                const std::vector<int64_t> &dims);
  int transpose(int x, const std::vector<int64_t> &perm);
  int slice(int x, const std::vector<int64_t> &offsets,
            const std::vector<int64_t> &shape,
            const std::vector<int64_t> &strides);
  int window(int x, const std::vector<int64_t> &sizes,
             const std::vector<int64_t> &strides,
             const std::vector<int64_t> &dilations);
  int concat(const std::vector<int> &inputs, int64_t axis);
  int gather(int x, int indices, int64_t axis);

  int reduce(tensorir::ReduceKind kind, int x, const std::vector<int64_t> &axes,
             bool keepdim);
  /// (values, indices) of the first extreme along `axis`.
  std::pair<int, int> argReduce(tensorir::ReduceKind kind, int x, int64_t axis,
                                bool keepdim);
  int mean(int x, const std::vector<int64_t> &axes, bool keepdim);
  int var(int x, const std::vector<int64_t> &axes, int64_t correction,
          bool keepdim);

  int matmul(int lhs, int rhs);
  int einsum(const std::string &equation, const std::vector<int> &inputs);
  int linear(int x, int weight, std::optional<int> bias);
  int softmax(int x, int64_t axis);
  int logSoftmax(int x, int64_t axis);
  int layerNorm(int x, std::optional<int> weight, std::optional<int> bias,
                int64_t normalizedRank, double eps);
  /// A convolution (tensorir.conv), or with `outputPadding` a transposed
  /// one (tensorir.conv_transpose).
  int conv(int x, int weight, std::optional<int> bias,
           const std::vector<int64_t> &strides,
           const std::vector<int64_t> &padding,
           const std::vector<int64_t> &dilations, int64_t groups,
           std::optional<std::vector<int64_t>> outputPadding);

  std::vector<int64_t> shape(int value) const;
  std::string dtype(int value) const;
  /// Returns the outputs and hands the verified module over.
  std::unique_ptr<Module> finish(const std::vector<int> &outputs);

private:
  struct Impl;
  std::unique_ptr<Impl> impl;
};

} // namespace strata::python

#endif
