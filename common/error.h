// Error tiers shared by every ktune library: user errors, environment failures, and broken
// invariants (KTUNE_CHECK, common/check.h).
// UserError is bad input a person can fix: it names the file, the field or line,
// what was expected and what was found. The CLI maps it to exit code 2.
// EnvironmentError is a correct request that the machine failed: a full disk, an I/O
// error, a damaged database file. The CLI maps it to exit code 1.
#pragma once

#include <stdexcept>
#include <string>

namespace ktune {

// Exit codes of the `ktune` binary (documented in docs/usage.md, "Exit codes").
inline constexpr int kExitOk = 0;
inline constexpr int kExitFailure = 1;
inline constexpr int kExitUsage = 2;

// Bad input from the user: a malformed spec, a missing file, an unknown flag value.
class UserError : public std::runtime_error {
 public:
  explicit UserError(const std::string& message) : std::runtime_error(message) {}
};

// The machine or a file failed a correct request; the message names the file and says how
// to recover.
class EnvironmentError : public std::runtime_error {
 public:
  explicit EnvironmentError(const std::string& message) : std::runtime_error(message) {}
};

// Builds "FILE: PATH: expected X, found Y" style messages consistently.
// `where` is a file name (may be empty), `field` a JSON path such as `ops[2].inputs[0]`
// (may be empty).
std::string format_user_error(const std::string& where, const std::string& field,
                              const std::string& message);

// True when a write that failed with `errno_value` failed because of the machine (no space
// left, quota, I/O error, file too large), not because of the path the user gave.
bool is_machine_write_failure(int errno_value);

// Throws for a failed write of `path` (`what`: "the export file"): EnvironmentError when
// is_machine_write_failure(errno_value), else UserError (a missing folder, no permission, a
// read-only file system: a path the user must change). The message names the path, the
// flag `field` (may be empty) and the system's reason.
[[noreturn]] void throw_write_error(const std::string& path, const std::string& field, const std::string& what,
                                    int errno_value);

}  // namespace ktune
