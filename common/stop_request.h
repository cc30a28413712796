// A request that this process stop what it is doing, made by a signal handler (`ktune
// tune` turns SIGTERM and SIGINT into one) and honoured wherever the process waits long: a
// child of run_in_child is killed at once, a batch of compiles is abandoned, a search stops
// between generations. Whoever made the request then commits what it has and ends.
#pragma once

#include <atomic>

namespace ktune {

// Counts one more request and returns how many came before it. Async-signal-safe.
int request_stop();

// True once a request has been made (and not cleared).
bool stop_requested();

// The count itself, for code that takes a stop flag (search::Tuner::run).
std::atomic<int>& stop_requests();

// Forgets every request: a new run in the same process starts unstopped.
void clear_stop_requests();

}  // namespace ktune
