#include "kernels/bundle_runner.h"

#include <cstdio>
#include <sstream>

#include "kernels/export_files.h"
#include "kernels/generated_program.h"
#include "subgraphs/compare.h"

namespace ktune::kernels {
namespace {

// The fixed part: options, error capture, loading, comparing, timing, JSON.
constexpr const char* kPrologue = R"(#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include "HalideBuffer.h"

DEVICE_DECLARATIONS
namespace {
// The first and the latest message since it was cleared ("first; ...; latest").
std::string last_error, first_error;
int errors = 0;
}

// Replaces the runtime's weak halide_error, which aborts: errors become messages.
extern "C" void halide_error(void*, const char* message) {
  std::string m = message ? message : "";
  while (!m.empty() && (m.back() == '\n' || m.back() == ' ')) m.pop_back();
  if (last_error.empty()) errors = 0;
  if (errors++ == 0) first_error = m;
  last_error = errors == 1 ? m : first_error + (errors > 2 ? "; ...; " : "; ") + m;
}

namespace {

using Halide::Runtime::Buffer;

struct Options {
  bool json = false;
  int min_repeats = 10;
  double min_ms = 200;
  std::string dir;
  int threads = 0;  // CPU kernels' worker threads; 0: HL_NUM_THREADS, else every core
  bool emulated = false;  // under an emulator: check every candidate, time each once
};

struct Result {
  std::string status = "ok";
  std::string message;
  double max_error = -1, median_ns = -1, min_ns = -1, iqr_ns = -1;
  int repeats = 0;
};

std::string quote(const std::string& s) {
  std::string q = "\"";
  for (unsigned char c : s) {
    if (c == '"' || c == '\\') {
      q += '\\';
      q += static_cast<char>(c);
    } else if (c < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", c);
      q += buf;
    } else {
      q += static_cast<char>(c);
    }
  }
  return q + "\"";
}

)";

// The rest of the fixed part, after generated_buffer_helpers().
constexpr const char* kPrologueRest = R"(template <typename T>
bool load(Buffer<T>& b, const std::string& path, Result& r) {
  const bool ok = read_file(b, path);
  if (!ok) {
    r.status = "runtime_error";
    r.message = "cannot read " + path;
  }
  // The host data are new: a GPU kernel copies an input to the device only when it is dirty.
  b.set_host_dirty();
  return ok;
}

void failed(Result& r, const char* what, int rc) {
  r.status = "runtime_error";
  r.message = std::string(what) + " returned " + std::to_string(rc) + (last_error.empty() ? "" : ": " + last_error);
}

// Warm-up run, copy back and check (`error` returns the largest error and clears `within`
// when an output is beyond its type's tolerance), then timed runs (call plus device sync
// each; both no-ops on a CPU) until min_repeats runs and min_ms milliseconds.
Result measure(const std::function<int()>& call, const std::function<int()>& sync,
               const std::function<int()>& to_host, const std::function<double(bool&)>& error, const Options& o) {
  Result r;
  last_error.clear();
  int rc = call();
  if (rc != 0) return failed(r, "the kernel", rc), r;
  if ((rc = sync()) != 0) return failed(r, "device sync", rc), r;
  if ((rc = to_host()) != 0) return failed(r, "copy to host", rc), r;
  bool within = true;
  r.max_error = error(within);
  if (!within) {
    r.status = "wrong_result";
    r.message = "max error " + std::to_string(r.max_error) + " is beyond the output's tolerance";
    return r;
  }
  std::vector<double> times;
  double total_ns = 0;
  while ((static_cast<int>(times.size()) < o.min_repeats || total_ns < o.min_ms * 1e6) && times.size() < 1000000) {
    const auto t0 = std::chrono::steady_clock::now();
    rc = call();
    if (rc == 0) rc = sync();
    const auto t1 = std::chrono::steady_clock::now();
    if (rc != 0) return failed(r, "a timed run", rc), r;
    times.push_back(std::chrono::duration<double, std::nano>(t1 - t0).count());
    total_ns += times.back();
  }
  std::sort(times.begin(), times.end());
  const size_t n = times.size();
  r.repeats = static_cast<int>(n);
  r.min_ns = times.front();
  r.median_ns = n % 2 ? times[n / 2] : (times[n / 2 - 1] + times[n / 2]) / 2;
  r.iqr_ns = times[(3 * n) / 4 < n ? (3 * n) / 4 : n - 1] - times[n / 4];
  return r;
}

)";

// A CPU runner under an emulator (qemu-user runs an arm64 runner on an x86 build machine)
// checks correctness like on the device, but its times are the emulator's: it says so in its
// output, which ingest refuses to record, and times each candidate once. --emulated forces
// it; an arm64 runner also notices on its own when /proc/cpuinfo describes an x86 CPU, which
// qemu-user passes through from the machine it runs on.
constexpr const char* kEmulationCheck = R"(#if defined(__aarch64__)
  if (!o.emulated) {
    std::ifstream cpuinfo("/proc/cpuinfo");
    std::string line;
    while (std::getline(cpuinfo, line)) {
      if (line.rfind("vendor_id", 0) == 0) {
        o.emulated = true;
        break;
      }
    }
  }
#endif
  if (o.emulated) {
    o.min_repeats = 1;
    o.min_ms = 0;
  }
)";

// main(): options, then, for CUDA, the probe of the GPU (exit kRunnerNoDeviceExit without
// one) or, for a CPU, the kernels' thread count.
std::string main_prologue(const ExportPlan& plan, bool cuda) {
  std::ostringstream p;
  const std::string usage = std::string("usage: %s [--json] [--min-repeats N] [--min-ms MS]") +
                            (cuda ? "" : " [--threads N] [--emulated]") + " [--dir BUNDLE_DIR]\\n";
  p << "int main(int argc, char** argv) {\n"
    << "  Options o;\n"
    << "  const std::string self = argv[0];\n"
    << "  o.dir = self.find('/') == std::string::npos ? \".\" : self.substr(0, self.rfind('/'));\n"
    << "  for (int i = 1; i < argc; ++i) {\n"
    << "    const std::string a = argv[i];\n"
    << "    if (a == \"--json\") o.json = true;\n"
    << "    else if (a == \"--min-repeats\" && i + 1 < argc) o.min_repeats = std::atoi(argv[++i]);\n"
    << "    else if (a == \"--min-ms\" && i + 1 < argc) o.min_ms = std::atof(argv[++i]);\n"
    << "    else if (a == \"--dir\" && i + 1 < argc) o.dir = argv[++i];\n";
  if (!cuda) {
    p << "    else if (a == \"--threads\" && i + 1 < argc && std::atoi(argv[i + 1]) > 0) o.threads = std::atoi(argv[++i]);\n"
      << "    else if (a == \"--emulated\") o.emulated = true;\n";
  }
  p << "    else {\n"
    << "      std::fprintf(stderr, \"" << usage << "\", argv[0]);\n"
    << "      return 2;\n    }\n  }\n";
  if (cuda) {
    p << "  // Probe the GPU once: without a driver or device Halide reports why here.\n"
      << "  {\n    Buffer<float> probe(1);\n    last_error.clear();\n"
      << "    const int rc = probe.device_malloc(halide_cuda_device_interface());\n"
      << "    if (rc != 0) {\n"
      << "      const std::string why = \"no CUDA device: \" + (last_error.empty() ? \"error \" + std::to_string(rc) : last_error);\n"
      << "      if (o.json) std::printf(\"{\\\"device_key\\\": \\\"" << plan.device_key
      << "\\\", \\\"error\\\": %s, \\\"candidates\\\": []}\\n\", quote(why).c_str());\n"
      << "      else std::printf(\"%s\\n\", why.c_str());\n"
      << "      return " << kRunnerNoDeviceExit << ";\n    }\n  }\n";
  } else {
    p << kEmulationCheck
      << "  // Threads before the first kernel call: the pool reads HL_NUM_THREADS when it starts,\n"
      << "  // halide_set_num_threads (0: HL_NUM_THREADS, else every core) covers the rest. The\n"
      << "  // second call returns what the first set, after the runtime's cap.\n"
      << "  if (o.threads > 0) setenv(\"HL_NUM_THREADS\", std::to_string(o.threads).c_str(), 1);\n"
      << "  halide_set_num_threads(o.threads);\n"
      << "  o.threads = halide_set_num_threads(o.threads);\n";
  }
  return p.str();
}

}  // namespace

std::string runner_source_text(const ExportPlan& plan, const std::string& header) {
  const bool cuda = plan.device_kind == targets::DeviceKind::kCuda;
  std::ostringstream p;
  std::string prologue = std::string(kPrologue) + generated_buffer_helpers() + kPrologueRest;
  const auto fill = [&](const std::string& name, const std::string& text) {
    prologue.replace(prologue.find(name), name.size(), text);
  };
  fill("DEVICE_DECLARATIONS",
       cuda ? "extern \"C\" const struct halide_device_interface_t* halide_cuda_device_interface();\n" : "");
  p << "// Generated by ktune bundle: times " << plan.kernels.size() << " candidate(s) on device " << plan.device_key
    << "\n// (Halide target " << plan.halide_target << ") and prints the results as JSON for `ktune ingest`.\n"
    << (cuda ? "//   ./run --json [--min-repeats 10] [--min-ms 200] [--dir BUNDLE_DIR]\n"
             : "//   ./run --json [--min-repeats 10] [--min-ms 200] [--threads N] [--emulated] [--dir BUNDLE_DIR]\n"
               "// Kernels run on host buffers with --threads threads, else HL_NUM_THREADS, else every core.\n"
               "// Under an emulator (--emulated, or noticed) it checks every candidate and says its times are not the device's.\n")
    << "// Exit 0 when every candidate ran, 1 when one failed, 2 for bad usage"
    << (cuda ? ", 3 without a CUDA device.\n" : ".\n") << prologue << "#include \"" << header << "\"\n\n";
  for (size_t c = 0; c < plan.kernels.size(); ++c) {
    const PlannedKernel& k = plan.kernels[c];
    const std::vector<std::string> params = parameter_names(k);
    const std::string d = "o.dir + \"/" + test_data_dir(k) + "/";
    p << "Result run_" << c << "(const Options& o) {  // " << k.workload_name << ", schedule " << k.schedule_hash
      << "\n  Result r;\n";
    const KernelCallText call = kernel_call_text(*k.subgraph, params, d, ", r", "  ");
    const std::string& args = call.args;
    p << call.definitions;
    std::string syncs, to_host;
    for (size_t i = k.subgraph->inputs().size(); cuda && i < params.size(); ++i) {
      syncs += "    if (int rc = t_" + params[i] + ".device_sync()) return rc;\n";
      to_host += "    if (int rc = t_" + params[i] + ".copy_to_host()) return rc;\n";
    }
    p << "  if (!(" << call.loads << ")) return r;\n"
      << "  return measure([&] { return " << k.function << "(" << args << "); },\n";
    if (cuda) {
      p << "                 [&] {\n" << syncs << "    return 0;\n  },\n"
        << "                 [&] {\n" << to_host << "    return 0;\n  },\n";
    } else {
      p << "                 [] { return 0; },  // CPU kernels return when done\n"
        << "                 [] { return 0; },  // and write host memory\n";
    }
    p << "                 [&](bool& within) {\n    double err = 0;\n" << call.checks << "    return err;\n  }, o);\n}\n\n";
  }
  p << "}  // namespace\n\n" << main_prologue(plan, cuda)
    << "  struct Entry { int id; const char* function; Result (*run)(const Options&); };\n"
    << "  const Entry entries[] = {\n";
  for (size_t c = 0; c < plan.kernels.size(); ++c) {
    p << "    {" << c << ", \"" << plan.kernels[c].function << "\", run_" << c << "},\n";
  }
  p << "  };\n"
    << "  int failures = 0;\n"
    << "  if (o.json) std::printf(\"{\\\"device_key\\\": \\\"" << plan.device_key << "\\\", "
    << (cuda ? "" : "\\\"threads\\\": %d, \\\"emulated\\\": %s, ")
    << "\\\"min_repeats\\\": %d, \\\"min_ms\\\": %g, \\\"candidates\\\": [\", "
    << (cuda ? "" : "o.threads, o.emulated ? \"true\" : \"false\", ") << "o.min_repeats, o.min_ms);\n"
    << (cuda ? "" : "  else std::printf(\"%d thread(s)%s\\n\", o.threads, o.emulated ? \", emulated: correctness only\" : \"\");\n")
    << "  bool first = true;\n"
    << "  for (const Entry& e : entries) {\n"
    << "    const Result r = e.run(o);\n"
    << "    failures += r.status == \"ok\" ? 0 : 1;\n"
    << "    if (o.json) {\n"
    << "      std::printf(\"%s\\n  {\\\"id\\\": %d, \\\"function\\\": \\\"%s\\\", \\\"status\\\": \\\"%s\\\", "
       "\\\"message\\\": %s, \\\"max_error\\\": %.6g, \\\"median_ns\\\": %.1f, \\\"min_ns\\\": %.1f, "
       "\\\"iqr_ns\\\": %.1f, \\\"repeats\\\": %d}\",\n"
    << "                  first ? \"\" : \",\", e.id, e.function, r.status.c_str(), quote(r.message).c_str(),\n"
    << "                  std::isfinite(r.max_error) ? r.max_error : 1e300, r.median_ns, r.min_ns, r.iqr_ns, r.repeats);\n"
    << "      first = false;\n"
    << "    } else {\n"
    << "      std::printf(\"%-3d %-24s %-14s median %.0f ns  IQR %.0f ns  %d runs  %s\\n\", e.id, e.function,\n"
    << "                  r.status.c_str(), r.median_ns, r.iqr_ns, r.repeats, r.message.c_str());\n"
    << "    }\n"
    << "  }\n"
    << "  if (o.json) std::printf(\"\\n]}\\n\");\n"
    << "  return failures == 0 ? 0 : 1;\n}\n";
  return p.str();
}

}  // namespace ktune::kernels
