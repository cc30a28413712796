// AOT emission: two kernels whose Funcs share names go into one archive with one Halide
// runtime (counted with nm), under their own function names; bad names and targets are
// user errors.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <unistd.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <sstream>

#include "common/error.h"
#include "targets/aot_library.h"
#include "targets/host_target.h"

namespace ktune::targets {
namespace {

namespace fs = std::filesystem;

std::string nm_defined(const std::string& archive) {
  std::string out;
  FILE* pipe = popen(("nm --defined-only " + archive + " 2>&1").c_str(), "r");
  std::array<char, 4096> buf;
  size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), pipe)) > 0) out.append(buf.data(), n);
  pclose(pipe);
  return out;
}

int definitions(const std::string& nm, const std::string& symbol) {
  int count = 0;
  std::istringstream lines(nm);
  for (std::string line; std::getline(lines, line);) {
    std::istringstream words(line);
    std::string address, kind, name;
    if (words >> address >> kind >> name && name == symbol) ++count;
  }
  return count;
}

// A small parallel, vectorized kernel: out(x, y) = in(x, y) * scale + y.
AotKernel scale_kernel(const std::string& function, float scale) {
  Halide::ImageParam in(Halide::Float(32), 2, "in");
  Halide::Var x("x"), y("y");
  Halide::Func out("out");
  out(x, y) = in(x, y) * scale + Halide::cast<float>(y);
  out.vectorize(x, 8).parallel(y);
  return {function, Halide::Pipeline(out), {in}};
}

class AotLibrary : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::path(::testing::TempDir()) / ("aot_" + std::to_string(getpid()));
    fs::remove_all(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
};

TEST_F(AotLibrary, OneRuntimeForAllKernels) {
  const std::string archive = (dir_ / "libk.a").string();
  const AotLibraryStats s = write_static_library({scale_kernel("k_one", 2.f), scale_kernel("k_two", 3.f)},
                                                 host_halide_target(), archive, (dir_ / "obj").string(), 2);
  EXPECT_EQ(s.kernels, 2);
  ASSERT_EQ(s.objects.size(), 3u);
  EXPECT_EQ(s.archive_bytes, static_cast<int64_t>(fs::file_size(archive)));
  const std::string nm = nm_defined(archive);
  EXPECT_EQ(definitions(nm, "k_one"), 1) << nm;
  EXPECT_EQ(definitions(nm, "k_two"), 1);
  EXPECT_EQ(definitions(nm, "halide_malloc"), 1);
  EXPECT_EQ(definitions(nm, "halide_do_par_for"), 1);
  EXPECT_EQ(definitions(nm, "halide_error"), 1);
}

TEST_F(AotLibrary, RefusesBadNamesAndTargets) {
  const std::string archive = (dir_ / "libk.a").string();
  const std::string obj = (dir_ / "obj").string();
  EXPECT_THROW(write_static_library({scale_kernel("bad-name", 1.f)}, host_halide_target(), archive, obj), UserError);
  EXPECT_THROW(write_static_library({scale_kernel("same", 1.f), scale_kernel("same", 2.f)}, host_halide_target(),
                                    archive, obj),
               UserError);
  EXPECT_THROW(write_static_library({scale_kernel("k", 1.f)}, "not-a-target", archive, obj), UserError);
  EXPECT_FALSE(fs::exists(archive));
}

TEST(AotRuntimeHeaders, Exist) {
  for (const std::string& h : halide_runtime_headers()) EXPECT_TRUE(fs::exists(h)) << h;
}

}  // namespace
}  // namespace ktune::targets
