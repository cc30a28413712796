// The op interface of the JSON spec format. Each op family lives in one file under
// subgraphs/ops/ and registers its ops in ops/registry.cc. An Op is a validated call:
// its attributes are parsed and its output shape known; it can build its Halide
// definition, compute its schedule-independent reference, and count its FLOPs.
#pragma once

#include <nlohmann/json.hpp>

#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "subgraphs/spec.h"
#include "subgraphs/tensor.h"

namespace ktune::subgraphs {

class HalideValue;  // subgraphs/internal/halide_value.h (includes Halide.h)
struct OpCall;

// Reads an op's attributes, filling in defaults, and names the JSON path in every error.
// Every attribute read is recorded in canonical(); finish() rejects unknown attributes.
class OpAttributes {
 public:
  OpAttributes(const OpSpec& op, std::string file);

  int64_t get_int(const std::string& key, int64_t fallback);
  double get_double(const std::string& key, double fallback);
  bool get_bool(const std::string& key, bool fallback);
  // One of `choices`; the first choice is not implied to be the default.
  std::string get_choice(const std::string& key, const std::string& fallback,
                         const std::vector<std::string>& choices);
  // A list of exactly `count` integers; a single integer is accepted and repeated.
  std::vector<int64_t> get_ints(const std::string& key, size_t count,
                                const std::vector<int64_t>& fallback);
  // A list of integers of any length, or `fallback` when absent.
  std::vector<int64_t> get_int_list(const std::string& key, const std::vector<int64_t>& fallback);
  // The raw JSON of an attribute (or null); marks it as known.
  const nlohmann::json& get_raw(const std::string& key);
  // An axis in [-rank, rank), normalized to [0, rank).
  int64_t get_axis(const std::string& key, int64_t fallback, size_t rank);
  // Distinct axes, normalized and sorted.
  std::vector<int64_t> get_axes(const std::string& key, const std::vector<int64_t>& fallback,
                                size_t rank);

  // Throws a UserError for any attribute that was not read.
  void finish() const;
  // Throws a UserError at `<op path>.<field>` (or at the op itself when field is empty).
  [[noreturn]] void fail(const std::string& field, const std::string& message) const;

  // Attributes as read, with defaults filled in (part of the canonical form).
  const nlohmann::json& canonical() const { return canonical_; }
  const OpSpec& op() const { return op_; }
  const std::string& file() const { return file_; }

 private:
  // The integer `j` at `field`, refused unless it fits in 32 bits.
  int64_t attribute_int(const nlohmann::json& j, const std::string& field) const;

  const OpSpec& op_;
  std::string file_;
  std::set<std::string> known_;  // attribute names this op reads
  nlohmann::json canonical_ = nlohmann::json::object();
};

// A validated op call: attributes parsed, input and output shapes known.
class Op {
 public:
  virtual ~Op() = default;

  const Shape& output_shape() const { return output_shape_; }
  // Floating-point operations: adds, multiplies, compares and each transcendental count 1.
  virtual double flops() const = 0;
  // Schedule-independent result in double precision; `inputs` match the op's inputs.
  virtual RefTensor reference(const std::vector<const RefTensor*>& inputs) const = 0;
  // Halide definition of the output. `name` names the Funcs it creates.
  virtual HalideValue build(const std::vector<HalideValue>& inputs,
                            const std::string& name) const = 0;

  // The type the op's Halide definition computes in: f32, i32 for exact integer
  // arithmetic (8-bit matmul and conv, integer adds), or the target type of cast and
  // requantize.
  DType compute_dtype() const { return compute_dtype_; }
  // The type its output is stored in (set by make_op: op_types.h's storage rule or the
  // `out_dtype` attribute). When it differs from compute_dtype() the spec converts the
  // op's result (rounded to nearest even, saturated for integers).
  DType output_dtype() const { return *output_dtype_; }

  // The op's attributes with defaults filled in (set by make_op; part of the canonical form).
  nlohmann::json canonical_attributes;

 protected:
  Shape output_shape_;  // set by the op's constructor
  DType compute_dtype_ = DType::kF32;
  // Set by the constructor of ops that choose their own output type (cast, requantize);
  // make_op fills it in for the rest.
  std::optional<DType> output_dtype_;

 private:
  friend std::unique_ptr<Op> make_op(const OpCall& call, const std::string& file);
};

// What an op factory receives: the parsed spec entry and the shapes of its inputs.
struct OpCall {
  const OpSpec& spec;
  std::vector<Shape> input_shapes;  // one per spec.inputs entry
  std::vector<DType> input_dtypes;  // one per spec.inputs entry: how each input is stored
};

// One row of the op table.
struct OpDef {
  std::string name;      // as written in specs
  size_t min_inputs;     // arity range
  size_t max_inputs;
  std::string summary;   // one line for docs and errors
  std::unique_ptr<Op> (*make)(const OpCall& call, OpAttributes& attrs);
};

// All ops, in a stable order.
const std::vector<OpDef>& all_ops();

// Validates arity, attributes and shapes and returns the op. Throws UserError.
std::unique_ptr<Op> make_op(const OpCall& call, const std::string& file);

// Row-major traversal helpers shared by the references.
// Calls fn(index) for every index of `shape`, in row-major order.
template <typename Fn>
void for_each_index(const Shape& shape, Fn&& fn) {
  std::vector<int64_t> idx(shape.size(), 0);
  const int64_t n = element_count(shape);
  for (int64_t flat = 0; flat < n; ++flat) {
    fn(idx, flat);
    for (int d = static_cast<int>(shape.size()) - 1; d >= 0; --d) {
      if (++idx[d] < shape[d]) break;
      idx[d] = 0;
    }
  }
}

// Flat offset of `idx` in a row-major tensor of `shape`.
int64_t flat_index(const Shape& shape, const std::vector<int64_t>& idx);

}  // namespace ktune::subgraphs
