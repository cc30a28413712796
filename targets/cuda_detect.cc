// detect_cuda_devices(): runs query_cuda_devices_in_process() in a forked child and reads its
// answer (the devices as JSON) through a pipe, so the calling process keeps no CUDA state.
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <nlohmann/json.hpp>
#include <string>

#include "common/child_process.h"
#include "targets/cuda_devices.h"

namespace ktune::targets {
namespace {

// The driver answers in well under a second; a child still silent after this is stuck.
constexpr int kDetectionTimeoutMs = 30000;

void write_all(int fd, const std::string& text) {
  size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = write(fd, text.data() + done, text.size() - done);
    if (n <= 0) return;
    done += static_cast<size_t>(n);
  }
}

// Reads until end of file or the deadline; false on timeout.
bool read_all(int fd, std::string& out) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(kDetectionTimeoutMs);
  char buf[4096];
  while (true) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) return false;
    pollfd p{fd, POLLIN, 0};
    const int ready = poll(&p, 1, static_cast<int>(left.count()));
    if (ready < 0 && errno == EINTR) continue;
    if (ready <= 0) return false;
    const ssize_t n = read(fd, buf, sizeof(buf));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return true;
    out.append(buf, static_cast<size_t>(n));
  }
}

}  // namespace

CudaDetection detect_cuda_devices() {
  CudaDetection result;
  int fds[2];
  if (pipe(fds) != 0) {
    result.problem = std::string("cannot ask the CUDA driver: pipe() failed: ") + std::strerror(errno);
    return result;
  }
  const pid_t parent = getpid();
  const pid_t pid = fork();
  if (pid < 0) {
    close(fds[0]);
    close(fds[1]);
    result.problem = std::string("cannot ask the CUDA driver: fork() failed: ") + std::strerror(errno);
    return result;
  }
  if (pid == 0) {
    end_with_parent(parent);
    close(fds[0]);
    const CudaDetection here = query_cuda_devices_in_process();
    nlohmann::json answer = {{"problem", here.problem}, {"devices", nlohmann::json::array()}};
    for (const Device& d : here.devices) answer["devices"].push_back(to_json(d));
    write_all(fds[1], answer.dump());
    close(fds[1]);
    _exit(0);
  }
  close(fds[1]);
  std::string text;
  const bool finished = read_all(fds[0], text);
  close(fds[0]);
  if (!finished) kill(pid, SIGKILL);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (!finished) {
    result.problem = "the CUDA driver did not answer within " + std::to_string(kDetectionTimeoutMs / 1000) + " s";
    return result;
  }
  if (WIFSIGNALED(status)) {
    result.problem = "the CUDA driver crashed while listing devices (signal " + std::to_string(WTERMSIG(status)) + ")";
    return result;
  }
  try {
    const nlohmann::json answer = nlohmann::json::parse(text);
    result.problem = answer.at("problem").get<std::string>();
    for (const nlohmann::json& d : answer.at("devices")) result.devices.push_back(device_from_json(d, "CUDA detection"));
  } catch (const std::exception& e) {
    result.devices.clear();
    result.problem = std::string("could not read the CUDA driver's answer: ") + e.what();
  }
  return result;
}

}  // namespace ktune::targets
