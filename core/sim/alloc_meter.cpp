#include "core/sim/alloc_meter.h"

#include <atomic>
#include <c10/core/CPUAllocator.h>
#include <mutex>
#include <unordered_map>

namespace portolan::sim {

namespace {

struct Counters
{
    std::atomic<std::int64_t> live{0};
    std::atomic<std::int64_t> peak{0};
    std::atomic<bool> active{false};
};

Counters& counters()
{
    static Counters c;
    return c;
}

// Some LibTorch code calls raw_allocate(), which needs data == context and a raw deleter, so
// the size of each counted block is kept in a side table rather than in a context object.
struct Block
{
    std::int64_t bytes;
    c10::DeleterFnPtr innerDeleter;
};

std::mutex& tableMutex()
{
    static std::mutex m;
    return m;
}

std::unordered_map<void*, Block>& table()
{
    static std::unordered_map<void*, Block> t;
    return t;
}

void release(void* ptr)
{
    Block b{0, nullptr};
    {
        std::lock_guard lock(tableMutex());
        auto it = table().find(ptr);
        if (it == table().end()) {
            // A raw allocation made while no meter was counting: the inner allocator's block.
            if (auto d = c10::GetDefaultCPUAllocator()->raw_deleter())
                d(ptr);
            return;
        }
        b = it->second;
        table().erase(it);
    }
    counters().live -= b.bytes;
    b.innerDeleter(ptr);
}

class CountingAllocator final : public c10::Allocator
{
public:
    explicit CountingAllocator(c10::Allocator* inner) : m_inner(inner) {}

    c10::DataPtr allocate(size_t n) const override
    {
        c10::DataPtr inner = m_inner->allocate(n);
        void* data = inner.get();
        c10::DeleterFnPtr innerDeleter = inner.get_deleter();
        // Only plain blocks (context == data) can be tracked through a raw deleter.
        if (!counters().active || data == nullptr || inner.get_context() != data)
            return inner;
        inner.release_context();
        {
            std::lock_guard lock(tableMutex());
            table()[data] = Block{std::int64_t(n), innerDeleter};
        }
        auto& c = counters();
        const auto live = c.live += std::int64_t(n);
        auto peak = c.peak.load();
        while (live > peak && !c.peak.compare_exchange_weak(peak, live)) {
        }
        return {data, data, &release, inner.device()};
    }
    c10::DeleterFnPtr raw_deleter() const override { return &release; }

private:
    c10::Allocator* m_inner;
};

// Installed once, at the highest priority; counting is switched on by a meter. (Priorities
// only ever rise, so it cannot be uninstalled and reinstalled.)
CountingAllocator& installed()
{
    static CountingAllocator* a = [] {
        auto* alloc = new CountingAllocator(c10::GetDefaultCPUAllocator());
        c10::SetCPUAllocator(alloc, /*priority=*/std::numeric_limits<uint8_t>::max());
        return alloc;
    }();
    return *a;
}

} // namespace

AllocationMeter::AllocationMeter()
{
    installed();
    counters().live = 0;
    counters().peak = 0;
    counters().active = true;
}

AllocationMeter::~AllocationMeter()
{
    counters().active = false;
}

std::int64_t AllocationMeter::liveBytes() const
{
    return counters().live;
}
std::int64_t AllocationMeter::peakBytes() const
{
    return counters().peak;
}
void AllocationMeter::resetPeak()
{
    counters().peak = counters().live.load();
}

Result<MeasuredStep> measureTrainingStep(const std::function<torch::nn::Sequential()>& build,
                                         const std::function<torch::Tensor()>& input,
                                         const std::function<torch::Tensor()>& labels,
                                         Optimizer optimizer)
{
    MeasuredStep m;
    try {
        AllocationMeter meter;
        auto net = build();
        net->train();
        for (const auto& p : net->parameters())
            m.paramBytes += std::int64_t(p.nbytes());
        std::unique_ptr<torch::optim::Optimizer> opt;
        switch (optimizer) {
        case Optimizer::Sgd:
            opt = std::make_unique<torch::optim::SGD>(net->parameters(),
                                                      torch::optim::SGDOptions(0.01));
            break;
        case Optimizer::SgdMomentum:
            opt = std::make_unique<torch::optim::SGD>(net->parameters(),
                                                      torch::optim::SGDOptions(0.01).momentum(0.9));
            break;
        case Optimizer::Adam:
            opt = std::make_unique<torch::optim::Adam>(net->parameters(),
                                                       torch::optim::AdamOptions(1e-3));
            break;
        case Optimizer::AdamW:
        case Optimizer::Lamb: // no LAMB in LibTorch; its state is Adam's
            opt = std::make_unique<torch::optim::AdamW>(net->parameters(),
                                                        torch::optim::AdamWOptions(1e-3));
            break;
        }
        const auto x = input();
        const auto y = labels();
        const auto step = [&] {
            opt->zero_grad();
            auto out = net->forward(x);
            auto loss = torch::nn::functional::cross_entropy(out.reshape({-1, out.size(-1)}),
                                                             y.reshape({-1}));
            loss.backward();
            opt->step();
        };
        step();
        m.liveBeforeStep = meter.liveBytes();
        meter.resetPeak();
        step();
        m.peakBytes = meter.peakBytes();
    } catch (const std::exception& e) {
        std::string what = e.what();
        if (auto nl = what.find('\n'); nl != std::string::npos)
            what.resize(nl);
        return Result<MeasuredStep>::fail(
            {Severity::Error, "compile.measure-failed", "the training step failed: " + what, {}});
    }
    return Result<MeasuredStep>::ok(m);
}

} // namespace portolan::sim
