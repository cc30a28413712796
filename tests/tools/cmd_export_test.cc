// `ktune export` on a small database written through the public API (no tuning): one
// workload tuned with a known schedule and time, one untuned. Checks the archive holds
// every function and exactly one Halide runtime, and what the header, manifest, table and
// schedule sources say; --fallback error fails and writes nothing; bad flags exit 2.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <unistd.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "scheduler/space.h"
#include "scheduler/target_info.h"
#include "subgraphs/spec_subgraph.h"
#include "targets/host_detect.h"
#include "tuning_db/tuning_db.h"
#include "tests/targets/archive_symbols.h"
#include "tests/tools/cli_runner.h"

namespace ktune {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using ::testing::Not;
using testing::run_ktune;

std::string data(const char* name) { return std::string(KTUNE_SOURCE_DIR) + "/tests/data/" + name; }

std::string run_capture(const std::string& cmd) {
  std::string out;
  FILE* pipe = popen((cmd + " 2>&1").c_str(), "r");
  std::array<char, 4096> buf;
  size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), pipe)) > 0) out.append(buf.data(), n);
  pclose(pipe);
  return out;
}

std::string read_file(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string schedule_hash(const char* spec, bool naive) {
  const auto sg = subgraphs::load_spec_subgraph(data(spec));
  const scheduler::Space space(
      scheduler::analyze(*sg, scheduler::target_info_from_device(targets::detect_host_device())));
  return (naive ? space.naive() : space.heuristic()).hash();
}

class CmdExport : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    // One folder per process: ctest runs each test of this suite in its own process, in parallel.
    dir_ = fs::path(::testing::TempDir()) / ("export_" + std::to_string(getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    db_ = (dir_ / "tuning.db").string();
    const std::string made = run_capture(std::string(KTUNE_EXPORT_TEST_DB) + " " + db_ + " 123456 789 " +
                                         data("tiny_matmul.json"));
    ASSERT_THAT(made, HasSubstr("tiny_matmul ")) << made;
    export_ = run_ktune("export --db " + db_ + " --workload " + data("tiny_softmax.json") + " --workload " +
                        data("tiny_matmul.json") + " --out " + (dir_ / "lib").string() + " --name tiny_kernels --test-data");
  }
  static void TearDownTestSuite() { fs::remove_all(dir_); }

  static fs::path dir_;
  static std::string db_;
  static testing::CliResult export_;
};
fs::path CmdExport::dir_;
std::string CmdExport::db_;
testing::CliResult CmdExport::export_;

TEST_F(CmdExport, ArchiveHoldsEveryFunctionAndOneRuntime) {
  ASSERT_EQ(export_.exit_code, 0) << export_.out;
  const fs::path archive = dir_ / "lib" / "libtiny_kernels.a";
  ASSERT_TRUE(fs::exists(archive));
  // Each function once, and the runtime exactly once however many kernels use it.
  for (const char* symbol : {"ktune_tiny_matmul", "ktune_tiny_softmax", "halide_malloc", "halide_do_par_for",
                             "halide_error"}) {
    EXPECT_EQ(testing::defined_symbol_count(archive.string(), symbol), 1) << symbol;
  }
  // The staging folder is gone.
  for (const auto& entry : fs::directory_iterator(dir_ / "lib")) {
    EXPECT_THAT(entry.path().filename().string(), Not(HasSubstr(".ktune-export")));
  }
}

TEST(CmdExportCuda, KnownCardGetsCudaKernelsWithOneRuntime) {
  // Nothing was measured on an H100: every kernel falls back to the CUDA space's heuristic,
  // compiled for the card's target, with one CUDA runtime for the library.
  const fs::path dir = fs::path(::testing::TempDir()) / ("export_cuda_" + std::to_string(getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  const std::string db = (dir / "empty.db").string();
  tuning_db::TuningDb::open(db, tuning_db::OpenOptions{});  // an empty database
  const testing::CliResult r = run_ktune("export --db " + db + " --device h100 --workload " +
                                         data("tiny_softmax.json") + " --workload " + data("tiny_matmul.json") +
                                         " --out " + (dir / "lib").string() + " --name gpu_kernels");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  const std::string archive = (dir / "lib" / "libgpu_kernels.a").string();
  for (const char* symbol : {"ktune_tiny_matmul", "ktune_tiny_softmax", "halide_cuda_device_interface",
                             "halide_malloc"}) {
    EXPECT_EQ(testing::defined_symbol_count(archive, symbol), 1) << symbol;
  }
  const auto m = nlohmann::json::parse(read_file(dir / "lib" / "manifest.json"));
  EXPECT_THAT(m["halide_target"].get<std::string>(), HasSubstr("cuda_capability_86"));
  for (const auto& k : m["kernels"]) EXPECT_EQ(k["fallback"], "heuristic") << k.dump();
  EXPECT_THAT(read_file(dir / "lib" / "schedules" / "ktune_tiny_matmul.cc"), HasSubstr("gpu_blocks"));
  fs::remove_all(dir);
}

TEST_F(CmdExport, ManifestSaysTunedOrFallbackWithTimesAndHashes) {
  ASSERT_EQ(export_.exit_code, 0) << export_.out;
  const auto m = nlohmann::json::parse(read_file(dir_ / "lib" / "manifest.json"));
  EXPECT_EQ(m["library"], "libtiny_kernels.a");
  EXPECT_EQ(m["header"], "include/tiny_kernels.h");
  EXPECT_EQ(m["device_key"], targets::device_key(targets::detect_host_device()));
  EXPECT_EQ(m["ktune_version"], KTUNE_VERSION);
  ASSERT_EQ(m["kernels"].size(), 2u);
  const auto& mm = m["kernels"][0];  // sorted by workload name
  EXPECT_EQ(mm["function"], "ktune_tiny_matmul");
  EXPECT_EQ(mm["status"], "tuned");
  EXPECT_EQ(mm["schedule_hash"], schedule_hash("tiny_matmul.json", /*naive=*/true));
  EXPECT_EQ(mm["median_ns"].get<double>(), 123456);
  EXPECT_EQ(mm["spread_ns"].get<double>(), 789);
  EXPECT_EQ(mm["workload_key"], subgraphs::load_spec_subgraph(data("tiny_matmul.json"))->key().key);
  EXPECT_EQ(mm["measured_with"]["ktune_version"], KTUNE_VERSION);
  const auto& sm = m["kernels"][1];
  EXPECT_EQ(sm["function"], "ktune_tiny_softmax");
  EXPECT_EQ(sm["status"], "fallback");
  EXPECT_EQ(sm["fallback"], "heuristic");
  EXPECT_EQ(sm["schedule_hash"], schedule_hash("tiny_softmax.json", /*naive=*/false));
  EXPECT_TRUE(sm["median_ns"].is_null());
  EXPECT_EQ(sm["outputs"][0]["shape"], nlohmann::json::array({64, 256}));
}

TEST_F(CmdExport, HeaderDeclaresFunctionsWithShapesHashAndTime) {
  ASSERT_EQ(export_.exit_code, 0) << export_.out;
  const std::string h = read_file(dir_ / "lib" / "include" / "tiny_kernels.h");
  EXPECT_THAT(h, HasSubstr("int ktune_tiny_matmul(struct halide_buffer_t *a, struct halide_buffer_t *b, "
                           "struct halide_buffer_t *c);"));
  EXPECT_THAT(h, HasSubstr("int ktune_tiny_softmax(struct halide_buffer_t *x, struct halide_buffer_t *y);"));
  EXPECT_THAT(h, HasSubstr("input  a: f32 [64, 96]"));
  EXPECT_THAT(h, HasSubstr("output c: f32 [64, 128]"));
  EXPECT_THAT(h, HasSubstr(schedule_hash("tiny_matmul.json", true) + " (tuned): median 123.5 us, spread 789 ns"));
  EXPECT_THAT(h, HasSubstr("FALLBACK: heuristic schedule"));
  EXPECT_THAT(h, HasSubstr("innermost first"));
  EXPECT_TRUE(fs::exists(dir_ / "lib" / "include" / "HalideRuntime.h"));
  EXPECT_TRUE(fs::exists(dir_ / "lib" / "include" / "HalideBuffer.h"));
}

TEST_F(CmdExport, TableAndWarningsMarkTheFallback) {
  ASSERT_EQ(export_.exit_code, 0) << export_.out;
  EXPECT_THAT(export_.out, HasSubstr("WARNING: 1 requested workload(s) have no usable tuned schedule"));
  EXPECT_THAT(export_.out, HasSubstr("tiny_softmax"));
  EXPECT_THAT(export_.out, HasSubstr("FALLBACK(heuristic)"));
  EXPECT_THAT(export_.out, HasSubstr("123.5 us"));
}

TEST_F(CmdExport, SchedulesAndTestDataBesideTheLibrary) {
  ASSERT_EQ(export_.exit_code, 0) << export_.out;
  const std::string src = read_file(dir_ / "lib" / "schedules" / "ktune_tiny_softmax.cc");
  EXPECT_THAT(src, HasSubstr("FALLBACK"));
  EXPECT_THAT(src, HasSubstr("using namespace Halide;"));
  // Seeded inputs and references: row-major float32, one file per tensor.
  EXPECT_EQ(fs::file_size(dir_ / "lib" / "test_data" / "ktune_tiny_matmul" / "a.f32"), 64u * 96 * 4);
  EXPECT_EQ(fs::file_size(dir_ / "lib" / "test_data" / "ktune_tiny_matmul" / "c.ref.f32"), 64u * 128 * 4);
  EXPECT_EQ(fs::file_size(dir_ / "lib" / "test_data" / "ktune_tiny_softmax" / "y.ref.f32"), 64u * 256 * 4);
  // The self-check program calls every function on its test data (tests/cmake_package runs it).
  const std::string check = read_file(dir_ / "lib" / "test_data" / "check.cc");
  EXPECT_THAT(check, HasSubstr("#include \"tiny_kernels.h\""));
  EXPECT_THAT(check, HasSubstr("ktune_tiny_matmul(t_a, t_b, t_c)"));
  EXPECT_THAT(check, HasSubstr("/ktune_tiny_softmax/y.ref.f32"));
}

TEST_F(CmdExport, FallbackErrorFailsNamingTheWorkloadAndWritesNothing) {
  const fs::path out = dir_ / "refused";
  const auto r = run_ktune("export --db " + db_ + " --workload " + data("tiny_softmax.json") + " --workload " +
                           data("tiny_matmul.json") + " --out " + out.string() + " --fallback error");
  EXPECT_EQ(r.exit_code, 1) << r.out;
  EXPECT_THAT(r.out, HasSubstr("tiny_softmax"));
  EXPECT_THAT(r.out, HasSubstr("--fallback error"));
  EXPECT_FALSE(fs::exists(out / "manifest.json"));
  EXPECT_FALSE(fs::exists(out / "libktune_kernels.a"));
}

TEST_F(CmdExport, ExportAllByNameAndErrors) {
  // --all: the tuned workloads of the device, rebuilt from their stored specs.
  const fs::path out = dir_ / "all";
  const auto all = run_ktune("export --db " + db_ + " --all --out " + out.string() + " --format json");
  ASSERT_EQ(all.exit_code, 0) << all.out;
  const auto m = nlohmann::json::parse(read_file(out / "manifest.json"));
  ASSERT_EQ(m["kernels"].size(), 1u);
  EXPECT_EQ(m["kernels"][0]["workload"], "tiny_matmul");

  EXPECT_EQ(run_ktune("export --db " + db_ + " --workload nothing_like_this --out " + out.string()).exit_code, 2);
  EXPECT_EQ(run_ktune("export --db " + db_ + " --out " + out.string()).exit_code, 2);
  EXPECT_EQ(run_ktune("export --db " + db_ + " --all --out " + out.string() + " --name bad-name").exit_code, 2);
  EXPECT_EQ(run_ktune("export --db " + db_ + " --all --out " + out.string() + " --fallback maybe").exit_code, 2);
  EXPECT_EQ(run_ktune("export --db /nonexistent.db --all --out " + out.string()).exit_code, 2);
  EXPECT_EQ(run_ktune("export --db " + db_ + " --all --out " + db_).exit_code, 2);  // --out is a file

  const auto help = run_ktune("export --help");
  EXPECT_EQ(help.exit_code, 0);
  EXPECT_THAT(help.out, HasSubstr("--fallback"));
  EXPECT_THAT(run_ktune("--help").out, HasSubstr("export"));
}

TEST_F(CmdExport, CollidingNamesGetDistinctFunctionsWhateverTheFlagOrder) {
  // The same name at two shapes: two workloads, two functions, numbered by workload key.
  const fs::path specs = dir_ / "specs";
  fs::create_directories(specs);
  auto spec = [&](const std::string& file, const std::string& name, int n) {
    std::ofstream(specs / file) << R"({"name": ")" << name << R"(", "inputs": [{"name": "a", "shape": [8, )" << n
                                << R"(]}, {"name": "b", "shape": [)" << n
                                << R"(, 8]}], "ops": [{"op": "matmul", "inputs": ["a", "b"], "output": "c"}], "outputs": ["c"]})";
    return (specs / file).string();
  };
  const std::string one = spec("one.json", "mm_x", 16), two = spec("two.json", "mm_x", 32);
  auto functions = [&](const std::string& flags, const std::string& out) {
    const auto r = run_ktune("export --db " + db_ + " " + flags + " --out " + (dir_ / out).string());
    EXPECT_EQ(r.exit_code, 0) << r.out;
    std::map<std::string, std::string> by_key;
    const auto manifest = nlohmann::json::parse(read_file(dir_ / out / "manifest.json"));
    for (const auto& k : manifest["kernels"]) {
      by_key[k["workload_key"]] = k["function"];
    }
    return by_key;
  };
  const auto a = functions("--workload " + one + " --workload " + two, "order_a");
  const auto b = functions("--workload " + two + " --workload " + one, "order_b");
  EXPECT_EQ(a, b);
  std::set<std::string> names;
  for (const auto& [key, fn] : a) names.insert(fn);
  EXPECT_EQ(names, (std::set<std::string>{"ktune_mm_x", "ktune_mm_x_2"}));
  const std::string archive = (dir_ / "order_a" / "libktune_kernels.a").string();
  EXPECT_EQ(testing::defined_symbol_count(archive, "ktune_mm_x"), 1);
  EXPECT_EQ(testing::defined_symbol_count(archive, "ktune_mm_x_2"), 1);
}

}  // namespace
}  // namespace ktune
