// What ktune reads off a freshly built pipeline before any schedule: the canonical text
// of its definitions (names replaced by positions, so the same math under other names
// gives the same text) and every stage with its loops and extents. Extents come from
// propagating the output estimates through the definitions (Halide's boxes_required).
#pragma once

#include <string>
#include <vector>

#include "subgraphs/built_pipeline.h"
#include "subgraphs/subgraph.h"

namespace ktune::subgraphs {

struct PipelineAnalysis {
  std::string definitions;  // canonical definitions, names replaced by positions
  std::string shapes;       // canonical input and output extents
  std::vector<StageInfo> stages;  // producers before consumers
};

// `outputs` give the output regions (Halide estimates must match them); `scalars` the
// values of the scalar inputs, which are part of the shapes text.
PipelineAnalysis analyze_pipeline(const BuiltPipeline& built, const std::vector<TensorInfo>& inputs,
                                  const std::vector<TensorInfo>& outputs, const std::vector<ScalarInfo>& scalars = {});

}  // namespace ktune::subgraphs
