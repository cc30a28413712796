// The state behind a TuningDb (its connection, versions and prepared statements), shared by
// the .cc files that implement TuningDb's methods. Not part of the public API.
#pragma once

#include <memory>
#include <type_traits>
#include <unordered_map>
#include <utility>

#include "tuning_db/sqlite.h"
#include "tuning_db/tuning_db.h"

namespace ktune::tuning_db {

struct TuningDb::Impl {
  Impl(sqlite::Connection c, Versions v) : conn(std::move(c)), versions(std::move(v)) {}

  // The statement for `sql`, prepared on first use and kept for the life of the database;
  // handed out reset, with no bindings.
  // `sql` must be a string literal (or another string with static storage): the cache is
  // keyed by its address.
  sqlite::Statement& stmt(const char* sql);

  // Runs `fn` inside one read transaction, so that its queries see one snapshot; inside an
  // open transaction it simply runs `fn`.
  template <typename Fn>
  auto read(Fn&& fn) -> decltype(fn());

  sqlite::Connection conn;  // the open database
  Versions versions;        // the running ktune and Halide
  bool in_batch = false;    // inside batch(): writes join its transaction
  std::unordered_map<const char*, std::unique_ptr<sqlite::Statement>> statements;  // cache
};

namespace internal {
// BEGIN (deferred) unless a transaction is open; returns whether it began one.
bool begin_read(TuningDb::Impl& impl);
// Ends what begin_read began; `ok` false rolls back.
void end_read(TuningDb::Impl& impl, bool began, bool ok);
}  // namespace internal

template <typename Fn>
auto TuningDb::Impl::read(Fn&& fn) -> decltype(fn()) {
  const bool began = internal::begin_read(*this);
  try {
    if constexpr (std::is_void_v<decltype(fn())>) {
      fn();
      internal::end_read(*this, began, true);
    } else {
      auto result = fn();
      internal::end_read(*this, began, true);
      return result;
    }
  } catch (...) {
    internal::end_read(*this, began, false);
    throw;
  }
}

}  // namespace ktune::tuning_db
