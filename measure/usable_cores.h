// How many CPUs this process may run on (its affinity mask): the default thread count of
// both the Builder's arena and the kernels the Runner times.
#pragma once

namespace ktune::measure {

// CPUs in this process's affinity mask; at least 1.
int usable_cores();

}  // namespace ktune::measure
