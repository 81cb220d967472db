// A compiled program: its launch plan plus PTX and cubin. The format is
// plain text with length-prefixed binary sections, so the runtime reads it
// without any LLVM or MLIR library.
#ifndef STRATA_RUNTIME_ARTIFACT_H
#define STRATA_RUNTIME_ARTIFACT_H

#include <array>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace strata::runtime {

class ArtifactError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

/// A buffer of the program: an argument of the compiled function (an input
/// or a weight), a constant baked into the artifact, or an intermediate the
/// runtime allocates once.
struct Buffer {
  enum class Kind { Argument, Constant, Intermediate };
  Kind kind = Kind::Intermediate;
  int argument = -1;      // Position among the function's arguments.
  std::string name;       // For arguments: what it binds (e.g. a weight).
  std::string dtype;      // f32, f16, bf16, i64, ...
  std::vector<int64_t> shape;
  std::string data;       // Constants: row-major bytes.

  int64_t elements() const;
  int64_t bytes() const;
};

/// "argument", "constant" or "intermediate".
const char *kindName(Buffer::Kind kind);

/// A kernel parameter that is a TMA tensor map of the buffer its launch
/// passes there: encoded per run for the buffer's address, passed by value
/// (CUDA's const __grid_constant__ CUtensorMap). A box of lower rank than
/// the buffer's maps the buffer with its leading dimensions seen as one
/// (a batch of matrices as one matrix of all their rows).
struct TensorMap {
  unsigned param = 0;       // Position among the launch's arguments.
  std::vector<int64_t> box; // Box extents, outermost first.
  /// The tensor the map describes, outermost first: the buffer's elements
  /// row-major in this shape (of the box's rank). Empty (version 3 and
  /// before): the buffer's shape, its leading dimensions beyond the box's
  /// rank seen as one.
  std::vector<int64_t> shape;
  int swizzle = 0;          // Bytes: 0 (none), 32, 64 or 128.
};

struct Launch {
  std::string kernel;
  std::array<unsigned, 3> grid{1, 1, 1}, block{1, 1, 1};
  unsigned sharedBytes = 0;
  std::vector<int> args; // Buffer ids, in parameter order.
  std::vector<TensorMap> tensorMaps;
  /// A persistent kernel whose blocks stride over this many tiles by the
  /// blocks launched: launched as one exact wave (as many blocks as the
  /// GPU's SMs hold at once, at most this many) instead of `grid`, the
  /// compiler's estimate. 0: launched with `grid`.
  int64_t waveTiles = 0;
};

struct Artifact {
  std::string target; // e.g. sm_90
  std::vector<Buffer> buffers;
  std::vector<Launch> launches;
  std::vector<int> outputs; // Buffer ids of the results, in order.
  std::string ptx, cubin;   // cubin may be empty (PTX is JIT-compiled).

  std::string serialize() const;
  /// Reads an artifact; throws ArtifactError saying what is wrong with a
  /// truncated, corrupted or other-version one (never reads past the text).
  static Artifact parse(const std::string &text);

  /// The format version this runtime writes; it reads every version up to
  /// it (2 added tensor maps, 3 waves).
  static constexpr int kVersion = 4;
  /// What a tensor map may describe (TMA's limits): ranks 1 to 5, boxes of
  /// 1 to 256 per dimension.
  static constexpr size_t kMaxTensorMapRank = 5;
  static constexpr int64_t kMaxTensorMapBox = 256;
  /// What a launch plan may ask for: no buffer beyond 1 TiB (a GPU holds
  /// less; the cap keeps sizes from overflowing), CUDA's threads per block,
  /// sm_90's shared memory per block.
  static constexpr int64_t kMaxBufferBytes = int64_t(1) << 40;
  static constexpr uint64_t kMaxThreadsPerBlock = 1024;
  static constexpr unsigned kMaxSharedMemoryBytes = 227 * 1024;
  /// Element size of a dtype in bytes (1 for booleans).
  static int64_t elementBytes(const std::string &dtype);
};

} // namespace strata::runtime

#endif
