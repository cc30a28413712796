// EvolutionarySearch proposes the next candidates of one subgraph to measure, as a chain of
// named steps:
//   1. seed_population: the seeds given (the database's best schedules, heuristic, naive,
//      schedules of the same algorithm at other shapes), topped up with fresh samples;
//   2. evolve: generations of mutation and crossover, scored by the cost model, with every
//      schedule deduplicated by hash;
//   3. pick: the predicted best schedules not measured yet, plus a few random ones
//      (epsilon-greedy exploration).
// Measuring and retraining (steps 4 and 5 of a round) belong to the Tuner.
#pragma once

#include <functional>
#include <set>
#include <string>
#include <vector>

#include "scheduler/rng.h"
#include "scheduler/schedule.h"

namespace ktune::scheduler {
class Space;
}
namespace ktune::cost_model {
class CostModel;
class FeatureExtractor;
}  // namespace ktune::cost_model

namespace ktune::search {

// Defaults chosen for 2 cores, where one candidate costs about half a second to compile
// and a fraction of a second to time (Ansor's are 2048, 4, 0.85, 0.05 and 64 on servers):
// a smaller population still scores in well under a second, and smaller batches let the
// model retrain after every few measurements.
struct SearchParams {
  int population = 256;               // schedules alive in each generation
  int generations = 3;                // generations evolved per round
  double mutation_probability = 0.85; // a child is a mutation with this probability, else a crossover
  double epsilon = 0.15;              // fraction of each batch picked at random (exploration)
  int batch = 8;                      // candidates measured per round
  bool random_search = false;         // baseline: measure fresh random samples, no model, no evolution
  // Random search only (`ktune sample`, which gathers training data): the share of each
  // batch that mutates a seed, half the time one of the fastest quarter, instead of sampling
  // afresh; and whether the naive schedule is measured first, beside the heuristic.
  double mutate_fraction = 0;
  bool naive_first = false;
  // When set, asked between steps (every few samples, mutations or scores): once it says
  // true (a stop was requested, or the time budget is spent) the search stops growing its
  // population and picks from what it has scored.
  std::function<bool()> give_up;
};

// A candidate to measure.
struct Proposal {
  scheduler::Schedule schedule;
  double predicted = 0;   // the model's score (higher is predicted faster)
  bool random = false;    // picked for exploration, not for its score
};

class EvolutionarySearch {
 public:
  EvolutionarySearch(const scheduler::Space& space, const cost_model::FeatureExtractor& features, SearchParams params);

  // Steps 1-3: up to params.batch schedules whose hashes are not in `measured`.
  std::vector<Proposal> propose(const std::vector<scheduler::Schedule>& seeds, const std::set<std::string>& measured,
                                const cost_model::CostModel& model, scheduler::Rng& rng) const;

  // A schedule with its predicted score.
  struct Scored {
    scheduler::Schedule schedule;
    std::string hash;
    double score = 0;
  };
  std::vector<scheduler::Schedule> seed_population(const std::vector<scheduler::Schedule>& seeds, scheduler::Rng& rng) const;
  std::vector<Scored> evolve(const std::vector<scheduler::Schedule>& population, const cost_model::CostModel& model,
                             scheduler::Rng& rng) const;
  std::vector<Proposal> pick(const std::vector<Scored>& pool, const std::set<std::string>& measured, scheduler::Rng& rng) const;

  const SearchParams& params() const { return params_; }

 private:
  // True once SearchParams::give_up says so.
  bool giving_up() const;
  std::vector<Scored> score(const std::vector<scheduler::Schedule>& schedules, const cost_model::CostModel& model) const;

  const scheduler::Space& space_;
  const cost_model::FeatureExtractor& features_;
  SearchParams params_;
};

}  // namespace ktune::search
