#include "scheduler/dependences.h"

namespace ktune::scheduler {
namespace {

std::string tuple(int dims) {
  std::string s = "S[";
  for (int d = 0; d < dims; ++d) s += (d ? ", d" : "d") + std::to_string(d);
  return s + "]";
}

}  // namespace

LoopDependences loop_dependences(const IslContext& isl, const std::string& domain_text, const std::string& writes_text,
                                 const std::string& self_reads_text, int dims) {
  LoopDependences result;
  result.carries.assign(dims, true);
  isl.reset_operations();
  try {
    isl::ctx ctx = isl.ctx();
    const isl::union_set domain(ctx, domain_text);
    const isl::union_map writes = isl::union_map(ctx, writes_text).intersect_domain(domain);
    const isl::union_map reads = self_reads_text.empty()
                                     ? isl::union_map(ctx, "{ }")
                                     : isl::union_map(ctx, self_reads_text).intersect_domain(domain);
    const std::string t = tuple(dims);
    const isl::union_map schedule = isl::union_map(ctx, "{ " + t + " -> [" + t.substr(2) + " }").intersect_domain(domain);
    // May sources: an over-approximated access (a non-affine index reaches a whole dimension) must not hide an
    // earlier one by seeming to overwrite it, so every earlier access to the same element counts.
    auto flow = [&](const isl::union_map& sink, const isl::union_map& source) {
      return isl::union_access_info(sink).set_may_source(source).set_schedule_map(schedule).compute_flow().may_dependence();
    };
    const isl::union_map deps = flow(reads, writes).unite(flow(writes, writes)).unite(flow(writes, reads));
    const isl::union_set deltas = deps.deltas();
    for (int d = 0; d < dims; ++d) {
      const isl::union_set nonzero(ctx, "{ " + t + " : d" + std::to_string(d) + " < 0 or d" + std::to_string(d) + " > 0 }");
      result.carries[d] = !deltas.intersect(nonzero).is_empty();
    }
  } catch (const isl::exception& e) {
    result.carries.assign(dims, true);
    result.status = isl.quota_exceeded() ? "isl operations quota exceeded; assuming every loop carries a dependence"
                                         : std::string("isl error (") + e.what() + "); assuming every loop carries a dependence";
  }
  return result;
}

}  // namespace ktune::scheduler
