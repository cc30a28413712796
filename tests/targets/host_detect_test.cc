#include "targets/host_detect.h"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "common/error.h"
#include "targets/device_lookup.h"

namespace ktune::targets {
namespace {

// Two processors of an x86 guest, trimmed; the second block disagrees to prove that the
// first occurrence wins.
constexpr const char* kX86CpuInfo =
    "processor\t: 0\n"
    "vendor_id\t: GenuineIntel\n"
    "cpu family\t: 6\n"
    "model name\t: Intel(R) Xeon(R) Processor\n"
    "cpu MHz\t\t: 2100.000\n"
    "cache size\t: 107520 KB\n"
    "siblings\t: 4\n"
    "cpu cores\t: 2\n"
    "flags\t\t: fpu vme sse sse2 ssse3 sse4_1 sse4_2 avx avx2 fma f16c avx512f avx512bw "
    "amx_tile hypervisor smep tsc avx512f\n"
    "\n"
    "processor\t: 1\n"
    "vendor_id\t: OtherVendor\n"
    "model name\t: Some Other Model\n"
    "flags\t\t: fpu\n";

// An Arm server without "model name" (older kernels), so "Hardware" names it.
constexpr const char* kArmCpuInfo =
    "processor\t: 0\n"
    "BogoMIPS\t: 50.00\n"
    "Features\t: fp asimd evtstrm aes pmull sha1 sha2 crc32 atomics fphp asimdhp sve\n"
    "CPU implementer\t: 0x41\n"
    "CPU part\t: 0xd40\n"
    "\n"
    "Hardware\t: Neoverse-V1 board\n";

// Runs `command` through the shell and returns its exit status and stdout.
std::pair<int, std::string> run_command(const std::string& command) {
  std::string out;
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) return {-1, out};
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof(buf), pipe)) > 0) out.append(buf, n);
  const int status = pclose(pipe);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, out};
}

const std::string kKtune = std::string(KTUNE_BINARY_DIR) + "/tools/ktune";

TEST(HostParseCpuInfo, ReadsX86FirstProcessor) {
  const CpuInfo info = parse_cpuinfo(kX86CpuInfo);
  EXPECT_EQ(info.vendor, "GenuineIntel");
  EXPECT_EQ(info.model_name, "Intel(R) Xeon(R) Processor");
  EXPECT_EQ(info.siblings, 4);
  EXPECT_EQ(info.cpu_cores, 2);
  ASSERT_EQ(info.flags.size(), 18u);
  EXPECT_EQ(info.flags.front(), "fpu");
  EXPECT_EQ(info.flags.back(), "avx512f");
}

TEST(HostParseCpuInfo, ReadsArmFeaturesAndFallsBackToHardware) {
  const CpuInfo info = parse_cpuinfo(kArmCpuInfo);
  EXPECT_EQ(info.vendor, "0x41");
  EXPECT_EQ(info.model_name, "Neoverse-V1 board");
  EXPECT_EQ(info.siblings, -1);
  EXPECT_EQ(info.cpu_cores, -1);
  EXPECT_EQ(info.flags.size(), 12u);
}

TEST(HostParseCpuInfo, EmptyTextGivesUnknowns) {
  const CpuInfo info = parse_cpuinfo("");
  EXPECT_TRUE(info.vendor.empty());
  EXPECT_TRUE(info.model_name.empty());
  EXPECT_TRUE(info.flags.empty());
  EXPECT_EQ(info.siblings, -1);
}

TEST(HostParseIsa, KeepsCodegenFlagsSortedAndUnique) {
  EXPECT_EQ(isa_features_from_flags(parse_cpuinfo(kX86CpuInfo).flags),
            (std::vector<std::string>{"amx_tile", "avx", "avx2", "avx512bw", "avx512f", "f16c",
                                      "fma", "sse", "sse2", "sse4_1", "sse4_2", "ssse3"}));
  EXPECT_EQ(isa_features_from_flags(parse_cpuinfo(kArmCpuInfo).flags),
            (std::vector<std::string>{"aes", "asimd", "asimdhp", "fphp", "pmull", "sha2", "sve"}));
}

TEST(HostParseIsa, HalideFeaturesTheCpuLacksAreDropped) {
  // Halide 14 claims avx512_sapphirerapids on an AMD EPYC with AVX-512 but no AVX512-FP16:
  // it stays, since the EPYC has VNNI and BF16 (LLVM leaves out FP16 and AMX).
  const std::string claimed =
      "x86-64-linux-avx-avx2-avx512-avx512_cannonlake-avx512_sapphirerapids-avx512_skylake-f16c-fma-sse41";
  const std::vector<std::string> epyc = {"sse4_1", "avx", "avx2", "fma", "f16c", "avx512f", "avx512cd",
                                         "avx512bw", "avx512dq", "avx512vl", "avx512ifma", "avx512vbmi",
                                         "avx512_bf16", "avx512_vnni"};
  EXPECT_EQ(supported_halide_target(claimed, epyc), claimed);
  // Without BF16 (an Ice Lake server) it goes.
  std::vector<std::string> icelake = epyc;
  icelake.erase(std::find(icelake.begin(), icelake.end(), "avx512_bf16"));
  EXPECT_EQ(supported_halide_target(claimed, icelake),
            "x86-64-linux-avx-avx2-avx512-avx512_cannonlake-avx512_skylake-f16c-fma-sse41");
  EXPECT_EQ(supported_halide_target(claimed, {"sse4_1", "avx", "avx2", "fma", "f16c"}), "x86-64-linux-avx-avx2-f16c-fma-sse41");
  // Unknown flags (another OS, another architecture) leave the target alone.
  EXPECT_EQ(supported_halide_target(claimed, {}), claimed);
  EXPECT_EQ(supported_halide_target("arm-64-linux-arm_dot_prod", {"asimd"}), "arm-64-linux-arm_dot_prod");
}

TEST(HostParseCacheSize, ReadsSysfsAndCpuinfoForms) {
  EXPECT_EQ(parse_cache_size("48K"), 48 * 1024);
  EXPECT_EQ(parse_cache_size("2048K\n"), 2048 * 1024);
  EXPECT_EQ(parse_cache_size("105M"), int64_t{105} << 20);
  EXPECT_EQ(parse_cache_size("1 G"), int64_t{1} << 30);
  EXPECT_EQ(parse_cache_size("1024 KB"), 1024 * 1024);
  EXPECT_EQ(parse_cache_size("32KiB"), 32 * 1024);
  EXPECT_EQ(parse_cache_size("512"), 512);
  EXPECT_EQ(parse_cache_size("64k"), 64 * 1024);
}

TEST(HostParseCacheSize, RejectsMalformedInput) {
  for (const char* bad : {"", "K", "0K", "-48K", "48Q", "4 8K", "48KK", "1.5M",
                          "99999999999999999999K", "9999999999999G"}) {
    EXPECT_FALSE(parse_cache_size(bad).has_value()) << "accepted \"" << bad << "\"";
  }
}

TEST(HostParseCpuList, CountsRangesAndSingles) {
  EXPECT_EQ(count_cpu_list("0"), 1);
  EXPECT_EQ(count_cpu_list("0-1\n"), 2);
  EXPECT_EQ(count_cpu_list("0,4"), 2);
  EXPECT_EQ(count_cpu_list("0-3,8,10-11"), 7);
  EXPECT_FALSE(count_cpu_list("").has_value());
  EXPECT_FALSE(count_cpu_list("3-1").has_value());
  EXPECT_FALSE(count_cpu_list("0,,1").has_value());
  EXPECT_FALSE(count_cpu_list("a-b").has_value());
}

TEST(HostPickCaches, SkipsInstructionCachesAndTakesTheHighestLevel) {
  const CacheSizes sizes = pick_cache_sizes({{1, "Data", 48 << 10},
                                             {1, "Instruction", 32 << 10},
                                             {2, "Unified", 2 << 20},
                                             {3, "Unified", 105 << 20}});
  EXPECT_EQ(sizes.l1d_bytes, 48 << 10);
  EXPECT_EQ(sizes.l2_bytes, 2 << 20);
  EXPECT_EQ(sizes.llc_bytes, 105 << 20);
}

TEST(HostPickCaches, LlcIsL2WithoutL3AndUnknownWhenEmpty) {
  const CacheSizes two = pick_cache_sizes(
      {{1, "Instruction", 64 << 10}, {1, "Data", 64 << 10}, {2, "Unified", 1 << 20}});
  EXPECT_EQ(two.l1d_bytes, 64 << 10);
  EXPECT_EQ(two.llc_bytes, 1 << 20);
  const CacheSizes none = pick_cache_sizes({});
  EXPECT_EQ(none.l1d_bytes, -1);
  EXPECT_EQ(none.l2_bytes, -1);
  EXPECT_EQ(none.llc_bytes, -1);
}

TEST(HostDetect, DescribesThisMachine) {
  const Device d = detect_host_device();
  EXPECT_EQ(d.kind, DeviceKind::kCpu);
  EXPECT_FALSE(d.is_gpu());
  EXPECT_FALSE(d.cpu_model.empty());
  EXPECT_GE(d.cores, 1);
  EXPECT_LE(d.cores, sysconf(_SC_NPROCESSORS_CONF));
  EXPECT_GE(d.threads_per_core, 1);
  EXPECT_TRUE(std::is_sorted(d.isa_features.begin(), d.isa_features.end()));
  EXPECT_GT(d.l1d_bytes, 0);
  EXPECT_GE(d.llc_bytes, d.l2_bytes);
#if defined(__x86_64__)
  EXPECT_EQ(d.halide_target.rfind("x86-64-linux", 0), 0u) << d.halide_target;
#endif
  // Whatever was detected must survive the database's JSON round trip.
  EXPECT_EQ(device_from_json(to_json(d), "host"), d);
}

TEST(HostDetect, KeyIsStableWithinAProcess) {
  const Device first = detect_host_device();
  const Device second = detect_host_device();
  EXPECT_EQ(first, second);
  EXPECT_EQ(device_key(first), device_key(second));
  EXPECT_EQ(device_key(device_by_name("host")), device_key(first));
}

TEST(HostDeviceByName, UnknownNamesListWhatIsAccepted) {
  try {
    device_by_name("cuda:0");
    ADD_FAILURE() << "device_by_name accepted cuda:0";
  } catch (const UserError& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("\"cuda:0\""), std::string::npos) << message;
    EXPECT_NE(message.find("host"), std::string::npos) << message;
  }
  const std::vector<std::string>& names = known_device_names();
  ASSERT_FALSE(names.empty());
  EXPECT_EQ(names.front(), "host");
}

TEST(HostDevicesCommand, JsonHasTheKeyAndTheDescription) {
  const auto [status, out] = run_command(kKtune + " devices --format json");
  ASSERT_EQ(status, 0) << out;
  const nlohmann::json j = nlohmann::json::parse(out);
  ASSERT_EQ(j.at("devices").size(), known_device_names().size()) << out;
  const nlohmann::json& host = j.at("devices").at(0);
  EXPECT_EQ(host.at("name"), "host");
  for (const nlohmann::json& listed : j.at("devices")) {
    if (listed.contains("problem")) {
      // This machine's GPU entry when it has none: says why, and nothing else.
      EXPECT_EQ(listed.at("name"), "cuda");
      EXPECT_EQ(listed.at("available"), false);
      EXPECT_FALSE(listed.at("problem").get<std::string>().empty());
      continue;
    }
    const Device d = device_from_json(listed.at("device"), "ktune devices");
    EXPECT_EQ(listed.at("key"), device_key(d)) << listed.dump();
  }
}

TEST(HostDevicesCommand, KeyIsStableAcrossProcesses) {
  const auto [status1, out1] = run_command(kKtune + " devices --format json");
  const auto [status2, out2] = run_command(kKtune + " devices --format json");
  ASSERT_EQ(status1, 0);
  ASSERT_EQ(status2, 0);
  const std::string key1 = nlohmann::json::parse(out1).at("devices").at(0).at("key");
  const std::string key2 = nlohmann::json::parse(out2).at("devices").at(0).at("key");
  EXPECT_EQ(key1, key2);
  // The binary and this test process see the same machine and affinity, so the same key.
  EXPECT_EQ(key1, device_key(detect_host_device()));
}

TEST(HostDevicesCommand, TextIsOneLinePerDeviceAndBadFormatIsUsage) {
  const auto [status, out] = run_command(kKtune + " devices");
  ASSERT_EQ(status, 0);
  const Device d = detect_host_device();
  EXPECT_EQ(out.substr(0, out.find('\n') + 1), "host  " + device_key(d) + "  " + describe(d) + "\n");
  // One line per device; an x86 host has one more, indented: its low-precision instructions.
  std::istringstream lines(out);
  std::vector<std::string> device_lines, detail_lines;
  for (std::string line; std::getline(lines, line);) (line.rfind("  ", 0) == 0 ? detail_lines : device_lines).push_back(line);
  EXPECT_EQ(device_lines.size(), known_device_names().size()) << out;
  const bool x86 = d.halide_target.rfind("x86-", 0) == 0;
  ASSERT_EQ(detail_lines.size(), x86 ? 1u : 0u) << out;
  if (x86) EXPECT_EQ(out.find("\n" + detail_lines[0]), out.find('\n')) << "the detail line follows the host's";
  if (x86) EXPECT_EQ(detail_lines[0].find("      low precision: VNNI "), 0u) << out;
  const Device h100 = device_by_name("h100");
  EXPECT_NE(out.find("h100  " + device_key(h100) + "  " + describe(h100) + "\n"), std::string::npos)
      << out;
  EXPECT_EQ(run_command(kKtune + " devices --format yaml 2>/dev/null").first, kExitUsage);
}

}  // namespace
}  // namespace ktune::targets
