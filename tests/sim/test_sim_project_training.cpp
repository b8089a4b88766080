// The one rule for starting a compile from a project's training (core/sim/project_training.h),
// which the CLI's compile and the Profile tab both call.
#include "core/sim/project_training.h"

#include <QtTest>

using namespace portolan;

class TestSimProjectTraining : public QObject
{
    Q_OBJECT
private slots:
    void rule_data()
    {
        QTest::addColumn<bool>("cs");
        QTest::addColumn<int>("batch");
        QTest::addColumn<int>("paramsAccum");
        QTest::addColumn<int>("replicas");
        QTest::addColumn<bool>("keepMicroBatch");
        QTest::addColumn<int>("microBatch");
        QTest::addColumn<int>("gradAccum");
        // BERT-Large pretraining's batch on an IPU pipeline: micro-batch 1, the rest accumulated.
        QTest::addRow("ipu, batch 256") << false << 256 << 1 << 1 << false << 1 << 256;
        // Replicas share the accumulation; an odd share rounds up (never fewer samples).
        QTest::addRow("ipu, 4 replicas") << false << 256 << 1 << 4 << false << 1 << 64;
        QTest::addRow("ipu, 3 replicas") << false << 10 << 1 << 3 << false << 1 << 4;
        // The params file's own accumulation counts as more samples per update.
        QTest::addRow("ipu, params accumulate") << false << 32 << 4 << 1 << false << 1 << 128;
        // A CS system runs the whole batch per step and keeps the params' accumulation.
        QTest::addRow("cs, batch 256") << true << 256 << 1 << 1 << false << 256 << 1;
        QTest::addRow("cs, params accumulate") << true << 32 << 4 << 1 << false << 32 << 4;
        // A micro-batch the user set stays, and so does the accumulation beside it.
        QTest::addRow("user micro-batch") << false << 256 << 1 << 1 << true << 8 << 3;
        QTest::addRow("batch 0 is 1") << false << 0 << 1 << 1 << false << 1 << 1;
    }
    void rule()
    {
        QFETCH(bool, cs);
        QFETCH(int, batch);
        QFETCH(int, paramsAccum);
        QFETCH(int, replicas);
        QFETCH(bool, keepMicroBatch);
        QFETCH(int, microBatch);
        QFETCH(int, gradAccum);
        graph::ProjectTraining p;
        p.batchSize = batch;
        p.gradAccum = paramsAccum;
        sim::TrainingConfig t;
        t.replicas = replicas;
        t.microBatch = 8; // what the user typed, when kept
        t.gradAccum = 3;
        sim::TrainingOverrides keep;
        keep.microBatch = keepMicroBatch;
        sim::applyProjectTraining(p, cs ? targets::TargetKind::Cs : targets::TargetKind::Ipu, t,
                                  keep);
        QCOMPARE(t.microBatch, microBatch);
        QCOMPARE(t.gradAccum, gradAccum);
    }

    void optimizerAndPrecision_data()
    {
        QTest::addColumn<QString>("optimizer");
        QTest::addColumn<bool>("mixed");
        QTest::addColumn<bool>("keep");
        QTest::addColumn<int>("wantOptimizer");
        QTest::addColumn<int>("wantPrecision");
        QTest::addRow("lamb, fp16")
            << "lamb" << true << false << int(sim::Optimizer::Lamb) << int(sim::Precision::Mixed);
        QTest::addRow("adafactor counts as adam")
            << "adafactor" << false << false << int(sim::Optimizer::Adam)
            << int(sim::Precision::Fp32);
        QTest::addRow("unknown optimizer keeps the setting")
            << "lion" << false << false << int(sim::Optimizer::Sgd) << int(sim::Precision::Fp32);
        QTest::addRow("none given")
            << "" << false << false << int(sim::Optimizer::Sgd) << int(sim::Precision::Fp32);
        QTest::addRow("user's choice stays")
            << "lamb" << true << true << int(sim::Optimizer::Sgd) << int(sim::Precision::Fp32);
    }
    void optimizerAndPrecision()
    {
        QFETCH(QString, optimizer);
        QFETCH(bool, mixed);
        QFETCH(bool, keep);
        QFETCH(int, wantOptimizer);
        QFETCH(int, wantPrecision);
        graph::ProjectTraining p;
        p.optimizer = optimizer.toStdString();
        p.mixedPrecision = mixed;
        sim::TrainingConfig t;
        sim::TrainingOverrides k;
        k.optimizer = keep;
        k.precision = keep;
        sim::applyProjectTraining(p, targets::TargetKind::Ipu, t, k);
        QCOMPARE(int(t.optimizer), wantOptimizer);
        QCOMPARE(int(t.precision), wantPrecision);
    }
};

QTEST_GUILESS_MAIN(TestSimProjectTraining)
#include "test_sim_project_training.moc"
