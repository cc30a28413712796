// A measuring rank of a distributed tuning run: it says hello (host and device), then
// measures the batches the coordinator sends with this machine's LocalMeasurer (every
// core to build, each candidate run alone in a forked child, checked, timed), sending each
// result as it finishes, until it is told to stop. It never opens the database.
#pragma once

#include <string>

#include "cluster/transport.h"
#include "search/local_measurer.h"
#include "targets/device.h"

namespace ktune::cluster {

struct WorkerOptions {
  search::LocalMeasurerOptions local;  // timing protocol, threads; host and rank are filled in
  targets::Device device;              // this machine, as it measures
};

// Runs until the coordinator says stop (a refused rank prints why first); returns the exit
// code, 0 either way: a non-zero exit would make the launcher end the whole job.
int run_worker(Transport& transport, WorkerOptions options);

}  // namespace ktune::cluster
