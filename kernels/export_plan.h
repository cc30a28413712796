// What `ktune export` puts into a kernel library: for each requested workload, the
// function name it is exported under and the schedule it is compiled with (the database's
// best on the device, or the fallback when there is none), already applied to a fresh
// pipeline. Planning reads the database and schedules pipelines; it compiles nothing, so
// a `--fallback error` export fails before any file is written.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "scheduler/apply.h"
#include "scheduler/schedule.h"
#include "scheduler/space.h"
#include "subgraphs/subgraph.h"
#include "targets/device.h"
#include "tuning_db/records.h"

namespace ktune::kernels {

// What to do with a workload that has no usable tuned schedule on the device.
enum class ExportFallback {
  kHeuristic,  // compile the scheduler's heuristic schedule and report it loudly
  kError,      // refuse: the export fails naming the workloads
};

struct ExportRequest {
  std::string db_path;                 // the tuning database (opened read-only)
  std::string device = "host";         // "host" or a stored device key
  std::vector<std::string> workloads;  // names, keys (or key prefixes) or spec files
  bool all = false;                    // every workload tuned on the device
  ExportFallback fallback = ExportFallback::kHeuristic;
};

// One function of the library.
struct PlannedKernel {
  std::string function;                           // exported C symbol, e.g. "ktune_gemm_1024"
  std::shared_ptr<const subgraphs::Subgraph> subgraph;  // the workload's algorithm and shapes
  std::string workload_name;                      // as the spec (or the database) names it
  std::string workload_key;                       // subgraph->key().key
  bool tuned = false;                             // compiled with the database's best schedule
  std::string fallback;                           // "heuristic" when !tuned and a fallback was used
  std::string fallback_reason;                    // why the database's schedule was not used; empty when tuned
  std::optional<tuning_db::BestEntry> best;       // the stored best (set when tuned)
  scheduler::Schedule schedule;                   // the schedule compiled
  std::string schedule_hash;                      // schedule.hash()
  scheduler::ApplyResult applied;                 // the scheduled pipeline and its Halide source
  std::string test_data_name;                     // folder of its test data under test_data/;
                                                  // empty: the function's name. Kernels of one
                                                  // workload may share one (a bundle's candidates)
};

struct ExportPlan {
  std::string device_key;              // the device the library is for
  std::string halide_target;           // the target its code is generated for
  targets::DeviceKind device_kind = targets::DeviceKind::kCpu;  // what runs the kernels
  std::vector<PlannedKernel> kernels;  // by workload name, then key
  // Workloads without a usable tuned schedule, "name (key): reason"; with kError the plan
  // stops at the first check and this lists every one.
  std::vector<std::string> untuned;
};

// Resolves the request against the database. Throws UserError for a missing database,
// an unknown device, a workload that matches nothing or several things, a Generator
// workload, or an empty selection. With ExportFallback::kError and untuned workloads the
// returned plan has no kernels and a non-empty `untuned`.
ExportPlan plan_export(const ExportRequest& request);

}  // namespace ktune::kernels
