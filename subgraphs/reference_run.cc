// run_reference_plan: the pipeline realized once over the whole outputs, or once per tile
// over crops of them (the same compiled pipeline each time, inputs bound once).
#include <algorithm>
#include <vector>

#include "subgraphs/reference_plan.h"

namespace ktune::subgraphs {
namespace {

// Binds the input parameters to copies of the tensors for its lifetime.
class BoundInputs {
 public:
  BoundInputs(const BuiltPipeline& built, const std::vector<Tensor>& inputs, const std::vector<TensorInfo>& infos)
      : params_(built.inputs) {
    for (size_t i = 0; i < inputs.size() && i < params_.size(); ++i) {
      buffers_.push_back(to_halide_buffer(inputs[i], infos[i].mins));
      params_[i].set_buffer(buffers_.back());
    }
  }
  ~BoundInputs() {
    for (Halide::Internal::Parameter& p : params_) p.set_buffer(Halide::Buffer<>());
  }
  BoundInputs(const BoundInputs&) = delete;
  BoundInputs& operator=(const BoundInputs&) = delete;

 private:
  std::vector<Halide::Internal::Parameter> params_;
  std::vector<Halide::Buffer<>> buffers_;
};

// The first element of every tile along each dimension (Halide order), outermost varying slowest.
std::vector<std::vector<int>> tile_origins(const Halide::Buffer<>& out, const std::vector<int64_t>& tile) {
  std::vector<std::vector<int>> origins = {{}};
  for (int d = out.dimensions() - 1; d >= 0; --d) {
    const int step = d < static_cast<int>(tile.size()) ? static_cast<int>(tile[d]) : out.dim(d).extent();
    std::vector<std::vector<int>> next;
    for (const std::vector<int>& o : origins) {
      for (int m = out.dim(d).min(); m <= out.dim(d).max(); m += step) {
        std::vector<int> origin = o;
        origin.insert(origin.begin(), m);
        next.push_back(origin);
      }
    }
    origins = std::move(next);
  }
  return origins;
}

}  // namespace

std::vector<Tensor> run_reference_plan(const BuiltPipeline& built, const ReferencePlan& plan,
                                       const std::vector<Tensor>& inputs, const std::vector<TensorInfo>& input_infos,
                                       const std::vector<TensorInfo>& outputs, const Halide::Target& target) {
  if (plan.tile.empty()) return run_pipeline(built, inputs, input_infos, outputs, target);
  const BoundInputs bound(built, inputs, input_infos);
  std::vector<Halide::Buffer<>> out_buffers;
  for (const TensorInfo& info : outputs) out_buffers.push_back(make_halide_buffer(info));
  Halide::Pipeline pipeline = built.pipeline;
  for (const std::vector<int>& origin : tile_origins(out_buffers[0], plan.tile)) {
    std::vector<Halide::Buffer<>> crops;
    for (const Halide::Buffer<>& b : out_buffers) {
      // A view of its own: copies of a Halide::Buffer share one shape, so crop a runtime copy.
      Halide::Runtime::Buffer<> view = *b.get();
      for (int d = 0; d < static_cast<int>(origin.size()) && d < view.dimensions(); ++d) {
        const int extent = std::min<int>(static_cast<int>(plan.tile[d]), b.dim(d).max() - origin[d] + 1);
        view.crop(d, origin[d], extent);
      }
      crops.emplace_back(std::move(view));
    }
    Halide::Realization realization(crops);
    pipeline.realize(realization, target);
  }
  std::vector<Tensor> result;
  for (const Halide::Buffer<>& b : out_buffers) result.push_back(tensor_from_buffer(b));
  return result;
}

}  // namespace ktune::subgraphs
