// A first pass over a subgraph in a child process: its analysis (isl), its schedule space
// (heuristic, naive and a few samples) and the features of those schedules. A pipeline that
// crashes or hangs any of them is then one task that cannot be tuned, with the reason,
// instead of the end of an overnight run.
#pragma once

#include <string>

#include "scheduler/target_info.h"

namespace ktune::subgraphs {
class Subgraph;
}

namespace ktune::search {

// Empty when the pass finished; otherwise why not ("analyzing blur (analysis, schedule
// space and features) crashed the process (Segmentation fault)", "... did not finish within
// 120 s", "... failed: " and an exception's message). Call it before any compile or kernel
// runs in this process (it forks).
std::string probe_task(const subgraphs::Subgraph& subgraph, const scheduler::TargetInfo& target, double timeout_ms);

}  // namespace ktune::search
