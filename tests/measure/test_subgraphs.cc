#include "tests/measure/test_subgraphs.h"

#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <stdexcept>
#include <string>

namespace ktune::measure::testing {
namespace {

using subgraphs::BuiltPipeline;
using subgraphs::Tensor;
using subgraphs::TensorInfo;

// A one-input, one-output subgraph whose algorithm and reference are given as functions.
class TinySubgraph : public subgraphs::Subgraph {
 public:
  TinySubgraph(std::string name, TensorInfo input, TensorInfo output, std::function<BuiltPipeline()> build,
               std::function<std::vector<Tensor>(const std::vector<Tensor>&)> reference)
      : build_(std::move(build)), reference_(std::move(reference)) {
    name_ = std::move(name);
    inputs_ = {std::move(input)};
    outputs_ = {std::move(output)};
    flops_ = static_cast<double>(subgraphs::element_count(outputs_[0].shape));
    finalize();
  }
  std::string kind() const override { return "test"; }
  BuiltPipeline build() const override { return build_(); }
  std::vector<Tensor> reference(const std::vector<Tensor>& inputs) const override { return reference_(inputs); }

 private:
  std::function<BuiltPipeline()> build_;
  std::function<std::vector<Tensor>(const std::vector<Tensor>&)> reference_;
};

BuiltPipeline one_output(Halide::ImageParam in, Halide::Func out) {
  BuiltPipeline built;
  built.inputs = {in.parameter()};
  built.outputs = {out};
  built.pipeline = Halide::Pipeline(out);
  return built;
}

std::vector<Tensor> zeros(const subgraphs::Shape& shape) {
  return {Tensor{shape, std::vector<float>(static_cast<size_t>(subgraphs::element_count(shape)), 0.f)}};
}

std::vector<Tensor> scaled(const std::vector<Tensor>& inputs, float factor) {
  Tensor t = inputs.at(0);
  for (size_t i = 0; i < t.size(); ++i) t.f32()[i] *= factor;
  return {t};
}

// Thread ids recorded by the probe, in an anonymous shared mapping made before any fork.
struct ProbeRecord {
  std::atomic<int> count;
  int tids[1 << 16];
};

ProbeRecord* probe_record() {
  static ProbeRecord* record = [] {
    void* p = mmap(nullptr, sizeof(ProbeRecord), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) throw std::runtime_error("mmap failed");
    return static_cast<ProbeRecord*>(p);
  }();
  return record;
}

extern "C" int ktune_test_probe(int row) {
  const auto start = std::chrono::steady_clock::now();
  while (std::chrono::steady_clock::now() - start < std::chrono::microseconds(300)) {
  }
  ProbeRecord* r = probe_record();
  const int slot = r->count.fetch_add(1);
  if (slot < static_cast<int>(sizeof(r->tids) / sizeof(int))) r->tids[slot] = static_cast<int>(syscall(SYS_gettid));
  return row * 0;
}

}  // namespace

std::unique_ptr<subgraphs::Subgraph> make_scale(bool wrong_reference) {
  return std::make_unique<TinySubgraph>(
      wrong_reference ? "scale_wrong" : "scale", TensorInfo{"in", subgraphs::DType::kF32, {256}, {}},
      TensorInfo{"out", subgraphs::DType::kF32, {256}, {}},
      [] {
        Halide::ImageParam in(Halide::Float(32), 1, "in");
        Halide::Func out("out");
        Halide::Var x("x");
        out(x) = in(x) * 2.f;
        out.set_estimates({{0, 256}});
        return one_output(in, out);
      },
      [wrong_reference](const std::vector<Tensor>& inputs) { return scaled(inputs, wrong_reference ? 3.f : 2.f); });
}

std::unique_ptr<subgraphs::Subgraph> make_gather() {
  return std::make_unique<TinySubgraph>(
      "gather", TensorInfo{"data", subgraphs::DType::kF32, {16}, {}}, TensorInfo{"out", subgraphs::DType::kF32, {16}, {}},
      [] {
        Halide::ImageParam data(Halide::Float(32), 1, "data");
        Halide::Func out("out");
        Halide::Var x("x");
        out(x) = data(x + 2000000000);
        out.set_estimates({{0, 16}});
        return one_output(data, out);
      },
      [](const std::vector<Tensor>&) { return zeros({16}); });
}

std::unique_ptr<subgraphs::Subgraph> make_spin() {
  return std::make_unique<TinySubgraph>(
      "spin", TensorInfo{"in", subgraphs::DType::kF32, {4}, {}}, TensorInfo{"out", subgraphs::DType::kF32, {4}, {}},
      [] {
        Halide::ImageParam in(Halide::Float(32), 1, "in");
        Halide::Func out("out");
        Halide::Var x("x");
        Halide::RDom r(0, 1 << 30, "r");
        out(x) = in(x);
        out(x) += Halide::sin(Halide::cast<float>(x + r.x));
        out.set_estimates({{0, 4}});
        return one_output(in, out);
      },
      [](const std::vector<Tensor>&) { return zeros({4}); });
}

std::unique_ptr<subgraphs::Subgraph> make_throwing_reference() {
  return std::make_unique<TinySubgraph>(
      "throwing_reference", TensorInfo{"in", subgraphs::DType::kF32, {8}, {}},
      TensorInfo{"out", subgraphs::DType::kF32, {8}, {}},
      [] {
        Halide::ImageParam in(Halide::Float(32), 1, "in");
        Halide::Func out("out");
        Halide::Var x("x");
        out(x) = in(x);
        out.set_estimates({{0, 8}});
        return one_output(in, out);
      },
      [](const std::vector<Tensor>&) -> std::vector<Tensor> { throw std::runtime_error("reference exploded"); });
}

std::unique_ptr<subgraphs::Subgraph> make_thread_probe() {
  probe_record();  // map the shared record before any fork
  return std::make_unique<TinySubgraph>(
      "thread_probe", TensorInfo{"in", subgraphs::DType::kF32, {128, 2}, {}},
      TensorInfo{"out", subgraphs::DType::kF32, {128, 2}, {}},
      [] {
        Halide::ImageParam in(Halide::Float(32), 2, "in");
        Halide::Func out("out");
        Halide::Var x("x"), y("y");
        const Halide::Expr probe =
            Halide::Internal::Call::make(Halide::Int(32), "ktune_test_probe", {y}, Halide::Internal::Call::Extern);
        out(x, y) = Halide::cast<float>(probe) + in(x, y) * 0.f;
        out.set_estimates({{0, 2}, {0, 128}});
        BuiltPipeline built = one_output(in, out);
        built.pipeline.set_jit_externs({{"ktune_test_probe", Halide::JITExtern(&ktune_test_probe)}});
        return built;
      },
      [](const std::vector<Tensor>&) { return zeros({128, 2}); });
}

void parallel_rows(const BuiltPipeline& built) {
  Halide::Func out = built.outputs.at(0);
  out.compute_root().parallel(Halide::Var("y"));
}

void gpu_tiles(const BuiltPipeline& built) {
  Halide::Func out = built.outputs.at(0);
  Halide::Var x("x"), xo("xo"), xi("xi");
  out.compute_root().gpu_tile(x, xo, xi, 64);
}

void reset_probe_threads() { probe_record()->count.store(0); }

std::set<int> probe_threads() {
  const ProbeRecord* r = probe_record();
  const int n = std::min(r->count.load(), static_cast<int>(sizeof(r->tids) / sizeof(int)));
  return std::set<int>(r->tids, r->tids + n);
}

}  // namespace ktune::measure::testing
