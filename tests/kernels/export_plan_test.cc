// Planning an export: each requested workload gets a function and the database's best
// schedule on the device, applied and lowered, or the fallback with the reason; a
// `--fallback error` plan holds no kernels and names every untuned workload.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>

#include "common/error.h"
#include "kernels/export_plan.h"
#include "schedule_store/stored_database.h"
#include "scheduler/space.h"
#include "scheduler/target_info.h"
#include "subgraphs/spec_subgraph.h"
#include "targets/host_detect.h"
#include "tests/schedule_store/store_test_db.h"
#include "tests/tuning_db/test_util.h"

namespace ktune::kernels {
namespace {

namespace fs = std::filesystem;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

std::string data(const char* name) { return std::string(KTUNE_SOURCE_DIR) + "/tests/data/" + name; }

// A database where tiny_matmul is tuned (its naive schedule at 5 us) and tiny_softmax is
// known but stored with a schedule that no longer applies.
class ExportPlanTest : public tuning_db::testing::TempDirTest {
 protected:
  fs::path dir() const { return dir_; }
  void SetUp() override {
    TempDirTest::SetUp();
    const targets::Device host = targets::detect_host_device();
    const scheduler::TargetInfo target = scheduler::target_info_from_device(host);
    tuning_db::TuningDb db = schedule_store::open_tuning_db(db_path(), sqlite::OpenMode::kCreate);
    const auto matmul = subgraphs::load_spec_subgraph(data("tiny_matmul.json"));
    const scheduler::Space matmul_space(scheduler::analyze(*matmul, target));
    tuned_hash_ = testing::store_measured(db, *matmul, matmul_space.naive(), host, 5000);
    const auto softmax = subgraphs::load_spec_subgraph(data("tiny_softmax.json"));
    const scheduler::Space softmax_space(scheduler::analyze(*softmax, target));
    testing::store_unappliable(db, *softmax, softmax_space.heuristic(), host, 1000);
    softmax_heuristic_ = softmax_space.heuristic().hash();
  }
  std::string db_path() const { return (dir() / "t.db").string(); }
  ExportRequest request(std::vector<std::string> workloads) const {
    ExportRequest r;
    r.db_path = db_path();
    r.workloads = std::move(workloads);
    return r;
  }

  std::string tuned_hash_, softmax_heuristic_;
};

TEST_F(ExportPlanTest, TunedWorkloadsGetTheirStoredBestAndOthersTheHeuristicWithTheReason) {
  const ExportPlan plan = plan_export(request({"tiny_softmax", "tiny_matmul"}));
  EXPECT_EQ(plan.device_key, targets::device_key(targets::detect_host_device()));
  ASSERT_EQ(plan.kernels.size(), 2u);
  const PlannedKernel& matmul = plan.kernels[0];  // ordered by name
  EXPECT_EQ(matmul.function, "ktune_tiny_matmul");
  EXPECT_TRUE(matmul.tuned);
  EXPECT_EQ(matmul.schedule_hash, tuned_hash_);
  EXPECT_DOUBLE_EQ(matmul.best->measurement.median_ns.value_or(-1), 5000);
  EXPECT_TRUE(matmul.applied.ok);
  const PlannedKernel& softmax = plan.kernels[1];
  EXPECT_FALSE(softmax.tuned);
  EXPECT_EQ(softmax.fallback, "heuristic");
  EXPECT_EQ(softmax.schedule_hash, softmax_heuristic_);
  EXPECT_THAT(softmax.fallback_reason, HasSubstr("no longer applies"));
  ASSERT_EQ(plan.untuned.size(), 1u);
  EXPECT_THAT(plan.untuned[0], HasSubstr("tiny_softmax"));
}

TEST_F(ExportPlanTest, FallbackErrorPlansNothingAndNamesEveryUntunedWorkload) {
  ExportRequest r = request({"tiny_matmul", "tiny_softmax", data("u8_blur.json")});
  r.fallback = ExportFallback::kError;
  const ExportPlan plan = plan_export(r);
  EXPECT_TRUE(plan.kernels.empty());
  ASSERT_EQ(plan.untuned.size(), 2u);
  EXPECT_THAT(plan.untuned[1], HasSubstr("no ok measurement on device"));
}

TEST_F(ExportPlanTest, AllIsEveryWorkloadTunedOnTheDeviceAndBadRequestsAreUserErrors) {
  ExportRequest all = request({});
  all.all = true;
  std::vector<std::string> names;
  for (const PlannedKernel& k : plan_export(all).kernels) names.push_back(k.workload_name);
  EXPECT_THAT(names, ElementsAre("tiny_matmul", "tiny_softmax"));  // both have an ok row

  EXPECT_THROW(plan_export(request({"no_such_workload"})), UserError);
  EXPECT_THROW(plan_export(request({})), UserError);
  ExportRequest other = request({"tiny_matmul"});
  other.device = "0123abcd";
  EXPECT_THROW(plan_export(other), UserError);
  ExportRequest missing = request({"tiny_matmul"});
  missing.db_path = (dir() / "missing.db").string();
  EXPECT_THROW(plan_export(missing), UserError);
}

TEST_F(ExportPlanTest, OneWorkloadAskedForTwiceIsOneKernel) {
  const ExportPlan plan = plan_export(request({"tiny_matmul", data("tiny_matmul.json")}));
  ASSERT_EQ(plan.kernels.size(), 1u);
  EXPECT_TRUE(plan.kernels[0].tuned);
}

}  // namespace
}  // namespace ktune::kernels
