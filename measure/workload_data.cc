#include "measure/workload_data.h"

#include <cstring>

#include "common/check.h"
#include "common/child_process.h"
#include "subgraphs/built_pipeline.h"

namespace ktune::measure {
namespace {

std::string describe_failure(const ChildOutcome& c) {
  if (!c.error.empty()) return c.error;
  if (c.timed_out) return "timed out after " + std::to_string(static_cast<int64_t>(c.wall_ms)) + " ms";
  if (c.signal) return std::string("crashed: ") + strsignal(c.signal);
  if (c.exit_code == kChildExceptionExit) {
    return c.output.empty() ? "threw an exception" : "threw: " + c.output;
  }
  return "exited with code " + std::to_string(c.exit_code);
}

}  // namespace

std::shared_ptr<WorkloadData> prepare_workload(const subgraphs::Subgraph& subgraph, uint64_t seed,
                                               double reference_timeout_ms) {
  auto data = std::make_shared<WorkloadData>();
  const std::vector<subgraphs::Tensor> inputs = subgraph.make_inputs(seed);
  for (size_t i = 0; i < inputs.size(); ++i) {
    data->inputs.push_back(subgraphs::to_halide_buffer(inputs[i], subgraph.inputs()[i].mins));
    KTUNE_CHECK(reinterpret_cast<uintptr_t>(data->inputs.back().data()) % 128 == 0)
        << "input buffer of " << subgraph.name() << " is not 128-byte aligned";
  }

  // The child writes every output's bytes back to back, or "ERR" + message.
  const ChildOutcome child = run_in_child(
      [&](int fd) {
        std::vector<subgraphs::Tensor> ref;
        try {
          ref = subgraph.reference(inputs);
        } catch (const std::exception& e) {
          const std::string msg = std::string("ERR") + e.what();
          write_all(fd, msg.data(), msg.size());
          _exit(kChildExceptionExit);
        }
        for (const subgraphs::Tensor& t : ref) write_all(fd, t.bytes.data(), t.bytes.size());
      },
      reference_timeout_ms);
  data->reference_ms = child.wall_ms;
  if (child.exit_code != 0 || !child.error.empty()) {
    ChildOutcome shown = child;
    if (shown.output.rfind("ERR", 0) == 0) shown.output = shown.output.substr(3);
    data->reference_error = "computing the reference of " + subgraph.name() + " " + describe_failure(shown);
    return data;
  }
  size_t offset = 0;
  for (const subgraphs::TensorInfo& info : subgraph.outputs()) {
    subgraphs::Tensor t(info.shape, info.dtype);
    if (offset + t.bytes.size() > child.output.size()) break;
    std::memcpy(t.bytes.data(), child.output.data() + offset, t.bytes.size());
    offset += t.bytes.size();
    data->reference.push_back(std::move(t));
  }
  if (offset != child.output.size() || data->reference.size() != subgraph.outputs().size()) {
    data->reference.clear();
    data->reference_error = "the reference of " + subgraph.name() + " has " +
                            std::to_string(child.output.size()) + " bytes, not the size of its outputs";
  }
  return data;
}

}  // namespace ktune::measure
