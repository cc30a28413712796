#include "tools/autoschedule_ktune/target_device.h"

#include <Halide.h>

#include <set>

#include "common/error.h"
#include "schedule_store/stored_database.h"
#include "targets/device_lookup.h"
#include "targets/host_detect.h"
#include "targets/host_target.h"
#include "tuning_db/tuning_db.h"

namespace ktune::autoschedule {
namespace {

using F = Halide::Target::Feature;

// Features that change how a kernel is built or checked, not the machine it runs on.
const std::set<F>& build_only_features() {
  static const std::set<F> features = {
      F::JIT,           F::Debug,          F::NoAsserts,         F::NoBoundsQuery,       F::UserContext,
      F::Matlab,        F::Profile,        F::NoRuntime,         F::CPlusPlusMangling,   F::LargeBuffers,
      F::MSAN,          F::TSAN,           F::ASAN,              F::TraceLoads,          F::TraceStores,
      F::TraceRealizations, F::TracePipeline, F::StrictFloat,    F::CheckUnsafePromises, F::EmbedBitcode,
      F::EnableLLVMLoopOpt, F::DisableLLVMLoopOpt, F::SanitizerCoverage, F::ProfileByTimer, F::FuzzFloatStores};
  return features;
}

}  // namespace

bool same_machine(const Halide::Target& target, const Halide::Target& host) {
  if (target.os != host.os || target.arch != host.arch || target.bits != host.bits) return false;
  for (int i = 0; i < static_cast<int>(F::FeatureEnd); ++i) {
    const F f = static_cast<F>(i);
    if (build_only_features().count(f)) continue;
    if (target.has_feature(f) != host.has_feature(f)) return false;
  }
  return true;
}

DeviceChoice choose_device(const Halide::Target& target, const std::string& device_key, tuning_db::TuningDb& db) {
  DeviceChoice choice;
  if (!device_key.empty()) {
    try {
      choice.device = targets::resolve_device(device_key, schedule_store::stored_description_in(db), "KTUNE_DEVICE");
    } catch (const UserError& e) {
      choice.reason = "KTUNE_DEVICE=" + device_key + " is not a device of " + db.path() + " (" + e.what() + ")";
      return choice;
    }
    choice.key = targets::device_key(*choice.device);
    return choice;
  }
  // Halide's own host target may claim features this CPU lacks (targets/host_detect.h);
  // a Generator built for it ("target=host") still builds for this machine.
  const Halide::Target host(targets::host_halide_target());
  if (!same_machine(target, host) && !same_machine(target, Halide::get_host_target())) {
    choice.reason = "the generator builds for " + target.to_string() + ", which is not this machine (" +
                    host.to_string() + "); without KTUNE_DEVICE (the key of the device the code will run on) "
                    "ktune looks up schedules for this machine only";
    return choice;
  }
  choice.device = targets::detect_host_device();
  choice.key = targets::device_key(*choice.device);
  return choice;
}

}  // namespace ktune::autoschedule
