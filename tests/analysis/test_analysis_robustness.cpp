// Hostile projects: binary files, non-UTF-8 text, a 10 MB Python file, syntax errors, malformed
// YAML, symlink loops and unreadable files. Every guide runs on the result; nothing crashes and
// each problem is a positioned diagnostic.
#include "core/analysis/flow.h"
#include "core/guides/findings_report.h"
#include "tests/analysis/test_support.h"

#include <QElapsedTimer>
#include <QTemporaryDir>
#include <QTest>
#include <filesystem>
#include <fstream>
#include <unistd.h>

using namespace portolan;
namespace fs = std::filesystem;

namespace {

void write(const fs::path& p, const std::string& bytes)
{
    fs::create_directories(p.parent_path());
    std::ofstream(p, std::ios::binary) << bytes;
}

bool hasDiagnostic(const analysis::ProjectAnalysis& a, const std::string& code,
                   const std::string& file)
{
    for (const auto& d : a.diagnostics)
        if (d.code == code && d.location.file == file)
            return true;
    return false;
}

} // namespace

class TestAnalysisRobustness : public QObject
{
    Q_OBJECT
private slots:
    void hostileProject()
    {
        QTemporaryDir tmp;
        QVERIFY(tmp.isValid());
        const fs::path root = tmp.path().toStdString();
        write(root / "model.py",
              "import torch.nn as nn\nclass Net(nn.Module):\n    def forward(self, x):\n"
              "        return x.cuda(\n");
        write(root / "weights.py", std::string("\x7f"
                                               "ELF\0\0\0binary",
                                               13));
        write(root / "latin1.py", "# caf\xe9\nx = 1\n");
        std::string big;
        while (big.size() < (10u << 20))
            big += "def f(params):\n    return params[\"model\"][\"depth\"]\n";
        write(root / "huge.py", big);
        write(root / "configs/params.yaml", "model:\n  depth: [1, 2\n");
        write(root / "locked.py", "x = 1\n");
        fs::permissions(root / "locked.py", fs::perms::none);
        fs::create_directories(root / "loop");
        fs::create_directory_symlink("..", root / "loop" / "up");
        fs::create_symlink(root / "a", root / "b");
        fs::create_symlink(root / "b", root / "a");

        auto r = analysis::analyzeProject(root);
        QVERIFY(r);
        const auto& a = *r.value;
        QVERIFY(hasDiagnostic(a, "project.binary", "weights.py"));
        QVERIFY(hasDiagnostic(a, "project.not-utf8", "latin1.py"));
        QVERIFY(hasDiagnostic(a, "project.too-large", "huge.py"));
        QVERIFY(hasDiagnostic(a, "yaml.syntax", "configs/params.yaml"));
        QVERIFY(hasDiagnostic(a, "python.syntax", "model.py"));
        QVERIFY(hasDiagnostic(a, "project.symlink-loop", "a") ||
                hasDiagnostic(a, "project.symlink-loop", "b"));
        if (::geteuid() != 0) // root reads anything
            QVERIFY(hasDiagnostic(a, "project.unreadable", "locked.py"));
        for (const auto& d : a.diagnostics)
            if (d.code == "python.syntax" || d.code == "yaml.syntax")
                QVERIFY(d.location.line > 0 && d.location.column > 0);
        // The file with a syntax error is still indexed.
        const analysis::PythonFile* model = a.findPython("model.py");
        QVERIFY(model);
        QVERIFY(model->index.findClass("Net"));

        for (const auto& g : testing::sourceGuides().guides) {
            const auto result = guides::runGuide(g, a);
            QCOMPARE(result.steps.size(), g.steps.size());
            for (const auto& f : result.allFindings())
                QVERIFY(f.checkId != "guide.bad-check");
            (void)guides::toSarif(g, result, root.string()).dump();
        }
        (void)analysis::toDot(analysis::buildFlowGraph(a), "hostile");
        fs::permissions(root / "locked.py", fs::perms::owner_all);
    }

    void bigFileIndexedWhenAllowed()
    {
        QTemporaryDir tmp;
        const fs::path root = tmp.path().toStdString();
        std::string big;
        while (big.size() < (10u << 20))
            big += "def f(params):\n    return params[\"model\"][\"depth\"]\n";
        write(root / "huge.py", big);
        analysis::AnalysisOptions o;
        o.scan.maxFileBytes = 64u << 20;
        auto r = analysis::analyzeProject(root, o);
        QVERIFY(r);
        QCOMPARE(r.value->python.size(), std::size_t(1));
        QVERIFY(r.value->python[0].index.keyReads.size() > 100000);
    }

    void missingFolderFails()
    {
        auto r = analysis::analyzeProject("/nonexistent/portolan/project");
        QVERIFY(!r);
        QCOMPARE(r.error.code, std::string("project.missing"));
    }

    void cancel()
    {
        int calls = 0;
        auto r = analysis::analyzeProject(
            PORTOLAN_SAMPLES, {}, [&](std::uint64_t, std::uint64_t) { return ++calls < 3; });
        QVERIFY(r);
        QVERIFY(r.value->cancelled);
    }

    // A value defined through itself several times (`model = model` left where a device
    // move was dropped): resolving its type does not follow the cycle round again (it grew
    // exponentially with the assignments, and the analysis of such a port never ended).
    void selfDefinedValues()
    {
        QTemporaryDir tmp;
        QVERIFY(tmp.isValid());
        const fs::path root = tmp.path().toStdString();
        std::string body = "import poptorch\n\n\ndef main(flag):\n"
                           "    opts = poptorch.Options()\n    model = make()\n";
        for (int i = 0; i < 4; ++i)
            body += i % 2 ? "    if flag:\n        model = model\n"
                          : "    model = model\n    model = wrap(model)\n";
        body += "    opts.deviceIterations(2)\n    model.train()\n    return model(opts)\n";
        write(root / "train.py", body);
        QElapsedTimer clock;
        clock.start();
        auto r = analysis::analyzeProject(root);
        QVERIFY(r);
        for (const auto& g : testing::sourceGuides().guides)
            (void)guides::runGuide(g, *r.value);
        QVERIFY2(clock.elapsed() < 20000, std::to_string(clock.elapsed()).c_str());
    }
};

QTEST_GUILESS_MAIN(TestAnalysisRobustness)
#include "test_analysis_robustness.moc"
