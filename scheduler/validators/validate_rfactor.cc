// rfactor: only on update stages that are associative reductions (f = f + e, *, min,
// max), on a reduction loop of the stage; after rfactor the stage's order, parallel,
// vector and unroll decisions may only name its pure loops (the reduction loops move to
// the intermediate Func; with pure_vector, small reduction pieces may be unrolled inside its
// vector loop), one of them at most in parallel. The intermediate is computed at root, or with at_func where the
// Func is (then u is vectorized), so what the reduction reads (directly or through inlined
// Funcs) must be computed at root, inlined, or (with at_func) at the Func's own loop. A
// pure_vector needs u parallel and a vector width the target allows that fits the Func's
// innermost pure loop. A root intermediate (the Func's region times the partial results)
// stays under 1 GiB.
#include <set>

#include "scheduler/input_pack.h"
#include "scheduler/loop_nest.h"
#include "scheduler/validators/validator.h"

namespace ktune::scheduler {
namespace {

// The first Func other than `self` read by `sa` (directly or through inlined Funcs) that is
// computed at a loop of some consumer other than `visible` (the intermediate's own location
// with at_func; null at root), which the rfactor intermediate cannot see. `walked` holds the
// inlined Funcs already looked into: each is walked once, however many paths lead to it.
std::optional<std::string> producer_inside_a_consumer(const Schedule& s, const Analysis& a, const StageAnalysis& sa,
                                                      const std::string& self, const ComputeLocation* visible,
                                                      std::set<int>& walked) {
  for (const ProducerUse& use : sa.uses) {
    if (use.func < 0) {
      // A pack of the input is a producer too (computed in a loop of the input's host).
      const InputPack* pack = find_pack(s, use.name);
      if (pack && pack->compute.kind == ComputeLocation::Kind::kAt && !(visible && pack->compute == *visible)) {
        return "the pack of " + use.name;
      }
      continue;
    }
    const FuncAnalysis& producer = a.funcs[use.func];
    if (producer.name == self) continue;  // the reduction's own accumulator
    const FuncSchedule* ps = s.find(producer.name);
    const ComputeLocation::Kind kind = ps ? ps->compute.kind : ComputeLocation::Kind::kRoot;
    if (kind == ComputeLocation::Kind::kAt && !(visible && ps->compute == *visible)) return producer.name;
    if (kind != ComputeLocation::Kind::kInline || !walked.insert(use.func).second) continue;
    for (const StageAnalysis& inlined : producer.stages) {
      if (auto found = producer_inside_a_consumer(s, a, inlined, self, visible, walked)) return found;
    }
  }
  return std::nullopt;
}

// Reduction pieces unrolled inside a pure_vector intermediate's vector loop, at most.
constexpr int64_t kMaxUnrolledRows = 8;

// A root intermediate holds the Func's whole region once per partial result; Halide 14
// refuses an allocation of 2^31 bytes or more, and one of half that is never worth it.
constexpr int64_t kMaxIntermediateBytes = int64_t{1} << 30;

// Bytes of a root rfactor intermediate: the Func's region times `partials` partial results.
int64_t root_intermediate_bytes(const FuncAnalysis& fa, int64_t partials) {
  int64_t bytes = fa.element_bytes * partials;
  for (int64_t e : fa.extents) bytes = e > 0 && bytes > kMaxIntermediateBytes / e ? kMaxIntermediateBytes + 1 : bytes * e;
  return bytes;
}

// at_func and pure_vector: where they apply and what they need.
std::optional<std::string> check_cpu_options(const RFactor& rf, const FuncSchedule& f, const StageAnalysis& sa,
                                             const Analysis& a) {
  if (rf.at_func) {
    if (f.compute.kind != ComputeLocation::Kind::kAt) return std::string("rfactor.at_func needs the Func computed at a consumer's loop");
    if (!rf.vectorize_u) return std::string("rfactor.at_func needs vectorize_u (no parallel loop inside a consumer's loop)");
  }
  if (rf.pure_vector == 0) return std::nullopt;
  if (rf.vectorize_u) return std::string("rfactor.pure_vector needs u parallel, not vectorized");
  const LoopAnalysis* x = sa.pure_loop(0);
  if (!x) return std::string("rfactor.pure_vector needs a pure loop");
  if (rf.pure_vector > x->extent || rf.pure_vector > sa.max_vector_width(a.target)) {
    return "rfactor.pure_vector " + std::to_string(rf.pure_vector) + " is wider than \"" + x->name + "\" (" +
           std::to_string(x->extent) + ") or the target's widest vector (" +
           std::to_string(sa.max_vector_width(a.target)) + ")";
  }
  return std::nullopt;
}

class RFactorValidator : public Validator {
 public:
  std::string_view name() const override { return "rfactor"; }

  std::optional<std::string> check(const Schedule& s, const Analysis& a) const override {
    for (const FuncSchedule& f : s.funcs) {
      const FuncAnalysis& fa = *a.find(f.func);
      for (const StageSchedule& st : f.stages) {
        if (!st.rfactor) continue;
        const StageAnalysis& sa = fa.stages[st.stage];
        const std::string where = f.func + " stage " + std::to_string(st.stage) + ": ";
        if (!sa.rfactor_ok) return where + "rfactor needs an associative reduction (f = f + e, *, min or max)";
        std::string error;
        const auto nest = build_loop_nest(sa, st, &error);
        if (!nest) continue;
        const NestLoop* l = nest->find(st.rfactor->loop);
        if (!l || !l->is_reduction) return where + "rfactor loop \"" + st.rfactor->loop + "\" is not a reduction loop";
        if (auto error = check_cpu_options(*st.rfactor, f, sa, a)) return where + *error;
        if (!st.rfactor->at_func && root_intermediate_bytes(fa, l->extent) > kMaxIntermediateBytes) {
          return where + "rfactor on \"" + st.rfactor->loop + "\" (" + std::to_string(l->extent) +
                 " partial results) needs a root intermediate over 1 GiB";
        }
        const bool at_func = st.rfactor->at_func;
        std::set<int> walked;
        if (auto inside = producer_inside_a_consumer(s, a, sa, f.func, at_func ? &f.compute : nullptr, walked)) {
          return where + "rfactor computes its intermediate " + (at_func ? "where the Func is" : "at root") +
                 ", so \"" + *inside + "\", which it reads, must be computed at root, inlined" +
                 (at_func ? " or at the Func's own loop" : "");
        }
        if (!st.order.empty()) return where + "a stage split with rfactor keeps its loop order";
        std::vector<std::string> named = st.parallel;
        for (const std::string& u : st.unroll) {
          const NestLoop* x = nest->find(u);
          // With pure_vector, a small reduction piece may be unrolled inside the intermediate's
          // vector loop (several rows per pass).
          const bool unrolled_row = st.rfactor->pure_vector && x && x->is_reduction && u != st.rfactor->loop &&
                                    x->extent <= kMaxUnrolledRows;
          if (!unrolled_row) named.push_back(u);
        }
        if (!st.vectorize.empty()) named.push_back(st.vectorize);
        for (const std::string& n : named) {
          const NestLoop* x = nest->find(n);
          if (x && x->is_reduction) return where + "after rfactor, \"" + n + "\" no longer belongs to this stage";
        }
        if (st.parallel.size() > 1) return where + "after rfactor, one pure loop at most runs in parallel";
        // Parallel loops must be outermost among the pure loops that remain.
        int pure_seen = 0;
        for (auto it = nest->loops.rbegin(); it != nest->loops.rend(); ++it) {
          if (it->is_reduction) continue;
          if (pure_seen < static_cast<int>(st.parallel.size()) && st.parallel[pure_seen] != it->name) {
            return where + "after rfactor, the parallel loops must be the outermost pure loops";
          }
          ++pure_seen;
        }
      }
    }
    return std::nullopt;
  }
};

}  // namespace

std::unique_ptr<Validator> make_rfactor_validator() { return std::make_unique<RFactorValidator>(); }

}  // namespace ktune::scheduler
