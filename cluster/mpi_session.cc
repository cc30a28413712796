#include "cluster/mpi_session.h"

#include <cstdlib>
#include <stdexcept>

#ifdef KTUNE_WITH_MPI
#include <mpi.h>
#endif

namespace ktune::cluster {

bool launched_by_mpi() {
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK", "PMI_SIZE"}) {
    if (std::getenv(name) != nullptr) return true;
  }
  return false;
}

#ifdef KTUNE_WITH_MPI

namespace {

class MpiTransport : public Transport {
 public:
  MpiTransport() {
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
    MPI_Comm_size(MPI_COMM_WORLD, &size_);
  }
  int rank() const override { return rank_; }
  int size() const override { return size_; }

  void send(int to, Tag tag, const std::string& text) override {
    MPI_Send(text.data(), static_cast<int>(text.size()), MPI_CHAR, to, static_cast<int>(tag), MPI_COMM_WORLD);
  }

  Received receive() override {
    MPI_Status status;
    MPI_Probe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &status);
    int count = 0;
    MPI_Get_count(&status, MPI_CHAR, &count);
    Received r;
    r.from = status.MPI_SOURCE;
    r.tag = static_cast<Tag>(status.MPI_TAG);
    r.text.resize(static_cast<size_t>(count));
    MPI_Recv(r.text.data(), count, MPI_CHAR, status.MPI_SOURCE, status.MPI_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    return r;
  }

 private:
  int rank_ = 0;
  int size_ = 1;
};

}  // namespace

bool mpi_built() { return true; }

MpiSession::MpiSession() {
  setenv("OMPI_MCA_mpi_warn_on_fork", "0", 0);
  int provided = 0;
  // Only the main thread calls MPI (builds run on TBB threads, runs in forked children).
  MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided);
  transport_ = std::make_unique<MpiTransport>();
}

MpiSession::~MpiSession() {
  transport_.reset();
  MPI_Finalize();
}

#else

bool mpi_built() { return false; }

MpiSession::MpiSession() { throw std::logic_error("ktune was built without MPI"); }

MpiSession::~MpiSession() = default;

#endif

Transport& MpiSession::transport() { return *transport_; }

}  // namespace ktune::cluster
