// What the Generator process that loaded the plugin was asked to build, read from its
// command line (`-g NAME`, `k=v` parameters): Halide 14 hands an autoscheduler only the
// pipeline, but messages should name the generator and say how to tune it.
#pragma once

#include <map>
#include <string>
#include <vector>

namespace ktune::autoschedule {

struct GeneratorInvocation {
  std::string generator;                      // the -g value; empty when absent
  std::map<std::string, std::string> params;  // generator parameters given as k=v, without
                                              // target, auto_schedule and machine_params
};

// Parses a Generator's arguments (argv without argv[0]).
GeneratorInvocation parse_generator_args(const std::vector<std::string>& args);

// The arguments of this process, from /proc/self/cmdline; empty when unreadable.
GeneratorInvocation this_generator_invocation();

}  // namespace ktune::autoschedule
