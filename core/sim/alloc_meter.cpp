#include "core/sim/alloc_meter.h"

#include <atomic>
#include <c10/core/CPUAllocator.h>

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

// What the deleter needs: the real allocation and its size.
struct Allocation
{
    c10::DataPtr inner;
    std::int64_t bytes;
};

void release(void* ctx)
{
    auto* a = static_cast<Allocation*>(ctx);
    counters().live -= a->bytes;
    delete a; // frees the inner DataPtr with the default allocator's deleter
}

class CountingAllocator final : public c10::Allocator
{
public:
    explicit CountingAllocator(c10::Allocator* inner) : m_inner(inner) {}

    c10::DataPtr allocate(size_t n) const override
    {
        c10::DataPtr inner = m_inner->allocate(n);
        if (!counters().active)
            return inner;
        auto& c = counters();
        const auto live = c.live += std::int64_t(n);
        auto peak = c.peak.load();
        while (live > peak && !c.peak.compare_exchange_weak(peak, live)) {
        }
        void* data = inner.get();
        const c10::Device device = inner.device();
        auto* ctx = new Allocation{std::move(inner), std::int64_t(n)};
        return {data, ctx, &release, device};
    }
    c10::DeleterFnPtr raw_deleter() const override { return nullptr; }

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
