#include "common/version.h"


namespace ktune {

const char* ktune_version() { return KTUNE_VERSION; }

}  // namespace ktune
