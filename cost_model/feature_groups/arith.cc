// ArithFeatures: arithmetic and memory operations, by how they execute (vector or scalar,
// parallel or serial, dense, broadcast or gathered loads).
#include <algorithm>

#include "cost_model/features.h"
#include "cost_model/internal/feature_inputs.h"

namespace ktune::cost_model {

ArithFeatures ArithFeatures::compute(const internal::FeatureInputs& in) {
  ArithFeatures f;
  double ops = 0, instr = 0, vec = 0, scalar = 0, autovec = 0, par = 0, ser = 0;
  double loads = 0, dense = 0, bcast = 0, strided = 0, lscalar = 0, stores = 0;
  for (size_t i = 0; i < in.model.stages.size(); ++i) {
    const internal::StageModel& sm = in.model.stages[i];
    const internal::StageMetrics& m = in.metrics[i];
    ops += m.ops;
    instr += m.ops / m.lanes;
    (sm.vector_width > 1 ? vec : scalar) += m.ops;
    if (m.auto_vector) autovec += m.ops;
    (m.tasks > 1 ? par : ser) += m.ops;
    loads += m.loads;
    dense += m.loads_dense;
    bcast += m.loads_broadcast;
    strided += m.loads_strided;
    lscalar += m.loads_scalar;
    stores += m.points;
    f.ops_per_point_max = std::max(f.ops_per_point_max, static_cast<float>(sm.ops));
  }
  f.ops = static_cast<float>(ops);
  f.ops_instructions = static_cast<float>(instr);
  f.ops_vector = static_cast<float>(vec);
  f.ops_scalar = static_cast<float>(scalar);
  f.ops_autovector = static_cast<float>(autovec);
  f.ops_parallel = static_cast<float>(par);
  f.ops_serial = static_cast<float>(ser);
  f.loads = static_cast<float>(loads);
  f.loads_dense = static_cast<float>(dense);
  f.loads_broadcast = static_cast<float>(bcast);
  f.loads_strided = static_cast<float>(strided);
  f.loads_scalar = static_cast<float>(lscalar);
  f.stores = static_cast<float>(stores);
  const double bytes = in.compulsory_bytes;
  f.intensity = bytes > 0 ? static_cast<float>(ops / bytes) : 0.f;
  f.loads_per_op = ops > 0 ? static_cast<float>(loads / ops) : 0.f;
  return f;
}

std::vector<std::string> ArithFeatures::names() {
  return {"ops",          "ops_instructions", "ops_vector",     "ops_scalar",      "ops_autovector", "ops_parallel",
          "ops_serial",   "loads",            "loads_dense",    "loads_broadcast", "loads_strided",
          "loads_scalar", "stores",           "ops_per_point_max", "intensity",    "loads_per_op"};
}

void ArithFeatures::append_to(std::vector<float>& out) const {
  out.insert(out.end(), {ops, ops_instructions, ops_vector, ops_scalar, ops_autovector, ops_parallel, ops_serial, loads,
                         loads_dense, loads_broadcast, loads_strided, loads_scalar, stores, ops_per_point_max,
                         intensity, loads_per_op});
}

}  // namespace ktune::cost_model
