// AOT emission: two kernels whose Funcs share names go into one archive with one Halide
// runtime (counted with nm), under their own function names; bad names and targets are
// user errors.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>

#include "common/error.h"
#include "targets/aot_library.h"
#include "targets/host_target.h"
#include "tests/targets/archive_symbols.h"

namespace ktune::targets {
namespace {

namespace fs = std::filesystem;

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
  for (const char* symbol : {"k_one", "k_two", "halide_malloc", "halide_do_par_for", "halide_error"}) {
    EXPECT_EQ(testing::defined_symbol_count(archive, symbol), 1) << symbol;
  }
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
