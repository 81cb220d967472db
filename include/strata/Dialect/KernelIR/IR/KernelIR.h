#ifndef STRATA_DIALECT_KERNELIR_IR_KERNELIR_H
#define STRATA_DIALECT_KERNELIR_IR_KERNELIR_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "strata/Dialect/Utils/GpuLimits.h"

#include "strata/Dialect/KernelIR/IR/KernelIRDialect.h.inc"
#include "strata/Dialect/KernelIR/IR/KernelIREnums.h.inc"
#include "strata/Dialect/KernelIR/IR/KernelIRInterfaces.h.inc"

namespace strata::kernelir {
/// The operands of kernelir.mma.
enum class MmaOperand { Lhs, Rhs, Acc };

/// A wgmma operand's layout in shared memory, which its descriptors
/// describe: the buffer's last dimensions are [k blocks][rows][w], a row
/// of w elements being `rowBytes`: 16 bytes unswizzled (8 neighbouring rows
/// of a k block are one 8 x 16-byte core matrix) or the swizzle's bytes
/// (rows of 32, 64 or 128 bytes whose 16-byte units are permuted by
/// swizzledOffset, the layout a swizzled kernelir.tma_load writes).
///
/// An MN-major operand (B with `rhs_mn_major`, swizzled alone) is the same
/// layout with the roles of k and n swapped: [n blocks][k rows][w], a row
/// of w neighbouring columns of one k, 8 rows of k a swizzle period; its
/// n blocks lie `leading` apart (the descriptor's leading byte offset, in
/// use here), its groups of 8 k `stride` apart.
struct WgmmaLayout {
  int64_t rowBytes;
  /// Bytes between neighbouring blocks (rows x rowBytes: k blocks, or n
  /// blocks MN-major) and between neighbouring groups of 8 rows (8 x
  /// rowBytes, the stride byte offset).
  int64_t leading, stride;
  int64_t swizzle;
  bool mnMajor;
  /// The byte offset of (row 0, k) from the operand's first element,
  /// unswizzled: where the descriptor of the k16 step at k starts.
  int64_t kOffset(int64_t k, int64_t elementBytes) const {
    if (mnMajor) // k counts rows.
      return k / 8 * stride + k % 8 * rowBytes;
    int64_t w = rowBytes / elementBytes;
    return k / w * leading + k % w * elementBytes;
  }
  /// The bytes from an operand's first element to past the last of the
  /// unswizzled offsets a `rows` x `k` operand reads (B: rows = N), at
  /// most: whole groups of 8 rows and whole rows of rowBytes.
  int64_t readBytes(int64_t rows, int64_t k, int64_t elementBytes) const {
    if (mnMajor) // k counts rows, n blocks.
      std::swap(rows, k);
    int64_t w = rowBytes / elementBytes;
    return (rows - 1) / 8 * stride + 8 * rowBytes + (k - 1) / w * leading;
  }
  /// The leading byte offset a descriptor carries: `leading`, or, unused
  /// by swizzled K-major operands, 16 (1 unit) by convention.
  int64_t getDescriptorLeading() const {
    return swizzle && !mnMajor ? 16 : leading;
  }
  /// The descriptor's swizzle mode (bits 62-63): none 0, 128 bytes 1, 64
  /// bytes 2, 32 bytes 3.
  int64_t getDescriptorMode() const {
    return swizzle == 128 ? 1 : swizzle == 64 ? 2 : swizzle == 32 ? 3 : 0;
  }
  /// The descriptor's bits besides the address: the leading byte offset
  /// (bits 16-29) and the stride byte offset (bits 32-45), both in 16-byte
  /// units, and the mode.
  int64_t getDescriptorBits() const;
};
WgmmaLayout getWgmmaLayout(mlir::MemRefType buffer, int64_t swizzle,
                           bool mnMajor = false);
} // namespace strata::kernelir

#define GET_OP_CLASSES
#include "strata/Dialect/KernelIR/IR/KernelIROps.h.inc"

namespace strata::kernelir {
/// The kernelir.func argument attribute that promises a buffer no other
/// argument writes during a launch (see kernelir.func).
constexpr llvm::StringLiteral kNoAliasAttrName = "kernelir.noalias";
/// The kernelir.func argument attribute that makes a buffer argument a
/// tensor map of it, used by kernelir.tma_load and tma_store alone (see
/// kernelir.func).
constexpr llvm::StringLiteral kTensorMapAttrName = "kernelir.tensor_map";

/// Every shared buffer starts at a multiple of 16 bytes, so vector accesses
/// and asynchronous copies of up to 16 bytes at aligned indices are aligned.
constexpr int64_t kSharedAlignment = 16;

/// The shape of kernelir.mma: M x N x K = 16 x 8 x getMmaK (16 for f16
/// and bf16 operands, 8 for f32 operands multiplied as tf32): one warp
/// instruction, each operand register 32 bits.
constexpr int64_t kMmaM = 16, kMmaN = 8;
int64_t getMmaK(mlir::Type operandElement);

/// A lane's fragment of `operand` for operands of `operandElement`: a
/// register per row, 32 bits each (A vector<4x2xf16> or vector<4x1xf32>,
/// B vector<2x2xf16> or vector<2x1xf32>, C vector<2x2xf32>).
mlir::VectorType getMmaFragmentType(MmaOperand operand,
                                    mlir::Type operandElement);

/// kernelir.ldmatrix's 8 x 8 matrices are 8 rows of 16 bytes: the elements
/// of `element` in one row of one (8 for f16 and bf16, 4 for f32), and the
/// column at which an A fragment's second pair of matrices starts.
int64_t getLdMatrixRowElements(mlir::Type element);

/// The fragment layout of a kernelir.mma operand: a map (lane, value) ->
/// (row, column) of the operand's matrix (A: m x k, B: k x n, C: m x n),
/// where `value` counts the lane's elements register by register (element
/// [v / c][v % c] of its vector of c columns). It is the layout
/// nvgpu.mma.sync lowers to PTX with
/// (nvgpu::getLaneIdAndValueIdToOperandCoord), so the GPU, the CPU
/// emulation and the code that fills fragments agree by construction.
mlir::AffineMap getMmaFragmentMap(mlir::MLIRContext *ctx, MmaOperand operand,
                                  mlir::Type operandElement);

/// kernelir.wgmma: a warpgroup of 4 warps multiplies 64 rows of A, K a
/// multiple of 16 (one wgmma.mma_async per 16), N a multiple of 8 up to 256.
constexpr int64_t kWarpgroupSize = 4 * kWarpSize;
constexpr int64_t kWgmmaM = 64, kWgmmaK = 16, kWgmmaMaxN = 256;

/// Hopper's shared-memory swizzles (TMA boxes, wgmma descriptors): with
/// `swizzleBytes` S of 32, 64 or 128, the 16-byte units of each S-byte row
/// are permuted by xor with the row's index modulo S / 16, where a row
/// is S bytes and the pattern repeats every 8 rows (8 S bytes): bits 4..
/// of a byte offset take the xor of the bits 3 places above them, under
/// this mask ((S / 16 - 1) << 4; 0 for S = 0, no swizzle). The one place
/// the layout is derived: TMA's emulation and wgmma's descriptors use it.
int64_t getSwizzleMask(int64_t swizzleBytes);
/// Where the byte at `offset` from a swizzle period's start lands.
inline int64_t swizzledOffset(int64_t offset, int64_t swizzleBytes) {
  return offset ^ ((offset >> 3) & getSwizzleMask(swizzleBytes));
}
/// The swizzles TMA and wgmma know: 0 (none), 32, 64, 128 bytes.
bool isSwizzle(int64_t swizzleBytes);
/// TMA's limits: tensors of rank 1 to 5, boxes of up to 256 per dimension.
constexpr int64_t kTmaMaxRank = 5, kTmaMaxBoxExtent = 256;
/// Whether a tensor map's strides can describe `tensor`: its rows (all
/// but a rank-1 tensor's) are a multiple of 16 bytes.
bool hasTensorMapStrides(mlir::MemRefType tensor);
/// The dimensions of a TMA box that lie in its shared buffer (that
/// buffer's trailing ones): all but the box's leading extents of 1, at
/// least one. A 3-d box [1, r, c] of a batched tensor lands in [r][c].
llvm::ArrayRef<int64_t> getTmaBoxInShared(llvm::ArrayRef<int64_t> box);
/// The shape of the tensor a tensor map of rank `rank` describes over
/// `source` (rank(source) >= rank): `source`'s, its leading
/// rank(source) - rank + 1 dimensions seen as one (row-major: a batch of
/// matrices as one matrix of all their rows).
llvm::SmallVector<int64_t> getTmaTensorShape(mlir::MemRefType source,
                                             size_t rank);
/// The shape of the tensor that copies of boxes of rank `rank` see
/// through the tensor map `map` (a kernelir.func argument marked
/// kernelir.tensor_map): the view its mark gives (`{kernelir.tensor_map =
/// array<i64: 4, 12, 1024, 64>}`: any shape of the buffer's elements in
/// row-major order, a dimension split in two included), or
/// getTmaTensorShape's for a plain mark.
llvm::SmallVector<int64_t> getTensorMapShape(mlir::Value map, size_t rank);

/// The kernelir.shared buffers that overlay `buffer`.
llvm::SmallVector<SharedOp> getOverlays(SharedOp buffer);

/// Whether `user` only reads `buffer`: it declares effects on it, all
/// reads (an op that declares none may do anything).
bool onlyReads(mlir::Operation *user, mlir::Value buffer);
} // namespace strata::kernelir

#endif // STRATA_DIALECT_KERNELIR_IR_KERNELIR_H
