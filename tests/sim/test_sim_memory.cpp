// The training memory model against hand counts and against the measured peak of a real
// LibTorch training step (a counting allocator around the default CPU allocator).
#include "core/graph/recorder.h"
#include "core/sim/alloc_meter.h"
#include "core/sim/memory_model.h"
#include "test_models.h"

#include <QTest>

using namespace portolan;
using namespace portolan::sim;

namespace {

struct Case
{
    std::function<torch::nn::Sequential()> build;
    std::function<torch::Tensor()> input;
    std::function<torch::Tensor()> labels;
};

Case makeCase(const QString& model, int batch)
{
    if (model == "mlp")
        return {[] { return test::mlp(784, 512, 10); },
                [batch] {
                    return torch::randn({batch, 1, 28, 28});
                },
                [batch] {
                    return torch::randint(10, {batch});
                }};
    if (model == "cnn")
        return {[] { return test::cnn(); },
                [batch] {
                    return torch::randn({batch, 3, 32, 32});
                },
                [batch] {
                    return torch::randint(10, {batch});
                }};
    return {[] { return test::transformer(96, 64, 4, 2); },
            [batch] {
                return torch::randint(96, {batch, 32});
            },
            [batch] {
                return torch::randint(96, {batch, 32});
            }};
}

} // namespace

class TestSimMemory : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void handCount()
    {
        // MLP 784-256-10 with Adam, fp32: weights, gradients, two state slots, 4 bytes each.
        auto r = graph::recordSequential(test::mlp(784, 256, 10), torch::zeros({4, 784}), "mlp");
        QVERIFY(r);
        TrainingConfig c;
        c.optimizer = Optimizer::Adam;
        c.microBatch = 1;
        const std::int64_t params = 784 * 256 + 256 + 256 * 256 + 256 + 256 * 10 + 10;
        auto m = estimateTrainingMemory(*r.value, c);
        QCOMPARE(m.weights, params * 4);
        QCOMPARE(m.gradients, params * 4);
        QCOMPARE(m.optimizerState, params * 8);
        QCOMPARE(m.masterWeights, std::int64_t(0));
        // Stash per sample: input (784 floats, kept by fc1), relu1 out (256), relu2 out (256),
        // and the loss's logits-sized tensor (10): (784 + 256 + 256 + 10) * 4.
        QCOMPARE(m.stashedActivations, std::int64_t((784 + 256 + 256 + 10) * 4));
        // Mixed precision: fp16 weights and gradients, fp32 masters and state.
        c.precision = Precision::Mixed;
        m = estimateTrainingMemory(*r.value, c);
        QCOMPARE(m.weights, params * 2);
        QCOMPARE(m.masterWeights, params * 4);
        QCOMPARE(m.optimizerState, params * 8);
        // Off chip: no state, no masters.
        c.optimizerOffChip = true;
        m = estimateTrainingMemory(*r.value, c);
        QCOMPARE(m.optimizerState + m.masterWeights, std::int64_t(0));
        // SGD keeps no state; gradient accumulation adds accumulators.
        c = {};
        c.gradAccum = 4;
        m = estimateTrainingMemory(*r.value, c);
        QCOMPARE(m.optimizerState, std::int64_t(0));
        QCOMPARE(m.gradAccumulators, params * 4);
        // Micro-batch scales the stash; GPipe-style in-flight micro-batches multiply it.
        c = {};
        c.microBatch = 8;
        const auto one = estimateTrainingMemory(*r.value, c);
        const auto three = estimateTrainingMemory(*r.value, c, 0, -1, 3);
        QCOMPARE(three.stashedActivations, 3 * one.stashedActivations);
    }

    void recomputationStashesLess()
    {
        auto r = graph::recordSequential(test::transformer(96, 64, 4, 4),
                                         torch::zeros({2, 32}, torch::kLong), "t");
        QVERIFY(r);
        TrainingConfig c;
        c.microBatch = 8;
        const auto full = estimateTrainingMemory(*r.value, c);
        c.recompute = true;
        const auto rc = estimateTrainingMemory(*r.value, c);
        QVERIFY(rc.stashedActivations < full.stashedActivations / 2);
        QVERIFY(rc.total() < full.total());
    }

    void againstMeasuredPeak_data()
    {
        QTest::addColumn<QString>("model");
        QTest::addColumn<int>("batch");
        QTest::addColumn<int>("optimizer");
        for (const char* model : {"mlp", "cnn", "transformer"})
            for (auto opt : {Optimizer::Sgd, Optimizer::SgdMomentum, Optimizer::Adam})
                for (int batch : {16, 128})
                    QTest::addRow("%s-%s-b%d", model, optimizerName(opt).data(), batch)
                        << model << batch << int(opt);
    }
    void againstMeasuredPeak()
    {
        QFETCH(QString, model);
        QFETCH(int, batch);
        QFETCH(int, optimizer);
        torch::manual_seed(1);
        const Case k = makeCase(model, batch);
        auto measured = measureTrainingStep(k.build, k.input, k.labels, Optimizer(optimizer));
        QVERIFY2(measured, measured.error.toString().c_str());
        auto g = graph::recordSequential(k.build(), k.input(), model.toStdString());
        QVERIFY2(g, g.error.toString().c_str());
        TrainingConfig c;
        c.optimizer = Optimizer(optimizer);
        c.microBatch = batch;
        const auto estimate = estimateTrainingMemory(*g.value, c);
        const double ratio = double(estimate.total()) / double(measured.value->peakBytes);
        qInfo("%s b=%d %s: estimate %lld (w %lld g %lld s %lld stash %lld tmp %lld), measured "
              "peak %lld, ratio %.3f",
              qPrintable(model), batch, optimizerName(Optimizer(optimizer)).data(),
              (long long)estimate.total(), (long long)estimate.weights,
              (long long)estimate.gradients, (long long)estimate.optimizerState,
              (long long)estimate.stashedActivations, (long long)estimate.temporaries,
              (long long)measured.value->peakBytes, ratio);
        QCOMPARE(measured.value->paramBytes, estimate.weights);
        QVERIFY2(ratio > 0.85 && ratio < 1.15, QByteArray::number(ratio).constData());
    }
};

QTEST_GUILESS_MAIN(TestSimMemory)
#include "test_sim_memory.moc"
