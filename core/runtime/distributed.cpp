#include "core/runtime/distributed.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>
#include <torch/csrc/distributed/c10d/TCPStore.hpp>
#include <torch/torch.h>

namespace portolan::runtime {

using Clock = std::chrono::steady_clock;

struct PendingReduce
{
    c10::intrusive_ptr<c10d::Work> work;
    Clock::time_point started;
};

namespace {

// Gloo's messages start with its source position ("[../third_party/gloo/...cc:589] "); the
// reason after it is what a user can act on.
std::string reasonOf(const std::exception& e)
{
    const auto* c10 = dynamic_cast<const c10::Error*>(&e);
    std::string m = c10 ? c10->what_without_backtrace() : e.what();
    if (!m.empty() && m.front() == '[')
        if (const auto close = m.find("] "); close < 200) // npos is above 200
            m = m.substr(close + 2);
    if (const auto nl = m.find('\n'); nl != std::string::npos)
        m = m.substr(0, nl);
    return m;
}

Diagnostic distError(const std::string& code, const std::string& message, const std::string& where)
{
    Diagnostic d;
    d.code = code;
    d.message = message;
    d.location.file = where;
    return d;
}

bool isLoopback(const std::string& host)
{
    return host == "localhost" || host.rfind("127.", 0) == 0 || host == "::1";
}

} // namespace

struct Communicator::Impl
{
    c10::intrusive_ptr<c10d::Store> store;
    c10::intrusive_ptr<c10d::ProcessGroupGloo> group;
    int rank = 0;
    int size = 1;
    std::chrono::milliseconds timeout{60000};

    [[noreturn]] void lost(const std::string& what, const std::exception& e) const
    {
        throw RankLost("rank " + std::to_string(rank) + " of " + std::to_string(size) +
                       " lost the other ranks during " + what + ": " + reasonOf(e));
    }

    void run(const c10::intrusive_ptr<c10d::Work>& work, const std::string& what) const
    {
        try {
            work->wait();
        } catch (const std::exception& e) {
            lost(what, e);
        }
    }
};

Communicator::Communicator() : m_impl(std::make_unique<Impl>()) {}
Communicator::~Communicator() = default;

Result<std::shared_ptr<Communicator>> Communicator::connect(const DistributedOptions& options)
{
    using R = Result<std::shared_ptr<Communicator>>;
    const auto& env = options.env;
    const std::string where = env.masterAddr + ":" + std::to_string(env.masterPort);
    std::shared_ptr<Communicator> comm(new Communicator());
    Impl& impl = *comm->m_impl;
    impl.rank = env.rank;
    impl.size = env.worldSize;
    impl.timeout = options.timeout;
    try {
        c10d::TCPStoreOptions so;
        so.port = std::uint16_t(env.masterPort);
        so.isServer = env.rank == 0;
        so.numWorkers = std::size_t(env.worldSize);
        so.waitWorkers = true;
        so.timeout = options.timeout;
        impl.store = c10::make_intrusive<c10d::TCPStore>(env.masterAddr, so);
    } catch (const std::exception& e) {
        const std::string reason = reasonOf(e);
        if (env.rank == 0 && (reason.find("already in use") != std::string::npos ||
                              reason.find("errno: 98") != std::string::npos))
            return R::fail(distError("runtime.rendezvous-port",
                                     "rank 0 cannot listen on the rendezvous port " +
                                         std::to_string(env.masterPort) +
                                         ": it is already in use (MASTER_PORT chooses another)",
                                     where));
        return R::fail(
            distError("runtime.rendezvous",
                      "rank " + std::to_string(env.rank) + " of " + std::to_string(env.worldSize) +
                          " could not meet the other ranks at " + where + " within " +
                          std::to_string(options.timeout.count() / 1000) + " s: " + reason,
                      where));
    }
    try {
        auto go = c10d::ProcessGroupGloo::Options::create(options.timeout);
        // Ranks on one machine talk over the loopback; across machines, over the interface
        // GLOO_SOCKET_IFNAME names (PyTorch's variable), else the one the hostname resolves to.
        if (const char* ifname = std::getenv("GLOO_SOCKET_IFNAME"); ifname && *ifname)
            go->devices.push_back(c10d::ProcessGroupGloo::createDeviceForInterface(ifname));
        else if (isLoopback(env.masterAddr))
            go->devices.push_back(c10d::ProcessGroupGloo::createDeviceForHostname("127.0.0.1"));
        else
            go->devices.push_back(c10d::ProcessGroupGloo::createDefaultDevice());
        go->threads = 2;
        impl.group =
            c10::make_intrusive<c10d::ProcessGroupGloo>(impl.store, env.rank, env.worldSize, go);
    } catch (const std::exception& e) {
        return R::fail(distError("runtime.rendezvous",
                                 "rank " + std::to_string(env.rank) +
                                     " could not connect to the other ranks: " + reasonOf(e),
                                 where));
    }
    return R::ok(comm);
}

int Communicator::rank() const
{
    return m_impl->rank;
}

int Communicator::size() const
{
    return m_impl->size;
}

std::chrono::milliseconds Communicator::timeout() const
{
    return m_impl->timeout;
}

void Communicator::broadcast(const std::vector<at::Tensor>& tensors, const std::string& what)
{
    if (tensors.empty())
        return;
    // One flat message instead of one per tensor.
    std::vector<at::Tensor> parts;
    for (const auto& t : tensors)
        parts.push_back(t.detach().reshape(-1));
    std::vector<at::Tensor> flat{torch::cat(parts)};
    try {
        m_impl->run(m_impl->group->broadcast(flat), what);
    } catch (const RankLost&) {
        throw;
    } catch (const std::exception& e) {
        m_impl->lost(what, e);
    }
    torch::NoGradGuard noGrad;
    int64_t offset = 0;
    for (const auto& t : tensors) {
        t.copy_(flat[0].narrow(0, offset, t.numel()).view_as(t));
        offset += t.numel();
    }
}

void Communicator::allreduceSum(at::Tensor& tensor, const std::string& what)
{
    std::vector<at::Tensor> v{tensor};
    try {
        m_impl->run(m_impl->group->allreduce(v), what);
    } catch (const RankLost&) {
        throw;
    } catch (const std::exception& e) {
        m_impl->lost(what, e);
    }
}

void Communicator::allreduceMax(at::Tensor& tensor, const std::string& what)
{
    std::vector<at::Tensor> v{tensor};
    c10d::AllreduceOptions o;
    o.reduceOp = c10d::ReduceOp::MAX;
    try {
        m_impl->run(m_impl->group->allreduce(v, o), what);
    } catch (const RankLost&) {
        throw;
    } catch (const std::exception& e) {
        m_impl->lost(what, e);
    }
}

at::Tensor Communicator::allgather(const at::Tensor& mine, const std::string& what)
{
    std::vector<at::Tensor> in{mine.contiguous()};
    std::vector<std::vector<at::Tensor>> out(1);
    for (int r = 0; r < size(); ++r)
        out[0].push_back(torch::empty_like(in[0]));
    try {
        m_impl->run(m_impl->group->allgather(out, in), what);
    } catch (const RankLost&) {
        throw;
    } catch (const std::exception& e) {
        m_impl->lost(what, e);
    }
    return torch::stack(out[0]);
}

std::shared_ptr<PendingReduce> Communicator::allreduceSumAsync(const at::Tensor& tensor)
{
    auto p = std::make_shared<PendingReduce>();
    std::vector<at::Tensor> v{tensor};
    p->started = Clock::now();
    try {
        p->work = m_impl->group->allreduce(v);
    } catch (const std::exception& e) {
        m_impl->lost("an all-reduce", e);
    }
    return p;
}

void Communicator::wait(PendingReduce& pending, const std::string& what)
{
    m_impl->run(pending.work, what);
}

// ------------------------------------------------------------------------------ gradients

struct GradientReducer::Impl
{
    struct Slot
    {
        std::size_t bucket = 0;
        int64_t offset = 0;
    };
    struct Bucket
    {
        at::Tensor flat;
        std::vector<std::size_t> params;
        int pending = 0;
        std::shared_ptr<PendingReduce> work;
    };

    std::shared_ptr<Communicator> comm;
    std::vector<at::Tensor> params;
    std::vector<Slot> slots;
    std::vector<Bucket> buckets;
    std::vector<char> ready;
    std::vector<unsigned> hooks;
    bool overlap = true;
    bool armed = false;
    std::size_t nextLaunch = 0;
    std::mutex mutex; // hooks may run on an autograd worker thread
    double waitSeconds = 0;
    double reduceSeconds = 0;
    Clock::time_point firstLaunch;

    at::Tensor slotView(std::size_t i) const
    {
        const Slot& s = slots[i];
        return buckets[s.bucket].flat.narrow(0, s.offset, params[i].numel());
    }

    void launchReady()
    {
        while (nextLaunch < buckets.size() && buckets[nextLaunch].pending == 0) {
            if (nextLaunch == 0)
                firstLaunch = Clock::now();
            buckets[nextLaunch].work = comm->allreduceSumAsync(buckets[nextLaunch].flat);
            ++nextLaunch;
        }
    }

    // The gradient of parameter i for this backward pass, before it is accumulated into .grad
    // (a leaf's hook runs ahead of its AccumulateGrad): with accumulation over micro-batches,
    // what goes out is that plus what .grad already holds.
    void onGradient(std::size_t i, const at::Tensor& grad)
    {
        std::lock_guard lock(mutex);
        if (!armed || ready[i])
            return;
        torch::NoGradGuard noGrad;
        at::Tensor view = slotView(i);
        const at::Tensor& held = params[i].grad();
        if (held.defined())
            torch::add_out(view, held.reshape(-1), grad.reshape(-1));
        else
            view.copy_(grad.reshape(-1));
        ready[i] = 1;
        if (--buckets[slots[i].bucket].pending == 0)
            launchReady();
    }
};

GradientReducer::GradientReducer(std::shared_ptr<Communicator> comm, std::vector<at::Tensor> params,
                                 double bucketMb)
    : m_impl(std::make_unique<Impl>())
{
    Impl& d = *m_impl;
    d.comm = std::move(comm);
    d.params = std::move(params);
    d.overlap = bucketMb > 0;
    d.slots.resize(d.params.size());
    d.ready.assign(d.params.size(), 0);
    const int64_t cap =
        d.overlap ? std::max<int64_t>(int64_t(bucketMb * 1024 * 1024), 1) : INT64_MAX;
    // Reverse order: backward computes the last layers' gradients first.
    int64_t bytes = 0;
    for (std::size_t k = d.params.size(); k-- > 0;) {
        const at::Tensor& p = d.params[k];
        const int64_t size = p.numel() * int64_t(p.element_size());
        if (d.buckets.empty() || (bytes > 0 && bytes + size > cap)) {
            d.buckets.emplace_back();
            bytes = 0;
        }
        auto& b = d.buckets.back();
        d.slots[k] = {d.buckets.size() - 1, bytes / int64_t(p.element_size())};
        b.params.push_back(k);
        bytes += size;
    }
    for (auto& b : d.buckets) {
        int64_t numel = 0;
        for (std::size_t k : b.params)
            numel += d.params[k].numel();
        b.flat = torch::zeros({numel}, d.params.empty() ? torch::kFloat : d.params[0].options());
        b.pending = int(b.params.size());
    }
    if (d.overlap)
        for (std::size_t k = 0; k < d.params.size(); ++k)
            d.hooks.push_back(d.params[k].register_hook(
                [impl = m_impl.get(), k](const at::Tensor& grad) { impl->onGradient(k, grad); }));
}

GradientReducer::~GradientReducer()
{
    for (std::size_t k = 0; k < m_impl->hooks.size(); ++k)
        m_impl->params[k].remove_hook(m_impl->hooks[k]);
}

void GradientReducer::arm()
{
    std::lock_guard lock(m_impl->mutex);
    m_impl->armed = m_impl->overlap;
}

void GradientReducer::finish(const std::string& what)
{
    Impl& d = *m_impl;
    {
        std::lock_guard lock(d.mutex);
        d.armed = false;
        torch::NoGradGuard noGrad;
        // What backward did not hand over (an unused parameter, a rank whose share of the batch
        // was empty, or no overlap at all) goes out now, in bucket order.
        for (std::size_t b = d.nextLaunch; b < d.buckets.size(); ++b) {
            for (std::size_t k : d.buckets[b].params) {
                if (d.ready[k])
                    continue;
                const at::Tensor& held = d.params[k].grad();
                if (held.defined())
                    d.slotView(k).copy_(held.reshape(-1));
                else
                    d.slotView(k).zero_();
                d.ready[k] = 1;
            }
            d.buckets[b].pending = 0;
        }
        d.launchReady();
    }
    const auto waitStart = Clock::now();
    for (auto& b : d.buckets)
        d.comm->wait(*b.work, what);
    const auto end = Clock::now();
    d.waitSeconds = std::chrono::duration<double>(end - waitStart).count();
    d.reduceSeconds = std::chrono::duration<double>(end - d.firstLaunch).count();
    for (std::size_t k = 0; k < d.params.size(); ++k)
        d.params[k].mutable_grad() = d.slotView(k).view_as(d.params[k]);
    for (auto& b : d.buckets) {
        b.pending = int(b.params.size());
        b.work.reset();
    }
    std::fill(d.ready.begin(), d.ready.end(), 0);
    d.nextLaunch = 0;
}

int GradientReducer::bucketCount() const
{
    return int(m_impl->buckets.size());
}

double GradientReducer::lastWaitSeconds() const
{
    return m_impl->waitSeconds;
}

double GradientReducer::lastReduceSeconds() const
{
    return m_impl->reduceSeconds;
}

// ------------------------------------------------------------------------------ weights

RankWeights compareRankWeights(Communicator& comm, const std::vector<at::Tensor>& params)
{
    torch::NoGradGuard noGrad;
    std::vector<at::Tensor> flat;
    for (const auto& p : params)
        flat.push_back(p.detach().reshape(-1).to(torch::kFloat).contiguous());
    const at::Tensor mine = flat.empty() ? torch::zeros({0}) : torch::cat(flat);
    uint64_t h = 1469598103934665603ULL;
    const auto* bytes = static_cast<const unsigned char*>(mine.data_ptr());
    for (int64_t i = 0; i < mine.numel() * int64_t(sizeof(float)); ++i) {
        h ^= bytes[i];
        h *= 1099511628211ULL;
    }
    // Gloo gathers tensors, not 64-bit words: the digest travels as two 32-bit halves.
    const at::Tensor halves =
        torch::tensor({int64_t(h >> 32), int64_t(h & 0xffffffffULL)}, torch::kInt64);
    const at::Tensor all = comm.allgather(halves, "the comparison of the final weights");
    RankWeights r;
    for (int k = 0; k < comm.size(); ++k) {
        char hex[17];
        std::snprintf(hex, sizeof hex, "%08llx%08llx",
                      static_cast<unsigned long long>(all[k][0].item<int64_t>()),
                      static_cast<unsigned long long>(all[k][1].item<int64_t>()));
        r.digests.push_back(hex);
    }
    at::Tensor root = mine.clone();
    comm.broadcast({root}, "the comparison of the final weights");
    at::Tensor diff = torch::tensor({mine.numel() ? (mine - root).abs().max().item<double>() : 0.0},
                                    torch::kDouble);
    comm.allreduceMax(diff, "the comparison of the final weights");
    r.maxDifference = diff.item<double>();
    return r;
}

} // namespace portolan::runtime
