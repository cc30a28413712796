// The device `ktune tune` measures on, from --device and --target: the host CPU, or a GPU of
// this machine ("cuda" for the first one, or a known card's name when such a card is here,
// so that results share the key of bundles built for that card), or a known CPU by name when
// this machine is one ("cortex-a76" on a Raspberry Pi 5). A known device that is not here is
// refused with the bundle workflow that tunes for it elsewhere.
#pragma once

#include <string>

#include "targets/device.h"

namespace ktune::targets {

// `device_name` is --device ("" when not given), `target` is --target ("", "host" or
// "cuda", checked by check_device_target). Throws ktune::UserError naming the option at fault.
Device tuning_device(const std::string& device_name, const std::string& target);

}  // namespace ktune::targets
