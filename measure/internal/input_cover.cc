#include "measure/internal/input_cover.h"

#include <algorithm>

namespace ktune::measure::internal {
namespace {

bool covers(const Halide::Buffer<>& outer, const Halide::Buffer<>& inner) {
  for (int d = 0; d < inner.dimensions(); ++d) {
    if (inner.dim(d).min() < outer.dim(d).min() || inner.dim(d).max() > outer.dim(d).max()) return false;
  }
  return true;
}

// A zeroed buffer over the union of both regions, holding `seeded`'s values where it has them.
Halide::Buffer<> widened(const Halide::Buffer<>& seeded, const Halide::Buffer<>& required) {
  std::vector<int> mins, extents;
  for (int d = 0; d < seeded.dimensions(); ++d) {
    const int lo = std::min(seeded.dim(d).min(), required.dim(d).min());
    const int hi = std::max(seeded.dim(d).max(), required.dim(d).max());
    mins.push_back(lo);
    extents.push_back(hi - lo + 1);
  }
  Halide::Buffer<> wide(seeded.type(), extents);
  wide.set_min(mins);
  std::fill_n(static_cast<uint8_t*>(wide.data()), wide.size_in_bytes(), 0);
  wide.copy_from(seeded);
  return wide;
}

}  // namespace

void bind_inputs_covering_reads(const subgraphs::BuiltPipeline& built, const std::vector<Halide::Buffer<>>& seeded,
                                Halide::Realization& outputs, const Halide::Target& target) {
  const size_t n = std::min(built.inputs.size(), seeded.size());
  for (size_t i = 0; i < n; ++i) {
    Halide::Internal::Parameter param = built.inputs[i];
    param.set_buffer(Halide::Buffer<>());  // unbound: the bounds query sizes it
  }
  Halide::Pipeline pipeline = built.pipeline;
  pipeline.infer_input_bounds(outputs, target);
  for (size_t i = 0; i < n; ++i) {
    Halide::Internal::Parameter param = built.inputs[i];
    const Halide::Buffer<> required = param.buffer();
    Halide::Buffer<> input = !required.defined() || covers(seeded[i], required) ? seeded[i] : widened(seeded[i], required);
    input.set_host_dirty();  // the host data are the truth: a GPU kernel copies them over first
    param.set_buffer(input);
  }
}

}  // namespace ktune::measure::internal
