#include "search/evolutionary_search.h"

#include <algorithm>
#include <map>

#include "cost_model/cost_model.h"
#include "cost_model/extractor.h"
#include "scheduler/space.h"

namespace ktune::search {

using scheduler::Rng;
using scheduler::Schedule;

namespace {

// Schedules sampled, mutated or scored between two looks at SearchParams::give_up: the
// features of one schedule of a 90-Func pipeline take most of a second.
constexpr size_t kGiveUpCheckEvery = 4;

// An index below `n`, the lower ones likelier (the lesser of two uniform draws): seeds come
// best first.
size_t front_biased_index(size_t n, Rng& rng) {
  const auto draw = [&] { return static_cast<size_t>(rng.below(static_cast<int64_t>(n))); };
  return std::min(draw(), draw());
}

}  // namespace

bool EvolutionarySearch::giving_up() const { return params_.give_up && params_.give_up(); }

EvolutionarySearch::EvolutionarySearch(const scheduler::Space& space, const cost_model::FeatureExtractor& features,
                                       SearchParams params)
    : space_(space), features_(features), params_(params) {}

std::vector<EvolutionarySearch::Scored> EvolutionarySearch::score(const std::vector<Schedule>& schedules,
                                                                  const cost_model::CostModel& model) const {
  std::vector<Scored> out;
  for (size_t first = 0; first < schedules.size() && !giving_up(); first += kGiveUpCheckEvery) {
    const size_t last = std::min(schedules.size(), first + kGiveUpCheckEvery);
    const std::vector<Schedule> chunk(schedules.begin() + static_cast<std::ptrdiff_t>(first),
                                      schedules.begin() + static_cast<std::ptrdiff_t>(last));
    const std::vector<float> scores = model.predict(features_.extract(chunk));
    for (size_t i = 0; i < chunk.size(); ++i) {
      out.push_back({chunk[i], chunk[i].hash(), i < scores.size() ? static_cast<double>(scores[i]) : 0.0});
    }
  }
  return out;
}

std::vector<Schedule> EvolutionarySearch::seed_population(const std::vector<Schedule>& seeds, Rng& rng) const {
  std::vector<Schedule> population;
  std::set<std::string> seen;
  for (const Schedule& s : seeds) {
    if (static_cast<int>(population.size()) >= params_.population) break;
    if (space_.validate(s)) continue;  // seeds from other shapes may not fit this one
    if (seen.insert(s.hash()).second) population.push_back(s);
  }
  // Topped up with mutants of the seeds and fresh samples in turn: a deep pipeline's search
  // may run out of time before it scores the whole population, let alone evolves it, and
  // the schedules it does score should still include neighbours of the best measured.
  const size_t parents = population.size();
  for (int tries = 0; static_cast<int>(population.size()) < params_.population && tries < 4 * params_.population; ++tries) {
    if (tries % kGiveUpCheckEvery == 0 && giving_up()) break;
    const bool mutant = parents > 0 && tries % 2 == 0;
    const auto s = mutant ? space_.mutate(population[front_biased_index(parents, rng)], rng) : space_.sample(rng);
    if (s && seen.insert(s->hash()).second) population.push_back(*s);
  }
  return population;
}

std::vector<EvolutionarySearch::Scored> EvolutionarySearch::evolve(const std::vector<Schedule>& population,
                                                                   const cost_model::CostModel& model, Rng& rng) const {
  std::map<std::string, Scored> pool;
  std::vector<Scored> current = score(population, model);
  for (const Scored& s : current) pool.emplace(s.hash, s);
  auto tournament = [&](const std::vector<Scored>& from) -> const Scored& {
    const Scored& a = from[rng.below(static_cast<int64_t>(from.size()))];
    const Scored& b = from[rng.below(static_cast<int64_t>(from.size()))];
    return a.score >= b.score ? a : b;
  };
  for (int g = 0; g < params_.generations && !current.empty() && !giving_up(); ++g) {
    std::sort(current.begin(), current.end(), [](const Scored& a, const Scored& b) { return a.score > b.score; });
    std::vector<Schedule> children;
    std::set<std::string> fresh;
    // Elites survive unchanged (they are already in the pool).
    const size_t elites = std::max<size_t>(1, current.size() / 10);
    std::vector<Schedule> next;
    for (size_t i = 0; i < elites && i < current.size(); ++i) next.push_back(current[i].schedule);
    for (int tries = 0; static_cast<int>(next.size() + children.size()) < params_.population && tries < 6 * params_.population; ++tries) {
      if (tries % kGiveUpCheckEvery == 0 && giving_up()) break;
      std::optional<Schedule> child;
      if (rng.chance(params_.mutation_probability)) {
        child = space_.mutate(tournament(current).schedule, rng);
      } else {
        child = space_.crossover(tournament(current).schedule, tournament(current).schedule, rng);
      }
      if (!child) continue;
      const std::string h = child->hash();
      if (pool.count(h) || !fresh.insert(h).second) continue;
      children.push_back(*child);
    }
    std::vector<Scored> scored = score(children, model);
    for (const Scored& s : scored) pool.emplace(s.hash, s);
    current.assign(current.begin(), current.begin() + std::min(elites, current.size()));
    current.insert(current.end(), scored.begin(), scored.end());
  }
  std::vector<Scored> out;
  for (auto& [h, s] : pool) out.push_back(s);
  // Best first; equal scores by hash so that the order never depends on the map.
  std::sort(out.begin(), out.end(), [](const Scored& a, const Scored& b) {
    return a.score != b.score ? a.score > b.score : a.hash < b.hash;
  });
  return out;
}

std::vector<Proposal> EvolutionarySearch::pick(const std::vector<Scored>& pool, const std::set<std::string>& measured,
                                               Rng& rng) const {
  std::vector<Proposal> out;
  std::set<std::string> taken;
  const int randoms = params_.batch >= 2 ? std::max(1, static_cast<int>(params_.epsilon * params_.batch + 0.5)) : 0;
  const int greedy = params_.batch - randoms;
  for (const Scored& s : pool) {
    if (static_cast<int>(out.size()) >= greedy) break;
    if (measured.count(s.hash) || !taken.insert(s.hash).second) continue;
    out.push_back({s.schedule, s.score, false});
  }
  std::vector<const Scored*> rest;
  for (const Scored& s : pool) {
    if (!measured.count(s.hash) && !taken.count(s.hash)) rest.push_back(&s);
  }
  for (int i = 0; i < randoms && !rest.empty(); ++i) {
    const size_t k = static_cast<size_t>(rng.below(static_cast<int64_t>(rest.size())));
    out.push_back({rest[k]->schedule, rest[k]->score, true});
    taken.insert(rest[k]->hash);
    rest.erase(rest.begin() + static_cast<std::ptrdiff_t>(k));
  }
  return out;
}

std::vector<Proposal> EvolutionarySearch::propose(const std::vector<Schedule>& seeds, const std::set<std::string>& measured,
                                                  const cost_model::CostModel& model, Rng& rng) const {
  const std::vector<Schedule> population = seed_population(seeds, rng);
  const std::vector<Scored> pool = evolve(population, model, rng);
  return pick(pool, measured, rng);
}

}  // namespace ktune::search
