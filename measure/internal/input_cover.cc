#include "measure/internal/input_cover.h"

#include <algorithm>

namespace ktune::measure::internal {
namespace {

// A schedule may read a few tiles past the algorithm's region; a read far beyond it (an index
// computed from data, a bug) is the pipeline's own error, reported by Halide as such, and
// not worth gigabytes of input.
constexpr double kMaxGrowth = 2;
constexpr double kMaxExtraBytes = 64.0 * 1024 * 1024;

double union_bytes(const Halide::Buffer<>& a, const Halide::Buffer<>& b) {
  double bytes = a.type().bytes();
  for (int d = 0; d < a.dimensions(); ++d) {
    const double lo = std::min<double>(a.dim(d).min(), b.dim(d).min());
    const double hi = std::max<double>(a.dim(d).max(), b.dim(d).max());
    bytes *= hi - lo + 1;
  }
  return bytes;
}

bool worth_widening(const Halide::Buffer<>& seeded, const Halide::Buffer<>& required) {
  const double seeded_bytes = static_cast<double>(seeded.size_in_bytes());
  return union_bytes(seeded, required) <= kMaxGrowth * seeded_bytes + kMaxExtraBytes;
}

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

void bind(Halide::Internal::Parameter param, Halide::Buffer<> input) {
  input.set_host_dirty();  // the host data are the truth: a GPU kernel copies them over first
  param.set_buffer(input);
}

}  // namespace

void bind_inputs_covering_reads(const subgraphs::BuiltPipeline& built, const std::vector<Halide::Buffer<>>& seeded,
                                Halide::Realization& outputs, const Halide::Target& target) {
  const size_t n = std::min(built.inputs.size(), seeded.size());
  if (target.has_feature(Halide::Target::NoBoundsQuery)) {
    // Code without a bounds query reads what it reads: the seeded inputs are all there is.
    for (size_t i = 0; i < n; ++i) bind(built.inputs[i], seeded[i]);
    return;
  }
  for (size_t i = 0; i < n; ++i) {
    Halide::Internal::Parameter param = built.inputs[i];
    param.set_buffer(Halide::Buffer<>());  // unbound: the bounds query sizes it
  }
  Halide::Pipeline pipeline = built.pipeline;
  pipeline.infer_input_bounds(outputs, target);
  for (size_t i = 0; i < n; ++i) {
    Halide::Internal::Parameter param = built.inputs[i];
    const Halide::Buffer<> required = param.buffer();
    const bool as_seeded = !required.defined() || covers(seeded[i], required) || !worth_widening(seeded[i], required);
    bind(param, as_seeded ? seeded[i] : widened(seeded[i], required));
  }
}

}  // namespace ktune::measure::internal
