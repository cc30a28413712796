// Which ktune device a Generator's target means. Schedules are tuned per device; the
// plugin uses the host device when the Generator builds for this machine, a device named
// by KTUNE_DEVICE when the user says where the code will run, and nothing otherwise
// (cross-compiling without KTUNE_DEVICE falls back, with a warning that says so).
#pragma once

#include <optional>
#include <string>

#include "targets/device.h"

namespace Halide {
struct Target;
}

namespace ktune::tuning_db {
class TuningDb;
}

namespace ktune::autoschedule {

// Whether code for `target` runs on a machine whose Halide host target is `host`: the
// same architecture, bit width, OS and instruction-set features. Features that change
// only the build (no_runtime, no_asserts, user_context, debug, tracing, ...) are ignored.
bool same_machine(const Halide::Target& target, const Halide::Target& host);

struct DeviceChoice {
  std::optional<targets::Device> device;  // the device to look schedules up for
  std::string key;                        // its key; empty when none applies
  std::string reason;                     // why none applies (a sentence), when empty
};

// The host device when `target` runs here; the device `device_key` (KTUNE_DEVICE: a key of
// `db` or a known device's name, targets/device_lookup.h) when one is named, whatever the
// target.
DeviceChoice choose_device(const Halide::Target& target, const std::string& device_key,
                           tuning_db::TuningDb& db);

}  // namespace ktune::autoschedule
