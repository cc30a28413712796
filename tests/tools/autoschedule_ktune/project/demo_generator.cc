// The Generator the plugin tests build: a 3x3 box blur of an image, each row scaled by a
// gain. Built twice from this one file: as a shared library that ktune loads
// (`--generator`) and as a Generator executable that runs the autoscheduler plugin.
#include <Halide.h>

namespace {

using namespace Halide;

class PluginDemo : public Generator<PluginDemo> {
 public:
  GeneratorParam<int> width{"width", 256};
  GeneratorParam<int> height{"height", 64};
  Input<Buffer<float>> input{"input", 2};
  Input<Buffer<float>> gain{"gain", 1};
  Output<Buffer<float>> output{"output", 2};

  void generate() {
    blur_x(x, y) = input(x, y) + input(x + 1, y) + input(x + 2, y);
    output(x, y) = (blur_x(x, y) + blur_x(x, y + 1) + blur_x(x, y + 2)) * (gain(y) / 9.0f);
  }

  void schedule() {
    input.set_estimates({{0, width + 2}, {0, height + 2}});
    gain.set_estimates({{0, height}});
    output.set_estimates({{0, width}, {0, height}});
    if (!auto_schedule) output.vectorize(x, 8).parallel(y);
  }

 private:
  Var x{"x"}, y{"y"};
  Func blur_x{"blur_x"};
};

}  // namespace

HALIDE_REGISTER_GENERATOR(PluginDemo, ktune_plugin_demo)
