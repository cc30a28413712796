#include "cost_model/extractor.h"

#include <tbb/blocked_range.h>
#include <tbb/enumerable_thread_specific.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include "cost_model/features.h"
#include "cost_model/internal/feature_inputs.h"
#include "cost_model/internal/footprint_cache.h"
#include "cost_model/internal/pipeline_facts.h"
#include "cost_model/internal/schedule_model.h"

namespace ktune::cost_model {

namespace {

// Memoized footprints per table (shared, and one per thread) before a table starts over.
// An entry is a few hundred bytes (key vector, box, node), so a full table is about 25 MB;
// the tuner keeps one extractor per subgraph for the whole run.
constexpr size_t kMaxFootprints = 1 << 16;

}  // namespace

struct FeatureExtractor::Impl {
  scheduler::Analysis analysis;        // the subgraph (a private copy)
  internal::PipelineFacts facts;       // precomputed once, read by every thread
  internal::SharedFootprints shared{kMaxFootprints};  // footprints computed by any thread
  // One footprint cache (with its isl context) per worker thread, made on first use.
  tbb::enumerable_thread_specific<std::unique_ptr<internal::FootprintCache>> caches;

  internal::FootprintCache& cache() {
    std::unique_ptr<internal::FootprintCache>& c = caches.local();
    if (!c) c = std::make_unique<internal::FootprintCache>(analysis, facts, &shared);
    return *c;
  }

  std::vector<float> one(const scheduler::Schedule& schedule) {
    internal::FootprintCache& c = cache();
    c.trim(kMaxFootprints);  // between schedules: no Footprint reference is held here
    const internal::ScheduleModel model = internal::build_schedule_model(analysis, facts, c, schedule);
    return internal::assemble(internal::make_feature_inputs(analysis, facts, model));
  }
};

FeatureExtractor::FeatureExtractor(const scheduler::Analysis& analysis) : impl_(std::make_unique<Impl>()) {
  impl_->analysis = analysis;
  impl_->facts = internal::build_pipeline_facts(impl_->analysis);
}

FeatureExtractor::~FeatureExtractor() = default;

const scheduler::Analysis& FeatureExtractor::analysis() const { return impl_->analysis; }

std::vector<float> FeatureExtractor::extract_one(const scheduler::Schedule& schedule) const {
  return impl_->one(schedule);
}

std::vector<std::vector<float>> FeatureExtractor::extract(const std::vector<scheduler::Schedule>& schedules,
                                                          int threads) const {
  std::vector<std::vector<float>> rows(schedules.size());
  auto body = [&] {
    tbb::parallel_for(tbb::blocked_range<size_t>(0, schedules.size(), 8), [&](const tbb::blocked_range<size_t>& r) {
      for (size_t i = r.begin(); i != r.end(); ++i) rows[i] = impl_->one(schedules[i]);
    });
  };
  if (threads > 0) {
    tbb::task_arena arena(threads);
    arena.execute(body);
  } else {
    body();
  }
  return rows;
}

ExtractorStats FeatureExtractor::stats() const {
  ExtractorStats s;
  for (const auto& c : impl_->caches) {
    if (!c) continue;
    s.footprints += c->lookups();
    s.isl_calls += c->misses();
    ++s.threads;
  }
  return s;
}

}  // namespace ktune::cost_model
