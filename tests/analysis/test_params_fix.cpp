// The "write the params file from argparse" fix: flags placed in sections by meaning, defaults
// translated to YAML, uses rewritten where the loaded file is visible and left (with a reason)
// where it is not, the user's moves honoured, the fix applied across files and undone byte for
// byte; on the fixtures and, with PORTOLAN_CORPUS, on the corpus's unported originals.
#include "core/common/atomic_file.h"
#include "core/guides/fixes/apply_fix.h"
#include "core/guides/fixes/params_from_argparse.h"
#include "tests/analysis/test_support.h"

#include <QTemporaryDir>
#include <QTest>
#include <filesystem>
#include <map>
#include <yaml-cpp/yaml.h>

using namespace portolan;
namespace fs = std::filesystem;

namespace {

std::vector<guides::Finding> findings(const std::string& guide, const analysis::ProjectAnalysis& a,
                                      const std::string& check = {})
{
    std::vector<guides::Finding> out;
    for (const auto& f : guides::runGuide(*testing::sourceGuides().find(guide), a).allFindings())
        if (check.empty() || f.checkId == check)
            out.push_back(f);
    return out;
}

const guides::FlagSections& table()
{
    static const guides::FlagSections t =
        *guides::loadFlagSections(std::string(PORTOLAN_SOURCE_DIR) +
                                  "/resources/fixes/flag-sections.yaml")
             .value;
    return t;
}

std::string corpusRoot()
{
    return qEnvironmentVariable("PORTOLAN_CORPUS").toStdString();
}

} // namespace

class TestParamsFix : public QObject
{
    Q_OBJECT
private slots:
    void placesFlagsByMeaning_data()
    {
        QTest::addColumn<QString>("dest");
        QTest::addColumn<QString>("section");
        QTest::addColumn<QString>("key");
        QTest::addRow("batch") << "batch_size"
                               << "train_input"
                               << "batch_size";
        QTest::addRow("camel") << "batchSize"
                               << "train_input"
                               << "batch_size";
        QTest::addRow("test batch") << "test_batch_size"
                                    << "eval_input"
                                    << "batch_size";
        QTest::addRow("data") << "dataroot"
                              << "train_input"
                              << "data_dir";
        QTest::addRow("lr") << "lr"
                            << "optimizer"
                            << "learning_rate";
        QTest::addRow("clip") << "clip"
                              << "optimizer"
                              << "max_gradient_norm";
        QTest::addRow("epochs") << "epochs"
                                << "runconfig"
                                << "num_epochs";
        QTest::addRow("seed") << "manualSeed"
                              << "runconfig"
                              << "seed";
        QTest::addRow("log") << "log-interval"
                             << "runconfig"
                             << "log_steps";
        QTest::addRow("model") << "nhid"
                               << "model"
                               << "nhid";
    }
    void placesFlagsByMeaning()
    {
        QFETCH(QString, dest);
        QFETCH(QString, section);
        QFETCH(QString, key);
        const auto [s, k] = table().place(dest.toStdString());
        QCOMPARE(QString::fromStdString(s), section);
        QCOMPARE(QString::fromStdString(k), key);
    }

    void planOfAScript()
    {
        auto a = testing::analyse(testing::projectPath("fixture:argparse-script"));
        QVERIFY(a);
        auto plan = guides::planParamsFromArgparse(*a, guides::ParamsTarget::Cerebras, table());
        QVERIFY(plan);
        QCOMPARE(QString::fromStdString(plan->file), QStringLiteral("configs/params.yaml"));
        std::map<std::string, std::string> placed, values;
        for (const auto& e : plan->entries) {
            placed[e.dest] = e.section + "." + e.key;
            values[e.dest] = e.value;
        }
        QCOMPARE(QString::fromStdString(placed["batch_size"]),
                 QStringLiteral("train_input.batch_size"));
        QCOMPARE(QString::fromStdString(placed["test_batch_size"]),
                 QStringLiteral("eval_input.batch_size"));
        QCOMPARE(QString::fromStdString(placed["lr"]), QStringLiteral("optimizer.learning_rate"));
        // Python literals as YAML that PyYAML reads back as the same value.
        QCOMPARE(QString::fromStdString(values["lr"]), QStringLiteral("1.0e-3"));
        QCOMPARE(QString::fromStdString(values["betas"]), QStringLiteral("[0.9, 0.999]"));
        QCOMPARE(QString::fromStdString(values["hidden"]), QStringLiteral("null"));
        QCOMPARE(QString::fromStdString(values["name"]), QStringLiteral("\"run \\\"one\\\"\""));
        QCOMPARE(QString::fromStdString(values["no_cuda"]), QStringLiteral("false"));
        QCOMPARE(QString::fromStdString(values["seed"]), QStringLiteral("null"));
        // Not written: the flag read only through the namespace passed to train(), the one the
        // code assigns to.
        QVERIFY(!placed.count("log_interval"));
        QVERIFY(!placed.count("epochs"));
        const std::string text = guides::renderParamsFile(*plan);
        QVERIFY(text.find("  batch_size: 64  # --batch-size: input batch size (default: 64)\n") !=
                std::string::npos);
        QVERIFY(text.find("the default was torch.initial_seed(); set it") != std::string::npos);
        QVERIFY(text.find("eval_input:\n  batch_size: 1000") != std::string::npos);
        YAML::Node parsed = YAML::Load(text);
        QCOMPARE(parsed["optimizer"]["betas"].size(), std::size_t(2));

        // What is left, and why.
        std::map<std::string, std::string> left;
        for (const auto& l : plan->leftAlone)
            left[l.text] = l.reason;
        QVERIFY(left["args.log_interval"].find("passed to train()") != std::string::npos);
        QVERIFY(left["args.epochs"].find("assigns to args.epochs") != std::string::npos);
        QVERIFY(left["args.cuda"].find("not a command-line flag") != std::string::npos);
        QVERIFY(guides::leftAloneSummary(*plan).find("args.epochs at train.py:35 (2 uses)") !=
                std::string::npos);
    }

    void applyAndUndo()
    {
        QTemporaryDir tmp;
        const fs::path root = fs::path(tmp.path().toStdString()) / "p";
        testing::copyTree(testing::projectPath("fixture:argparse-script"), root);
        const auto before = testing::snapshot(root);
        auto a = testing::analyse(root.string());
        QVERIFY(a);
        QCOMPARE(findings("cerebras-pytorch", *a, "cerebras-pytorch.params-file").size(),
                 std::size_t(1));
        const auto noArgs = findings("cerebras-pytorch", *a, "cerebras-pytorch.no-args");
        QVERIFY(noArgs.size() > 3);
        // Every no-args finding offers the same fix as the missing params file.
        const auto paramsFile = findings("cerebras-pytorch", *a, "cerebras-pytorch.params-file");
        QVERIFY(paramsFile.front().fix);
        for (const auto& f : noArgs) {
            QVERIFY(f.fix);
            QCOMPARE(f.fix->description, paramsFile.front().fix->description);
        }
        const guides::Fix fix = *paramsFile.front().fix;
        QCOMPARE(fix.edits.back().file, std::string("configs/params.yaml"));
        QVERIFY(fix.edits.back().createsFile);

        auto diff = guides::previewFix(root, fix);
        QVERIFY(diff);
        QVERIFY(diff.value->starts_with("--- a/train.py\n+++ b/train.py\n@@ -"));
        QVERIFY(diff.value->find("--- /dev/null\n+++ b/configs/params.yaml\n@@ -0,0 +1,") !=
                std::string::npos);
        QVERIFY(testing::snapshot(root) == before); // preview writes nothing

        auto inverse = guides::applyFix(root, fix);
        QVERIFY2(inverse, inverse.error.message.c_str());
        const std::string script = *readFile(root / "train.py").value;
        QVERIFY(script.find("    with open(\"configs/params.yaml\") as params_stream:\n"
                            "        params = yaml.safe_load(params_stream)\n") !=
                std::string::npos);
        QVERIFY(script.find("import yaml\n") != std::string::npos);
        QVERIFY(script.find("lr=params[\"optimizer\"][\"learning_rate\"]") != std::string::npos);
        QVERIFY(script.find("if step % args.log_interval == 0") != std::string::npos);

        auto again = testing::analyse(root.string());
        QVERIFY(again);
        for (const auto& d : again->diagnostics)
            QVERIFY2(d.code != "python.syntax", d.toString().c_str());
        QVERIFY(again->paramsConfig());
        QCOMPARE(again->paramsConfig()->path, std::string("configs/params.yaml"));
        QVERIFY(findings("cerebras-pytorch", *again, "cerebras-pytorch.params-file").empty());
        // The reads of the new file are tied to it, and every key they read is there.
        QVERIFY(findings("cerebras-pytorch", *again, "cerebras-pytorch.keys-exist").empty());
        QVERIFY(findings("cerebras-pytorch", *again, "cerebras-pytorch.keys-unused").empty());
        QVERIFY(findings("cerebras-pytorch", *again, "cerebras-pytorch.params-sections").empty());
        // Only the uses the fix left alone are still flagged.
        for (const auto& f : findings("cerebras-pytorch", *again, "cerebras-pytorch.no-args")) {
            QVERIFY2(f.message.starts_with("args.log_interval") ||
                         f.message.starts_with("args.epochs") || f.message.starts_with("args.cuda"),
                     f.message.c_str());
            QVERIFY(!f.fix); // the params file exists now
        }

        // Stale: applying it again is refused and changes nothing.
        const auto fixed = testing::snapshot(root);
        QVERIFY(!guides::applyFix(root, fix));
        QVERIFY(testing::snapshot(root) == fixed);

        QVERIFY(guides::applyFix(root, *inverse.value));
        QVERIFY(testing::snapshot(root) == before);
        QVERIFY(!fs::exists(root / "configs"));
    }

    void userMovesAKey()
    {
        auto a = testing::analyse(testing::projectPath("fixture:argparse-script"));
        QVERIFY(a);
        auto plan = guides::planParamsFromArgparse(*a, guides::ParamsTarget::Cerebras, table());
        QVERIFY(plan);
        guides::ParamsEntry* name = plan->entry("name");
        QVERIFY(name);
        name->section = "runconfig";
        name->key = "run_name";
        auto fix = guides::buildParamsFix(*a, *plan);
        QVERIFY(fix);
        bool read = false;
        for (const auto& e : fix.value->edits)
            read = read || e.replacement == "params[\"runconfig\"][\"run_name\"]";
        QVERIFY(read);
        QVERIFY(fix.value->edits.back().replacement.find("runconfig:\n") != std::string::npos);
        QVERIFY(fix.value->edits.back().replacement.find("  run_name: \"run \\\"one\\\"\"") !=
                std::string::npos);

        // Two flags on one key, or a key that is not a plain name, is refused.
        name->section = "eval_input";
        name->key = "batch_size";
        QVERIFY(!guides::buildParamsFix(*a, *plan));
        name->key = "bad key: x";
        QVERIFY(!guides::buildParamsFix(*a, *plan));
    }

    void determinedTrial()
    {
        QTemporaryDir tmp;
        const fs::path root = fs::path(tmp.path().toStdString()) / "p";
        testing::copyTree(testing::projectPath("fixture:det-args"), root);
        const auto before = testing::snapshot(root);
        auto a = testing::analyse(root.string());
        QVERIFY(a);
        const auto missing =
            findings("determined-pytorchtrial", *a, "determined-pytorchtrial.experiment-config");
        QCOMPARE(missing.size(), std::size_t(1));
        QVERIFY(missing.front().fix);
        auto inverse = guides::applyFix(root, *missing.front().fix);
        QVERIFY2(inverse, inverse.error.message.c_str());
        const std::string trial = *readFile(root / "model_def.py").value;
        QVERIFY(trial.find("lr=self.context.get_hparam(\"learning_rate\")") != std::string::npos);
        QVERIFY(trial.find("batch_size=self.context.get_hparam(\"global_batch_size\")") !=
                std::string::npos);
        const std::string script = *readFile(root / "main.py").value;
        QVERIFY(script.find("print(\"dropout\", params[\"hyperparameters\"][\"dropout\"])") !=
                std::string::npos);
        const YAML::Node config = YAML::LoadFile((root / "const.yaml").string());
        QCOMPARE(config["entrypoint"].as<std::string>(), std::string("model_def:RegressionTrial"));
        QCOMPARE(config["hyperparameters"]["global_batch_size"].as<int>(), 32);
        QCOMPARE(config["searcher"]["name"].as<std::string>(), std::string("single"));

        auto again = testing::analyse(root.string());
        QVERIFY(again);
        QCOMPARE(again->experimentConfigs().size(), std::size_t(1));
        for (const char* check :
             {"determined-pytorchtrial.experiment-config", "determined-pytorchtrial.no-args",
              "determined-pytorchtrial.entrypoint", "determined-pytorchtrial.hparams-exist",
              "determined-pytorchtrial.undefined-name"}) {
            const auto left = findings("determined-pytorchtrial", *again, check);
            QVERIFY2(left.empty(),
                     (std::string(check) + ": " + (left.empty() ? "" : left.front().toString()))
                         .c_str());
        }
        QVERIFY(guides::applyFix(root, *inverse.value));
        QVERIFY(testing::snapshot(root) == before);
    }

    void noFixWithoutFlagsOrWithAFile()
    {
        auto zoo = testing::analyse(testing::projectPath("fixture:zoo-model"));
        QVERIFY(zoo);
        for (const auto& f : findings("cerebras-pytorch", *zoo))
            QVERIFY2(!f.fix || f.checkId != "cerebras-pytorch.no-args", f.toString().c_str());
        QVERIFY(!guides::planParamsFromArgparse(*zoo, guides::ParamsTarget::Cerebras, table()) ||
                zoo->paramsConfig());
    }

    // The corpus's unported originals: the fix applies to each, the code still parses, the
    // missing-file finding goes, the flags the fix moved are no longer flagged, and undo restores
    // every file.
    void corpusOriginals_data()
    {
        QTest::addColumn<QString>("project");
        QTest::addColumn<QString>("guide");
        for (const char* p : {"pytorch-word-language-model", "pytorch-dcgan", "pytorch-vae",
                              "pytorch-super-resolution", "pytorch-siamese-network",
                              "pytorch-time-sequence-prediction", "pytorch-regression"})
            for (const char* g : {"cerebras-pytorch", "determined-pytorchtrial"})
                QTest::addRow("%s %s", p, g) << p << g;
    }
    void corpusOriginals()
    {
        QFETCH(QString, project);
        QFETCH(QString, guide);
        if (corpusRoot().empty())
            QSKIP("PORTOLAN_CORPUS is not set; the corpus of real projects is in ../shared/corpus");
        QTemporaryDir tmp;
        const fs::path root = fs::path(tmp.path().toStdString()) / project.toStdString();
        testing::copyTree(fs::path(corpusRoot()) / "projects" / project.toStdString(), root);
        const auto before = testing::snapshot(root);
        auto a = testing::analyse(root.string());
        QVERIFY(a);
        const std::string g = guide.toStdString();
        const std::string missingCheck =
            g == "cerebras-pytorch" ? g + ".params-file" : g + ".experiment-config";
        const auto missing = findings(g, *a, missingCheck);
        const auto noArgsBefore = findings(g, *a, g + ".no-args");
        if (missing.empty() || !missing.front().fix) {
            // An original without flags (time-sequence-prediction) has nothing to move.
            QVERIFY2(noArgsBefore.empty(), "flags are read but no fix is offered");
            return;
        }
        auto inverse = guides::applyFix(root, *missing.front().fix);
        QVERIFY2(inverse, inverse.error.message.c_str());
        auto again = testing::analyse(root.string());
        QVERIFY(again);
        for (const auto& d : again->diagnostics)
            QVERIFY2(d.code != "python.syntax", d.toString().c_str());
        QVERIFY(findings(g, *again, missingCheck).empty());
        QVERIFY(findings(g, *again, g + ".no-args").size() < noArgsBefore.size());
        if (g == "cerebras-pytorch")
            QVERIFY(findings(g, *again, g + ".keys-exist").empty());
        QVERIFY(guides::applyFix(root, *inverse.value));
        QVERIFY(testing::snapshot(root) == before);
    }
};

QTEST_GUILESS_MAIN(TestParamsFix)
#include "test_params_fix.moc"
