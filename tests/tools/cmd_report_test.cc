// `ktune report` as a user runs it, on a database that `ktune tune` filled with real
// measurements (plus bench rows and a workload with a hostile name written through TuningDb),
// and the page rendered in headless Chromium with no network: every plot must be drawn.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <regex>
#include <sstream>

#include "tests/tools/cli_runner.h"
#include "tuning_db/tuning_db.h"

namespace ktune {
namespace {

using ::testing::HasSubstr;
using testing::run_ktune;

const char* kHostileName = "evil</script><script>document.title='pwned'</script>";

std::string data(const char* name) { return std::string(KTUNE_SOURCE_DIR) + "/tests/data/" + name; }

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// Output of `command` (stdout only) and its exit status.
std::pair<std::string, int> capture(const std::string& command) {
  std::string out;
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) return {"", -1};
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, pipe)) > 0) out.append(buf, n);
  const int status = pclose(pipe);
  return {out, WIFEXITED(status) ? WEXITSTATUS(status) : -1};
}

bool have_chromium() { return std::system("command -v chromium >/dev/null 2>&1") == 0; }

// The DOM of `html_path` after its scripts ran, from headless Chromium with every host name
// unresolvable and a dead proxy, so that nothing can be fetched.
std::string rendered_dom(const std::string& html_path, const std::string& profile_dir) {
  const std::string command =
      // Its own home and XDG folders: the build user's may be missing or read-only.
      "mkdir -p " + profile_dir + " && HOME=" + profile_dir + " XDG_CONFIG_HOME=" + profile_dir + " XDG_CACHE_HOME=" + profile_dir +
      " timeout 90 chromium --headless --no-sandbox --disable-gpu --no-first-run "
      "--disable-extensions --disable-background-networking --disable-component-update "
      "--host-resolver-rules='MAP * ~NOTFOUND' --proxy-server=127.0.0.1:9 "
      "--user-data-dir=" + profile_dir + " --virtual-time-budget=10000 --dump-dom file://" +
      html_path + " 2>/dev/null";
  const auto [dom, code] = capture(command);
  EXPECT_EQ(code, 0) << command;
  return dom;
}

// One <svg class="plot"> of the dumped DOM.
struct Plot {
  std::string name;       // data-plot
  bool drawn = false;     // data-drawn="true"
  bool empty = false;     // data-empty="true"
  int declared = -1;      // data-marks
  int marks = 0;          // elements whose class list holds "mark"
  std::string body;       // its inner markup
};

std::vector<Plot> plots_in(const std::string& dom) {
  std::vector<Plot> out;
  const std::regex open(R"(<svg ([^>]*class="plot"[^>]*)>)");
  for (auto it = std::sregex_iterator(dom.begin(), dom.end(), open); it != std::sregex_iterator(); ++it) {
    Plot plot;
    const std::string attrs = (*it)[1];
    std::smatch m;
    if (std::regex_search(attrs, m, std::regex(R"(data-plot="([^"]*)\")"))) plot.name = m[1];
    plot.drawn = attrs.find("data-drawn=\"true\"") != std::string::npos;
    plot.empty = attrs.find("data-empty=\"true\"") != std::string::npos;
    if (std::regex_search(attrs, m, std::regex(R"(data-marks="(\d+)\")"))) plot.declared = std::stoi(m[1]);
    const size_t begin = static_cast<size_t>(it->position() + it->length());
    plot.body = dom.substr(begin, dom.find("</svg>", begin) - begin);
    const std::regex mark(R"(class="[^"]*\bmark\b[^"]*")");
    plot.marks = static_cast<int>(std::distance(std::sregex_iterator(plot.body.begin(), plot.body.end(), mark),
                                                std::sregex_iterator()));
    out.push_back(plot);
  }
  return out;
}

// The text of every label in a plot (axis ticks and titles).
std::vector<std::string> labels_in(const Plot& plot) {
  std::vector<std::string> out;
  const std::regex text(R"(<text[^>]*>([^<]*)</text>)");
  for (auto it = std::sregex_iterator(plot.body.begin(), plot.body.end(), text); it != std::sregex_iterator(); ++it) {
    out.push_back((*it)[1]);
  }
  return out;
}

// A time as the page's axes write it: three significant digits without trailing zeros.
std::string tick_label(double ns) {
  const std::pair<double, const char*> units[] = {{1e9, "s"}, {1e6, "ms"}, {1e3, "\xc2\xb5s"}, {1, "ns"}};
  for (const auto& [scale, unit] : units) {
    if (ns >= scale) {
      char digits[32];
      std::snprintf(digits, sizeof digits, "%.3g", ns / scale);
      return std::string(digits) + " " + unit;
    }
  }
  return "";
}

class CmdReport : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    // One folder per process: ctest runs each test of this suite in its own process, in parallel.
    dir_ = ::testing::TempDir() + "/report_cli_" + std::to_string(getpid());
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
    db_ = dir_ + "/t.db";
    const auto r = run_ktune("tune " + data("tiny_softmax.json") + " --db " + db_ +
                             " --trials 12 --batch 4 --population 16 --generations 1 --repeat-min-ms 5 --min-repeats 3");
    ASSERT_EQ(r.exit_code, 0) << r.out;

    tuning_db::OpenOptions options;
    tuning_db::TuningDb db = tuning_db::TuningDb::open(db_, options);
    const auto pairs = db.measured_pairs();
    ASSERT_EQ(pairs.size(), 1u);
    const auto& tuned = pairs[0];
    const auto best = db.best(tuned.workload.key, tuned.device.key);
    ASSERT_TRUE(best.has_value());
    // A bench comparison as `ktune bench` stores it, with a method that crashed.
    for (const auto& [method, status, factor] : {std::tuple<const char*, const char*, double>{"ktune", "ok", 1.0},
                                                 {"Adams2019", "ok", 1.7},
                                                 {"Li2018", "crash", 0},
                                                 {"roofline", "ok", 0.2}}) {
      tuning_db::BenchResultRecord row;
      row.bench_uuid = "bench-1";
      row.workload_key = tuned.workload.key;
      row.device_key = tuned.device.key;
      row.method = method;
      row.status = status;
      row.median_ns = factor * *best->measurement.median_ns;
      row.detail = factor == 0 ? "signal 11" : "";
      db.record_bench_result(row);
    }
    // A workload whose name would end the page's script if it were pasted in raw.
    tuning_db::WorkloadRecord hostile;
    hostile.key = "hostile-workload-key";
    hostile.name = kHostileName;
    const int64_t workload = db.upsert_workload(hostile);
    for (int i = 0; i < 3; ++i) {
      const std::string hash = "hostile" + std::to_string(i);
      tuning_db::MeasurementRecord m = best->measurement;
      m.id = 0;
      m.uuid.clear();
      m.run_id.reset();
      m.predicted.reset();
      m.schedule_id = db.upsert_schedule(workload, hash, best->schedule_json);
      m.median_ns = 1000.0 * (3 - i);
      m.created_at_ms = 0;
      db.record_measurement(m);
    }
  }
  static std::string dir_;
  static std::string db_;
};
std::string CmdReport::dir_;
std::string CmdReport::db_;

TEST_F(CmdReport, EveryPlotIsDrawnInHeadlessChromium) {
  const std::string out = dir_ + "/report.html";
  const auto r = run_ktune("report --db " + db_ + " --out " + out);
  ASSERT_EQ(r.exit_code, 0) << r.out;
  if (!have_chromium()) GTEST_SKIP() << "chromium is not installed (scripts/setup.sh installs it)";
  const std::string dom = rendered_dom(out, dir_ + "/profile");
  ASSERT_THAT(dom, HasSubstr("data-report-ready=\"true\"")) << dom.substr(0, 2000);
  EXPECT_THAT(dom, HasSubstr("<title>ktune report</title>"));  // the hostile name ran nothing

  const std::vector<Plot> plots = plots_in(dom);
  ASSERT_EQ(plots.size(), 12u) << "six plots for each of the two workloads";
  std::map<std::string, int> per_name;
  for (const Plot& p : plots) {
    ++per_name[p.name];
    EXPECT_TRUE(p.drawn) << p.name;
    EXPECT_EQ(p.declared, p.marks) << p.name << " says " << p.declared << " marks";
    if (p.empty) {
      EXPECT_THAT(p.body, HasSubstr("no data")) << p.name;
    }
  }
  for (const char* name : {"curve-trials", "curve-time", "distribution", "statuses", "ranks", "bench"}) {
    EXPECT_EQ(per_name[name], 2) << name;
  }
  // Pairs come by workload name: the hostile one ("evil...") before tiny_softmax.
  const auto first_of = [&](const std::string& name, int index) {
    int seen = 0;
    for (const Plot& p : plots) {
      if (p.name == name && seen++ == index) return p;
    }
    return Plot{};
  };
  // Pair 0 is the hostile workload: three ok times, no scores, no bench.
  EXPECT_GE(first_of("curve-trials", 0).marks, 2);
  EXPECT_EQ(first_of("distribution", 0).empty, false);
  EXPECT_TRUE(first_of("ranks", 0).empty);
  EXPECT_TRUE(first_of("bench", 0).empty);
  // Pair 1 is the tuned softmax: every plot has data.
  for (const char* name : {"curve-trials", "curve-time", "distribution", "statuses", "ranks", "bench"}) {
    const Plot p = first_of(name, 1);
    EXPECT_FALSE(p.empty) << name;
    EXPECT_GT(p.marks, 0) << name;
  }
  // Each plot holds one mark per data point of the page's JSON.
  const std::string page = read_file(out);
  const std::string open = "id=\"ktune-report-data\">";
  const size_t begin = page.find(open) + open.size();
  const auto json = nlohmann::json::parse(page.substr(begin, page.find("</script>", begin) - begin));
  ASSERT_EQ(json["pairs"].size(), 2u);
  for (int i = 0; i < 2; ++i) {
    const auto& pair = json["pairs"][i];
    int improvements = 0;
    double best = INFINITY;
    for (const auto& point : pair["curve"]) {
      if (point["best_ns"].get<double>() < best) ++improvements;
      best = point["best_ns"].get<double>();
    }
    EXPECT_EQ(first_of("curve-trials", i).marks, 1 + improvements);  // the line and its dots
    EXPECT_EQ(first_of("curve-time", i).marks, 1 + improvements);
    int bins = 0;
    for (const auto& bin : pair["histogram"]) bins += bin["count"].get<int>() > 0 ? 1 : 0;
    EXPECT_EQ(first_of("distribution", i).marks, bins);
    EXPECT_EQ(first_of("statuses", i).marks, static_cast<int>(pair["statuses"].size()));
    EXPECT_EQ(first_of("ranks", i).marks, static_cast<int>(pair["ranks"]["points"].size()));
    EXPECT_EQ(first_of("bench", i).marks, static_cast<int>(pair["bench"]["bars"].size()));
  }
  // The wall-clock axis speaks one unit, and the final best is labelled on the time axes.
  for (int i = 0; i < 2; ++i) {
    std::set<std::string> units;
    for (const std::string& label : labels_in(first_of("curve-time", i))) {
      std::smatch m;
      if (std::regex_match(label, m, std::regex(R"([0-9.]+ (s|min|h))"))) units.insert(m[1]);
    }
    EXPECT_EQ(units.size(), 1u) << "pair " << i;
    double final_best = INFINITY;
    for (const auto& point : json["pairs"][i]["curve"]) final_best = std::min(final_best, point["best_ns"].get<double>());
    EXPECT_THAT(labels_in(first_of("curve-trials", i)), ::testing::Contains(tick_label(final_best))) << "pair " << i;
  }
  const Plot bench = first_of("bench", 1);
  EXPECT_EQ(bench.marks, 4);
  EXPECT_THAT(bench.body, HasSubstr("bench-failed"));
  EXPECT_THAT(bench.body, HasSubstr(">crash<"));
  // The hostile name is shown as text in the summary and its section.
  EXPECT_THAT(dom, HasSubstr("evil&lt;/script&gt;&lt;script&gt;document.title='pwned'&lt;/script&gt;"));
  EXPECT_THAT(dom, HasSubstr("<table class=\"summary\">"));
}

TEST_F(CmdReport, AnEmptyDatabaseSaysNoData) {
  const std::string empty_db = dir_ + "/empty.db";
  { tuning_db::TuningDb::open(empty_db, tuning_db::OpenOptions{}); }
  const std::string out = dir_ + "/empty.html";
  const auto r = run_ktune("report --db " + empty_db + " --out " + out);
  ASSERT_EQ(r.exit_code, 0) << r.out;
  EXPECT_THAT(r.out, HasSubstr("0 workload(s)"));
  if (!have_chromium()) GTEST_SKIP() << "chromium is not installed (scripts/setup.sh installs it)";
  const std::string dom = rendered_dom(out, dir_ + "/profile-empty");
  EXPECT_THAT(dom, HasSubstr("data-report-ready=\"true\""));
  EXPECT_THAT(dom, HasSubstr("no data: the database holds no measurements"));
  EXPECT_TRUE(plots_in(dom).empty());
}

TEST_F(CmdReport, PrintsWhatItWroteAndFiltersByWorkload) {
  const std::string out = dir_ + "/softmax.html";
  std::ofstream(out) << "an older report";
  const auto r = run_ktune("report --db " + db_ + " --out " + out + " --workload tiny_softmax");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  EXPECT_THAT(r.out, HasSubstr("wrote " + out));
  EXPECT_THAT(r.out, HasSubstr("1 workload(s) on 1 device(s)"));
  EXPECT_THAT(r.out, HasSubstr("1 with a bench comparison"));
  const std::string page = read_file(out);
  EXPECT_THAT(page, HasSubstr("tiny_softmax"));
  EXPECT_EQ(page.find("hostile-workload-key"), std::string::npos);
  for (const auto& entry : std::filesystem::directory_iterator(dir_)) {
    EXPECT_EQ(entry.path().string().find(".tmp."), std::string::npos) << entry.path();
  }
}

TEST_F(CmdReport, BadInputExitsTwoAndNamesIt) {
  const auto no_db = run_ktune("report --out " + dir_ + "/x.html");
  EXPECT_EQ(no_db.exit_code, 2);
  EXPECT_THAT(no_db.out, HasSubstr("--db"));
  const auto missing = run_ktune("report --db " + dir_ + "/missing.db --out " + dir_ + "/x.html");
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_THAT(missing.out, HasSubstr("missing.db"));
  const auto workload = run_ktune("report --db " + db_ + " --out " + dir_ + "/x.html --workload nope");
  EXPECT_EQ(workload.exit_code, 2);
  EXPECT_THAT(workload.out, HasSubstr("--workload"));
  const auto device = run_ktune("report --db " + db_ + " --out " + dir_ + "/x.html --device 0000nope");
  EXPECT_EQ(device.exit_code, 2);
  EXPECT_THAT(device.out, HasSubstr("--device"));
  const auto unwritable = run_ktune("report --db " + db_ + " --out " + dir_ + "/no/such/folder/x.html");
  EXPECT_EQ(unwritable.exit_code, 2);
  EXPECT_THAT(unwritable.out, HasSubstr("--out"));
  EXPECT_FALSE(std::filesystem::exists(dir_ + "/x.html"));
}

}  // namespace
}  // namespace ktune
