// The one rule for starting a compile from a project's training (core/sim/project_training.h),
// which the CLI's compile and the Profile tab both call.
#include "core/sim/project_training.h"

#include <QTemporaryDir>
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

    // A captured PopTorch project (resources/capture/README.md: pipeline, options.poptorch): the
    // compile opens on its own IPUs, device iterations, accumulation, replication, precision
    // and available memory proportions, unless the user said otherwise.
    void captureRule_data()
    {
        QTest::addColumn<QString>("stageIpus"); // "0,1,2,3": the pipeline's stages; "" none
        QTest::addColumn<QString>("poptorch");  // options.poptorch members; "" for null
        QTest::addColumn<bool>("cs");
        QTest::addColumn<bool>("keepIpus");
        QTest::addColumn<int>("ipus");
        QTest::addColumn<int>("microBatch");
        QTest::addColumn<int>("gradAccum");
        QTest::addColumn<int>("replicas");
        QTest::addColumn<int>("deviceIterations");
        QTest::addColumn<QString>("amp"); // per stage, as stageValuesText writes it
        QTest::addColumn<int>("precision");
        const QString tutorial = R"("device_iterations": 3, "gradient_accumulation": 8,
            "replication_factor": 1, "precision": "float32",
            "available_memory_proportion": {"IPU0": 0.5, "IPU1": 0.4},
            "set_available_memory": [{"block": "B3", "ipu": 2, "proportion": 0.25}])";
        const int fp32 = int(sim::Precision::Fp32);
        QTest::addRow("four stages") << "0,1,2,3" << tutorial << false << false << 4 << 4 << 8 << 1
                                     << 3 << "0.5,0.4,0.25,0.6" << fp32;
        QTest::addRow("two blocks on one IPU") << "0,1,2" << tutorial << false << false << 3 << 4
                                               << 8 << 1 << 3 << "0.5,0.4,0.25" << fp32;
        // --ipus given: the project's per-IPU proportions no longer line up, and are left out.
        QTest::addRow("user's IPUs stay")
            << "0,1,2,3" << tutorial << false << true << 1 << 4 << 8 << 1 << 3 << "" << fp32;
        QTest::addRow("replicated half model")
            << "0,1"
            << R"("device_iterations": 2, "gradient_accumulation": 4, "replication_factor": 2,
                  "precision": "float16", "partials_type": "half")"
            << false << false << 2 << 4 << 4 << 2 << 2 << "" << int(sim::Precision::Fp16);
        // set_available_memory on an IPU wins over the Options' value for it.
        QTest::addRow("set_available_memory wins")
            << "0,1"
            << R"("available_memory_proportion": {"IPU0": 0.5},
                  "set_available_memory": [{"ipu": 0, "proportion": 0.3},
                                           {"ipu": 0, "proportion": 0.2}])"
            << false << false << 2 << 4 << 1 << 1 << 1 << "0.2,0.6" << fp32;
        // A CS system runs the step's samples across the replicas as its batch.
        QTest::addRow("cs target") << "0,1,2,3"
                                   << R"("gradient_accumulation": 8, "replication_factor": 2)"
                                   << true << false << 1 << 8 << 8 << 1 << 1 << "" << fp32;
        QTest::addRow("plain capture")
            << ""
            << "" << false << false << 1 << 4 << 1 << 1 << 1 << "" << fp32;
    }
    void captureRule()
    {
        QFETCH(QString, stageIpus);
        QFETCH(QString, poptorch);
        QFETCH(bool, cs);
        QFETCH(bool, keepIpus);
        QFETCH(int, ipus);
        QFETCH(int, microBatch);
        QFETCH(int, gradAccum);
        QFETCH(int, replicas);
        QFETCH(int, deviceIterations);
        QFETCH(QString, amp);
        QFETCH(int, precision);
        QString stages;
        for (const QString& ipu : stageIpus.split(',', Qt::SkipEmptyParts))
            stages +=
                (stages.isEmpty() ? "" : ", ") +
                QStringLiteral(R"({"ipu": %1, "modules": ["m%1"], "blocks": ["B%1"]})").arg(ipu);
        const QString pipeline =
            stageIpus.isEmpty()
                ? QStringLiteral("null")
                : QStringLiteral(R"({"source": "poptorch.Block", "strategy": "PipelinedExecution",
                                     "stages": [%1]})")
                      .arg(stages);
        const QString body =
            QStringLiteral(R"({"format": "portolan-capture", "version": 1, "entry": "train.py",
                "batch": {"dry_run": 2, "full": 4}, "modules": [], "pipeline": %1,
                "options": {"poptorch": %2},
                "optimizer": {"class": "poptorch.optim.SGD", "param_groups": []}})")
                .arg(pipeline, poptorch.isEmpty() ? QStringLiteral("null") : "{" + poptorch + "}");
        QTemporaryDir dir;
        QFile f(dir.filePath("capture.json"));
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(body.toUtf8());
        f.close();
        auto c = graph::loadCapture(dir.path().toStdString());
        QVERIFY2(c, c.error.toString().c_str());
        const graph::ProjectTraining p = graph::captureTraining(*c.value);
        QCOMPARE(p.strategy.empty(), stageIpus.isEmpty());
        sim::CompileOptions o;
        sim::TrainingOverrides keep;
        keep.ipus = keepIpus;
        sim::applyProjectSettings(p, cs ? targets::TargetKind::Cs : targets::TargetKind::Ipu, o,
                                  keep);
        QCOMPARE(o.ipus, ipus);
        QCOMPARE(o.training.microBatch, microBatch);
        QCOMPARE(o.training.gradAccum, gradAccum);
        QCOMPARE(o.training.replicas, replicas);
        QCOMPARE(o.deviceIterations, deviceIterations);
        QCOMPARE(QString::fromStdString(
                     sim::stageValuesText(o.training.availableMemoryProportionPerStage)),
                 amp);
        QCOMPARE(int(o.training.precision), precision);
    }
};

QTEST_GUILESS_MAIN(TestSimProjectTraining)
#include "test_sim_project_training.moc"
