// Writing a planned library into a folder: the archive, the header, Halide's runtime headers,
// the schedules, the test data with the check program, and the manifest, all moved in from
// a staging folder at the end; bad options fail before anything is written.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "common/error.h"
#include "kernels/export_files.h"
#include "kernels/library_export.h"
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
using ::testing::HasSubstr;

std::string read_file(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

class LibraryExport : public tuning_db::testing::TempDirTest {
 protected:
  fs::path dir() const { return dir_; }
  void SetUp() override {
    TempDirTest::SetUp();
    const targets::Device host = targets::detect_host_device();
    const auto sg = subgraphs::load_spec_subgraph(std::string(KTUNE_SOURCE_DIR) + "/tests/data/tiny_matmul.json");
    const scheduler::Space space(scheduler::analyze(*sg, scheduler::target_info_from_device(host)));
    {
      tuning_db::TuningDb db = schedule_store::open_tuning_db(db_path(), sqlite::OpenMode::kCreate);
      testing::store_measured(db, *sg, space.heuristic(), host, 4000);
    }
    ExportRequest request;
    request.db_path = db_path();
    request.workloads = {"tiny_matmul"};
    plan_ = plan_export(request);
  }
  std::string db_path() const { return (dir() / "t.db").string(); }
  LibraryOptions options(const std::string& name) const {
    LibraryOptions o;
    o.name = name;
    o.out = (dir() / "out").string();
    o.db_path = db_path();
    o.jobs = 1;
    return o;
  }

  ExportPlan plan_;
};

TEST_F(LibraryExport, WritesTheLibraryItsHeaderSchedulesTestDataAndManifestLast) {
  LibraryOptions o = options("mini");
  o.test_data = true;
  std::vector<std::string> notes;
  const ExportedLibrary lib = write_library(plan_, o, [&](const std::string& n) { notes.push_back(n); });
  const fs::path out = o.out;
  EXPECT_EQ(lib.archive_path, (out / "libmini.a").string());
  EXPECT_GT(fs::file_size(out / "libmini.a"), 0u);
  EXPECT_GT(lib.compiled.archive_bytes, 0);
  EXPECT_THAT(read_file(out / "include" / "mini.h"), HasSubstr("int ktune_tiny_matmul("));
  EXPECT_TRUE(fs::exists(out / "include" / "HalideBuffer.h"));
  EXPECT_TRUE(fs::exists(out / "schedules" / "ktune_tiny_matmul.cc"));
  EXPECT_TRUE(fs::exists(out / "test_data" / "check.cc"));
  EXPECT_TRUE(fs::exists(out / "test_data" / "ktune_tiny_matmul" / "c.ref.f32"));
  const nlohmann::json manifest = nlohmann::json::parse(read_file(out / "manifest.json"));
  EXPECT_EQ(manifest.dump(), nlohmann::json::parse(lib.manifest.dump()).dump());
  EXPECT_EQ(manifest["kernels"].at(0)["status"], "tuned");
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_THAT(notes[0], HasSubstr("compiling 1 kernels"));
  for (const auto& entry : fs::directory_iterator(out)) {
    EXPECT_THAT(entry.path().filename().string(), ::testing::Not(HasSubstr(".ktune-export")));
  }
}

TEST_F(LibraryExport, BadOptionsFailBeforeAnythingIsWritten) {
  const auto quiet = [](const std::string&) {};
  EXPECT_THROW(write_library(plan_, options("not-an-identifier"), quiet), UserError);
  EXPECT_FALSE(fs::exists(dir() / "out"));
  std::ofstream(dir() / "file") << "x";
  LibraryOptions on_file = options("mini");
  on_file.out = (dir() / "file").string();
  EXPECT_THROW(write_library(plan_, on_file, quiet), UserError);
  LibraryOptions no_out = options("mini");
  no_out.out.clear();
  EXPECT_THROW(check_library_options(no_out), UserError);
}

}  // namespace
}  // namespace ktune::kernels
