#include "scheduler/internal/isl_relations.h"

#include <optional>

#include "scheduler/internal/affine.h"

namespace ktune::scheduler {
namespace {

namespace HI = Halide::Internal;

// "lo <= var <= hi" for the constant ends of `iv`; empty when neither is constant.
std::string interval_constraint(const std::string& var, const HI::Interval& iv) {
  const int64_t* lo = iv.min.defined() ? HI::as_const_int(iv.min) : nullptr;
  const int64_t* hi = iv.max.defined() ? HI::as_const_int(iv.max) : nullptr;
  if (lo && hi) return std::to_string(*lo) + " <= " + var + " <= " + std::to_string(*hi);
  if (lo) return std::to_string(*lo) + " <= " + var;
  if (hi) return var + " <= " + std::to_string(*hi);
  return "";
}

}  // namespace

std::string isl_tuple(const std::string& name, const std::vector<std::string>& dims) {
  std::string s = name + "[";
  for (size_t i = 0; i < dims.size(); ++i) s += (i ? ", " : "") + dims[i];
  return s + "]";
}

StageSpace stage_space(const std::vector<std::string>& halide_loops) {
  StageSpace space;
  for (int l = static_cast<int>(halide_loops.size()) - 1; l >= 0; --l) {
    const std::string n = "d" + std::to_string(space.dims.size());
    space.vars[halide_loops[l]] = n;
    space.dims.push_back(n);
  }
  space.stmt = isl_tuple("S", space.dims);
  return space;
}

std::string stage_domain(const StageSpace& space, const std::vector<std::string>& halide_loops,
                         const std::map<std::string, HI::Interval>& ranges) {
  std::string constraints;
  for (const std::string& l : halide_loops) {
    auto it = ranges.find(l);
    if (it == ranges.end()) continue;
    const std::string c = interval_constraint(space.vars.at(l), it->second);
    if (!c.empty()) constraints += (constraints.empty() ? "" : " and ") + c;
  }
  return "{ " + space.stmt + (constraints.empty() ? "" : " : " + constraints) + " }";
}

std::string access_relation(const StageSpace& space, const std::string& target_name,
                            const std::vector<Halide::Expr>& args, bool& affine) {
  std::vector<std::string> idx;
  affine = true;
  for (size_t k = 0; k < args.size(); ++k) {
    const std::optional<std::string> e = to_isl_affine(args[k], space.vars);
    affine &= e.has_value();
    idx.push_back(e ? *e : "o" + std::to_string(k));
  }
  return "{ " + space.stmt + " -> " + isl_tuple(target_name, idx) + " }";
}

}  // namespace ktune::scheduler
