// The generated .schedule.h files must be valid C++ that a Generator author can paste in
// or call: compiling this file checks both (ktune's tuned one and the fallback's).
#include "demo_fallback.schedule.h"
#include "demo_tuned.schedule.h"
