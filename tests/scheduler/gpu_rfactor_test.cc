// GPU rfactor (scheduler/gpu_rfactor.h): the heuristic splits a clearly starved reduction
// with rfactor into two kernels, which Halide lowers to an intermediate kernel launched
// with one block per row and F threads along the reduction (rows), or with x-threads and
// u-threads (columns), followed by the final kernel; reductions with enough outputs stay
// serial in each thread; the sampler draws GPU rfactors for starved reductions only.
#include <gtest/gtest.h>

#include <regex>
#include <set>

#include "scheduler/gpu_rfactor.h"
#include "tests/scheduler/gpu_test_support.h"

namespace ktune::scheduler {
namespace {

using Strings = std::vector<std::string>;

// The kernel name of an rfactor intermediate's update, after its Func's name: Halide names
// the intermediate "<func>_intm", uniquified ("_intm_1") when the process already made
// one of that name, as it has when other tests ran first.
constexpr const char* kIntermediateUpdate = "intm(?:_[0-9]+)?_s1";

std::string softmax_spec(int64_t rows, int64_t cols) {
  return R"({"name": "sm", "inputs": [{"name": "x", "shape": [)" + std::to_string(rows) + ", " +
         std::to_string(cols) + R"(]}], "ops": [{"op": "softmax", "inputs": ["x"], "output": "y"}], "outputs": ["y"]})";
}

// The launch of the kernel whose name matches `kernel` (a regex) in the host code:
// "blocks x, y, z, threads x, y, z", or "" when there is none.
std::string launch_of(const std::string& host, const std::string& kernel) {
  std::smatch m;
  const std::regex launch("halide_cuda_run\\(cuda\\[0\\], \"" + kernel +
                          "[^\"]*\", ([0-9]+), ([0-9]+), ([0-9]+), ([0-9]+), ([0-9]+), ([0-9]+),");
  if (!std::regex_search(host, m, launch)) return "";
  return m[1].str() + ", " + m[2].str() + ", " + m[3].str() + ", " + m[4].str() + ", " + m[5].str() + ", " +
         m[6].str();
}

// How many PTX kernels match `kernel` (a regex on the entry name).
int kernels_in(const std::string& ptx, const std::string& kernel) {
  const std::regex entry("\\.entry " + kernel);
  return static_cast<int>(std::distance(std::sregex_iterator(ptx.begin(), ptx.end(), entry), std::sregex_iterator()));
}

TEST(GpuRFactor, HeuristicSplitsSoftmaxRowReductionsIntoTwoKernels) {
  // 4096 rows of 1024: 4096 outputs per row statistic, fewer than 108 SMs x 256.
  const auto sg = testing::suite_subgraph("softmax");
  const TargetInfo target = cuda_target_info("a100");
  const Space space(analyze(*sg, target));
  const Schedule h = space.heuristic();
  ASSERT_EQ(space.validate(h).value_or(""), "") << h.to_json().dump();
  for (const char* func : {"y_max", "y_sum"}) {
    const StageSchedule st = h.find(func)->stage_or_empty(1);
    ASSERT_TRUE(st.rfactor) << func;
    EXPECT_EQ(st.rfactor->loop, "k_x_i");
    EXPECT_EQ(st.rfactor->gpu.threads, Strings{"u"});
    EXPECT_EQ(st.rfactor->gpu.blocks, Strings{"x"});
    EXPECT_EQ(st.splits.at(0).factor, 128) << "F for rows of 1024";
    EXPECT_FALSE(st.gpu.threads.empty());
    EXPECT_FALSE(st.gpu.blocks.empty());
  }
  const ApplyResult applied = apply(h, *sg, space.analysis());
  ASSERT_TRUE(applied.ok) << applied.error;
  EXPECT_NE(applied.source.find("Func y_max_intm = y_max.update(0).rfactor(k_x_i, u);"), std::string::npos);
  EXPECT_NE(applied.source.find("y_max_intm.update(0).reorder(k_x_o, u, x);"), std::string::npos) << applied.source;
  // The intermediate's update: u on threads, the rest of the reduction serial inside.
  const std::string nest = loop_nest_text(applied);
  EXPECT_NE(nest.find("gpu_thread u in [0, 127]<Default_GPU>:\n      for k.k_x_o in [0, 7]:"), std::string::npos)
      << nest;
  const std::string ptx = testing::device_code(applied, target.halide_target);
  ASSERT_EQ(ptx.rfind("error", 0), std::string::npos) << ptx;
  for (const char* func : {"y_max", "y_sum"}) {
    const std::string f = std::string("_kernel_") + func + "_+[0-9]+_";
    EXPECT_EQ(kernels_in(ptx, f + kIntermediateUpdate), 1) << func << ": the intermediate's update kernel";
    EXPECT_EQ(kernels_in(ptx, f + "s1"), 1) << func << ": the final reduction over u";
  }
  // One block per row, 128 threads across the row.
  const std::string host = testing::host_code(applied, target.halide_target);
  EXPECT_EQ(launch_of(host, std::string("_kernel_y_max_[0-9]+_") + kIntermediateUpdate), "4096, 1, 1, 128, 1, 1") << host;
  EXPECT_EQ(launch_of(host, std::string("_kernel_y_sum_[0-9]+_") + kIntermediateUpdate), "4096, 1, 1, 128, 1, 1");
  EXPECT_EQ(lower(applied, cuda_target_info("h100").halide_target).value_or(""), "");
}

TEST(GpuRFactor, HeuristicSplitsColumnSumsWithXThreadsInnermost) {
  // 4096 columns summed over 4096 rows: the columns are the contiguous dimension.
  const auto sg = testing::suite_subgraph("colsum");
  const TargetInfo target = cuda_target_info("a100");
  const Space space(analyze(*sg, target));
  const FuncAnalysis& acc = *space.analysis().find("sums_acc");
  EXPECT_TRUE(reduces_across_columns(acc, acc.stages[1]));
  const Schedule h = space.heuristic();
  ASSERT_EQ(space.validate(h).value_or(""), "") << h.to_json().dump();
  const StageSchedule st = h.find("sums_acc")->stage_or_empty(1);
  ASSERT_TRUE(st.rfactor);
  EXPECT_EQ(st.rfactor->gpu.threads, (Strings{"x_i", "u"}));
  EXPECT_EQ(st.rfactor->gpu.blocks, Strings{"x_o"});
  ASSERT_EQ(st.rfactor->splits.size(), 1u);
  EXPECT_EQ(st.rfactor->splits[0].factor, 32);
  const ApplyResult applied = apply(h, *sg, space.analysis());
  ASSERT_TRUE(applied.ok) << applied.error;
  const std::string ptx = testing::device_code(applied, target.halide_target);
  EXPECT_EQ(kernels_in(ptx, std::string("_kernel_sums_acc_+[0-9]+_") + kIntermediateUpdate), 1) << ptx.substr(0, 2000);
  EXPECT_EQ(kernels_in(ptx, "_kernel_sums_acc_+[0-9]+_s1"), 1);
  // threadIdx.x walks 32 adjacent columns (a warp reads one contiguous run), threadIdx.y
  // the 32 interleaved row groups u.
  const std::string host = testing::host_code(applied, target.halide_target);
  EXPECT_EQ(launch_of(host, std::string("_kernel_sums_acc_[0-9]+_") + kIntermediateUpdate), "128, 1, 1, 32, 32, 1") << host;
  const std::string nest = loop_nest_text(applied);
  EXPECT_NE(nest.find("gpu_thread u in [0, 31]<Default_GPU>:\n      gpu_thread x.x_i in [0, 31]<Default_GPU>:\n"
                      "        for r.r_x_o in [0, 127]:"),
            std::string::npos)
      << nest;
}

TEST(GpuRFactor, SoftmaxIsARowReduction) {
  const auto sg = testing::suite_subgraph("softmax");
  const Analysis a = analyze(*sg, cuda_target_info("a100"));
  for (const char* func : {"y_max", "y_sum"}) {
    const FuncAnalysis& fa = *a.find(func);
    EXPECT_FALSE(reduces_across_columns(fa, fa.stages[1])) << func;
    EXPECT_TRUE(gpu_rfactor_fits(fa, fa.stages[1])) << func;
    EXPECT_FALSE(gpu_rfactor_fits(fa, fa.stages[0])) << "a pure stage has no reduction";
  }
}

TEST(GpuRFactor, StarvationRule) {
  const TargetInfo a100 = cuda_target_info("a100");
  ASSERT_EQ(a100.sm_count, 108);
  struct Case {
    int64_t rows, cols;
    bool starved, clearly;
  };
  // Clearly starved: rows < 108 x 256 = 27648 and rows of at least 1024. Starved (sampled
  // sometimes): rows < 108 x 1024 = 110592 and rows of at least 2 x 32.
  for (const Case& c : {Case{16, 4096, true, true}, Case{27647, 1024, true, true}, Case{27648, 1024, true, false},
                        Case{4096, 768, true, false}, Case{110592, 1024, false, false}, Case{4096, 63, false, false}}) {
    const auto sg = testing::spec_subgraph(softmax_spec(c.rows, c.cols));
    const Analysis a = analyze(*sg, a100);
    const FuncAnalysis& mx = *a.find("y_max");
    EXPECT_EQ(gpu_reduction_starved(mx, mx.stages[1], a100), c.starved) << c.rows << " x " << c.cols;
    EXPECT_EQ(gpu_reduction_clearly_starved(mx, mx.stages[1], a100), c.clearly) << c.rows << " x " << c.cols;
    const Space space(Analysis{a});
    EXPECT_EQ(space.heuristic().find("y_max")->stage_or_empty(1).rfactor.has_value(), c.clearly);
  }
}

TEST(GpuRFactor, WellFedReductionsStaySerial) {
  for (const char* name : {"gemm_1024", "layernorm", "conv3x3_relu"}) {
    const auto sg = testing::suite_subgraph(name);
    const Space space(analyze(*sg, cuda_target_info("a100")));
    for (const FuncSchedule& f : space.heuristic().funcs) {
      for (const StageSchedule& st : f.stages) EXPECT_FALSE(st.rfactor) << name << " " << f.func;
    }
  }
}

TEST(GpuRFactor, ChoicesFitTheStageAndTheDevice) {
  const auto sg = testing::spec_subgraph(softmax_spec(64, 4096));
  const TargetInfo target = cuda_target_info("h100");
  const Analysis a = analyze(*sg, target);
  const FuncAnalysis& mx = *a.find("y_max");
  const GpuRFactorChoice h = heuristic_gpu_rfactor(mx, mx.stages[1], target);
  EXPECT_EQ(h.factor, 256);
  EXPECT_EQ(h.threads_x, 0);
  Rng rng(3);
  std::set<int64_t> factors;
  for (int i = 0; i < 200; ++i) {
    const GpuRFactorChoice c = sampled_gpu_rfactor(mx, mx.stages[1], target, rng);
    factors.insert(c.factor);
    EXPECT_LE(c.final_threads, target.max_threads_per_block);
  }
  EXPECT_EQ(factors, (std::set<int64_t>{32, 64, 128, 256}));
  // The stage for a choice: the reduction split by F, its inner piece rfactored, and
  // what remains on 64 threads along the rows.
  const StageSchedule st = make_gpu_rfactor_stage(mx.stages[1], GpuRFactorChoice{64, 0, 32});
  ASSERT_EQ(st.splits.size(), 2u);
  EXPECT_EQ(st.splits[0].factor, 64);
  EXPECT_EQ(st.rfactor->loop, st.splits[0].inner);
  EXPECT_EQ(st.gpu.threads, Strings{"x_i"});
  EXPECT_EQ(st.gpu.blocks, Strings{"x_o"});
  EXPECT_TRUE(st.order.empty()) << "rfactor keeps Halide's order";
  std::string error;
  const auto intermediate = intermediate_loop_nest(mx.stages[1], st, &error);
  ASSERT_TRUE(intermediate) << error;
  ASSERT_EQ(intermediate->loops.size(), 2u);
  EXPECT_EQ(intermediate->loops[1].name, "u");
  EXPECT_EQ(intermediate->loops[1].extent, 64);
}

}  // namespace
}  // namespace ktune::scheduler
