// C identifiers for exported kernels: a workload name such as "gemm-1024.v2" becomes a
// function name a C compiler and linker accept ("ktune_gemm_1024_v2"), and a list of names
// becomes a list of distinct identifiers, the same on every run.
#pragma once

#include <string>
#include <vector>

namespace ktune::targets {

// `prefix` followed by `name` with every character outside [A-Za-z0-9_] replaced by '_',
// runs of '_' collapsed; "_" + name when no prefix is given and the name would start with a
// digit or be empty. `prefix` must itself be a valid identifier start (or empty).
std::string c_identifier(const std::string& name, const std::string& prefix);

// c_identifier of every name, made distinct: the first occurrence (in the given order) keeps
// its identifier, later ones that collide get "_2", "_3", ... (skipping suffixes already
// taken). Callers sort the names first when the order must not matter.
std::vector<std::string> unique_c_identifiers(const std::vector<std::string>& names, const std::string& prefix);

// True when `text` is a C identifier: [A-Za-z_][A-Za-z0-9_]*, not a C or C++ keyword.
bool is_c_identifier(const std::string& text);

}  // namespace ktune::targets
