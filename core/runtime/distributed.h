#pragma once
// Data parallelism over LibTorch's own c10d Gloo process group (issue 14): the ranks meet at a
// TCPStore served by rank 0, rank 0's weights are broadcast once, and every optimizer step sums
// the gradients of all ranks in buckets that go out while the backward pass is still running.
// The c10d and Gloo headers stay inside distributed.cpp.
#include "core/cluster/cluster.h"
#include "core/common/diagnostic.h"

#include <ATen/core/Tensor.h>
#include <chrono>
#include <memory>
#include <stdexcept>
#include <vector>

namespace portolan::runtime {

struct DistributedOptions
{
    cluster::RankEnv env;
    // How long a collective waits for the other ranks; past it the job ends with a message (a
    // rank that crashed or was killed is noticed sooner, when its sockets close).
    std::chrono::milliseconds timeout{std::chrono::seconds(60)};
    // Gradient bucket size; 0: one all-reduce of every gradient after the backward pass.
    double bucketMb = 1.0;
};

// A collective failed: another rank left (crashed, killed) or did not answer in time.
class RankLost : public std::runtime_error
{
public:
    using std::runtime_error::runtime_error;
};

struct PendingReduce;

class Communicator
{
public:
    // Meets the other ranks. Fails with runtime.rendezvous-port when rank 0 cannot listen on the
    // port, with runtime.rendezvous when the ranks do not all come within the timeout.
    static Result<std::shared_ptr<Communicator>> connect(const DistributedOptions& options);
    ~Communicator();
    Communicator(const Communicator&) = delete;
    Communicator& operator=(const Communicator&) = delete;

    int rank() const;
    int size() const;
    std::chrono::milliseconds timeout() const;

    // `what` names the collective in the message when a rank is lost. All throw RankLost.
    void broadcast(const std::vector<at::Tensor>& tensors, const std::string& what); // from 0
    void allreduceSum(at::Tensor& tensor, const std::string& what);
    void allreduceMax(at::Tensor& tensor, const std::string& what);
    at::Tensor allgather(const at::Tensor& mine, const std::string& what); // [size, mine...]
    // Started at once; every rank must start its collectives in the same order.
    std::shared_ptr<PendingReduce> allreduceSumAsync(const at::Tensor& tensor);
    void wait(PendingReduce& pending, const std::string& what);

private:
    Communicator();
    struct Impl;
    std::unique_ptr<Impl> m_impl;
};

// Sums the gradients of `params` over the ranks. Parameters are grouped into buckets of about
// bucketMb, last layers first (their gradients are ready first); a bucket's all-reduce starts
// as soon as its last gradient is computed, through a gradient hook, in bucket order on every
// rank. A parameter that got no gradient this step adds zeros.
class GradientReducer
{
public:
    GradientReducer(std::shared_ptr<Communicator> comm, std::vector<at::Tensor> params,
                    double bucketMb);
    ~GradientReducer();
    GradientReducer(const GradientReducer&) = delete;
    GradientReducer& operator=(const GradientReducer&) = delete;

    // The next backward pass is the last of this optimizer step (with gradient accumulation the
    // earlier micro-batches only accumulate): its gradients go out as they are ready.
    void arm();
    // Sends what has not gone out, waits for every bucket, and sets each parameter's gradient to
    // the sum over the ranks. Throws RankLost.
    void finish(const std::string& what);

    int bucketCount() const;
    double lastWaitSeconds() const;   // blocked in finish(): the communication not hidden
    double lastReduceSeconds() const; // from the first bucket's start to the last one's end

private:
    struct Impl;
    std::unique_ptr<Impl> m_impl;
};

// Every rank's parameters: FNV-1a of their bytes per rank (as 16 hex digits) and the largest
// absolute difference from rank 0's. Collective: all ranks call it.
struct RankWeights
{
    std::vector<std::string> digests;
    double maxDifference = 0;
};
RankWeights compareRankWeights(Communicator& comm, const std::vector<at::Tensor>& params);

} // namespace portolan::runtime
