#include "common/error.h"

#include <cerrno>
#include <cstring>

namespace ktune {

std::string format_user_error(const std::string& where, const std::string& field,
                              const std::string& message) {
  std::string out;
  if (!where.empty()) out += where + ": ";
  if (!field.empty()) out += field + ": ";
  return out + message;
}

bool is_machine_write_failure(int errno_value) {
  return errno_value == ENOSPC || errno_value == EDQUOT || errno_value == EIO || errno_value == EFBIG;
}

void throw_write_error(const std::string& path, const std::string& field, const std::string& what, int errno_value) {
  const std::string reason = errno_value != 0 ? std::strerror(errno_value) : "unknown error";
  if (is_machine_write_failure(errno_value)) {
    throw EnvironmentError(format_user_error(path, field, "writing " + what + " failed: " + reason +
                                                              "; free some space or pick another place, then run it again"));
  }
  throw UserError(format_user_error(path, field, "cannot write " + what + " here: " + reason));
}

}  // namespace ktune
