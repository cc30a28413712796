#include "tuning_db/sqlite.h"

#include <sqlite3.h>

#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <utility>

#include "common/check.h"
#include "common/error.h"
#include "tuning_db/internal/sqlite_error.h"

namespace ktune::sqlite {

// ---------------------------------------------------------------------------------------
// Connection

namespace {

bool directory_writable(const std::string& path) {
  std::filesystem::path dir = std::filesystem::path(path).parent_path();
  if (dir.empty()) dir = ".";
  return ::access(dir.c_str(), W_OK) == 0;
}

// "file:PATH?immutable=1" with the characters a URI gives meaning to escaped.
std::string immutable_uri(const std::string& path) {
  std::string uri = "file:";
  for (char c : path) {
    if (c == '%' || c == '?' || c == '#') {
      char escaped[4];
      std::snprintf(escaped, sizeof escaped, "%%%02X", static_cast<unsigned char>(c));
      uri += escaped;
    } else {
      uri += c;
    }
  }
  return uri + "?immutable=1";
}

}  // namespace

void Connection::Closer::operator()(sqlite3* db) const { sqlite3_close_v2(db); }

Connection::Connection(sqlite3* db, std::string path, bool read_only)
    : db_(db), path_(std::move(path)), read_only_(read_only) {}

Connection Connection::open(const std::string& path, OpenMode mode, int busy_timeout_ms) {
  const bool in_memory = path.empty() || path == ":memory:";
  const bool read_only = mode == OpenMode::kReadOnly;
  if (!in_memory) {
    std::error_code ec;
    const auto status = std::filesystem::status(path, ec);
    if (std::filesystem::is_directory(status)) {
      throw UserError(
          format_user_error(path, "", "is a directory, expected a tuning database file"));
    }
    if (mode != OpenMode::kCreate && !std::filesystem::exists(status)) {
      throw UserError(
          format_user_error(path, "", "no such tuning database (the file does not exist)"));
    }
  }

  int flags = read_only ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE;
  if (mode == OpenMode::kCreate) flags |= SQLITE_OPEN_CREATE;
  // A reader of a WAL file needs its -shm beside it; on a read-only directory (an install
  // prefix, a CI cache) it opens the file as immutable instead.
  const bool immutable = read_only && !in_memory && !directory_writable(path);
  sqlite3* raw = nullptr;
  const int rc = immutable ? sqlite3_open_v2(immutable_uri(path).c_str(), &raw, flags | SQLITE_OPEN_URI, nullptr)
                           : sqlite3_open_v2(path.c_str(), &raw, flags, nullptr);
  Connection conn(raw, path, read_only);  // owns the handle even when opening failed
  if (rc != SQLITE_OK) internal::throw_error(raw, rc, path, "", read_only);
  sqlite3_extended_result_codes(raw, 1);
  sqlite3_busy_timeout(raw, busy_timeout_ms);

  // The first read of the header: a file that is not SQLite fails here with SQLITE_NOTADB.
  // Nothing is written before the caller has checked whose file it is (use_wal).
  conn.exec("SELECT count(*) FROM sqlite_master");
  conn.exec("PRAGMA foreign_keys=ON; PRAGMA synchronous=NORMAL");
  return conn;
}

void Connection::use_wal() {
  if (read_only_) return;
  // WAL lets readers run beside a writer; the mode is stored in the file.
  Statement wal(*this, "PRAGMA journal_mode=WAL");
  while (wal.step()) {
  }
}

void Connection::exec(const std::string& sql) {
  char* message = nullptr;
  const int rc = sqlite3_exec(db_.get(), sql.c_str(), nullptr, nullptr, &message);
  sqlite3_free(message);  // sqlite3_errmsg still holds the text
  if (rc != SQLITE_OK) fail(rc, sql);
}

void Connection::fail(int rc, std::string_view sql) const {
  internal::throw_error(db_.get(), rc, path_, sql, read_only_);
}

// ---------------------------------------------------------------------------------------
// Statement

Statement::Statement(const Connection& conn, std::string sql)
    : db_(conn.get()), path_(conn.path()), sql_(std::move(sql)) {
  const char* tail = nullptr;
  const int rc = sqlite3_prepare_v3(db_, sql_.c_str(), static_cast<int>(sql_.size()),
                                    SQLITE_PREPARE_PERSISTENT, &stmt_, &tail);
  if (rc != SQLITE_OK) conn.fail(rc, sql_);
  KTUNE_CHECK(stmt_ != nullptr) << "empty SQL statement: " << sql_;
  for (; tail != nullptr && *tail != '\0'; ++tail) {
    KTUNE_CHECK(*tail == ' ' || *tail == '\n' || *tail == '\t' || *tail == ';')
        << "Statement holds one SQL statement, found more: " << sql_;
  }
}

Statement::Statement(Statement&& other) noexcept
    : db_(other.db_),
      stmt_(std::exchange(other.stmt_, nullptr)),
      path_(std::move(other.path_)),
      sql_(std::move(other.sql_)),
      active_(other.active_) {}

Statement& Statement::operator=(Statement&& other) noexcept {
  if (this != &other) {
    sqlite3_finalize(stmt_);
    db_ = other.db_;
    stmt_ = std::exchange(other.stmt_, nullptr);
    path_ = std::move(other.path_);
    sql_ = std::move(other.sql_);
    active_ = other.active_;
  }
  return *this;
}

Statement::~Statement() { sqlite3_finalize(stmt_); }

void Statement::fail(int rc) const {
  internal::throw_error(db_, rc, path_, sql_, sqlite3_db_readonly(db_, "main") == 1);
}

void Statement::check_bind(int rc) {
  if (rc != SQLITE_OK) fail(rc);
}

Statement& Statement::bind(int index, int64_t value) {
  if (active_) reset();
  check_bind(sqlite3_bind_int64(stmt_, index, value));
  return *this;
}

Statement& Statement::bind(int index, double value) {
  if (active_) reset();
  check_bind(sqlite3_bind_double(stmt_, index, value));
  return *this;
}

Statement& Statement::bind(int index, std::string_view value) {
  if (active_) reset();
  check_bind(
      sqlite3_bind_text64(stmt_, index, value.data(), value.size(), SQLITE_TRANSIENT, SQLITE_UTF8));
  return *this;
}

Statement& Statement::bind(int index, std::nullptr_t) {
  if (active_) reset();
  check_bind(sqlite3_bind_null(stmt_, index));
  return *this;
}

Statement& Statement::bind_blob(int index, const std::vector<uint8_t>& value) {
  if (active_) reset();
  // A zero-length blob is stored as an empty blob, not NULL.
  check_bind(value.empty()
                 ? sqlite3_bind_zeroblob(stmt_, index, 0)
                 : sqlite3_bind_blob64(stmt_, index, value.data(), value.size(), SQLITE_TRANSIENT));
  return *this;
}

bool Statement::step() {
  active_ = true;
  const int rc = sqlite3_step(stmt_);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) {
    reset();
    return false;
  }
  sqlite3_reset(stmt_);  // keeps the error in sqlite3_errmsg
  sqlite3_clear_bindings(stmt_);
  active_ = false;
  fail(rc);
}

void Statement::run() {
  while (step()) {
  }
}

void Statement::reset() {
  sqlite3_reset(stmt_);
  sqlite3_clear_bindings(stmt_);
  active_ = false;
}

bool Statement::is_null(int column) const {
  return sqlite3_column_type(stmt_, column) == SQLITE_NULL;
}

int64_t Statement::column_int64(int column) const { return sqlite3_column_int64(stmt_, column); }

double Statement::column_double(int column) const { return sqlite3_column_double(stmt_, column); }

std::string Statement::column_text(int column) const {
  const auto* text = sqlite3_column_text(stmt_, column);
  if (text == nullptr) return {};
  return std::string(reinterpret_cast<const char*>(text),
                     static_cast<size_t>(sqlite3_column_bytes(stmt_, column)));
}

std::vector<uint8_t> Statement::column_blob(int column) const {
  const auto* data = static_cast<const uint8_t*>(sqlite3_column_blob(stmt_, column));
  if (data == nullptr) return {};
  return std::vector<uint8_t>(data, data + sqlite3_column_bytes(stmt_, column));
}

std::optional<int64_t> Statement::column_optional_int64(int column) const {
  if (is_null(column)) return std::nullopt;
  return column_int64(column);
}

std::optional<double> Statement::column_optional_double(int column) const {
  if (is_null(column)) return std::nullopt;
  return column_double(column);
}

// ---------------------------------------------------------------------------------------
// WriteTransaction

WriteTransaction::WriteTransaction(Connection& conn) : conn_(&conn) {
  conn_->exec("BEGIN IMMEDIATE");
}

WriteTransaction::~WriteTransaction() {
  if (finished_) return;
  // Still inside the transaction (never committed, or COMMIT failed): undo it.
  if (sqlite3_get_autocommit(conn_->get()) == 0) {
    sqlite3_exec(conn_->get(), "ROLLBACK", nullptr, nullptr, nullptr);
  }
}

void WriteTransaction::commit() {
  KTUNE_CHECK(!finished_) << "WriteTransaction committed twice on " << conn_->path();
  conn_->exec("COMMIT");
  finished_ = true;
}

}  // namespace ktune::sqlite
