// The op table and the attribute reader shared by every op family.
#include <algorithm>

#include "common/error.h"
#include "subgraphs/ops/families.h"
#include "subgraphs/ops/op.h"
#include "subgraphs/ops/op_types.h"

namespace ktune::subgraphs {
namespace {

using nlohmann::json;

std::string describe(const json& j) {
  std::string dump = j.dump();
  if (dump.size() > 60) dump = dump.substr(0, 57) + "...";
  return dump;
}

// The `out_dtype` attribute of an op (any type but bool and f64), or `fallback` when
// absent. Recorded in the canonical attributes only when given, so that the family keys
// of specs written before it existed do not change.
DType output_dtype_attribute(OpAttributes& attrs, DType fallback) {
  const json& j = attrs.get_raw("out_dtype");
  if (j.is_null()) return fallback;
  std::string names;
  for (DType d : all_dtypes()) {
    if (d != DType::kBool && d != DType::kU32 && d != DType::kF64) names += (names.empty() ? "" : ", ") + to_string(d);
  }
  const std::optional<DType> d = j.is_string() ? parse_dtype_name(j.get<std::string>()) : std::nullopt;
  if (!d || *d == DType::kBool || *d == DType::kU32 || *d == DType::kF64) {
    attrs.fail("out_dtype", "expected one of " + names + ", found " + describe(j));
  }
  return *d;
}

}  // namespace

const std::vector<OpDef>& all_ops() {
  static const std::vector<OpDef> table = [] {
    std::vector<OpDef> all;
    for (auto family : {matmul_ops, conv_ops, elementwise_ops, normalization_ops, reduction_ops,
                        layout_ops, pool_ops, stencil_ops, quantize_ops}) {
      for (OpDef& def : family()) all.push_back(std::move(def));
    }
    return all;
  }();
  return table;
}

int64_t flat_index(const Shape& shape, const std::vector<int64_t>& idx) {
  int64_t flat = 0;
  for (size_t d = 0; d < shape.size(); ++d) flat = flat * shape[d] + idx[d];
  return flat;
}

OpAttributes::OpAttributes(const OpSpec& op, std::string file) : op_(op), file_(std::move(file)) {
  known_ = {"op", "inputs", "output"};
}

void OpAttributes::fail(const std::string& field, const std::string& message) const {
  throw UserError(format_user_error(file_, field.empty() ? op_.path : op_.path + "." + field,
                                    op_.op + ": " + message));
}

const json& OpAttributes::get_raw(const std::string& key) {
  known_.insert(key);
  static const json kNull;
  auto it = op_.node.find(key);
  return it == op_.node.end() ? kNull : *it;
}

int64_t OpAttributes::attribute_int(const json& j, const std::string& field) const {
  // Integer attributes (extents, strides, paddings, axes) are ints in Halide.
  constexpr int64_t kLimit = (int64_t{1} << 31) - 1;
  if (!j.is_number_integer()) fail(field, "expected an integer, found " + describe(j));
  if ((j.is_number_unsigned() && j.get<uint64_t>() > static_cast<uint64_t>(kLimit)) ||
      j.get<int64_t>() > kLimit || j.get<int64_t>() < -kLimit) {
    fail(field, "expected an integer between -2^31 and 2^31, found " + describe(j));
  }
  return j.get<int64_t>();
}

int64_t OpAttributes::get_int(const std::string& key, int64_t fallback) {
  const json& j = get_raw(key);
  int64_t v = fallback;
  if (!j.is_null()) {
    v = attribute_int(j, key);
  }
  canonical_[key] = v;
  return v;
}

double OpAttributes::get_double(const std::string& key, double fallback) {
  const json& j = get_raw(key);
  double v = fallback;
  if (!j.is_null()) {
    if (!j.is_number()) fail(key, "expected a number, found " + describe(j));
    v = j.get<double>();
  }
  canonical_[key] = v;
  return v;
}

bool OpAttributes::get_bool(const std::string& key, bool fallback) {
  const json& j = get_raw(key);
  bool v = fallback;
  if (!j.is_null()) {
    if (!j.is_boolean()) fail(key, "expected true or false, found " + describe(j));
    v = j.get<bool>();
  }
  canonical_[key] = v;
  return v;
}

std::string OpAttributes::get_choice(const std::string& key, const std::string& fallback,
                                     const std::vector<std::string>& choices) {
  const json& j = get_raw(key);
  std::string v = fallback;
  if (!j.is_null()) {
    if (!j.is_string()) fail(key, "expected a string, found " + describe(j));
    v = j.get<std::string>();
  }
  bool ok = false;
  std::string list;
  for (const std::string& c : choices) {
    ok |= c == v;
    list += (list.empty() ? "" : ", ") + c;
  }
  if (!ok) fail(key, "expected one of " + list + ", found \"" + v + "\"");
  canonical_[key] = v;
  return v;
}

std::vector<int64_t> OpAttributes::get_int_list(const std::string& key,
                                                const std::vector<int64_t>& fallback) {
  const json& j = get_raw(key);
  std::vector<int64_t> v = fallback;
  if (!j.is_null()) {
    v.clear();
    if (j.is_number_integer()) {
      v.push_back(attribute_int(j, key));
    } else if (j.is_array()) {
      for (size_t i = 0; i < j.size(); ++i) {
        v.push_back(attribute_int(j[i], key + "[" + std::to_string(i) + "]"));
      }
    } else {
      fail(key, "expected an integer or an array of integers, found " + describe(j));
    }
  }
  canonical_[key] = v;
  return v;
}

std::vector<int64_t> OpAttributes::get_ints(const std::string& key, size_t count,
                                            const std::vector<int64_t>& fallback) {
  std::vector<int64_t> v = get_int_list(key, fallback);
  if (v.size() == 1 && count > 1) v.assign(count, v[0]);
  if (v.size() != count) {
    fail(key, "expected " + std::to_string(count) + " integers, found " +
                  std::to_string(v.size()));
  }
  canonical_[key] = v;
  return v;
}

int64_t OpAttributes::get_axis(const std::string& key, int64_t fallback, size_t rank) {
  const int64_t raw = get_int(key, fallback);
  const int64_t r = static_cast<int64_t>(rank);
  if (raw < -r || raw >= r) {
    fail(key, "axis " + std::to_string(raw) + " is out of range for a rank " +
                  std::to_string(r) + " input (expected " + std::to_string(-r) + " to " +
                  std::to_string(r - 1) + ")");
  }
  const int64_t axis = raw < 0 ? raw + r : raw;
  canonical_[key] = axis;
  return axis;
}

std::vector<int64_t> OpAttributes::get_axes(const std::string& key,
                                            const std::vector<int64_t>& fallback, size_t rank) {
  std::vector<int64_t> raw = get_int_list(key, fallback);
  const int64_t r = static_cast<int64_t>(rank);
  std::vector<int64_t> axes;
  for (int64_t a : raw) {
    if (a < -r || a >= r) {
      fail(key, "axis " + std::to_string(a) + " is out of range for a rank " + std::to_string(r) +
                    " input");
    }
    const int64_t n = a < 0 ? a + r : a;
    for (int64_t seen : axes) {
      if (seen == n) fail(key, "axis " + std::to_string(a) + " is listed twice");
    }
    axes.push_back(n);
  }
  if (axes.empty()) fail(key, "expected at least one axis");
  std::sort(axes.begin(), axes.end());
  canonical_[key] = axes;
  return axes;
}

void OpAttributes::finish() const {
  for (auto it = op_.node.begin(); it != op_.node.end(); ++it) {
    if (!known_.count(it.key())) {
      std::string list;
      for (const std::string& k : known_) {
        if (k != "op" && k != "inputs" && k != "output") list += (list.empty() ? "" : ", ") + k;
      }
      fail(it.key(), "unknown attribute \"" + it.key() + "\"" +
                         (list.empty() ? " (this op takes no attributes)"
                                       : " (expected one of: " + list + ")"));
    }
  }
}

std::unique_ptr<Op> make_op(const OpCall& call, const std::string& file) {
  const OpSpec& spec = call.spec;
  const OpDef* def = nullptr;
  for (const OpDef& d : all_ops()) {
    if (d.name == spec.op) def = &d;
  }
  if (!def) {
    std::string list;
    for (const OpDef& d : all_ops()) list += (list.empty() ? "" : ", ") + d.name;
    throw UserError(format_user_error(file, spec.path + ".op",
                                      "unknown op \"" + spec.op + "\" (known ops: " + list + ")"));
  }
  const size_t n = spec.inputs.size();
  if (n < def->min_inputs || n > def->max_inputs) {
    const std::string expected =
        def->min_inputs == def->max_inputs
            ? std::to_string(def->min_inputs)
            : std::to_string(def->min_inputs) + " to " + std::to_string(def->max_inputs);
    throw UserError(format_user_error(file, spec.path + ".inputs",
                                      spec.op + ": expected " + expected + " input" +
                                          (def->max_inputs == 1 ? "" : "s") + ", found " +
                                          std::to_string(n)));
  }
  OpAttributes attrs(spec, file);
  std::unique_ptr<Op> op = def->make(call, attrs);
  if (!op->output_dtype_) op->output_dtype_ = output_dtype_attribute(attrs, default_storage(call.input_dtypes, op->compute_dtype_));
  attrs.finish();
  op->canonical_attributes = attrs.canonical();
  return op;
}

}  // namespace ktune::subgraphs
