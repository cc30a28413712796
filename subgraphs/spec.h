// The JSON spec of a fused subgraph: named input tensors, a list of ops that each name
// their inputs and output, and the outputs. The format is documented in docs/spec_format.md.
// Parsing checks structure (fields, names, definition order); ops check their own
// attributes and shapes when a SpecSubgraph is built from the spec.
//
//   {"name": "mlp_gelu",
//    "inputs": [{"name": "x", "shape": [512, 768]}, {"name": "w", "shape": [768, 2048]}],
//    "ops": [{"op": "matmul", "inputs": ["x", "w"], "output": "y"},
//            {"op": "gelu", "inputs": ["y"], "output": "out"}],
//    "outputs": ["out"]}
//
// An input may have a "dtype" (u8, i8, u16, i16, i32, f16, bf16; default f32): ops read it
// as f32 and compute in f32, and outputs are f32.
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "subgraphs/tensor.h"

namespace ktune::subgraphs {

// One entry of "inputs".
struct InputSpec {
  TensorInfo info;        // name, dtype and shape
  double range_lo = -1.0;  // seeded inputs are uniform in [range_lo, range_hi) (integers: whole
  double range_hi = 1.0;   // numbers in [lo, hi]); default: default_input_range(dtype)
  std::string path;  // JSON path of this entry, e.g. "inputs[1]", for error messages
};

// One entry of "ops".
struct OpSpec {
  std::string op;                   // op name, e.g. "matmul"
  std::vector<std::string> inputs;  // names of spec inputs or earlier op outputs
  std::string output;               // name of the value this op defines
  nlohmann::json node;              // the whole JSON object (attributes are read from it)
  std::string path;                 // JSON path of this entry, e.g. "ops[2]"
};

// A parsed spec.
struct Spec {
  std::string file;  // where it came from (a path, or a label such as "<string>")
  std::string name;  // workload name; defaults to the file name without extension
  double weight = 1.0;  // how often the subgraph runs in the user's model (for tuning budgets)
  std::vector<InputSpec> inputs;
  std::vector<OpSpec> ops;
  std::vector<std::string> outputs;  // names of op outputs, in output order
};

// Limits on what a spec may ask for; beyond them a spec is refused with the field and the
// limit. Halide buffers have int32 extents and at most a few dimensions; a fused subgraph
// is tens of ops, and names become Halide Func names and file names.
inline constexpr size_t kMaxSpecRank = 8;
inline constexpr size_t kMaxSpecOps = 10000;
inline constexpr size_t kMaxNameLength = 64;
inline constexpr int64_t kMaxTensorElements = (int64_t{1} << 31) - 1;

// What is wrong with `shape` as the shape of a tensor (rank, an extent below 1 or above
// 2^31 - 1, more than kMaxTensorElements elements), or an empty string when nothing is.
std::string shape_problem(const Shape& shape);

// Parses and structurally validates a spec. Throws ktune::UserError naming `file`, the
// JSON path of the offending field (or the line and column of a JSON syntax error),
// what was expected and what was found.
Spec parse_spec_text(const std::string& text, const std::string& file);

// Reads `path` and parses it. A missing or unreadable file is a UserError.
Spec parse_spec_file(const std::string& path);

// The spec as JSON (what parse_spec_text reads), for storing beside a workload.
nlohmann::json spec_to_json(const Spec& spec);

// True for names that are valid C identifiers (ktune prints them as Halide source).
bool is_identifier(const std::string& name);

}  // namespace ktune::subgraphs
