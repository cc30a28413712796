// MPI for `ktune tune` started by an MPI launcher (mpirun, srun): whether this process was,
// the session (MPI_Init and MPI_Finalize around a run), and the Transport over
// MPI_COMM_WORLD. Without MPI at build time, or without a launcher at run time, ktune
// tune runs on this machine alone and nothing here is called.
#pragma once

#include <memory>

#include "cluster/transport.h"

namespace ktune::cluster {

// True when this ktune was built with MPI.
bool mpi_built();

// True when the environment says an MPI launcher started this process (Open MPI's
// OMPI_COMM_WORLD_SIZE, or PMI/PMIx variables as srun sets them).
bool launched_by_mpi();

// MPI_Init on construction, MPI_Finalize on destruction; one per process. Open MPI's
// warning about fork() is switched off first: every measurement runs in a forked child
// that never calls MPI and leaves with _exit.
class MpiSession {
 public:
  MpiSession();
  ~MpiSession();
  MpiSession(const MpiSession&) = delete;
  MpiSession& operator=(const MpiSession&) = delete;
  // Tagged text over MPI_COMM_WORLD.
  Transport& transport();

 private:
  std::unique_ptr<Transport> transport_;
};

}  // namespace ktune::cluster
