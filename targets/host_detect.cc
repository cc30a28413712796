// Host detection: reads the system files and calls, then hands their text to the pure
// parsers in host_parse.cc. Sources, in order of preference:
//   model, vendor, flags   /proc/cpuinfo
//   cores                  sched_getaffinity, else sysconf(_SC_NPROCESSORS_ONLN)
//   threads per core       cpu0/topology/thread_siblings_list, else cpuinfo siblings/cores
//   caches                 cpu0/cache/index*/{level,type,size}, else sysconf(_SC_LEVEL*)
//   Halide target          Halide::get_host_target() (host_target.cc)
#include "targets/host_detect.h"

#include <sched.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "targets/host_target.h"
#include "targets/known_devices.h"

namespace ktune::targets {
namespace {

constexpr const char* kCpu0 = "/sys/devices/system/cpu/cpu0";

// Whole file as text; nullopt when it cannot be opened.
std::optional<std::string> read_text_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) return std::nullopt;
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

int detect_cores() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof(set), &set) == 0) {
    const int count = CPU_COUNT(&set);
    if (count > 0) return count;
  }
  const long online = sysconf(_SC_NPROCESSORS_ONLN);
  return online > 0 ? static_cast<int>(online) : 1;
}

int detect_threads_per_core(const CpuInfo& info) {
  if (auto text = read_text_file(std::string(kCpu0) + "/topology/thread_siblings_list")) {
    if (auto n = count_cpu_list(*text); n && *n > 0) return *n;
  }
  if (info.siblings > 0 && info.cpu_cores > 0 && info.siblings >= info.cpu_cores) {
    return info.siblings / info.cpu_cores;
  }
  return 1;
}

std::vector<CacheLevel> read_sysfs_caches() {
  std::vector<CacheLevel> caches;
  // Linux numbers the entries index0, index1, ... without gaps.
  for (int i = 0;; ++i) {
    const std::string dir = std::string(kCpu0) + "/cache/index" + std::to_string(i);
    const auto level = read_text_file(dir + "/level");
    if (!level) break;
    const auto type = read_text_file(dir + "/type");
    const auto size = read_text_file(dir + "/size");
    CacheLevel cache;
    cache.level = std::atoi(level->c_str());
    if (type) cache.type = type->substr(0, type->find_first_of(" \t\r\n"));
    if (size) cache.size_bytes = parse_cache_size(*size).value_or(0);
    caches.push_back(cache);
  }
  return caches;
}

// Some libcs return 0 or -1 for unknown levels.
int64_t sysconf_bytes(int name) {
  const long value = sysconf(name);
  return value > 0 ? value : -1;
}

CacheSizes detect_caches() {
  CacheSizes sizes = pick_cache_sizes(read_sysfs_caches());
  // sysconf asks cpuid through glibc, which misreports shared caches under some
  // hypervisors, so it is only the fallback.
  if (sizes.l1d_bytes < 0) sizes.l1d_bytes = sysconf_bytes(_SC_LEVEL1_DCACHE_SIZE);
  if (sizes.l2_bytes < 0) sizes.l2_bytes = sysconf_bytes(_SC_LEVEL2_CACHE_SIZE);
  if (sizes.llc_bytes < 0) {
    sizes.llc_bytes = sysconf_bytes(_SC_LEVEL4_CACHE_SIZE);
    if (sizes.llc_bytes < 0) sizes.llc_bytes = sysconf_bytes(_SC_LEVEL3_CACHE_SIZE);
    if (sizes.llc_bytes < 0) sizes.llc_bytes = sizes.l2_bytes;
  }
  return sizes;
}

}  // namespace

Device detect_host_device() {
  const CpuInfo info = parse_cpuinfo(read_text_file("/proc/cpuinfo").value_or(""));
  const CacheSizes caches = detect_caches();
  Device device;
  device.kind = DeviceKind::kCpu;
  device.vendor = info.vendor;
  device.cpu_model = info.model_name.empty() ? "unknown" : info.model_name;
  device.cores = detect_cores();
  device.threads_per_core = detect_threads_per_core(info);
  device.isa_features = isa_features_from_flags(info.flags);
  device.l1d_bytes = caches.l1d_bytes;
  device.l2_bytes = caches.l2_bytes;
  device.llc_bytes = caches.llc_bytes;
  device.halide_target = host_halide_target();
  return identify_known_cpu(info, device);
}

}  // namespace ktune::targets
