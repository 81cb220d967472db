// Builds a tensorir program op by op, for the Python front end. Ops are
// created through MLIR's generic OperationState (name, operands, result
// types, attributes) so that the importer, which knows PyTorch, chooses the
// ops; the verifier checks every one when the program is finished.
#ifndef STRATA_PYTHON_BUILDER_H
#define STRATA_PYTHON_BUILDER_H

#include "Compiler.h"

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <variant>
#include <vector>

namespace strata::python {

/// An attribute value from Python: an integer (i64, or i32 for enums), a
/// float, a list of integers, a string, or a flag (a unit attribute when
/// true).
struct AttrValue {
  enum class Kind { Int, I32, Float, Ints, Str, Flag } kind;
  int64_t i = 0;
  double f = 0;
  std::vector<int64_t> ints;
  std::string s;
};

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
  /// Creates `name` (e.g. "tensorir.add"); returns the result value ids.
  /// `operands` come in the op's operand groups: one value id each, none
  /// for an absent optional operand, several for a variadic one. An op
  /// with operand segments (tensorir.layer_norm's optional weight and
  /// bias) gets its operandSegmentSizes from them.
  std::vector<int>
  op(const std::string &name, const std::vector<std::vector<int>> &operands,
     const std::vector<std::pair<std::vector<int64_t>, std::string>>
         &resultTypes,
     const std::map<std::string, AttrValue> &attrs);
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
