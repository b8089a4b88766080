// The one rule for a project's params file: conventional names first, then the first YAML file of
// configs/ by name (never the file system's order), the user's saved choice over the default, and
// an explicit --params over both. Checked on temporary projects and on real corpus layouts.
#include "core/common/atomic_file.h"
#include "core/project/params_file.h"

#include <QTemporaryDir>
#include <QTest>
#include <filesystem>
#include <fstream>

namespace fs = std::filesystem;
using namespace portolan;

namespace {

void touch(const fs::path& p)
{
    fs::create_directories(p.parent_path());
    std::ofstream(p) << "a: 1\n";
}

} // namespace

class TestParamsFile : public QObject
{
    Q_OBJECT
private slots:
    void defaultRule_data()
    {
        QTest::addColumn<QStringList>("files");
        QTest::addColumn<QString>("expected");
        QTest::addColumn<QString>("source");
        QTest::addRow("model zoo params.yaml")
            << QStringList{"configs/params.yaml", "configs/a.yaml", "const.yaml"}
            << "configs/params.yaml"
            << "default";
        QTest::addRow("top-level params.yaml")
            << QStringList{"params.yaml", "configs/a.yaml"} << "params.yaml"
            << "default";
        QTest::addRow("determined const.yaml")
            << QStringList{"const.yaml", "adaptive.yaml", "distributed.yaml"} << "const.yaml"
            << "default";
        // Model Zoo BERT: many configs and no params.yaml; the first by name, whatever the
        // order the files were created in.
        QTest::addRow("several configs, by name")
            << QStringList{"configs/roberta_large.yaml", "configs/bert_large_msl128.yaml",
                           "configs/bert_base_msl128.yaml", "configs/bert_base_msl512.yaml"}
            << "configs/bert_base_msl128.yaml"
            << "default";
        QTest::addRow("configs before the top level")
            << QStringList{"zeta.yaml", "configs/params_gpt2_small.yml"}
            << "configs/params_gpt2_small.yml"
            << "default";
        QTest::addRow("top-level experiment configs")
            << QStringList{"distributed-stl10.yaml", "const-cifar10.yaml"} << "const-cifar10.yaml"
            << "default";
        QTest::addRow("hidden files are not configs")
            << QStringList{".pre-commit-config.yaml", "b.yaml"} << "b.yaml"
            << "default";
        QTest::addRow("no YAML at all") << QStringList{"README.md"} << ""
                                        << "none";
        // The Model Zoo's current layout wins over a legacy params.yaml beside it.
        QTest::addRow("trainer layout before legacy params.yaml")
            << QStringList{"configs/params.yaml", "configs/params_v2.yaml:trainer"}
            << "configs/params_v2.yaml"
            << "default";
        // A benchmark runner's file (Graphcore applications) is never the default.
        QTest::addRow("benchmarks.yml is a tool's")
            << QStringList{"benchmarks.yml", "model_configs.yml"} << "model_configs.yml"
            << "default";
        QTest::addRow("only tool configuration")
            << QStringList{"benchmarks.yml", "environment.yml"} << ""
            << "none";
    }

    // The YAML file the project's own code names wins over the conventions and the order by
    // name: it is what the entry point reads.
    void namedByCode_data()
    {
        QTest::addColumn<QString>("code");
        QTest::addColumn<QString>("expected");
        QTest::addRow("module-level default") << "config_file = \"./settings.yml\"\n"
                                              << "settings.yml";
        QTest::addRow("joined path") << "import os\ncfg = os.path.join(root, 'configs/b.yaml')\n"
                                     << "configs/b.yaml";
        QTest::addRow("argparse default")
            << "p.add_argument('--config', default=\"configs/b.yaml\")\n"
            << "configs/b.yaml";
        QTest::addRow("a tool's file named in code stays out") << "open('benchmarks.yml')\n"
                                                               << "configs/a.yaml";
    }
    void namedByCode()
    {
        QFETCH(QString, code);
        QFETCH(QString, expected);
        QTemporaryDir dir;
        const fs::path root = dir.path().toStdString();
        for (const char* f : {"configs/a.yaml", "configs/b.yaml", "settings.yml", "benchmarks.yml"})
            touch(root / f);
        QVERIFY(!writeFileAtomically(root / "train.py", code.toStdString()));
        const ParamsFileChoice c = paramsFileFor(root);
        QCOMPARE(QString::fromStdString(c.path), expected);
        QCOMPARE(c.source, ParamsSource::Default);
        if (expected != "configs/a.yaml")
            QVERIFY2(c.reason.find("train.py:") != std::string::npos, c.reason.c_str());
    }
    void defaultRule()
    {
        QFETCH(QStringList, files);
        QFETCH(QString, expected);
        QFETCH(QString, source);
        QTemporaryDir dir;
        const fs::path root = dir.path().toStdString();
        for (const auto& f : files) {
            // "path:key" writes a file whose top-level key is `key`.
            const QStringList parts = f.split(QLatin1Char(':'));
            touch(root / parts.front().toStdString());
            if (parts.size() > 1)
                std::ofstream(root / parts.front().toStdString())
                    << parts.back().toStdString() << ":\n  init: {}\n";
        }
        const ParamsFileChoice c = paramsFileFor(root);
        QCOMPARE(QString::fromStdString(c.path), expected);
        QCOMPARE(QString::fromStdString(std::string(paramsSourceName(c.source))), source);
        QVERIFY(!c.reason.empty());
        if (!expected.isEmpty())
            QVERIFY(fs::is_regular_file(c.absolute(root)));
    }

    void savedChoiceWinsOverDefault()
    {
        QTemporaryDir dir;
        const fs::path root = dir.path().toStdString();
        touch(root / "configs/params.yaml");
        touch(root / "configs/large.yaml");
        QCOMPARE(paramsFileFor(root).path, std::string("configs/params.yaml"));
        QVERIFY(!saveParamsFile(root, "configs/large.yaml"));
        QCOMPARE(savedParamsFile(root).value_or(""), std::string("configs/large.yaml"));
        const ParamsFileChoice c = paramsFileFor(root);
        QCOMPARE(c.path, std::string("configs/large.yaml"));
        QCOMPARE(c.source, ParamsSource::Saved);
        // --params overrides the saved choice, relative to the project or absolute.
        const ParamsFileChoice o = paramsFileFor(root, "configs/params.yaml");
        QCOMPARE(o.path, std::string("configs/params.yaml"));
        QCOMPARE(o.source, ParamsSource::Override);
        const ParamsFileChoice abs = paramsFileFor(root, (root / "configs/params.yaml").string());
        QCOMPARE(abs.path, std::string("configs/params.yaml"));
        // Forgetting the choice brings the default back.
        QVERIFY(!saveParamsFile(root, ""));
        QCOMPARE(paramsFileFor(root).source, ParamsSource::Default);
    }

    void staleSavedChoiceFallsBack()
    {
        QTemporaryDir dir;
        const fs::path root = dir.path().toStdString();
        touch(root / "configs/a.yaml");
        QVERIFY(!saveParamsFile(root, "configs/gone.yaml"));
        const ParamsFileChoice c = paramsFileFor(root);
        QCOMPARE(c.path, std::string("configs/a.yaml"));
        QCOMPARE(c.source, ParamsSource::Default);
        QVERIFY(c.reason.find("gone.yaml") != std::string::npos);
    }

    void overrideOutsideTheProject()
    {
        QTemporaryDir dir, other;
        const fs::path root = dir.path().toStdString();
        touch(root / "configs/params.yaml");
        const fs::path outside = fs::path(other.path().toStdString()) / "mine.yaml";
        touch(outside);
        const ParamsFileChoice c = paramsFileFor(root, outside.string());
        QVERIFY(fs::path(c.path).is_absolute());
        QVERIFY(fs::equivalent(c.absolute(root), outside));
    }

    void candidatesListEveryConfig()
    {
        QTemporaryDir dir;
        const fs::path root = dir.path().toStdString();
        for (const char* f : {"configs/b.yaml", "configs/a.yml", "z.yaml", "configs/notes.txt"})
            touch(root / f);
        const auto c = paramsFileCandidates(root);
        QCOMPARE(c, (std::vector<std::string>{"configs/a.yml", "configs/b.yaml", "z.yaml"}));
    }

    // The CPU dry run's last step: among several files, one a run can start, smallest first.
    // Each file is "path|content"; `saved` is a saved choice (empty: none).
    void dryRunRule_data()
    {
        QTest::addColumn<QStringList>("files");
        QTest::addColumn<QString>("saved");
        QTest::addColumn<QString>("read");
        QTest::addColumn<QString>("dryRun");
        const QString big =
            "train_input: {}\nmodel:\n  hidden_size: 1024\n  num_hidden_layers: 24\n";
        const QString tiny = "train_input: {}\nmodel:\n  hidden_size: 64\n  num_hidden_layers: 2\n";
        QTest::addRow("smallest model of several")
            << QStringList{"configs/a_large.yaml|" + big, "configs/b_tiny.yaml|" + tiny} << ""
            << "configs/a_large.yaml"
            << "configs/b_tiny.yaml";
        QTest::addRow("d_model and num_layers, runconfig")
            << QStringList{"configs/a.yaml|runconfig: {}\nmodel: {d_model: 512, num_layers: 24}\n",
                           "configs/b.yaml|runconfig: {}\nmodel: {d_model: 512, num_layers: 6}\n"}
            << ""
            << "configs/a.yaml"
            << "configs/b.yaml";
        QTest::addRow("not a params file is not sized")
            << QStringList{"configs/a_large.yaml|" + big,
                           "configs/b.yaml|model: {hidden_size: 8}\n"}
            << ""
            << "configs/a_large.yaml"
            << "configs/a_large.yaml";
        QTest::addRow("an experiment config first")
            << QStringList{"a-data.yaml|paths: [x]\n", "b-exp.yaml|entrypoint: model_def:Trial\n"}
            << ""
            << "a-data.yaml"
            << "b-exp.yaml";
        // A trial's code reading a YAML file of its own: the params tab reads that file, the dry
        // run starts from the experiment config.
        QTest::addRow("experiment config over the file the code reads")
            << QStringList{"model_def.py|import yaml\nKNOBS = "
                           "yaml.safe_load(open(\"knobs.yml\"))\n",
                           "knobs.yml|rate: 0.1\n", "const.yaml|entrypoint: model_def:Trial\n"}
            << ""
            << "knobs.yml"
            << "const.yaml";
        QTest::addRow("conventional name kept")
            << QStringList{"configs/params.yaml|" + big, "configs/b_tiny.yaml|" + tiny} << ""
            << "configs/params.yaml"
            << "configs/params.yaml";
        QTest::addRow("nothing runnable: first by name")
            << QStringList{"configs/a.yaml|a: 1\n", "configs/b.yaml|b: 2\n"} << ""
            << "configs/a.yaml"
            << "configs/a.yaml";
        QTest::addRow("the saved choice over the smallest")
            << QStringList{"configs/a_large.yaml|" + big, "configs/b_tiny.yaml|" + tiny}
            << "configs/a_large.yaml"
            << "configs/a_large.yaml"
            << "configs/a_large.yaml";
    }
    void dryRunRule()
    {
        QFETCH(QStringList, files);
        QFETCH(QString, saved);
        QFETCH(QString, read);
        QFETCH(QString, dryRun);
        QTemporaryDir dir;
        const fs::path root = dir.path().toStdString();
        for (const QString& f : files) {
            const fs::path p = root / f.section('|', 0, 0).toStdString();
            fs::create_directories(p.parent_path());
            std::ofstream(p) << f.section('|', 1).toStdString();
        }
        if (!saved.isEmpty())
            QVERIFY(!saveParamsFile(root, saved.toStdString()));
        QCOMPARE(QString::fromStdString(paramsFileFor(root).path), read);
        const ParamsFileChoice c = paramsFileFor(root, {}, ParamsUse::CpuDryRun);
        QCOMPARE(QString::fromStdString(c.path), dryRun);
        QCOMPARE(c.source, saved.isEmpty() ? ParamsSource::Default : ParamsSource::Saved);
    }

    // The corpus's real layouts, when the corpus is there.
    void corpusProjects_data()
    {
        QTest::addColumn<QString>("project");
        QTest::addColumn<QString>("expected");
        QTest::addColumn<QString>("dryRun");
        QTest::addRow("Model Zoo BERT") << "cerebras-pt-bert"
                                        << "configs/bert_base_msl128.yaml"
                                        << "configs/bert_base_msl128.yaml";
        QTest::addRow("Model Zoo GPT-2") << "cerebras-pt-gpt2"
                                         << "configs/params_gpt2_large.yaml"
                                         << "configs/params_gpt2_small.yaml";
        QTest::addRow("Determined MNIST") << "determined-mnist"
                                          << "const.yaml"
                                          << "const.yaml";
        QTest::addRow("Determined BYOL") << "determined-byol"
                                         << "const-cifar10.yaml"
                                         << "const-cifar10.yaml";
        QTest::addRow("PopTorch tutorial") << "graphcore-mixed-precision"
                                           << ""
                                           << "";
    }
    void corpusProjects()
    {
        QFETCH(QString, project);
        QFETCH(QString, expected);
        QFETCH(QString, dryRun);
        const QByteArray corpus = qgetenv("PORTOLAN_CORPUS");
        if (corpus.isEmpty())
            QSKIP("PORTOLAN_CORPUS is not set (the corpus of real projects is not here)");
        const fs::path root = fs::path(corpus.toStdString()) / "projects" / project.toStdString();
        QCOMPARE(QString::fromStdString(paramsFileFor(root).path), expected);
        QCOMPARE(QString::fromStdString(paramsFileFor(root, {}, ParamsUse::CpuDryRun).path),
                 dryRun);
    }
};

QTEST_GUILESS_MAIN(TestParamsFile)
#include "test_params_file.moc"
