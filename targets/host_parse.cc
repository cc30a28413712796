// Pure parsers behind host detection: /proc/cpuinfo text, sysfs cache sizes and CPU lists,
// and the choice of which CPU flags count as ISA features.
#include <algorithm>
#include <cctype>
#include <limits>

#include "targets/host_detect.h"

namespace ktune::targets {
namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

// Parses a non-negative decimal integer that fills all of `s`.
std::optional<int64_t> parse_uint(std::string_view s) {
  if (s.empty()) return std::nullopt;
  int64_t value = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return std::nullopt;
    if (value > (std::numeric_limits<int64_t>::max() - (c - '0')) / 10) return std::nullopt;
    value = value * 10 + (c - '0');
  }
  return value;
}

std::vector<std::string> split_words(std::string_view s) {
  std::vector<std::string> words;
  size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) ++i;
    size_t j = i;
    while (j < s.size() && !std::isspace(static_cast<unsigned char>(s[j]))) ++j;
    if (j > i) words.emplace_back(s.substr(i, j - i));
    i = j;
  }
  return words;
}

bool starts_with(std::string_view s, std::string_view prefix) {
  return s.substr(0, prefix.size()) == prefix;
}

}  // namespace

CpuInfo parse_cpuinfo(std::string_view text) {
  CpuInfo info;
  std::string model, model_alt, hardware;
  bool have_flags = false;
  while (!text.empty()) {
    const size_t eol = text.find('\n');
    const std::string_view line = text.substr(0, eol);
    text.remove_prefix(eol == std::string_view::npos ? text.size() : eol + 1);
    const size_t colon = line.find(':');
    if (colon == std::string_view::npos) continue;
    const std::string_view key = trim(line.substr(0, colon));
    const std::string_view value = trim(line.substr(colon + 1));
    if ((key == "vendor_id" || key == "CPU implementer") && info.vendor.empty()) {
      info.vendor = std::string(value);
    } else if (key == "model name" && model.empty()) {
      model = std::string(value);
    } else if (key == "Model" && model_alt.empty()) {
      model_alt = std::string(value);
    } else if (key == "Hardware" && hardware.empty()) {
      hardware = std::string(value);
    } else if ((key == "flags" || key == "Features") && !have_flags) {
      info.flags = split_words(value);
      have_flags = true;
    } else if (key == "siblings" && info.siblings < 0) {
      if (auto n = parse_uint(value)) info.siblings = static_cast<int>(*n);
    } else if (key == "CPU part" && info.part.empty()) {
      info.part = std::string(value);
    } else if (key == "cpu cores" && info.cpu_cores < 0) {
      if (auto n = parse_uint(value)) info.cpu_cores = static_cast<int>(*n);
    }
  }
  info.model_name = !model.empty() ? model : !model_alt.empty() ? model_alt : hardware;
  return info;
}

std::optional<int64_t> parse_cache_size(std::string_view text) {
  text = trim(text);
  size_t digits = 0;
  while (digits < text.size() && text[digits] >= '0' && text[digits] <= '9') ++digits;
  const std::optional<int64_t> number = parse_uint(text.substr(0, digits));
  if (!number || *number == 0) return std::nullopt;
  std::string unit;
  for (char c : trim(text.substr(digits))) unit += static_cast<char>(std::toupper(c));
  int64_t scale = 0;
  if (unit.empty() || unit == "B") {
    scale = 1;
  } else if (unit == "K" || unit == "KB" || unit == "KIB") {
    scale = int64_t{1} << 10;
  } else if (unit == "M" || unit == "MB" || unit == "MIB") {
    scale = int64_t{1} << 20;
  } else if (unit == "G" || unit == "GB" || unit == "GIB") {
    scale = int64_t{1} << 30;
  } else {
    return std::nullopt;
  }
  if (*number > std::numeric_limits<int64_t>::max() / scale) return std::nullopt;
  return *number * scale;
}

std::optional<int> count_cpu_list(std::string_view text) {
  text = trim(text);
  if (text.empty()) return std::nullopt;
  int64_t count = 0;
  while (true) {
    const size_t comma = text.find(',');
    const std::string_view range = text.substr(0, comma);
    const size_t dash = range.find('-');
    const auto first = parse_uint(trim(range.substr(0, dash)));
    const auto last =
        dash == std::string_view::npos ? first : parse_uint(trim(range.substr(dash + 1)));
    if (!first || !last || *last < *first) return std::nullopt;
    count += *last - *first + 1;
    if (count > std::numeric_limits<int>::max()) return std::nullopt;
    if (comma == std::string_view::npos) break;
    text.remove_prefix(comma + 1);
  }
  return static_cast<int>(count);
}

CacheSizes pick_cache_sizes(const std::vector<CacheLevel>& caches) {
  CacheSizes sizes;
  int llc_level = 0;
  for (const CacheLevel& cache : caches) {
    if (cache.type == "Instruction" || cache.size_bytes <= 0) continue;
    // Should level 1 list both a unified and a data cache, the data cache wins.
    if (cache.level == 1 && (sizes.l1d_bytes < 0 || cache.type == "Data")) {
      sizes.l1d_bytes = cache.size_bytes;
    }
    if (cache.level == 2 && sizes.l2_bytes < 0) sizes.l2_bytes = cache.size_bytes;
    if (cache.level >= 2 && cache.level > llc_level) {
      llc_level = cache.level;
      sizes.llc_bytes = cache.size_bytes;
    }
  }
  return sizes;
}

std::vector<std::string> isa_features_from_flags(const std::vector<std::string>& flags) {
  // Families matched by prefix (every AVX-512 subset, SSE level, AMX tile type, SVE version).
  // No prefix may catch an unrelated flag: "sme" would catch x86's "smep", so Arm's SME
  // flags are listed exactly.
  static const char* const kPrefixes[] = {"sse", "ssse3", "avx", "amx", "fma", "sve", "asimd"};
  // Single extensions matched exactly.
  static const char* const kExact[] = {
      "f16c", "bmi1",      "bmi2",       "popcnt", "abm",  "movbe", "aes",  "sha_ni",
      "vaes", "pclmulqdq", "vpclmulqdq", "gfni",   "neon", "fphp",  "i8mm", "bf16",
      "fp16", "dotprod",   "pmull",      "sha2",   "sme",  "sme2"};
  std::vector<std::string> out;
  for (const std::string& flag : flags) {
    bool keep = std::any_of(std::begin(kExact), std::end(kExact),
                            [&](const char* name) { return flag == name; });
    keep = keep || std::any_of(std::begin(kPrefixes), std::end(kPrefixes),
                               [&](const char* prefix) { return starts_with(flag, prefix); });
    if (keep) out.push_back(flag);
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

std::string supported_halide_target(const std::string& halide_target, const std::vector<std::string>& flags) {
  if (flags.empty() || halide_target.rfind("x86-", 0) != 0) return halide_target;
  // Each Halide feature and the cpuinfo flags the code it enables needs.
  static const std::vector<std::pair<std::string, std::vector<std::string>>> kNeeds = {
      {"sse41", {"sse4_1"}},
      {"avx", {"avx"}},
      {"avx2", {"avx2"}},
      {"fma", {"fma"}},
      {"f16c", {"f16c"}},
      {"avx512", {"avx512f", "avx512cd"}},
      {"avx512_knl", {"avx512pf", "avx512er"}},
      {"avx512_skylake", {"avx512bw", "avx512dq", "avx512vl"}},
      {"avx512_cannonlake", {"avx512ifma", "avx512vbmi"}},
      // What Halide's own runtime checks for it; LLVM leaves out the rest of the Sapphire
      // Rapids model (AVX512-FP16, AMX) where the CPU lacks it (cpu_codegen.h).
      {"avx512_sapphirerapids", {"avx512_bf16", "avx512_vnni"}},
  };
  const auto has = [&](const std::string& flag) { return std::find(flags.begin(), flags.end(), flag) != flags.end(); };
  std::string out;
  size_t pos = 0;
  for (int word = 0; pos <= halide_target.size(); ++word) {
    const size_t dash = halide_target.find('-', pos);
    const std::string w = halide_target.substr(pos, dash == std::string::npos ? std::string::npos : dash - pos);
    bool keep = true;
    if (word >= 3) {  // arch, bits and OS come first
      for (const auto& [feature, needs] : kNeeds) {
        if (w == feature) keep = std::all_of(needs.begin(), needs.end(), has);
      }
    }
    if (keep) out += (out.empty() ? "" : "-") + w;
    if (dash == std::string::npos) break;
    pos = dash + 1;
  }
  return out;
}

}  // namespace ktune::targets
