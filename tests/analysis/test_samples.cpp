// The sample projects: each port is clean under its guide, each original shows the leftovers its
// README lists at the lines it lists, and the flavour of each is detected.
#include "tests/analysis/test_support.h"

#include <QTest>

using namespace portolan;

namespace {

QStringList errorsOf(const guides::GuideResult& r)
{
    QStringList out;
    for (const auto& f : r.allFindings())
        if (f.severity == Severity::Error)
            out << QString::fromStdString(f.toString());
    return out;
}

} // namespace

class TestSamples : public QObject
{
    Q_OBJECT
private slots:
    void portsAreClean_data()
    {
        QTest::addColumn<QString>("sample");
        QTest::addColumn<QString>("guide");
        QTest::addRow("mnist") << "mnist-mlp-cerebras-pytorch"
                               << "cerebras-pytorch";
        QTest::addRow("alphabet") << "alphabet-transformer-cerebras-layers"
                                  << "cerebras-layers";
        QTest::addRow("cifar") << "image-classifier-determined"
                               << "determined-pytorchtrial";
        QTest::addRow("cnn") << "small-cnn-poptorch"
                             << "graphcore-poptorch";
        QTest::addRow("keras") << "mnist-cerebras-tensorflow"
                               << "cerebras-tensorflow";
    }
    void portsAreClean()
    {
        QFETCH(QString, sample);
        QFETCH(QString, guide);
        auto a = testing::analyse(testing::projectPath("sample:" + sample.toStdString()));
        QVERIFY(a);
        QVERIFY(a->diagnostics.empty());
        const guides::Guide* g = testing::sourceGuides().find(guide.toStdString());
        QVERIFY(g);
        const auto r = guides::runGuide(*g, *a);
        QVERIFY2(r.errors == 0, qPrintable(errorsOf(r).join('\n')));
        QCOMPARE(r.warnings, 0);
        // The port is detected as what it is, and that guide is suggested.
        QCOMPARE(QString::fromStdString(a->flavour.suggestedGuide), guide);
        QVERIFY(!a->flavour.beingPorted);
        QVERIFY(a->flavour.confidence > 0.6);
    }

    // file:line of the README's "Known porting problems", per check.
    void originalsShowTheirLeftovers_data()
    {
        QTest::addColumn<QString>("sample");
        QTest::addColumn<QString>("guide");
        QTest::addColumn<QString>("check");
        QTest::addColumn<QString>("lines");
        auto row = [](const char* s, const char* g, const char* c, const char* l) {
            QTest::addRow("%s %s", s, c) << s << g << (QString(g) + "." + c) << l;
        };
        const char* mn = "mnist-mlp-original";
        const char* cp = "cerebras-pytorch";
        row(mn, cp, "params-file", "train.py:39");
        row(mn, cp, "no-args",
            "train.py:59 train.py:61 train.py:65 train.py:83 train.py:86 train.py:90 "
            "train.py:91 train.py:97 train.py:103 train.py:105 train.py:108 train.py:110");
        row(mn, cp, "base-model", "train.py:19");
        row(mn, cp, "loss-in-loop", "train.py:101");
        row(mn, cp, "train-dataloader", "train.py:57");
        row(mn, cp, "eval-dataloader", "train.py:57");
        row(mn, cp, "drop-last", "train.py:66");
        row(mn, cp, "no-cuda", "train.py:88");
        row(mn, cp, "no-device-selection", "train.py:87");
        row(mn, cp, "no-optimizer", "train.py:90");
        row(mn, cp, "no-manual-loop", "train.py:100 train.py:102 train.py:104 train.py:106");

        const char* al = "alphabet-transformer-original";
        const char* cl = "cerebras-layers";
        row(al, cl, "pe-batch-first", "model.py:20");
        row(al, cl, "mask-inf", "model.py:32");
        row(al, cl, "mask-fp16", "model.py:31");
        row(al, cl, "embedding-layer", "model.py:40");
        row(al, cl, "torch-transformer", "model.py:43 model.py:47");
        row(al, cl, "batch-first", "model.py:43");
        row(al, cl, "no-transpose", "train.py:67 train.py:68");
        row(al, cl, "params-file", "train.py:26");
        row(al, cl, "no-args",
            "train.py:47 train.py:49 train.py:50 train.py:51 train.py:55 train.py:58 train.py:59 "
            "train.py:60 train.py:64 train.py:70 train.py:76 train.py:78 train.py:84");
        row(al, cl, "no-cuda", "train.py:54");
        row(al, cl, "no-optimizer", "train.py:55");
        row(al, cl, "loss-in-loop", "train.py:70");
        row(al, cl, "no-manual-loop", "train.py:72 train.py:73 train.py:74");
        row(al, cl, "dataloaders", "train.py:18");

        const char* ic = "image-classifier-original";
        const char* dt = "determined-pytorchtrial";
        row(ic, dt, "undefined-name", "train.py:93 train.py:96");
        row(ic, dt, "no-distributed-setup", "train.py:105 train.py:116 train.py:126");
        row(ic, dt, "no-device-setup", "train.py:109");
        row(ic, dt, "no-cuda", "train.py:114 train.py:84 train.py:139");
        row(ic, dt, "wrap-optimizer", "train.py:118");
        row(ic, dt, "wrap-lr-scheduler", "train.py:121");
        row(ic, dt, "scheduler-step", "train.py:146");
        row(ic, dt, "wrap-model", "train.py:111");
        row(ic, dt, "zero-grad", "train.py:140");
        row(ic, dt, "backward", "train.py:142");
        row(ic, dt, "step-optimizer", "train.py:143");
        row(ic, dt, "data-loader", "train.py:127 train.py:130");
        row(ic, dt, "per-slot-batch", "train.py:127");
        row(ic, dt, "experiment-config", "train.py:46");
        row(ic, dt, "no-args",
            "train.py:70 train.py:71 train.py:73 train.py:101 train.py:102 train.py:104 "
            "train.py:111 train.py:112 train.py:115 train.py:118 train.py:119 train.py:120 "
            "train.py:121 train.py:122 train.py:126 train.py:127 train.py:131 train.py:133 "
            "train.py:144 train.py:150 train.py:153");
        row(ic, dt, "evaluate-batch", "train.py:78");

        const char* sc = "small-cnn-original";
        const char* pt = "graphcore-poptorch";
        row(sc, pt, "forward-loss", "train.py:37");
        row(sc, pt, "loss-outside-model", "train.py:93");
        row(sc, pt, "no-manual-loop", "train.py:94 train.py:95 train.py:96");
        row(sc, pt, "dataloader", "train.py:70");
        row(sc, pt, "training-model", "train.py:92");
        row(sc, pt, "inference-model", "train.py:100");
        row(sc, pt, "no-grad", "train.py:102");
        row(sc, pt, "no-device-selection", "train.py:78");
        row(sc, pt, "no-to-device", "train.py:81 train.py:91 train.py:104");
        // Not findings any more (the old ones were false positives): torch.optim.SGD is one of
        // the torch optimizers trainingModel takes, and PopTorch asks for no params.yaml, so
        // argparse flags are fine.

        const char* km = "keras-mnist-original";
        const char* tf = "cerebras-tensorflow";
        row(km, tf, "model-fn", "train.py:15");
        row(km, tf, "compile-metrics", "train.py:63");
        row(km, tf, "no-fit", "train.py:66 train.py:68");
        row(km, tf, "validation-split", "train.py:67");
        row(km, tf, "input-fn", "train.py:46");
        row(km, tf, "keras-optimizer", "train.py:57");
        row(km, tf, "params-file", "train.py:25");
        row(km, tf, "no-args",
            "train.py:44 train.py:47 train.py:49 train.py:51 train.py:55 train.py:56 train.py:58 "
            "train.py:59 train.py:66 train.py:67 train.py:69");
    }
    void originalsShowTheirLeftovers()
    {
        QFETCH(QString, sample);
        QFETCH(QString, guide);
        QFETCH(QString, check);
        QFETCH(QString, lines);
        static std::map<QString, analysis::ProjectAnalysis> cache;
        if (!cache.count(sample)) {
            auto a = testing::analyse(testing::projectPath("sample:" + sample.toStdString()));
            QVERIFY(a);
            cache.emplace(sample, std::move(*a));
        }
        const auto& a = cache.at(sample);
        const guides::Guide* g = testing::sourceGuides().find(guide.toStdString());
        QVERIFY(g);
        QVERIFY2(g->findCheck(check.toStdString()), qPrintable(check));
        QSet<QString> at;
        // A grouped finding (one per command-line flag) lists its other places as related.
        for (const auto& f : guides::runGuide(*g, a).allFindings())
            if (f.checkId == check.toStdString()) {
                at.insert(QString::fromStdString(f.location.file + ":" +
                                                 std::to_string(f.location.line)));
                for (const auto& r : f.related)
                    at.insert(QString::fromStdString(r.file + ":" + std::to_string(r.line)));
            }
        for (const QString& want : lines.split(' '))
            QVERIFY2(at.contains(want),
                     qPrintable(want + " missing; found: " + QStringList(at.values()).join(", ")));
    }

    void flavours_data()
    {
        QTest::addColumn<QString>("sample");
        QTest::addColumn<QString>("flavour");
        QTest::addColumn<QString>("suggested");
        // An original going to Cerebras is guided to the current API generation, the Trainer;
        // the samples' Cerebras ports are of the runner generation (R1.x) and keep its guides.
        QTest::addRow("mnist-original") << "mnist-mlp-original"
                                        << "plain-pytorch"
                                        << "cerebras-trainer";
        QTest::addRow("alphabet-original") << "alphabet-transformer-original"
                                           << "plain-pytorch"
                                           << "cerebras-trainer";
        QTest::addRow("cifar-original") << "image-classifier-original"
                                        << "plain-pytorch"
                                        << "determined-pytorchtrial";
        QTest::addRow("cnn-original") << "small-cnn-original"
                                      << "plain-pytorch"
                                      << "graphcore-poptorch";
        QTest::addRow("keras-original") << "keras-mnist-original"
                                        << "plain-tensorflow"
                                        << "cerebras-tensorflow";
        QTest::addRow("mnist-port") << "mnist-mlp-cerebras-pytorch"
                                    << "cerebras-pytorch"
                                    << "cerebras-pytorch";
        QTest::addRow("alphabet-port") << "alphabet-transformer-cerebras-layers"
                                       << "cerebras-layers"
                                       << "cerebras-layers";
        QTest::addRow("cifar-port") << "image-classifier-determined"
                                    << "determined-pytorchtrial"
                                    << "determined-pytorchtrial";
        QTest::addRow("cnn-port") << "small-cnn-poptorch"
                                  << "graphcore-poptorch"
                                  << "graphcore-poptorch";
        QTest::addRow("keras-port") << "mnist-cerebras-tensorflow"
                                    << "cerebras-tensorflow"
                                    << "cerebras-tensorflow";
    }
    void flavours()
    {
        QFETCH(QString, sample);
        QFETCH(QString, flavour);
        QFETCH(QString, suggested);
        auto a = testing::analyse(testing::projectPath("sample:" + sample.toStdString()));
        QVERIFY(a);
        QCOMPARE(QString::fromStdString(std::string(analysis::flavourId(a->flavour.flavour))),
                 flavour);
        QCOMPARE(QString::fromStdString(a->flavour.suggestedGuide), suggested);
        QVERIFY(!a->flavour.evidence.empty());
        for (const auto& e : a->flavour.evidence)
            QVERIFY(e.location.line > 0 && !e.location.file.empty());
    }

    void beingPorted()
    {
        // A PopTorch port half done: poptorch imported, but the hand-written loop is still there.
        auto a = testing::analyse(testing::projectPath("fixture:half-ported"));
        QVERIFY(a);
        QVERIFY(a->flavour.beingPorted);
        QCOMPARE(a->flavour.flavour, analysis::Flavour::PlainPyTorch);
        QCOMPARE(a->flavour.portingTo, analysis::Flavour::GraphcorePopTorch);
        QCOMPARE(QString::fromStdString(a->flavour.suggestedGuide),
                 QStringLiteral("graphcore-poptorch"));
        QVERIFY(a->flavour.summary().find("being ported to Graphcore PopTorch") !=
                std::string::npos);
    }
};

QTEST_GUILESS_MAIN(TestSamples)
#include "test_samples.moc"
