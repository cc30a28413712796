#include "subgraphs/spec.h"

#include <set>
#include <tuple>

#include "common/error.h"
#include "common/user_json.h"

namespace ktune::subgraphs {
namespace {

using nlohmann::json;

std::string type_name(const json& j) {
  if (j.is_null()) return "null";
  if (j.is_boolean()) return "a boolean";
  if (j.is_number_integer() || j.is_number_unsigned()) return "an integer";
  if (j.is_number()) return "a number";
  if (j.is_string()) return "a string";
  if (j.is_array()) return "an array";
  return "an object";
}

// Throws a UserError for `file` at JSON path `path`.
[[noreturn]] void fail(const std::string& file, const std::string& path, const std::string& msg) {
  throw UserError(format_user_error(file, path, msg));
}

std::string found(const json& j) {
  std::string dump = j.dump();
  if (dump.size() > 60) dump = dump.substr(0, 57) + "...";
  return type_name(j) + " (" + dump + ")";
}

const json& require(const std::string& file, const json& obj, const std::string& path,
                    const std::string& key) {
  auto it = obj.find(key);
  if (it == obj.end()) fail(file, path, "missing required field \"" + key + "\"");
  return *it;
}

std::string require_string(const std::string& file, const json& j, const std::string& path) {
  if (!j.is_string()) fail(file, path, "expected a string, found " + found(j));
  return j.get<std::string>();
}

std::string require_identifier(const std::string& file, const json& j, const std::string& path) {
  std::string s = require_string(file, j, path);
  if (s.size() > kMaxNameLength) {
    fail(file, path, "a name of " + std::to_string(s.size()) + " characters is longer than " +
                         std::to_string(kMaxNameLength));
  }
  if (!is_identifier(s)) {
    fail(file, path,
         "expected a name made of letters, digits and '_' not starting with a digit, found \"" +
             s + "\"");
  }
  return s;
}

void check_only_keys(const std::string& file, const json& obj, const std::string& path,
                     const std::set<std::string>& allowed) {
  for (auto it = obj.begin(); it != obj.end(); ++it) {
    if (!allowed.count(it.key())) {
      std::string list;
      for (const auto& a : allowed) list += (list.empty() ? "" : ", ") + a;
      fail(file, path + "." + it.key(), "unknown field \"" + it.key() + "\" (expected one of: " +
                                            list + ")");
    }
  }
}

DType parse_dtype(const std::string& file, const json& j, const std::string& path) {
  const std::string s = require_string(file, j, path);
  const std::optional<DType> dtype = parse_dtype_name(s);
  if (!dtype || *dtype == DType::kBool || *dtype == DType::kU32 || *dtype == DType::kF64) {
    fail(file, path, std::string(dtype ? "dtype \"" + s + "\" is not supported in specs" : "unknown dtype \"" + s + "\"") +
                         " (expected one of u8, i8, u16, i16, i32, f16, bf16, f32)");
  }
  return *dtype;
}

Shape parse_shape(const std::string& file, const json& j, const std::string& path) {
  if (!j.is_array()) fail(file, path, "expected an array of positive integers, found " + found(j));
  if (j.empty()) fail(file, path, "expected at least one extent, found an empty array");
  if (j.size() > kMaxSpecRank) {
    fail(file, path, "rank " + std::to_string(j.size()) + " is more than ktune supports (" +
                         std::to_string(kMaxSpecRank) + " dimensions)");
  }
  Shape shape;
  for (size_t i = 0; i < j.size(); ++i) {
    const std::string p = path + "[" + std::to_string(i) + "]";
    if (!j[i].is_number_integer()) fail(file, p, "expected a positive integer, found " + found(j[i]));
    if (j[i].is_number_unsigned() && j[i].get<uint64_t>() > static_cast<uint64_t>(kMaxTensorElements)) {
      fail(file, p, "extent " + j[i].dump() + " is too large (at most 2^31 - 1)");
    }
    const int64_t e = j[i].get<int64_t>();
    if (e <= 0) fail(file, p, "expected a positive extent, found " + std::to_string(e));
    shape.push_back(e);
  }
  const std::string problem = shape_problem(shape);
  if (!problem.empty()) fail(file, path, problem);
  return shape;
}

InputSpec parse_input(const std::string& file, const json& j, const std::string& path) {
  if (!j.is_object()) fail(file, path, "expected an object with name and shape, found " + found(j));
  check_only_keys(file, j, path, {"name", "shape", "dtype", "range"});
  InputSpec in;
  in.path = path;
  in.info.name = require_identifier(file, require(file, j, path, "name"), path + ".name");
  in.info.shape = parse_shape(file, require(file, j, path, "shape"), path + ".shape");
  if (j.contains("dtype")) in.info.dtype = parse_dtype(file, j["dtype"], path + ".dtype");
  std::tie(in.range_lo, in.range_hi) = default_input_range(in.info.dtype);
  if (j.contains("range")) {
    const json& r = j["range"];
    if (!r.is_array() || r.size() != 2 || !r[0].is_number() || !r[1].is_number() ||
        r[0].get<double>() >= r[1].get<double>()) {
      fail(file, path + ".range", "expected [lo, hi] with lo < hi, found " + found(r));
    }
    in.range_lo = r[0].get<double>();
    in.range_hi = r[1].get<double>();
  }
  return in;
}

OpSpec parse_op(const std::string& file, const json& j, const std::string& path) {
  if (!j.is_object()) fail(file, path, "expected an op object, found " + found(j));
  OpSpec op;
  op.path = path;
  op.node = j;
  op.op = require_string(file, require(file, j, path, "op"), path + ".op");
  const json& inputs = require(file, j, path, "inputs");
  if (!inputs.is_array()) fail(file, path + ".inputs", "expected an array of names, found " + found(inputs));
  for (size_t i = 0; i < inputs.size(); ++i) {
    op.inputs.push_back(
        require_identifier(file, inputs[i], path + ".inputs[" + std::to_string(i) + "]"));
  }
  op.output = require_identifier(file, require(file, j, path, "output"), path + ".output");
  return op;
}

std::string default_name(const std::string& file) {
  std::string base = file.substr(file.find_last_of('/') + 1);
  const size_t dot = base.find_last_of('.');
  if (dot != std::string::npos && dot > 0) base = base.substr(0, dot);
  return base;
}

}  // namespace

std::string shape_problem(const Shape& shape) {
  if (shape.empty() || shape.size() > kMaxSpecRank) {
    return "rank " + std::to_string(shape.size()) + " is outside 1 to " + std::to_string(kMaxSpecRank);
  }
  int64_t elements = 1;
  for (int64_t e : shape) {
    if (e <= 0) return "expected positive extents, found " + std::to_string(e) + " in " + shape_to_string(shape);
    if (e > kMaxTensorElements) return "extent " + std::to_string(e) + " in " + shape_to_string(shape) + " is above 2^31 - 1";
    // Both factors are below 2^31, so the product fits in 64 bits.
    elements *= e;
    if (elements > kMaxTensorElements) {
      return "a tensor of shape " + shape_to_string(shape) + " has more than 2^31 - 1 elements";
    }
  }
  return "";
}

bool is_identifier(const std::string& name) {
  if (name.empty() || std::isdigit(static_cast<unsigned char>(name[0]))) return false;
  for (char c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
  }
  return true;
}

namespace {

// The spec's name (the file's base name where it has none) and weight.
void parse_name_and_weight(const std::string& file, const json& root, Spec& spec) {
  spec.name = root.contains("name") ? require_identifier(file, root["name"], "name")
                                    : default_name(file);
  if (!is_identifier(spec.name) || spec.name.size() > kMaxNameLength) {
    fail(file, "name", "the file name \"" + spec.name +
                           "\" is not a valid workload name; add a \"name\" field");
  }
  if (root.contains("weight")) {
    const json& w = root["weight"];
    if (!w.is_number() || w.get<double>() <= 0) {
      fail(file, "weight", "expected a positive number, found " + found(w));
    }
    spec.weight = w.get<double>();
  }
}

// The input tensors, each name added to `defined` (a duplicate fails).
void parse_inputs(const std::string& file, const json& root, std::set<std::string>& defined, Spec& spec) {
  const json& inputs = require(file, root, "(root)", "inputs");
  if (!inputs.is_array() || inputs.empty()) {
    fail(file, "inputs", "expected a non-empty array of input tensors, found " + found(inputs));
  }
  for (size_t i = 0; i < inputs.size(); ++i) {
    const std::string path = "inputs[" + std::to_string(i) + "]";
    InputSpec in = parse_input(file, inputs[i], path);
    if (!defined.insert(in.info.name).second) {
      fail(file, path + ".name", "duplicate name \"" + in.info.name + "\"");
    }
    spec.inputs.push_back(std::move(in));
  }
}

// Fails on the first input of op `i` that is not in `defined`, saying whether a later op
// defines it.
void check_op_inputs_defined(const std::string& file, const json& ops, size_t i, const OpSpec& op,
                             const std::set<std::string>& defined) {
  const std::string path = "ops[" + std::to_string(i) + "]";
  for (size_t k = 0; k < op.inputs.size(); ++k) {
    if (defined.count(op.inputs[k])) continue;
    bool later = false;
    for (size_t m = i + 1; m < ops.size(); ++m) {
      if (ops[m].is_object() && ops[m].value("output", "") == op.inputs[k]) later = true;
    }
    fail(file, path + ".inputs[" + std::to_string(k) + "]",
         "\"" + op.inputs[k] + "\" " +
             (later ? "is used before it is defined (it is the output of a later op)"
                    : "is not an input or the output of an earlier op"));
  }
}

// The ops, in order: each reads only inputs and earlier outputs, and defines a new name.
void parse_ops(const std::string& file, const json& root, std::set<std::string>& defined, Spec& spec) {
  const json& ops = require(file, root, "(root)", "ops");
  if (!ops.is_array() || ops.empty()) {
    fail(file, "ops", "expected a non-empty array of ops, found " + found(ops));
  }
  if (ops.size() > kMaxSpecOps) {
    fail(file, "ops", std::to_string(ops.size()) + " ops are more than a spec may have (" +
                          std::to_string(kMaxSpecOps) + ")");
  }
  for (size_t i = 0; i < ops.size(); ++i) {
    const std::string path = "ops[" + std::to_string(i) + "]";
    OpSpec op = parse_op(file, ops[i], path);
    check_op_inputs_defined(file, ops, i, op, defined);
    if (!defined.insert(op.output).second) {
      fail(file, path + ".output", "duplicate name \"" + op.output + "\"");
    }
    spec.ops.push_back(std::move(op));
  }
}

// The outputs: distinct names, each the output of an op.
void parse_outputs(const std::string& file, const json& root, Spec& spec) {
  const json& outputs = require(file, root, "(root)", "outputs");
  if (!outputs.is_array() || outputs.empty()) {
    fail(file, "outputs", "expected a non-empty array of value names, found " + found(outputs));
  }
  std::set<std::string> seen_outputs;
  for (size_t i = 0; i < outputs.size(); ++i) {
    const std::string path = "outputs[" + std::to_string(i) + "]";
    const std::string name = require_identifier(file, outputs[i], path);
    bool is_op_output = false;
    for (const OpSpec& op : spec.ops) is_op_output |= op.output == name;
    if (!is_op_output) {
      bool is_input = false;
      for (const InputSpec& in : spec.inputs) is_input |= in.info.name == name;
      fail(file, path, "\"" + name + "\" " +
                           (is_input ? "is an input; outputs must be produced by an op"
                                     : "is not defined by any op"));
    }
    if (!seen_outputs.insert(name).second) fail(file, path, "duplicate output \"" + name + "\"");
    spec.outputs.push_back(name);
  }
}

}  // namespace

Spec parse_spec_text(const std::string& text, const std::string& file) {
  const json root = parse_user_json(text, file);
  if (!root.is_object()) fail(file, "(root)", "expected a JSON object, found " + found(root));
  check_only_keys(file, root, "(root)", {"name", "inputs", "ops", "outputs", "weight", "description"});
  Spec spec;
  spec.file = file;
  parse_name_and_weight(file, root, spec);
  std::set<std::string> defined;  // names of the inputs and the op outputs so far
  parse_inputs(file, root, defined, spec);
  parse_ops(file, root, defined, spec);
  parse_outputs(file, root, spec);
  return spec;
}

json spec_to_json(const Spec& spec) {
  json j;
  j["name"] = spec.name;
  if (spec.weight != 1.0) j["weight"] = spec.weight;
  j["inputs"] = json::array();
  for (const InputSpec& in : spec.inputs) {
    json i = {{"name", in.info.name}, {"shape", in.info.shape}, {"dtype", to_string(in.info.dtype)}};
    if (std::make_pair(in.range_lo, in.range_hi) != default_input_range(in.info.dtype)) i["range"] = {in.range_lo, in.range_hi};
    j["inputs"].push_back(i);
  }
  j["ops"] = json::array();
  for (const OpSpec& op : spec.ops) j["ops"].push_back(op.node);
  j["outputs"] = spec.outputs;
  return j;
}

Spec parse_spec_file(const std::string& path) { return parse_spec_text(read_user_file(path, "spec file"), path); }

}  // namespace ktune::subgraphs
