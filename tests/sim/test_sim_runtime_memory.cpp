// The memory model against the measured peak of a real training step of each runtime model
// (the sample projects' models rebuilt in LibTorch by core/runtime), and the project recorder.
#include "core/graph/project_graph.h"
#include "core/graph/recorder.h"
#include "core/runtime/models.h"
#include "core/runtime/run_config.h"
#include "core/sim/alloc_meter.h"
#include "core/sim/memory_model.h"

#include <QTest>

using namespace portolan;

class TestSimRuntimeMemory : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void runtimeModels_data()
    {
        QTest::addColumn<QString>("params");
        QTest::addColumn<int>("batch");
        const QString s = PORTOLAN_SAMPLES;
        for (int batch : {8, 64}) {
            QTest::addRow("mnist-mlp-b%d", batch)
                << s + "/mnist-mlp-cerebras-pytorch/configs/params.yaml" << batch;
            QTest::addRow("small-cnn-b%d", batch)
                << s + "/small-cnn-poptorch/configs/params.yaml" << batch;
            QTest::addRow("transformer-b%d", batch)
                << s + "/alphabet-transformer-cerebras-layers/configs/params.yaml" << batch;
            QTest::addRow("cifar-convnet-b%d", batch)
                << s + "/image-classifier-determined/const.yaml" << batch;
        }
    }
    void runtimeModels()
    {
        QFETCH(QString, params);
        QFETCH(int, batch);
        auto built = runtime::buildModelFromParams(params.toStdString());
        QVERIFY2(built, built.error.toString().c_str());
        const auto shape = [&] {
            std::vector<std::int64_t> s{batch};
            s.insert(s.end(), built.value->inputShape.begin(), built.value->inputShape.end());
            return s;
        }();
        const auto dtype = built.value->inputDtype;
        const std::int64_t classes = built.value->numClasses;
        const auto input = [&] {
            return dtype == torch::kLong ? torch::randint(classes, shape)
                                         : torch::randn(shape, torch::TensorOptions().dtype(dtype));
        };
        // Labels: one per sample, or one per position for token models.
        const auto labels = [&] {
            return dtype == torch::kLong ? torch::randint(classes, shape)
                                         : torch::randint(classes, {batch});
        };
        for (auto opt : {sim::Optimizer::Sgd, sim::Optimizer::Adam}) {
            torch::manual_seed(3);
            auto measured = sim::measureTrainingStep(
                [&] { return runtime::buildModelFromParams(params.toStdString()).value->net; },
                input, labels, opt);
            QVERIFY2(measured, measured.error.toString().c_str());
            auto g = graph::recordProjectModel(params.toStdString(), batch);
            QVERIFY2(g, g.error.toString().c_str());
            sim::TrainingConfig c;
            c.optimizer = opt;
            c.microBatch = batch;
            const auto e = sim::estimateTrainingMemory(*g.value, c);
            const double ratio = double(e.total()) / double(measured.value->peakBytes);
            qInfo("%s b=%d %s: estimate %lld, measured %lld, ratio %.3f", g.value->name.c_str(),
                  batch, sim::optimizerName(opt).data(), (long long)e.total(),
                  (long long)measured.value->peakBytes, ratio);
            QVERIFY2(ratio > 0.85 && ratio < 1.15, QByteArray::number(ratio).constData());
        }
    }

    void projectFolderResolves()
    {
        auto p = runtime::modelParamsFile(std::string(PORTOLAN_SAMPLES) + "/small-cnn-poptorch");
        QVERIFY(p);
        QVERIFY(!runtime::modelParamsFile(std::string(PORTOLAN_SAMPLES) + "/mnist-mlp-original"));
    }
};

QTEST_GUILESS_MAIN(TestSimRuntimeMemory)
#include "test_sim_runtime_memory.moc"
