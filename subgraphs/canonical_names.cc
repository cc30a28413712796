#include "subgraphs/canonical_names.h"

#include <cctype>
#include <set>

namespace ktune::subgraphs {
namespace {

// True if `name` is `prefix` followed by one or more digits.
bool is_counter_name(const std::string& name, const std::string& prefix) {
  if (name.size() <= prefix.size() || name.compare(0, prefix.size(), prefix) != 0) return false;
  for (size_t i = prefix.size(); i < name.size(); ++i) {
    if (!std::isdigit(static_cast<unsigned char>(name[i]))) return false;
  }
  return true;
}

std::string identifier_safe(std::string s) {
  for (char& c : s) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') c = '_';
  }
  return s;
}

// Every "$N" Halide appended removed: "y_max$3" -> "y_max", and the rfactor intermediate of
// that Func, "y_max$3_intm", -> "y_max_intm" (as in a pipeline where it was "y_max").
std::string without_uniquifier(const std::string& name) {
  std::string out;
  for (size_t i = 0; i < name.size(); ++i) {
    if (name[i] == '$' && i + 1 < name.size() && std::isdigit(static_cast<unsigned char>(name[i + 1]))) {
      while (i + 1 < name.size() && std::isdigit(static_cast<unsigned char>(name[i + 1]))) ++i;
      continue;
    }
    out += name[i];
  }
  return out;
}

// A pure variable: "v12" -> "v".
std::string canonical_var_base(const std::string& name) {
  return is_counter_name(name, "v") ? "v" : identifier_safe(name);
}

// A reduction variable "r86$x" -> "r$x"; the part after the '$' names the RDom dimension.
std::string canonical_rvar_base(const std::string& name) {
  const size_t dollar = name.find('$');
  if (dollar == std::string::npos) return canonical_var_base(name);
  const std::string rdom = name.substr(0, dollar);
  const std::string dim = name.substr(dollar + 1);
  return (is_counter_name(rdom, "r") ? "r" : identifier_safe(rdom)) + "$" + identifier_safe(dim);
}

// `base`, or base_2, base_3, ... : the first that is neither taken nor reserved.
std::string first_free(const std::string& base, const std::set<std::string>& taken,
                       const std::set<std::string>& reserved) {
  if (!taken.count(base)) return base;
  for (int n = 2;; ++n) {
    const std::string candidate = base + "_" + std::to_string(n);
    if (!taken.count(candidate) && !reserved.count(candidate)) return candidate;
  }
}

StageLoopNames stage_loops(const Halide::Internal::Definition& def, const std::vector<std::string>& halide_args,
                           const std::vector<std::string>& canonical_args) {
  StageLoopNames names;
  std::set<std::string> taken(canonical_args.begin(), canonical_args.end());
  for (const Halide::Internal::Dim& dim : def.schedule().dims()) {
    if (dim.var == Halide::Var::outermost().name()) continue;
    std::string canonical;
    if (!dim.is_rvar()) {
      for (size_t a = 0; a < halide_args.size(); ++a) {
        if (halide_args[a] == dim.var) canonical = canonical_args[a];
      }
    }
    if (canonical.empty()) {
      canonical = first_free(canonical_rvar_base(dim.var), taken, {});
      taken.insert(canonical);
    }
    names.loops.emplace_back(canonical, dim.var);
  }
  return names;
}

}  // namespace

std::string StageLoopNames::halide(const std::string& name) const {
  for (const auto& [canonical, halide_name] : loops) {
    if (canonical == name) return halide_name;
  }
  return name;
}

std::string StageLoopNames::canonical(const std::string& name) const {
  for (const auto& [canonical_name, halide_name] : loops) {
    if (halide_name == name) return canonical_name;
  }
  return name;
}

std::string canonical_func_base(const std::string& halide_name) {
  const std::string name = without_uniquifier(halide_name);
  if (is_counter_name(name, "f")) return "f";
  if (is_counter_name(name, "lambda_")) return "lambda";
  return identifier_safe(name);
}

std::vector<FuncNames> canonical_names(const std::vector<Halide::Func>& funcs) {
  std::set<std::string> bases;
  for (const Halide::Func& f : funcs) bases.insert(canonical_func_base(f.name()));
  std::set<std::string> taken;
  std::vector<FuncNames> result;
  for (const Halide::Func& f : funcs) {
    const Halide::Internal::Function fn = f.function();
    FuncNames names;
    names.halide_name = f.name();
    names.name = first_free(canonical_func_base(f.name()), taken, bases);
    taken.insert(names.name);
    std::set<std::string> taken_args;
    for (const std::string& arg : fn.args()) {
      names.args.push_back(first_free(canonical_var_base(arg), taken_args, {}));
      taken_args.insert(names.args.back());
    }
    names.stages.push_back(stage_loops(fn.definition(), fn.args(), names.args));
    for (const Halide::Internal::Definition& u : fn.updates()) names.stages.push_back(stage_loops(u, fn.args(), names.args));
    result.push_back(std::move(names));
  }
  return result;
}

}  // namespace ktune::subgraphs
