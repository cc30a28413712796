// What carries the messages of a distributed run (cluster/messages.h): tagged text between
// numbered ranks, rank 0 the coordinator. MpiTransport (cluster/mpi_session.cc) is the one
// users run; the protocol code above it only sees this interface.
#pragma once

#include <string>

#include "cluster/messages.h"

namespace ktune::cluster {

class Transport {
 public:
  virtual ~Transport() = default;
  virtual int rank() const = 0;  // this process's rank
  virtual int size() const = 0;  // ranks in the run, the coordinator included
  // Sends `text` to rank `to` under `tag`; returns once the text may be reused.
  virtual void send(int to, Tag tag, const std::string& text) = 0;

  struct Received {
    int from = 0;
    Tag tag = Tag::kStop;
    std::string text;
  };
  // Blocks until the next message from any rank arrives.
  virtual Received receive() = 0;
};

}  // namespace ktune::cluster
