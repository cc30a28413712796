// Durability and concurrency of the tuning database on real files and real processes:
// a writer killed with SIGKILL loses no committed row, two writer processes both succeed,
// and readers and writers do not block each other (WAL).
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <set>

#include "tests/tuning_db/test_util.h"
#include "tuning_db/sqlite.h"
#include "tuning_db/tuning_db.h"

namespace ktune::tuning_db {
namespace {

using testing::open_db;
using testing::query_int;
using testing::query_text;
using testing::seed;
using testing::TempDirTest;

class TuningDbDurability : public TempDirTest {};

// Runs `body` in a child process; the child exits 0 when it returns and 1 when it throws.
template <typename Body>
pid_t spawn(Body&& body) {
  const pid_t pid = fork();
  if (pid != 0) return pid;
  int code = 0;
  try {
    body();
  } catch (const std::exception& e) {
    fprintf(stderr, "child: %s\n", e.what());
    code = 1;
  }
  _exit(code);
}

int exit_code(pid_t pid) {
  int status = 0;
  if (waitpid(pid, &status, 0) != pid) return -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

// The child records measurements one by one and reports each committed id through a pipe;
// the parent kills it mid-stream. Every reported id must be in the file, which must pass
// integrity_check and take new writes.
TEST_F(TuningDbDurability, KilledWriterLosesNoCommittedRow) {
  const std::string path = file("a.db");
  int64_t schedule = 0;
  int64_t device = 0;
  {
    auto s = seed(path);
    schedule = s.db.upsert_schedule(s.workload_id, "h", testing::schedule_json("h"));
    device = s.device_id;
  }
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    close(fds[0]);
    TuningDb db = open_db(path);
    for (int i = 0;; ++i) {
      const int64_t id =
          db.record_measurement(testing::ok_measurement(schedule, device, 1000 + i % 97, 1, 0));
      if (write(fds[1], &id, sizeof(id)) != sizeof(id)) _exit(2);
    }
  }
  close(fds[1]);
  std::set<int64_t> committed;
  int64_t id = 0;
  while (committed.size() < 400 && read(fds[0], &id, sizeof(id)) == sizeof(id)) {
    committed.insert(id);
  }
  ASSERT_EQ(kill(child, SIGKILL), 0);
  EXPECT_EQ(exit_code(child), 128 + SIGKILL);
  while (read(fds[0], &id, sizeof(id)) == sizeof(id)) committed.insert(id);  // sent before death
  close(fds[0]);
  ASSERT_GE(committed.size(), 400u);

  EXPECT_EQ(query_text(path, "PRAGMA integrity_check"), "ok");
  const int64_t stored = query_int(path, "SELECT count(*) FROM measurements");
  EXPECT_GE(stored, static_cast<int64_t>(committed.size()));
  // Every committed id is present (the child may have committed one more before writing it).
  const int64_t present = query_int(path, "SELECT count(*) FROM measurements WHERE id BETWEEN " +
                                              std::to_string(*committed.begin()) + " AND " +
                                              std::to_string(*committed.rbegin()));
  EXPECT_EQ(present, static_cast<int64_t>(committed.size()));
  for (int64_t c : committed) {
    ASSERT_EQ(query_int(path, "SELECT count(*) FROM measurements WHERE id = " + std::to_string(c)),
              1)
        << "committed id " << c << " is missing";
  }

  TuningDb db = open_db(path);  // writing resumes
  const int64_t next = db.record_measurement(testing::ok_measurement(schedule, device, 5, 1, 0));
  EXPECT_GT(next, *committed.rbegin());
  EXPECT_EQ(db.stats().rows.measurements, stored + 1);
}

// Two processes append measurements at once, one commit each: both finish, nothing is lost.
TEST_F(TuningDbDurability, TwoWriterProcessesBothSucceed) {
  const std::string path = file("a.db");
  int64_t device = 0;
  int64_t workload = 0;
  {
    auto s = seed(path);
    device = s.device_id;
    workload = s.workload_id;
  }
  constexpr int kPerWriter = 300;
  auto writer = [&](const std::string& prefix) {
    return spawn([&, prefix] {
      TuningDb db = open_db(path);
      for (int i = 0; i < kPerWriter; ++i) {
        const std::string hash = prefix + std::to_string(i % 50);
        const int64_t sched = db.upsert_schedule(workload, hash, testing::schedule_json(hash));
        db.record_measurement(testing::ok_measurement(sched, device, 100 + i, 1, 0));
      }
    });
  };
  const pid_t a = writer("a");
  const pid_t b = writer("b");
  EXPECT_EQ(exit_code(a), 0);
  EXPECT_EQ(exit_code(b), 0);
  EXPECT_EQ(query_int(path, "SELECT count(*) FROM measurements"), 2 * kPerWriter);
  EXPECT_EQ(query_int(path, "SELECT count(*) FROM schedules"), 100);
  EXPECT_EQ(query_text(path, "PRAGMA integrity_check"), "ok");
}

// Two processes create the same new file and the same rows at once: one migration, one row
// per identity, both succeed.
TEST_F(TuningDbDurability, TwoProcessesCreatingTheSameFileAgree) {
  const std::string path = file("new.db");
  auto creator = [&] {
    return spawn([&] {
      for (int i = 0; i < 20; ++i) {
        auto s = seed(path);
        s.add("same", 100, 1, 0);
      }
    });
  };
  const pid_t a = creator();
  const pid_t b = creator();
  EXPECT_EQ(exit_code(a), 0);
  EXPECT_EQ(exit_code(b), 0);
  EXPECT_EQ(query_int(path, "SELECT count(*) FROM devices"), 1);
  EXPECT_EQ(query_int(path, "SELECT count(*) FROM schedules"), 1);
  EXPECT_EQ(query_int(path, "SELECT count(*) FROM measurements"), 40);
}

// A writer holds an open write transaction; a reader still answers at once (no busy wait)
// from the last committed state, then sees the new row after the commit.
TEST_F(TuningDbDurability, ReaderIsNotBlockedByAnOpenWriteTransaction) {
  const std::string path = file("a.db");
  int64_t fast_schedule = 0;
  int64_t device = 0;
  int64_t workload = 0;
  {
    auto s = seed(path);
    s.add("committed", 1000, 1, 1);
    fast_schedule =
        s.db.upsert_schedule(s.workload_id, "pending", testing::schedule_json("pending"));
    device = s.device_id;
    workload = s.workload_id;
  }
  TuningDb writer = open_db(path);
  sqlite::Connection raw = sqlite::Connection::open(path, sqlite::OpenMode::kReadWrite);
  auto tx = std::make_unique<sqlite::WriteTransaction>(raw);
  raw.exec(
      "INSERT INTO measurements(uuid, schedule_id, workload_id, device_id, status, "
      "median_ns, spread_ns, created_at) VALUES ('u-pending', " +
      std::to_string(fast_schedule) + ", " + std::to_string(workload) + ", " +
      std::to_string(device) + ", 'ok', 10, 1, 2)");

  TuningDb reader = open_db(path, sqlite::OpenMode::kReadOnly, /*busy_timeout_ms=*/0);
  const auto start = std::chrono::steady_clock::now();
  auto best = reader.best("wl-matmul-64", "host-avx2");
  const auto elapsed = std::chrono::steady_clock::now() - start;
  ASSERT_TRUE(best);
  EXPECT_EQ(best->schedule_hash, "committed");
  EXPECT_LT(elapsed, std::chrono::milliseconds(500));
  EXPECT_EQ(reader.stats().rows.measurements, 1);

  tx->commit();
  tx.reset();
  EXPECT_EQ(reader.best("wl-matmul-64", "host-avx2")->schedule_hash, "pending");
}

// A reader in the middle of a long read does not stop a writer from committing.
TEST_F(TuningDbDurability, WriterIsNotBlockedByAnOpenRead) {
  const std::string path = file("a.db");
  auto s = seed(path);
  s.add("a", 1000, 1, 1);
  s.add("b", 2000, 1, 2);
  sqlite::Connection raw = sqlite::Connection::open(path, sqlite::OpenMode::kReadOnly);
  raw.exec("BEGIN");
  sqlite::Statement scan(raw, "SELECT id FROM measurements");
  ASSERT_TRUE(scan.step());  // read snapshot open, statement mid-iteration

  // No busy wait allowed: any lock conflict would throw at once.
  TuningDb writer = open_db(path, sqlite::OpenMode::kReadWrite, /*busy_timeout_ms=*/0);
  const int64_t c = writer.upsert_schedule(s.workload_id, "c", testing::schedule_json("c"));
  EXPECT_NO_THROW(writer.record_measurement(testing::ok_measurement(c, s.device_id, 10, 1, 3)));
  EXPECT_EQ(writer.best("wl-matmul-64", "host-avx2")->schedule_hash, "c");
  sqlite::Statement count(raw, "SELECT count(*) FROM measurements");
  ASSERT_TRUE(count.step());
  EXPECT_EQ(count.column_int64(0), 2);  // the reader's snapshot predates the write
  count.reset();
  EXPECT_EQ(query_int(path, "SELECT count(*) FROM measurements"), 3);
  scan.reset();
  raw.exec("COMMIT");
}

}  // namespace
}  // namespace ktune::tuning_db
