// The table of bench methods; bench_methods.h says how to add one.
#include "bench/bench_methods.h"

#include <algorithm>

namespace ktune::bench {

// The library baselines, each defined in its own bench/<lib>_baseline.cc: the call for a
// matched plan, or unsupported with the reason (`match.reason` when nothing matched).
LibraryMethod openblas_method(const PlanMatch& match);
LibraryMethod onednn_method(const PlanMatch& match);

const std::vector<BenchMethod>& bench_methods() {
  static const std::vector<BenchMethod> table = {
      {"ktune", "ktune", "ktune's best tuned schedule of the workload on this device",
       "the best schedule stored in --db, applied to the algorithm and JIT-compiled by Halide", MethodSource::kStoredBest,
       false},
      {"ktune-heuristic", "ktune-heuristic", "ktune's heuristic schedule, untuned: where the search starts",
       "the schedule space's heuristic, JIT-compiled by Halide", MethodSource::kHeuristic, false},
      {"expert", "expert", "a schedule a performance engineer wrote for the subgraph",
       "<--expert-dir>/<subgraph name>.json (bench/expert), JIT-compiled by Halide; not run without --expert-dir",
       MethodSource::kExpertFile, false},
      {"hand", "hand", "the Generator's own schedule, as its author wrote it",
       "the Generator built with auto_schedule=false, at the output region its bound() calls require",
       MethodSource::kOwnSchedule, true},
      {"Adams2019", "Adams2019", "Halide's Adams2019 autoscheduler (learned cost model, beam search)",
       "Halide 14's plugin, scheduling and compiling in a child first; MachineParams from the device",
       MethodSource::kAutoscheduler, false},
      {"Mullapudi2016", "Mullapudi2016", "Halide's Mullapudi2016 autoscheduler (greedy grouping and tiling)",
       "Halide 14's plugin, scheduling and compiling in a child first; MachineParams from the device",
       MethodSource::kAutoscheduler, false},
      {"Li2018", "Li2018", "Halide's Li2018 autoscheduler (the gradient autoscheduler)",
       "Halide 14's plugin, scheduling and compiling in a child first; MachineParams from the device",
       MethodSource::kAutoscheduler, false},
      {"openblas", "OpenBLAS", "OpenBLAS: cblas_sgemm for matrix products, cblas_sgemv for row and column sums (f32)",
       "bench/openblas_baseline.cc, linked; made and timed in a forked child on the same inputs",
       MethodSource::kLibrary, false, openblas_method},
      {"onednn", "oneDNN", "oneDNN primitives with post-ops: matmul, convolution, softmax, layer norm, sum, eltwise",
       "bench/onednn_baseline.cc, linked; made and timed in a forked child on the same inputs",
       MethodSource::kLibrary, false, onednn_method},
  };
  return table;
}

std::vector<std::string> method_names(const std::vector<BenchMethod>& table) {
  std::vector<std::string> names;
  for (const BenchMethod& m : table) names.emplace_back(m.name);
  return names;
}

const std::vector<std::string>& bench_method_names() {
  static const std::vector<std::string> names = method_names(bench_methods());
  return names;
}

const BenchMethod* find_method(const std::string& name, const std::vector<BenchMethod>& table) {
  const auto it = std::find_if(table.begin(), table.end(), [&](const BenchMethod& m) { return name == m.name; });
  return it == table.end() ? nullptr : &*it;
}

std::string method_display_name(const std::string& name, const std::vector<BenchMethod>& table) {
  const BenchMethod* m = find_method(name, table);
  return m ? m->display : name;
}

std::vector<std::string> parse_method_list(const std::string& text) {
  std::vector<std::string> out;
  std::string item;
  for (char c : text + ",") {
    if (c == ',') {
      if (!item.empty()) out.push_back(item);
      item.clear();
    } else if (c != ' ') {
      item += c;
    }
  }
  return out;
}

std::string unknown_method_error(const std::vector<std::string>& names, const std::vector<BenchMethod>& table) {
  for (const std::string& name : names) {
    if (find_method(name, table)) continue;
    std::string list;
    for (const BenchMethod& m : table) list += (list.empty() ? "" : ", ") + std::string(m.name);
    return "unknown method \"" + name + "\" (expected some of " + list + ")";
  }
  return "";
}

std::string methods_option_help(const std::vector<BenchMethod>& table) {
  std::string list;
  for (const BenchMethod& m : table) list += (list.empty() ? "" : ",") + std::string(m.name);
  return "comma-separated subset of " + list + " (default: all)";
}

}  // namespace ktune::bench
