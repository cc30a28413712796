// Three RAII handles over the SQLite C API and nothing else: a Connection
// that owns the database handle, a Statement that owns one prepared statement, and a
// WriteTransaction that rolls back unless committed. Errors that a person can fix (a file
// that is not SQLite, read-only, locked) become ktune::UserError naming the file; a machine
// that failed (a corrupted file, a full disk, an I/O error) ktune::EnvironmentError; misuse
// (bad SQL, a violated constraint) std::runtime_error.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

struct sqlite3;
struct sqlite3_stmt;

namespace ktune::sqlite {

// How a Connection opens its file.
enum class OpenMode {
  kReadOnly,   // the file must exist; every write is refused
  kReadWrite,  // the file must exist
  kCreate,     // the file is created when missing
};

// How long a connection waits for another writer's lock before giving up, in ms.
inline constexpr int kDefaultBusyTimeoutMs = 10000;

// An open database. Opening sets journal_mode=WAL (writable connections), busy_timeout,
// foreign_keys=ON and synchronous=NORMAL. Move-only; closing uses sqlite3_close_v2, so
// statements that outlive it are finalized safely.
class Connection {
 public:
  // Opens `path`. Throws UserError when the file is missing (kReadOnly, kReadWrite), cannot
  // be opened, or is not a SQLite file.
  static Connection open(const std::string& path, OpenMode mode,
                         int busy_timeout_ms = kDefaultBusyTimeoutMs);

  Connection(Connection&&) noexcept = default;
  Connection& operator=(Connection&&) noexcept = default;
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;
  ~Connection() = default;

  // Switches a writable connection to WAL (stored in the file); call it only once the file
  // is known to be the caller's, so that a refused file is left untouched.
  void use_wal();
  // Runs one or more statements that return no rows.
  void exec(const std::string& sql);
  // The raw handle, for Statement and diagnostics; never null while open.
  sqlite3* get() const { return db_.get(); }
  // The file name as given to open(); used in every error message.
  const std::string& path() const { return path_; }
  // True when opened with OpenMode::kReadOnly.
  bool read_only() const { return read_only_; }
  // Throws the error for result code `rc` raised while running `sql`.
  [[noreturn]] void fail(int rc, std::string_view sql) const;

 private:
  struct Closer {
    void operator()(sqlite3* db) const;
  };
  Connection(sqlite3* db, std::string path, bool read_only);

  std::unique_ptr<sqlite3, Closer> db_;  // owned handle; null only after a move
  std::string path_;                     // file name for messages
  bool read_only_ = false;               // opened with SQLITE_OPEN_READONLY
};

// One prepared statement, prepared once and reused. Bind parameters (1-based), then call
// step() until it returns false; the statement resets itself at the end, on error, and when
// it is bound again after an early exit. Columns are 0-based.
class Statement {
 public:
  Statement(const Connection& conn, std::string sql);
  Statement(Statement&&) noexcept;
  Statement& operator=(Statement&&) noexcept;
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;
  ~Statement();

  Statement& bind(int index, int64_t value);
  Statement& bind(int index, int value) { return bind(index, static_cast<int64_t>(value)); }
  Statement& bind(int index, double value);
  Statement& bind(int index, std::string_view value);
  Statement& bind(int index, const char* value) { return bind(index, std::string_view(value)); }
  Statement& bind(int index, const std::string& value) {
    return bind(index, std::string_view(value));
  }
  Statement& bind(int index, std::nullptr_t);
  Statement& bind_blob(int index, const std::vector<uint8_t>& value);
  template <typename T>
  Statement& bind(int index, const std::optional<T>& value) {
    return value ? bind(index, *value) : bind(index, nullptr);
  }

  // Advances to the next row; false when there are no more rows (the statement is reset).
  bool step();
  // Steps to the end of a statement that returns no rows.
  void run();
  // Resets the statement and clears its bindings; safe at any time.
  void reset();

  bool is_null(int column) const;
  int64_t column_int64(int column) const;
  double column_double(int column) const;
  std::string column_text(int column) const;
  std::vector<uint8_t> column_blob(int column) const;
  std::optional<int64_t> column_optional_int64(int column) const;
  std::optional<double> column_optional_double(int column) const;

  // The SQL text, for messages.
  const std::string& sql() const { return sql_; }

 private:
  void check_bind(int rc);

  [[noreturn]] void fail(int rc) const;

  sqlite3* db_ = nullptr;         // the connection that prepared it; not owned
  sqlite3_stmt* stmt_ = nullptr;  // owned; finalized in the destructor
  std::string path_;              // the database file, for messages
  std::string sql_;               // the SQL text, for messages
  bool active_ = false;           // stepped since the last reset
};

// BEGIN IMMEDIATE on construction: takes the write lock at once (waiting up to the busy
// timeout), so two writers queue instead of failing mid-transaction. commit() commits; if it
// is never called (an exception, an early return), the destructor rolls back.
class WriteTransaction {
 public:
  explicit WriteTransaction(Connection& conn);
  WriteTransaction(const WriteTransaction&) = delete;
  WriteTransaction& operator=(const WriteTransaction&) = delete;
  ~WriteTransaction();

  void commit();

 private:
  Connection* conn_;       // not owned; outlives the transaction
  bool finished_ = false;  // committed (or the commit failed and was rolled back)
};

}  // namespace ktune::sqlite
