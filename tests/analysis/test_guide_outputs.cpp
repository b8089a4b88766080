// What a guide produces besides its findings: mechanical fixes (diff, apply, undo), SARIF that
// validates against its schema, and the flow graph of a project. The guides themselves and their
// checks are tested in test_guides.cpp.
#include "core/analysis/flow.h"
#include "core/common/atomic_file.h"
#include "core/guides/findings_report.h"
#include "core/guides/fixes/apply_fix.h"
#include "core/guides/rules.h"
#include "tests/analysis/test_support.h"

#include <QProcess>
#include <QTemporaryDir>
#include <QTest>
#include <filesystem>
#include <nlohmann/json.hpp>

using namespace portolan;
namespace fs = std::filesystem;

class TestGuideOutputs : public QObject
{
    Q_OBJECT
private slots:
    // Every fix offered on the samples and fixtures: shown as a diff, applied atomically, the
    // finding gone afterwards, and the inverse edit restores the file byte for byte.
    void fixes_data()
    {
        QTest::addColumn<QString>("check");
        QTest::addColumn<QString>("project");
        for (const auto& kv : testing::checkCases()) {
            const guides::Guide* g = testing::guideOfCheck(kv.first.Scalar());
            if (g && !g->findCheck(kv.first.Scalar())->fixKind.empty())
                QTest::addRow("%s", kv.first.Scalar().c_str())
                    << QString::fromStdString(kv.first.Scalar())
                    << QString::fromStdString(kv.second["fire"].Scalar());
        }
    }
    void fixes()
    {
        QFETCH(QString, check);
        QFETCH(QString, project);
        QTemporaryDir tmp;
        QVERIFY(tmp.isValid());
        const fs::path root = fs::path(tmp.path().toStdString()) / "p";
        testing::copyTree(testing::projectPath(project.toStdString()), root);
        auto a = testing::analyse(root.string());
        QVERIFY(a);
        const guides::Guide* g = testing::guideOfCheck(check.toStdString());
        std::optional<guides::Finding> withFix;
        std::size_t before = 0;
        for (const auto& f : guides::runGuide(*g, *a).allFindings())
            if (f.checkId == check.toStdString()) {
                ++before;
                if (f.fix && !withFix)
                    withFix = f;
            }
        QVERIFY2(withFix, "no finding of this check offers a fix");
        // A fix may edit several files and create one (the params file from argparse).
        const std::string file = withFix->fix->edits.front().file;
        const auto original = testing::snapshot(root);

        auto diff = guides::previewFix(root, *withFix->fix);
        QVERIFY(diff);
        QVERIFY(diff.value->starts_with("--- a/" + file + "\n+++ b/" + file + "\n@@ -"));
        QVERIFY(testing::snapshot(root) == original); // preview writes nothing

        auto inverse = guides::applyFix(root, *withFix->fix);
        QVERIFY2(inverse, inverse.error.message.c_str());
        const auto fixed = testing::snapshot(root);
        QVERIFY(fixed != original);

        auto again = testing::analyse(root.string());
        QVERIFY(again);
        QVERIFY2(again->diagnostics.size() >= a->diagnostics.size() - 0, "analysis still works");
        std::size_t after = 0;
        for (const auto& f : guides::runGuide(*g, *again).allFindings())
            if (f.checkId == check.toStdString())
                ++after;
        QVERIFY2(after < before, "the fix did not remove its finding");
        for (const auto& d : again->diagnostics)
            for (const auto& e : withFix->fix->edits)
                QVERIFY2(d.code != "python.syntax" || d.location.file != e.file,
                         "the fix broke the syntax");

        // Applying the same (now stale) fix again is refused and leaves the files alone.
        QVERIFY(!guides::applyFix(root, *withFix->fix));
        QVERIFY(testing::snapshot(root) == fixed);

        QVERIFY(guides::applyFix(root, *inverse.value));
        QVERIFY(testing::snapshot(root) == original);
    }

    void unifiedDiffShape()
    {
        const std::string a = "1\n2\n3\n4\n5\n6\n7\n8\n";
        const std::string b = "1\n2\n3\n4\nfive\n6\n7\n8\n";
        QCOMPARE(
            QString::fromStdString(guides::unifiedDiff(a, b, "x.py")),
            QStringLiteral(
                "--- a/x.py\n+++ b/x.py\n@@ -2,7 +2,7 @@\n 2\n 3\n 4\n-5\n+five\n 6\n 7\n 8\n"));
        QVERIFY(guides::unifiedDiff(a, a, "x.py").empty());

        // Changes far apart are separate hunks; an inserted line shifts the later numbers.
        std::string many, changed;
        for (int i = 1; i <= 30; ++i) {
            many += std::to_string(i) + "\n";
            changed += (i == 2 ? "two\n" : i == 20 ? "20\nnew\n" : std::to_string(i) + "\n");
        }
        QCOMPARE(
            QString::fromStdString(guides::unifiedDiff(many, changed, "y.py")),
            QStringLiteral("--- a/y.py\n+++ b/y.py\n@@ -1,5 +1,5 @@\n 1\n-2\n+two\n 3\n 4\n 5\n"
                           "@@ -18,6 +18,7 @@\n 18\n 19\n 20\n+new\n 21\n 22\n 23\n"));
    }

    void sarifValidates()
    {
        const QByteArray corpus = qgetenv("PORTOLAN_CORPUS");
        if (corpus.isEmpty())
            QSKIP("PORTOLAN_CORPUS is not set; the SARIF schema lives in the corpus");
        const QString schema = QString::fromUtf8(corpus) + "/sarif/sarif-schema-2.1.0.json";
        QProcess cli;
        cli.start(PORTOLAN_CLI, {"check", QString(PORTOLAN_SAMPLES) + "/image-classifier-original",
                                 "--target", "determined-pytorchtrial", "--format", "sarif"});
        QVERIFY(cli.waitForFinished(60000));
        QCOMPARE(cli.exitCode(), 1);
        const QByteArray sarif = cli.readAllStandardOutput();
        const auto j = nlohmann::json::parse(sarif.toStdString());
        QCOMPARE(j["version"].get<std::string>(), std::string("2.1.0"));
        QVERIFY(j["runs"][0]["tool"]["driver"]["rules"].size() >= 8);
        const auto& first = j["runs"][0]["results"][0];
        QVERIFY(first["locations"][0]["physicalLocation"]["region"]["startLine"].get<int>() > 0);
        QCOMPARE(first["locations"][0]["physicalLocation"]["artifactLocation"]["uriBaseId"]
                     .get<std::string>(),
                 std::string("%SRCROOT%"));
        QTemporaryDir tmp;
        const QString file = tmp.filePath("out.sarif");
        QVERIFY(!writeFileAtomically(file.toStdString(), sarif.toStdString()));
        QProcess py;
        py.start("/usr/bin/python3",
                 {"-c",
                  "import json,sys,jsonschema\n"
                  "s=json.load(open(sys.argv[1])); d=json.load(open(sys.argv[2]))\n"
                  "errs=list(jsonschema.Draft4Validator(s).iter_errors(d))\n"
                  "[print(e.message) for e in errs[:5]]\nsys.exit(1 if errs else 0)\n",
                  schema, file});
        QVERIFY(py.waitForFinished(60000));
        QVERIFY2(py.exitCode() == 0,
                 (py.readAllStandardOutput() + py.readAllStandardError()).constData());
    }

    void flowGraph_data()
    {
        QTest::addColumn<QString>("project");
        QTest::addColumn<QString>("entry");
        QTest::addColumn<QString>("key");
        QTest::addRow("cerebras") << "sample:mnist-mlp-cerebras-pytorch"
                                  << "run(...)"
                                  << "hidden_size";
        QTest::addRow("determined") << "sample:image-classifier-determined"
                                    << "class CIFARTrial(PyTorchTrial)"
                                    << "learning_rate";
        QTest::addRow("poptorch") << "sample:small-cnn-poptorch"
                                  << "poptorch.trainingModel(...)"
                                  << "device_iterations";
        QTest::addRow("tensorflow") << "sample:mnist-cerebras-tensorflow"
                                    << "CerebrasEstimator(...)"
                                    << "max_steps";
        QTest::addRow("original") << "sample:mnist-mlp-original"
                                  << ""
                                  << "--depth";
        // The Trainer YAML's model keys lead to the config class's fields and the model.
        QTest::addRow("trainer") << "project:trainer-mlp"
                                 << "Trainer (trainer.init / fit)"
                                 << "MLPModelConfig.hidden_sizes";
    }
    void flowGraph()
    {
        QFETCH(QString, project);
        QFETCH(QString, entry);
        QFETCH(QString, key);
        const auto g = analysis::buildFlowGraph(testing::cachedAnalysis(project.toStdString()));
        QVERIFY(!g.nodes.empty());
        bool sawEntry = entry.isEmpty(), sawKey = false, sawModel = entry.isEmpty();
        for (const auto& n : g.nodes) {
            QVERIFY2(n.location.line > 0 && !n.location.file.empty(), n.label.c_str());
            sawEntry = sawEntry || (n.kind == analysis::FlowNodeKind::FrameworkEntry &&
                                    QString::fromStdString(n.label) == entry);
            sawKey = sawKey || QString::fromStdString(n.label).startsWith(key);
            sawModel = sawModel || n.kind == analysis::FlowNodeKind::Model;
        }
        QVERIFY(sawEntry);
        QVERIFY(sawKey);
        QVERIFY(sawModel);
        for (const auto& e : g.edges)
            QVERIFY(g.find(e.from) && g.find(e.to));
        const std::string dot = analysis::toDot(g, project.toStdString());
        QVERIFY(dot.starts_with("digraph flow {"));
        QVERIFY(dot.find("URL=\"") != std::string::npos);
        auto svg = analysis::renderSvg(dot);
        QVERIFY2(svg, svg.error.message.c_str());
        QVERIFY(svg.value->find("<svg") != std::string::npos);
        QVERIFY(!analysis::renderSvg("digraph { a -> "));
    }

    // A plain script's flags flow to the functions that read them, whatever the name of the
    // namespace parse_args() returned (issue 26: `opt = parser.parse_args()` drew "2 nodes,
    // 0 edges", the parsers alone).
    void flowOfParsedFlags_data()
    {
        QTest::addColumn<QString>("script");
        QTest::addColumn<QString>("reader");
        QTest::addRow("args") << "args = parser.parse_args()\ntrain(args.lr)\n"
                              << "";
        QTest::addRow("opt") << "opt = parser.parse_args()\ntrain(opt.lr)\n"
                             << "";
        QTest::addRow("handed to a function")
            << "def main(cfg):\n    train(cfg.lr)\n\n\nopt = parser.parse_args()\nmain(opt)\n"
            << "main";
    }
    void flowOfParsedFlags()
    {
        QFETCH(QString, script);
        QFETCH(QString, reader);
        QTemporaryDir tmp;
        const std::string text = "import argparse\n\n\ndef train(lr):\n    print(lr)\n\n\n"
                                 "parser = argparse.ArgumentParser()\n"
                                 "parser.add_argument('--lr', type=float, default=0.1)\n" +
                                 script.toStdString();
        QVERIFY(!writeFileAtomically(fs::path(tmp.path().toStdString()) / "main.py", text));
        const auto a = testing::analyse(tmp.path().toStdString());
        QVERIFY(a);
        const auto g = analysis::buildFlowGraph(*a);
        const analysis::FlowNode* flag = nullptr;
        for (const auto& n : g.nodes)
            if (n.label == "--lr")
                flag = &n;
        QVERIFY2(flag, analysis::toDot(g, "t").c_str());
        bool fromParser = false, toReader = false;
        for (const auto& e : g.edges) {
            fromParser = fromParser || e.to == flag->id;
            if (e.from == flag->id)
                if (const auto* to = g.find(e.to))
                    toReader =
                        reader.isEmpty() || QString::fromStdString(to->label).contains(reader);
        }
        QVERIFY2(fromParser && toReader, analysis::toDot(g, "t").c_str());
    }
};

QTEST_GUILESS_MAIN(TestGuideOutputs)
#include "test_guide_outputs.moc"
