// Parity of the two callers of the workflow layer: `portolan-cli compile INPUT --target T
// --report` against the sequence the Profile tab runs (workflow::openModel, the Torch child's
// recording, workflow::projectOptions, workflow::compileModel). The reports must agree byte for
// byte apart from the compile's duration.
#include "../cli/cli_runner.h"
#include "core/graph/torch_child.h"
#include "core/report/report.h"
#include "core/workflow/compile_project.h"

#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QFileInfo>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>

using namespace portolan;

namespace {

QByteArray withoutDurations(QByteArray report)
{
    static const QRegularExpression duration(
        QStringLiteral("\"compile_milliseconds\"\\s*:\\s*[-+0-9.eE]+"));
    return QString::fromUtf8(report)
        .replace(duration, QStringLiteral("\"compile_milliseconds\": 0"))
        .toUtf8();
}

QByteArray readAll(const QString& file)
{
    QFile f(file);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

// What ProfilePanel does with a project and the settings form's options.
Result<sim::CompileResult> compileAsTheProfileTab(const std::string& input,
                                                  const std::string& target)
{
    auto model = workflow::openModel({input});
    if (!model)
        return Result<sim::CompileResult>::fail(model.error);
    workflow::ProjectModel& m = *model.value;
    if (!m.graph) {
        auto g = graph::runTorchChild(m.torchArguments);
        if (!g)
            return Result<sim::CompileResult>::fail(g.error);
        m.graph = std::move(*g.value);
    }
    sim::CompileOptions o;
    o.target = target;
    o = workflow::projectOptions(m, o);
    return workflow::compileModel(*m.graph, o, m.family ? &*m.family : nullptr);
}

} // namespace

class TestWorkflowParity : public QObject
{
    Q_OBJECT
    QTemporaryDir m_dir;

    // A copy of `project` with the capture of a dry run; empty when the dry run failed.
    QString captured(const QString& project)
    {
        const QString copy = m_dir.filePath(QFileInfo(project).fileName());
        QDir().mkpath(copy);
        QDirIterator it(project, QDir::Files, QDirIterator::Subdirectories);
        while (it.hasNext()) {
            const QString f = it.next();
            const QString to = copy + "/" + QDir(project).relativeFilePath(f);
            QDir().mkpath(QFileInfo(to).path());
            QFile::copy(f, to);
        }
        qputenv("PORTOLAN_CONFIG_DIR", m_dir.filePath("config").toUtf8());
        const auto r = runCli({"run", copy, "--dry-run", "--trust", "--steps", "1"}, 600000);
        if (r.exitCode != 0) {
            qWarning("dry run of %s failed: %s", qPrintable(project), r.err.constData());
            return {};
        }
        return copy;
    }

private Q_SLOTS:
    void cliAndProfileTabAgree_data()
    {
        QTest::addColumn<QString>("input");
        QTest::addColumn<QString>("target");
        const QDir samples(QStringLiteral(PORTOLAN_SAMPLES));
        for (const QString& s : samples.entryList(QDir::Dirs | QDir::NoDotAndDotDot, QDir::Name))
            for (const char* t : {"ipu-mk2", "cs-2"})
                QTest::addRow("%s %s", qPrintable(s), t) << samples.filePath(s) << t;
        // Captures, by a dry run of a copy: the capture path and a PopTorch project's strategy.
        for (const QString& p :
             {QStringLiteral(PORTOLAN_SAMPLES "/mnist-mlp-original"),
              QStringLiteral(PORTOLAN_FIXTURES "/projects/pipelined-poptorch")}) {
            const QString copy = captured(p);
            if (!copy.isEmpty())
                QTest::addRow("captured %s", qPrintable(QFileInfo(p).fileName()))
                    << copy << "ipu-mk2";
        }
        const QString corpus = qEnvironmentVariable("PORTOLAN_CORPUS");
        if (corpus.isEmpty())
            return;
        const QString configs = corpus + QStringLiteral("/cerebras-modelzoo-configs/");
        for (const char* c :
             {"RELEASE_2.1.0__fc_mnist__pytorch__configs__params.yaml",
              "RELEASE_2.1.0__transformers__pytorch__bert__configs__bert_base_MSL128.yaml",
              "RELEASE_2.1.0__transformers__pytorch__llama__configs__params_llama_7b.yaml"})
            for (const char* t : {"ipu-mk2", "cs-2"})
                QTest::addRow("%s %s", c, t) << configs + QString::fromLatin1(c) << t;
        for (const char* p : {"determined-cifar10", "cerebras-pt-gpt2", "graphcore-mnist"})
            QTest::addRow("%s ipu-mk2", p)
                << corpus + QStringLiteral("/projects/") + QString::fromLatin1(p) << "ipu-mk2";
    }

    void cliAndProfileTabAgree()
    {
        QFETCH(QString, input);
        QFETCH(QString, target);
        static int n = 0;
        const QString cliReport = m_dir.filePath(QStringLiteral("cli-%1.json").arg(++n));
        const QString tabReport = m_dir.filePath(QStringLiteral("tab-%1.json").arg(n));
        const auto cli = runCli({QStringLiteral("compile"), input, QStringLiteral("--target"),
                                 target, QStringLiteral("--report"), cliReport},
                                600000);
        auto tab = compileAsTheProfileTab(input.toStdString(), target.toStdString());
        if (cli.exitCode == 2 || !tab) {
            // Neither path has a model (a project with no capture yet): both say so. A project
            // captured here must compile.
            QVERIFY2(!input.startsWith(m_dir.path()),
                     (cli.err + tab.error.message.c_str()).constData());
            QVERIFY2(cli.exitCode == 2 && !tab,
                     (cli.err + "\nProfile tab: " + tab.error.toString().c_str()).constData());
            QVERIFY2(cli.err.contains(tab.error.message.c_str()), cli.err.constData());
            return;
        }
        QVERIFY2(!report::saveReport(tabReport.toStdString(), *tab.value), "saving");
        const QByteArray a = withoutDurations(readAll(cliReport));
        const QByteArray b = withoutDurations(readAll(tabReport));
        QVERIFY(!a.isEmpty());
        QCOMPARE(a.size(), b.size());
        QVERIFY(a == b);
    }
};

QTEST_GUILESS_MAIN(TestWorkflowParity)
#include "test_workflow_parity.moc"
