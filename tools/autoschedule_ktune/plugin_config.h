// What the ktune autoscheduler plugin reads from the environment of the Generator it runs
// in (a Halide 14 autoscheduler gets no options of its own besides the machine params):
//   KTUNE_DB                      the tuning database to read (required; opened read-only)
//   KTUNE_DEVICE                  a device key of that database to use instead of the host
//                                 (for building on one machine for another)
//   KTUNE_FALLBACK_AUTOSCHEDULER  the autoscheduler used when no tuned schedule applies:
//                                 Adams2019 (default), Mullapudi2016, Li2018, any name a
//                                 loaded plugin registered, or "none" to fail the build
//   KTUNE_INPUTS                  scalar input values the Generator was tuned at, as
//                                 `ktune tune --input` took them: "sigma=1.5,levels=3"
//                                 (default: each scalar at its estimate), and the ranges
//                                 of its input buffers as `--input-range` took them, with
//                                 a colon: "alpha=0.1:1" (NAME=LO:HI; a scalar value never
//                                 holds a colon)
#pragma once

#include <map>
#include <string>

#include "subgraphs/input_range.h"

namespace ktune::autoschedule {

inline constexpr const char* kSchedulerName = "Ktune";
inline constexpr const char* kDefaultFallback = "Adams2019";
inline constexpr const char* kNoFallback = "none";

struct PluginConfig {
  std::string db;                           // KTUNE_DB; empty when unset
  std::string device;                       // KTUNE_DEVICE; empty means the host
  std::string fallback = kDefaultFallback;  // KTUNE_FALLBACK_AUTOSCHEDULER
  std::map<std::string, std::string> inputs;  // KTUNE_INPUTS, by scalar name
  subgraphs::InputRanges input_ranges;        // KTUNE_INPUTS NAME=LO:HI items, by input buffer name
  std::string inputs_error;                   // why KTUNE_INPUTS could not be read; empty when it could
};

// Reads the variables above; empty values count as unset.
PluginConfig config_from_environment();

// The `ktune tune` flags that tune the workload KTUNE_INPUTS names:
// " --input sigma=1.5 --input-range alpha=0.1,1" (empty when KTUNE_INPUTS is unset).
std::string tune_input_flags(const PluginConfig& config);

}  // namespace ktune::autoschedule
