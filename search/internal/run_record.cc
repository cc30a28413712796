#include "search/internal/run_record.h"

#include <signal.h>
#include <unistd.h>

#include <cerrno>

#include "nlohmann/json.hpp"

namespace ktune::search::internal {
namespace {

// True while process `pid` of this host runs (a process of another user counts).
bool process_alive(int64_t pid) {
  return pid > 0 && (::kill(static_cast<pid_t>(pid), 0) == 0 || errno == EPERM);
}

}  // namespace

std::string host_name() {
  char buf[256] = {0};
  if (gethostname(buf, sizeof(buf) - 1) != 0) return "";
  return buf;
}

tuning_db::TuningDb open_database(const TuneOptions& opt) {
  tuning_db::OpenOptions open;
  open.mode = sqlite::OpenMode::kCreate;
  open.versions = {opt.ktune_version, opt.halide_version};
  return tuning_db::TuningDb::open(opt.db_path, open);
}

int64_t begin_run_record(tuning_db::TuningDb& store, const TuneOptions& opt, Progress& progress) {
  tuning_db::RunRecord run_record;
  run_record.command = nlohmann::json(opt.command).dump();
  run_record.host = host_name();
  run_record.budget = opt.budget.text;
  run_record.pid = static_cast<int64_t>(getpid());
  // Earlier runs of this host that a signal or a power cut ended never said so.
  if (const int killed = store.mark_killed_runs(run_record.host, process_alive)) {
    progress.note("ktune: " + std::to_string(killed) + " earlier run" + (killed == 1 ? "" : "s") +
                  " of this host ended without a word (killed); marked as killed");
  }
  return store.begin_run(run_record);
}

}  // namespace ktune::search::internal
