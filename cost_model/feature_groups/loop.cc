// LoopFeatures: the loop nest of one stage (parallelism, vectors, unrolling, where the
// reduction sits) and WorkingSetFeatures: what each of its loop levels touches.
#include "cost_model/features.h"

namespace ktune::cost_model {

std::vector<std::string> LoopFeatures::names() {
  return {"depth",           "tasks",           "tasks_per_core",     "parallel_efficiency", "points_per_task",
          "ops_per_task",    "vector_width",    "vector_lanes_ratio", "tail_waste",          "vector_innermost",
          "innermost_extent", "innermost_reduction", "unrolled_iterations", "register_tile", "reduction_level",
          "loop_iterations", "realizations",    "rfactor",            "min_run_bytes"};
}

void LoopFeatures::append_to(std::vector<float>& out) const {
  out.insert(out.end(), {depth, tasks, tasks_per_core, parallel_efficiency, points_per_task, ops_per_task,
                         vector_width, vector_lanes_ratio, tail_waste, vector_innermost, innermost_extent,
                         innermost_reduction, unrolled_iterations, register_tile, reduction_level, loop_iterations,
                         realizations, rfactor, min_run_bytes});
}

std::vector<std::string> WorkingSetFeatures::names() {
  std::vector<std::string> n;
  for (int k = 1; k <= kLevels; ++k) n.push_back("bytes_level" + std::to_string(k));
  n.insert(n.end(), {"full_bytes", "l1_level", "l2_level", "llc_level"});
  return n;
}

void WorkingSetFeatures::append_to(std::vector<float>& out) const {
  out.insert(out.end(), bytes, bytes + kLevels);
  out.insert(out.end(), {full_bytes, l1_level, l2_level, llc_level});
}

}  // namespace ktune::cost_model
