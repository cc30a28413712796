#include "common/stop_request.h"

namespace ktune {
namespace {

// Constant-initialized, so a signal handler may use it at any time; lock-free on every
// platform ktune builds for.
std::atomic<int> g_stop_requests{0};
static_assert(std::atomic<int>::is_always_lock_free, "a signal handler must not take a lock");

}  // namespace

int request_stop() { return g_stop_requests.fetch_add(1); }

bool stop_requested() { return g_stop_requests.load() != 0; }

std::atomic<int>& stop_requests() { return g_stop_requests; }

void clear_stop_requests() { g_stop_requests.store(0); }

}  // namespace ktune
