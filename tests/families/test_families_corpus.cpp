// Coverage over the real Model Zoo configs (PORTOLAN_CORPUS/cerebras-modelzoo-configs): every
// file with a model section (classic `model:` or trainer `trainer.init.model`) is a model
// config; data preparation configs have none and are not counted. At least 90% of the model
// configs must build and compile for a CS-2; the rest are printed with the reason.
#include "core/families/families.h"
#include "core/sim/compile.h"

#include <QDir>
#include <QTest>
#include <map>

using namespace portolan;

class TestFamiliesCorpus : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void coverage()
    {
        const QByteArray root = qgetenv("PORTOLAN_CORPUS");
        if (root.isEmpty())
            QSKIP("PORTOLAN_CORPUS is not set; the coverage test needs ../shared/corpus");
        const QDir dir(QString::fromLocal8Bit(root) + "/cerebras-modelzoo-configs");
        QVERIFY2(dir.exists(), qPrintable(dir.path()));
        const QStringList files = dir.entryList({"*.yaml", "*.yml"}, QDir::Files, QDir::Name);
        auto target = targets::loadTarget("cs-2");
        QVERIFY(target);
        int models = 0, notModels = 0, compiled = 0;
        std::map<std::string, std::pair<int, int>> byFamily; // compiled, total
        std::vector<std::string> failures;
        for (const QString& name : files) {
            const std::string path = dir.filePath(name).toStdString();
            auto isModel = families::isModelParams(path);
            QVERIFY2(isModel, isModel.error.toString().c_str());
            if (!*isModel.value) {
                ++notModels;
                continue;
            }
            ++models;
            auto built = families::buildFromParamsFile(path);
            if (!built) {
                failures.push_back(name.toStdString() + ": " + built.error.toString());
                continue;
            }
            auto& fam = byFamily[built.value->family];
            ++fam.second;
            sim::CompileOptions o;
            o.target = "cs-2";
            o.advice = false;
            o.training.microBatch = int(std::max<std::int64_t>(1, built.value->data.batchSize));
            auto r = sim::compileGraph(built.value->graph, *target.value, o);
            if (!r) {
                failures.push_back(name.toStdString() + ": compile: " + r.error.toString());
                continue;
            }
            ++compiled;
            ++fam.first;
        }
        std::printf("Model Zoo corpus: %d files, %d model configs, %d data preparation configs\n",
                    int(files.size()), models, notModels);
        for (const auto& [family, counts] : byFamily)
            std::printf("  %-30s %4d / %d\n", family.c_str(), counts.first, counts.second);
        std::printf("compiled %d of %d model configs (%.1f%%); not compiled:\n", compiled, models,
                    100.0 * compiled / std::max(1, models));
        for (const auto& f : failures)
            std::printf("  %s\n", f.c_str());
        // The corpus README: 769 files; 47 are data preparation configs.
        QCOMPARE(models, 722);
        QVERIFY2(compiled * 10 >= models * 9,
                 qPrintable(QStringLiteral("only %1 of %2 compile").arg(compiled).arg(models)));
    }
};

QTEST_GUILESS_MAIN(TestFamiliesCorpus)
#include "test_families_corpus.moc"
