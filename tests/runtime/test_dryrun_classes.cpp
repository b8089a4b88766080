// `portolan-cli run PROJECT --dry-run` on fixtures written for each habit of real projects that
// the dry run answers in general (docs/ARCHITECTURE.md, Data flow): downloads of pretrained
// weights, a missing image folder, sub-commands, worker processes, hyperparameters a trial rejects,
// PopTorch combined batches, NumPy 2 / torch 2 calls, TensorBoard logging without tensorboard, a
// segmentation data set without its files, an appliance-only Model Zoo input option, a model
// sized by its batch-size argument, a process group for GPUs, a picture opened through PIL,
// layer-local training, and Determined's Trainer and Core APIs and YAML 1.2 numbers. Each reaches
// its 3 steps and says what it made up or chose, in a warning of its kind. What no dry run may
// hide ends the run: packages Debian 12 lacks, a loader error the cluster would raise too. Also:
// every modelzoo.common name the Model Zoo R1.6/R1.8 models import resolves with a checkout and
// with the built-in fallback (tests/runtime/python/modelzoo_names.py on $PORTOLAN_CORPUS/sdk).
#include "dryrun_support.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

namespace {

const QString kFixtures = QStringLiteral(PORTOLAN_FIXTURES "/projects");

QString describe(const DryRunResult& r)
{
    const QJsonObject t = r.terminal();
    return QStringLiteral("exit %1, %2 events, terminal %3; stderr: %4")
        .arg(r.exitCode)
        .arg(r.events.size())
        .arg(QString::fromUtf8(QJsonDocument(t).toJson(QJsonDocument::Compact)).left(1500),
             QString::fromUtf8(r.err.right(1500)));
}

QList<QJsonObject> warningsOfKind(const DryRunResult& r, const QString& kind)
{
    QList<QJsonObject> out;
    for (const QJsonObject& w : r.all("warning"))
        if (w.value("kind").toString() == kind)
            out << w;
    return out;
}

} // namespace

class TestDryRunClasses : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_config; // the trust store of these tests
    QTemporaryDir m_work;   // project copies
    QString copy(const QString& source, const QString& name)
    {
        const QString target = m_work.filePath(name);
        QDir(target).removeRecursively();
        if (!copyProject(source, target))
            return {};
        return target;
    }

private slots:
    void initTestCase();
    void habits_data();
    void habits();
    void userChosenSubcommand();
    void layerLocalTraining();
    void declaredBatchKeptWhole();
    void cerebrasGenerations_data();
    void cerebrasGenerations();
    void determinedApis_data();
    void determinedApis();
    void missingPackages();
    void loaderErrorNotAboutData();
    void modelZooNames();
};

void TestDryRunClasses::initTestCase()
{
    QVERIFY(m_config.isValid() && m_work.isValid());
    qputenv("PORTOLAN_CONFIG_DIR", m_config.path().toUtf8());
}

void TestDryRunClasses::habits_data()
{
    QTest::addColumn<QString>("fixture");
    QTest::addColumn<QString>("flavour");
    QTest::addColumn<QString>("kind");     // the warning kind that must be there
    QTest::addColumn<QString>("mentions"); // a word one warning of that kind must contain
    QTest::addColumn<int>("atLeast");      // warnings of that kind, at least
    // torchvision weights= and torch.hub.load_state_dict_from_url: the model's own weights.
    QTest::addRow("pretrained weights") << "pretrained-weights-original"
                                        << "plain-pytorch"
                                        << "synthetic-weights"
                                        << "head-v1.pth" << 2;
    // ImageFolder over a missing root, and a glob over a missing class-folder tree.
    QTest::addRow("image folder missing") << "imagefolder-missing-root"
                                          << "plain-pytorch"
                                          << "synthetic-data"
                                          << "data/flowers/val/*/*.jpg" << 2;
    // add_subparsers(required=True): the sub-command whose handler trains, not by its name.
    QTest::addRow("sub-commands") << "subcommand-original"
                                  << "plain-pytorch"
                                  << "subcommand"
                                  << "`learn`" << 1;
    // Hogwild: torch.multiprocessing.Process(target=train) runs inline.
    QTest::addRow("worker processes") << "hogwild-original"
                                      << "plain-pytorch"
                                      << "worker-inline"
                                      << "train" << 1;
    // det.InvalidHP in the trial's __init__: other values from the config's space.
    QTest::addRow("invalid hyperparameters") << "determined-invalid-hp"
                                             << "determined-pytorchtrial"
                                             << "invalid-hp-redraw"
                                             << "hidden_size=" << 1;
    // np.array(copy=None), dense @ sparse and to_sparse() of a sparse tensor (NumPy 2 and
    // torch 2 API): given their newer meaning on Debian's NumPy 1.24 and torch 1.13.
    QTest::addRow("newer library API") << "newer-library-api"
                                       << "plain-pytorch"
                                       << "compat"
                                       << "copy=None" << 3;
    // torchvision's Cityscapes over a missing root: frames and label maps of its own layout.
    QTest::addRow("segmentation data missing") << "segmentation-missing-root"
                                               << "plain-pytorch"
                                               << "synthetic-data"
                                               << "Cityscapes" << 1;
    // A Model Zoo params file turning on use_worker_cache, which only the appliance has.
    QTest::addRow("appliance-only input option") << "modelzoo-appliance-option"
                                                 << "cerebras-pytorch"
                                                 << "appliance-option"
                                                 << "train_input.use_worker_cache" << 1;
    // from torch.utils.tensorboard import SummaryWriter without the tensorboard package.
    QTest::addRow("summaries without tensorboard") << "summaries-without-tensorboard"
                                                   << "plain-pytorch"
                                                   << "no-summaries"
                                                   << "SummaryWriter" << 1;
    // A plain DataLoader of combined batches feeding a PopTorch model with 10 device
    // iterations and 3 accumulated micro-batches: 2 x 30 samples per call.
    QTest::addRow("poptorch device iterations") << "poptorch-device-iterations"
                                                << "graphcore-poptorch"
                                                << "batch-shrunk"
                                                << "2 x 30" << 1;
    // A model sized by the --batch-size argument (a [batch, features] parameter): the argument
    // shrinks with the loaders, so the two batches agree.
    QTest::addRow("batch-sized model") << "batch-sized-model-original"
                                       << "plain-pytorch"
                                       << "batch-shrunk"
                                       << "batch_size 16 -> 2" << 1;
    // mp.spawn with one process per GPU, an nccl group and DDP(device_ids=[rank]): rank 0
    // inline, in a one-rank gloo group, with the GPU device_ids dropped.
    QTest::addRow("gpu process group") << "ddp-spawn-original"
                                       << "plain-pytorch"
                                       << "process-group"
                                       << "backend nccl" << 2;
    // A reference picture opened through PIL by a helper of the project: a random image.
    QTest::addRow("image behind a reader") << "image-reader-missing-file"
                                           << "plain-pytorch"
                                           << "synthetic-data"
                                           << "assets/reference.png" << 1;
}

void TestDryRunClasses::habits()
{
    QFETCH(QString, fixture);
    QFETCH(QString, flavour);
    QFETCH(QString, kind);
    QFETCH(QString, mentions);
    QFETCH(int, atLeast);
    const QString project = copy(kFixtures + "/" + fixture, fixture);
    const DryRunResult r = runDry(project, {"--trust"});
    QVERIFY2(r.allLinesValid, "stdout holds only JSON events");
    QVERIFY2(r.exitCode == 0, qPrintable(describe(r)));
    QCOMPARE(r.last("started").value("flavour").toString(), flavour);
    QCOMPARE(r.terminal().value("reason").toString(), QStringLiteral("completed"));
    const auto steps = r.all("step");
    QCOMPARE(steps.size(), 3);
    for (int i = 0; i < 3; ++i)
        QCOMPARE(steps[i].value("step").toInt(), i + 1);
    QVERIFY(r.terminal().value("captured").toBool());
    const QList<QJsonObject> warnings = warningsOfKind(r, kind);
    QVERIFY2(warnings.size() >= atLeast, qPrintable(describe(r)));
    QStringList messages;
    for (const QJsonObject& w : warnings)
        messages << w.value("message").toString();
    QVERIFY2(messages.join('\n').contains(mentions), qPrintable(messages.join('\n')));
}

void TestDryRunClasses::userChosenSubcommand()
{
    // A sub-command given after -- is the user's choice: no warning, and that one runs (export
    // does not train, so the run ends without a step).
    const QString project = copy(kFixtures + "/subcommand-original", "subcommand-given");
    const DryRunResult r =
        runDry(project, {"--trust", "--", "--width", "8", "export", "--out", "exported.pt"});
    QVERIFY(warningsOfKind(r, "subcommand").isEmpty());
    QCOMPARE(r.terminal().value("code").toString(), QStringLiteral("dryrun.no-steps"));
    QVERIFY(QFileInfo::exists(project + "/exported.pt"));
}

void TestDryRunClasses::layerLocalTraining()
{
    // Each block steps its own optimizer after calling its own forward() directly: no module
    // call owns the optimizer's parameters at the first step, so the block is found by its
    // parameters and captured at its next direct call, with the inputs of that call.
    const QString project = copy(kFixtures + "/layer-local-training", "layer-local-training");
    const DryRunResult r = runDry(project, {"--trust"});
    QVERIFY2(r.exitCode == 0, qPrintable(describe(r)));
    QCOMPARE(r.all("step").size(), 3);
    QVERIFY2(r.terminal().value("captured").toBool(), qPrintable(describe(r)));
    QFile f(project + "/.portolan/capture/capture.json");
    QVERIFY(f.open(QIODevice::ReadOnly));
    const QJsonObject c = QJsonDocument::fromJson(f.readAll()).object();
    const QJsonObject model = c.value("model").toObject();
    QCOMPARE(model.value("class").toString(), QStringLiteral("__main__.LocalBlock"));
    QVERIFY2(model.value("chosen_as").toString().contains("directly"),
             qPrintable(model.value("chosen_as").toString()));
    QCOMPARE(c.value("inputs").toArray().first().toObject().value("shape").toArray().size(), 2);
}

// A batch declared at most 8 is kept whole, so code that indexes the first batch by the size it
// declares (a preview of its labels) runs; a larger loader's batch is still made small, and the
// info says why the model's batch is not --batch.
void TestDryRunClasses::declaredBatchKeptWhole()
{
    const QString project = copy(kFixtures + "/preview-batch-original", "preview-batch");
    const DryRunResult r = runDry(project, {"--trust"});
    QVERIFY2(r.exitCode == 0, qPrintable(describe(r)));
    QCOMPARE(r.all("step").size(), 3);
    QStringList printed, infos;
    for (const QJsonObject& o : r.all("output"))
        printed << o.value("text").toString();
    for (const QJsonObject& i : r.all("info"))
        infos << i.value("message").toString();
    QVERIFY2(printed.join('\n').contains("first batch: "), qPrintable(printed.join('\n')));
    QVERIFY2(printed.contains("scoring batch: 2"), qPrintable(printed.join('\n')));
    QVERIFY2(infos.join('\n').contains("batches of 6 samples, as"), qPrintable(infos.join('\n')));
}

// Ports of the newer Cerebras generations, in the shape a generated port has: the cstorch flow
// (backend, compile, a traced step, cstorch.optim) and the Trainer (a typed model config, the
// trainer: {init, fit} YAML), each run by the stand-in of the closed SDK for 3 steps and
// captured.
void TestDryRunClasses::cerebrasGenerations_data()
{
    QTest::addColumn<QString>("fixture");
    QTest::addColumn<QString>("api");
    QTest::addRow("cstorch") << "cstorch-mlp"
                             << "cstorch";
    QTest::addRow("trainer") << "trainer-mlp"
                             << "trainer";
}

void TestDryRunClasses::cerebrasGenerations()
{
    QFETCH(QString, fixture);
    QFETCH(QString, api);
    const QString project = copy(kFixtures + "/" + fixture, fixture);
    const DryRunResult r = runDry(project, {"--trust"});
    QVERIFY2(r.allLinesValid, "stdout holds only JSON events");
    QVERIFY2(r.exitCode == 0, qPrintable(describe(r)));
    QCOMPARE(r.last("started").value("api").toString(), api);
    QCOMPARE(r.terminal().value("reason").toString(), QStringLiteral("completed"));
    QCOMPARE(r.all("step").size(), 3);
    QVERIFY2(r.terminal().value("captured").toBool(), qPrintable(describe(r)));
}

// Determined projects written for the newer API surface or read as Determined reads them: a
// Trainer API script under the torch-distributed launcher (core.DistributedContext, init()
// taking the experiment config's hyperparameters as on a cluster, fit for one epoch), an
// experiment config whose numbers have an exponent without a dot (YAML 1.2 floats), and a Core
// API script that needs its cluster's trial information.
void TestDryRunClasses::determinedApis_data()
{
    QTest::addColumn<QString>("fixture");
    QTest::addColumn<QString>("flavour");
    QTest::addColumn<QString>("mentions"); // in an info or warning event, or empty
    QTest::addRow("trainer api") << "determined-trainer-api"
                                 << "determined-pytorchtrial"
                                 << "";
    QTest::addRow("exponent numbers") << "determined-exponent-hparams"
                                      << "determined-pytorchtrial"
                                      << "weight_decay=0.0001";
    // A Core API script (no trial class, flavour determined-core) that asserts it runs on a
    // cluster: the experiment config whose entrypoint runs it stands in for the cluster's
    // trial (and its arguments).
    QTest::addRow("core api on a cluster") << "determined-core-api"
                                           << "determined-core"
                                           << "det.get_cluster_info(): the dry run stands in";
}

void TestDryRunClasses::determinedApis()
{
    QFETCH(QString, fixture);
    QFETCH(QString, flavour);
    QFETCH(QString, mentions);
    const QString project = copy(kFixtures + "/" + fixture, fixture);
    const DryRunResult r = runDry(project, {"--trust"});
    QVERIFY2(r.exitCode == 0, qPrintable(describe(r)));
    QCOMPARE(r.last("started").value("flavour").toString(), flavour);
    QCOMPARE(r.terminal().value("reason").toString(), QStringLiteral("completed"));
    QCOMPARE(r.all("step").size(), 3);
    QVERIFY2(r.terminal().value("captured").toBool(), qPrintable(describe(r)));
    if (mentions.isEmpty())
        return;
    QStringList messages;
    for (const QJsonObject& e : r.all("info") + r.all("warning"))
        messages << e.value("message").toString();
    QVERIFY2(messages.join('\n').contains(mentions), qPrintable(messages.join('\n')));
}

void TestDryRunClasses::missingPackages()
{
    // boto3 (in Debian 12) is imported before wandb (not in Debian 12): the message leads with
    // wandb, at its import, since installing boto3 alone would not make the run possible.
    const QString project = copy(kFixtures + "/missing-packages-original", "missing-packages");
    const DryRunResult r = runDry(project, {"--trust"});
    QCOMPARE(r.exitCode, 1);
    const QJsonObject failed = r.terminal();
    QCOMPARE(failed.value("code").toString(), QStringLiteral("dryrun.missing-package"));
    QCOMPARE(failed.value("package").toString(), QStringLiteral("wandb"));
    const QString message = failed.value("message").toString();
    QVERIFY2(message.contains("Debian 12 does not package it"), qPrintable(message));
    QVERIFY2(message.contains("boto3 (python3-boto3)"), qPrintable(message));
    QCOMPARE(failed.value("location").toObject().value("line").toInt(), 6);
}

void TestDryRunClasses::loaderErrorNotAboutData()
{
    // The training loader calls the SDK with a keyword its signature refuses, before it reads
    // its (absent) data: the cluster would fail the same way, so the run ends on that call,
    // at the project's line, instead of going on with synthetic data.
    const QString project = copy(kFixtures + "/determined-loader-bug", "determined-loader-bug");
    const DryRunResult r = runDry(project, {"--trust"});
    QCOMPARE(r.exitCode, 1);
    const QJsonObject failed = r.terminal();
    QCOMPARE(failed.value("code").toString(), QStringLiteral("dryrun.sdk-api"));
    QVERIFY2(failed.value("message").toString().contains("get_per_slot_batch_size"),
             qPrintable(describe(r)));
    QCOMPARE(failed.value("location").toObject().value("file").toString(),
             QStringLiteral("model_def.py"));
    QVERIFY(warningsOfKind(r, "synthetic-data").isEmpty());
    QVERIFY(r.all("step").isEmpty());
}

void TestDryRunClasses::modelZooNames()
{
    const QByteArray corpus = qgetenv("PORTOLAN_CORPUS");
    if (corpus.isEmpty())
        QSKIP("PORTOLAN_CORPUS is not set: the check needs the Model Zoo releases of the corpus");
    QStringList trees;
    for (const char* release : {"modelzoo-R1.6.0", "modelzoo-R1.8.0"})
        trees << QString::fromUtf8(corpus) + "/sdk/" + release;
    QProcess p;
    p.start(
        "/usr/bin/python3",
        QStringList{QStringLiteral(PORTOLAN_SOURCE_DIR "/tests/runtime/python/modelzoo_names.py")} +
            trees);
    QVERIFY(p.waitForFinished(900000));
    const QString out = QString::fromUtf8(p.readAllStandardOutput() + p.readAllStandardError());
    // Exit 0: every name resolves with the checkout (or needs a named third-party package) and
    // with the built-in fallback alone.
    QVERIFY2(p.exitCode() == 0, qPrintable(out.right(4000)));
    QVERIFY2(out.contains("not resolved with the checkout: 0"), qPrintable(out.right(4000)));
    QVERIFY2(out.contains("with the fallback alone: 0"), qPrintable(out.right(4000)));
}

QTEST_GUILESS_MAIN(TestDryRunClasses)
#include "test_dryrun_classes.moc"
