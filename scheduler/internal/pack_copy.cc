#include "scheduler/internal/pack_copy.h"

#include <algorithm>
#include <vector>

#include "scheduler/input_pack.h"

namespace ktune::scheduler {
namespace {

// The copy's loops, innermost first: each one's Halide variable, its name in the printed
// source and its iterations.
struct CopyLoops {
  std::vector<Halide::Var> vars;
  std::vector<std::string> texts;
  std::vector<int64_t> extents;

  std::string listed() const {
    std::string out;
    for (const std::string& t : texts) out += (out.empty() ? "" : ", ") + t;
    return out;
  }
};

CopyLoops storage_order(const Halide::Func& copy, const std::string& id, const InputPack& pack,
                        const InputAnalysis& input) {
  const std::vector<Halide::Var> args = copy.args();
  CopyLoops loops;
  for (const std::string& dim : pack.storage) {
    const int d = input_dim_index(input, dim);
    if (d < 0 || d >= static_cast<int>(args.size())) {
      throw Halide::CompileError("input \"" + pack.input + "\" has no dimension \"" + dim + "\"");
    }
    loops.vars.push_back(args[d]);
    loops.texts.push_back(id + ".args()[" + std::to_string(d) + "]");
    loops.extents.push_back(d < static_cast<int>(input.extents.size()) ? input.extents[d] : 1);
  }
  return loops;
}

// A transposing copy, vectorized along a dimension that is strided in the input: split
// into columns one vector wide, each walked along the input's contiguous dimension, so
// that the vector's rows stay in cache from one gather to the next (walking the whole
// strided dimension per element of the contiguous one misses the cache and the TLB on
// every gather). `loops` become the copy's loops.
void copy_in_vector_columns(Halide::Func& copy, const std::string& id, int64_t width, CopyLoops& loops,
                            std::ostream& text) {
  const Halide::Var inner(id + "_vi"), outer(id + "_vo");
  copy.split(loops.vars.front(), outer, inner, static_cast<int>(width), Halide::TailStrategy::GuardWithIf);
  text << "  Var " << id << "_vo(\"" << id << "_vo\"), " << id << "_vi(\"" << id << "_vi\");\n";
  text << "  " << id << ".split(" << loops.texts.front() << ", " << id << "_vo, " << id << "_vi, " << width
       << ", TailStrategy::GuardWithIf);\n";
  const int64_t columns = (loops.extents.front() + width - 1) / width;
  loops.vars.front() = inner;
  loops.texts.front() = id + "_vi";
  loops.extents.front() = width;
  const Halide::Var contiguous = copy.args().front();
  const auto at = std::find_if(loops.vars.begin(), loops.vars.end(), [&](const Halide::Var& v) { return v.same_as(contiguous); }) -
                  loops.vars.begin() + 1;
  loops.vars.insert(loops.vars.begin() + at, outer);
  loops.texts.insert(loops.texts.begin() + at, id + "_vo");
  loops.extents.insert(loops.extents.begin() + at, columns);
  copy.reorder(std::vector<Halide::VarOrRVar>(loops.vars.begin(), loops.vars.end()));
  copy.vectorize(inner);
  text << "  " << id << ".reorder(" << loops.listed() << ");\n  " << id << ".vectorize(" << id << "_vi);\n";
}

// The outermost loop with more than one iteration (not a batch of one), never the
// vectorized innermost one; the outermost where there is none.
size_t parallel_loop(const CopyLoops& loops) {
  size_t p = loops.vars.size() - 1;
  while (p > 1 && loops.extents[p] <= 1) --p;
  return loops.extents[p] > 1 ? p : loops.vars.size() - 1;
}

}  // namespace

void schedule_pack_copy(Halide::Func& copy, const std::string& id, const InputPack& pack, const InputAnalysis& input,
                        std::ostream& text) {
  CopyLoops loops = storage_order(copy, id, pack, input);
  if (loops.vars.size() > 1) {
    copy.reorder_storage(loops.vars);
    copy.reorder(std::vector<Halide::VarOrRVar>(loops.vars.begin(), loops.vars.end()));
    text << "  " << id << ".reorder_storage(" << loops.listed() << ");\n  " << id << ".reorder(" << loops.listed() << ");\n";
  }
  if (pack.vector_width >= 2 && loops.vars.front().same_as(copy.args().front())) {
    copy.vectorize(loops.vars.front(), static_cast<int>(pack.vector_width), Halide::TailStrategy::GuardWithIf);
    text << "  " << id << ".vectorize(" << loops.texts.front() << ", " << pack.vector_width
         << ", TailStrategy::GuardWithIf);\n";
  } else if (pack.vector_width >= 2) {
    copy_in_vector_columns(copy, id, pack.vector_width, loops, text);
  }
  if (pack.parallel && loops.vars.size() > 1) {
    const size_t p = parallel_loop(loops);
    copy.parallel(loops.vars[p]);
    text << "  " << id << ".parallel(" << loops.texts[p] << ");\n";
  }
}

}  // namespace ktune::scheduler
