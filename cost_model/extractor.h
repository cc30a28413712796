// FeatureExtractor: feature vectors for many schedules of one subgraph, fast. Built once per
// subgraph (it precomputes the accesses with isl); extract() runs the schedules in parallel
// with TBB, each worker thread with its own isl context and footprint cache
// (tbb::enumerable_thread_specific), so isl objects never cross threads.
//
//   FeatureExtractor extractor(space.analysis());
//   std::vector<std::vector<float>> rows = extractor.extract(candidates);
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "scheduler/analysis.h"
#include "scheduler/schedule.h"

namespace ktune::cost_model {

// Counters of the per-thread footprint caches, summed over threads.
struct ExtractorStats {
  int64_t footprints = 0;  // footprint queries
  int64_t isl_calls = 0;   // of which computed with isl (cache misses)
  int threads = 0;         // worker threads that have a cache
};

class FeatureExtractor {
 public:
  // Copies the analysis; the extractor does not refer to the caller's copy afterwards.
  explicit FeatureExtractor(const scheduler::Analysis& analysis);
  ~FeatureExtractor();
  FeatureExtractor(const FeatureExtractor&) = delete;
  FeatureExtractor& operator=(const FeatureExtractor&) = delete;

  // One row per schedule, same order (feature_count() values each). `threads` > 0 limits
  // the worker threads; 0 lets TBB use every core. Thread-safe.
  std::vector<std::vector<float>> extract(const std::vector<scheduler::Schedule>& schedules, int threads = 0) const;
  // One schedule on the calling thread.
  std::vector<float> extract_one(const scheduler::Schedule& schedule) const;

  const scheduler::Analysis& analysis() const;
  ExtractorStats stats() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace ktune::cost_model
