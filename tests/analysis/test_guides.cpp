// Guides as data: loading, the number and coverage of checks, every check firing on one fixture
// and silent on another, and the step statuses. Fixes, SARIF and the flow graph are in
// test_guide_outputs.cpp.
#include "core/analysis/config.h"
#include "core/analysis/flow.h"
#include "core/common/atomic_file.h"
#include "core/guides/findings_report.h"
#include "core/guides/fixes/apply_fix.h"
#include "core/guides/rules.h"
#include "core/targets/target.h"
#include "tests/analysis/test_support.h"

#include <QProcess>
#include <QTemporaryDir>
#include <QTest>
#include <filesystem>
#include <fstream>
#include <map>
#include <yaml-cpp/yaml.h>

using namespace portolan;
namespace fs = std::filesystem;

namespace {

std::vector<guides::Finding> findingsOf(const std::string& checkId, const std::string& spec)
{
    const guides::Guide* g = testing::guideOfCheck(checkId);
    std::vector<guides::Finding> out;
    if (!g)
        return out;
    for (const auto& f : guides::runGuide(*g, testing::cachedAnalysis(spec)).allFindings())
        if (f.checkId == checkId)
            out.push_back(f);
    return out;
}

} // namespace

class TestGuides : public QObject
{
    Q_OBJECT
private slots:
    void glob_data()
    {
        QTest::addColumn<QString>("pattern");
        QTest::addColumn<QString>("text");
        QTest::addColumn<bool>("matches");
        QTest::newRow("exact") << "torch.load"
                               << "torch.load" << true;
        QTest::newRow("exact, other") << "torch.load"
                                      << "torch.loads" << false;
        QTest::newRow("prefix") << "torch.cuda*"
                                << "torch.cuda.is_available" << true;
        QTest::newRow("prefix, shorter text") << "torch.cuda*"
                                              << "torch" << false;
        QTest::newRow("suffix") << "*.backward"
                                << "loss.backward" << true;
        QTest::newRow("suffix, shorter text") << "*.backward"
                                              << "backward" << false;
        QTest::newRow("star alone") << "*"
                                    << "" << true;
        QTest::newRow("two stars") << "*.cuda*"
                                   << "model.cuda()" << true;
        QTest::newRow("question mark") << "fc?"
                                       << "fc1" << true;
        QTest::newRow("middle star") << "torch.*.Adam"
                                     << "torch.optim.Adam" << true;
        QTest::newRow("middle star, no") << "torch.*.Adam"
                                         << "torch.optim.SGD" << false;
    }
    void glob()
    {
        QFETCH(QString, pattern);
        QFETCH(QString, text);
        QFETCH(bool, matches);
        QCOMPARE(guides::globMatch(pattern.toStdString(), text.toStdString()), matches);
    }

    void guidesLoad()
    {
        const auto& set = testing::sourceGuides();
        for (const auto& d : set.diagnostics)
            qWarning("%s", d.toString().c_str());
        QVERIFY(set.diagnostics.empty());
        QCOMPARE(set.guides.size(), std::size_t(8));
        // The Core API guide is short by design: the script keeps its loop, so only the
        // hand-over to Determined is checked.
        const guides::Guide* core = set.find("determined-core");
        QVERIFY(core);
        QCOMPARE(core->checkCount(), std::size_t(6));
        std::size_t total = 0, fixes = 0;
        for (const char* id : {"cerebras-pytorch", "cerebras-tensorflow", "cerebras-layers",
                               "determined-pytorchtrial", "graphcore-poptorch", "cerebras-cstorch",
                               "cerebras-trainer"}) {
            const guides::Guide* g = set.find(id);
            QVERIFY2(g, id);
            QVERIFY2(g->checkCount() >= 8, id);
            total += g->checkCount();
            for (const auto& s : g->steps) {
                QVERIFY(!s.explanation.empty());
                for (const auto& c : s.checks)
                    fixes += c.fixKind.empty() ? 0 : 1;
            }
        }
        QVERIFY(total >= 45);
        QVERIFY(fixes >= 8);
    }

    // A guide's target is a shipped hardware target of its vendor (the Profile tab opens on
    // it); a Determined trial names none.
    void guideTargets_data()
    {
        QTest::addColumn<QString>("guide");
        QTest::addColumn<QString>("kind"); // "cs", "ipu" or empty for none
        QTest::addRow("cerebras-pytorch") << "cerebras-pytorch"
                                          << "cs";
        QTest::addRow("cerebras-tensorflow") << "cerebras-tensorflow"
                                             << "cs";
        QTest::addRow("cerebras-layers") << "cerebras-layers"
                                         << "cs";
        QTest::addRow("graphcore-poptorch") << "graphcore-poptorch"
                                            << "ipu";
        QTest::addRow("determined-pytorchtrial") << "determined-pytorchtrial"
                                                 << "";
    }
    void guideTargets()
    {
        QFETCH(QString, guide);
        QFETCH(QString, kind);
        const guides::Guide* g = testing::sourceGuides().find(guide.toStdString());
        QVERIFY(g);
        if (kind.isEmpty()) {
            QVERIFY2(g->target.empty(), g->target.c_str());
            return;
        }
        auto target = targets::loadTarget(g->target);
        QVERIFY2(target, target ? "" : target.error.toString().c_str());
        QCOMPARE(target.value->kind,
                 kind == "cs" ? targets::TargetKind::Cs : targets::TargetKind::Ipu);
    }

    // A script that opens a Determined Core context keeps its own loop: it is a Determined
    // port (flavour determined-core), not an original with leftovers, unless a trial class
    // makes it a PyTorchTrial project.
    void coreApiFlavour()
    {
        for (const char* spec :
             {"fixture:det-core-script", "fixture:det-core-broken", "fixture:det-core-unmanaged"}) {
            const auto& a = testing::cachedAnalysis(spec);
            QCOMPARE(QString::fromStdString(std::string(analysis::flavourId(a.flavour.flavour))),
                     QStringLiteral("determined-core"));
            QCOMPARE(QString::fromStdString(a.flavour.suggestedGuide),
                     QStringLiteral("determined-core"));
            QVERIFY(!a.flavour.beingPorted);
        }
        QTemporaryDir dir;
        testing::copyTree(testing::projectPath("fixture:det-core-script"),
                          dir.path().toStdString());
        {
            std::ofstream trial(dir.filePath("model_def.py").toStdString());
            trial << "from determined.pytorch import PyTorchTrial\n\n\n"
                     "class Trial(PyTorchTrial):\n    pass\n";
        }
        auto a = testing::analyse(dir.path().toStdString());
        QVERIFY(a);
        QVERIFY(a->flavour.flavour == analysis::Flavour::DeterminedPyTorchTrial ||
                a->flavour.portingTo == analysis::Flavour::DeterminedPyTorchTrial);
        // Without the Core context the same loop is an original's leftover.
        fs::remove(dir.filePath("model_def.py").toStdString());
        std::string text = *readFile(dir.filePath("train.py").toStdString()).value;
        const auto at = text.find("    with det.core.init() as core_context:");
        QVERIFY(at != std::string::npos);
        text.replace(at, text.size() - at, "    main(None, info.trial.hparams)\n");
        QVERIFY(!writeFileAtomically(dir.filePath("train.py").toStdString(), text));
        a = testing::analyse(dir.path().toStdString());
        QVERIFY(a);
        QVERIFY(a->flavour.flavour != analysis::Flavour::DeterminedCore);
    }

    void suggestedOrder()
    {
        const auto& set = testing::sourceGuides();
        auto stepIds = [&](const char* id) {
            QStringList out;
            for (const auto& s : set.find(id)->steps)
                out << QString::fromStdString(s.id);
            return out.join(' ');
        };
        QCOMPARE(stepIds("cerebras-pytorch"), QStringLiteral("model data utils params run"));
        QCOMPARE(stepIds("determined-pytorchtrial"),
                 QStringLiteral("model optimizer data batches lr-scheduler other"));
        QCOMPARE(stepIds("graphcore-poptorch"),
                 QStringLiteral("cpu data training-model inference memory precision-pipelining"));
    }

    void everyCheckHasCases()
    {
        const YAML::Node c = testing::checkCases();
        for (const auto& g : testing::sourceGuides().guides)
            for (const auto& s : g.steps)
                for (const auto& check : s.checks)
                    QVERIFY2(c[check.id], ("no fire/silent case for " + check.id).c_str());
    }

    void fires_data()
    {
        QTest::addColumn<QString>("check");
        QTest::addColumn<QString>("project");
        QTest::addColumn<QString>("at");
        for (const auto& kv : testing::checkCases())
            QTest::addRow("%s", kv.first.Scalar().c_str())
                << QString::fromStdString(kv.first.Scalar())
                << QString::fromStdString(kv.second["fire"].Scalar())
                << QString::fromStdString(kv.second["at"] ? kv.second["at"].Scalar()
                                                          : std::string());
    }
    void fires()
    {
        QFETCH(QString, check);
        QFETCH(QString, project);
        QFETCH(QString, at);
        const auto found = findingsOf(check.toStdString(), project.toStdString());
        QVERIFY2(!found.empty(), "the check did not fire");
        if (at.isEmpty())
            return;
        QStringList where;
        for (const auto& f : found) {
            where << QString::fromStdString(f.location.file + ":" +
                                            std::to_string(f.location.line));
            for (const auto& r : f.related) // a grouped finding's other places
                where << QString::fromStdString(r.file + ":" + std::to_string(r.line));
        }
        QVERIFY2(where.contains(at), qPrintable("fired at " + where.join(", ")));
        for (const auto& f : found) {
            QVERIFY(!f.message.empty());
            QVERIFY(f.message.find('{') == std::string::npos); // every placeholder filled in
            QVERIFY(!f.hint.empty());
        }
    }

    void silent_data()
    {
        QTest::addColumn<QString>("check");
        QTest::addColumn<QString>("project");
        for (const auto& kv : testing::checkCases())
            QTest::addRow("%s", kv.first.Scalar().c_str())
                << QString::fromStdString(kv.first.Scalar())
                << QString::fromStdString(kv.second["silent"].Scalar());
    }
    void silent()
    {
        QFETCH(QString, check);
        QFETCH(QString, project);
        const auto found = findingsOf(check.toStdString(), project.toStdString());
        QStringList where;
        for (const auto& f : found)
            where << QString::fromStdString(f.toString());
        QVERIFY2(found.empty(), qPrintable(where.join("\n")));
    }

    void brokenGuides_data()
    {
        QTest::addColumn<QString>("yaml");
        QTest::addColumn<int>("line");
        QTest::addRow("not-yaml") << "id: [unclosed\n" << 2;
        QTest::addRow("no-steps") << "id: x\ntitle: X\n" << 1;
        QTest::addRow("unknown-kind")
            << "id: x\ntitle: X\nsteps:\n  - id: a\n    title: A\n    explanation: e\n"
               "    checks:\n      - id: x.a\n        severity: error\n        title: t\n"
               "        message: m\n        hint: h\n        rule:\n          kind: nonsense\n"
            << 14;
        QTest::addRow("bad-severity")
            << "id: x\ntitle: X\nsteps:\n  - id: a\n    title: A\n    explanation: e\n"
               "    checks:\n      - id: x.a\n        severity: fatal\n        title: t\n"
               "        message: m\n        hint: h\n        rule: {kind: undefined-name}\n"
            << 9;
        QTest::addRow("verified-by-unknown-action")
            << "id: x\ntitle: X\nsteps:\n  - id: a\n    title: A\n    explanation: e\n"
               "    verified-by:\n      action: hope\n      reason: r\n"
            << 8;
        QTest::addRow("verified-by-no-reason")
            << "id: x\ntitle: X\nsteps:\n  - id: a\n    title: A\n    explanation: e\n"
               "    verified-by: {action: compile}\n"
            << 7;
        QTest::addRow("verified-by-scalar")
            << "id: x\ntitle: X\nsteps:\n  - id: a\n    title: A\n    explanation: e\n"
               "    verified-by: compile\n"
            << 7;
    }
    void brokenGuides()
    {
        QFETCH(QString, yaml);
        QFETCH(int, line);
        auto g = guides::parseGuide(yaml.toStdString(), "bad.yaml");
        QVERIFY(!g);
        QCOMPARE(g.error.location.file, std::string("bad.yaml"));
        QCOMPARE(g.error.location.line, line);
    }

    // Regression (ASan stack-use-after-scope): list-valued rule parameters were read through a
    // range-for over yaml-cpp's iterator proxy, which died before the loop ran.
    void listRuleParams_data()
    {
        QTest::addColumn<QString>("list");
        QTest::addColumn<QStringList>("values");
        QTest::addRow("flow") << "[a.b, c, \"d.*\"]" << QStringList{"a.b", "c", "d.*"};
        QTest::addRow("block") << "\n            - one\n            - two"
                               << QStringList{"one", "two"};
        QTest::addRow("empty") << "[]" << QStringList{};
    }
    void listRuleParams()
    {
        QFETCH(QString, list);
        QFETCH(QStringList, values);
        const QString yaml =
            "id: x\ntitle: X\nsteps:\n  - id: a\n    title: A\n    explanation: e\n"
            "    checks:\n      - id: x.a\n        severity: error\n        title: t\n"
            "        message: m\n        hint: h\n        rule:\n          kind: undefined-name\n"
            "          callee: " +
            list + "\n";
        auto g = guides::parseGuide(yaml.toStdString(), "list.yaml");
        QVERIFY2(g, g.error.message.c_str());
        const auto& p = g.value->steps.at(0).checks.at(0).params;
        QVERIFY(p.has("callee"));
        QStringList got;
        for (const auto& v : p.values.at("callee"))
            got << QString::fromStdString(v);
        QCOMPARE(got, values);
    }

    // Regression (ASan stack-use-after-scope): a merge key with a list of anchors was iterated
    // the same way in the config reader.
    void configMergeList()
    {
        const auto c = analysis::readConfig("a: &a {x: 1}\nb: &b {y: 2}\n"
                                            "m:\n  <<: [*a, *b]\n  z: 3\n",
                                            "m.yaml");
        QVERIFY(!c.parseError);
        QVERIFY(c.find("m.x"));
        QCOMPARE(c.find("m.x")->value, std::string("1"));
        QVERIFY(c.find("m.y"));
        QCOMPARE(c.find("m.y")->value, std::string("2"));
        QVERIFY(c.find("m.z"));
    }

    // wrap-model: a layer built in the constructor of another module is not a model to wrap,
    // whether that module derives from nn.Module or from a torch.nn class (nn.Transformer).
    void wrapModelLayers_data()
    {
        QTest::addColumn<QString>("base");
        QTest::addColumn<int>("findings");
        QTest::addRow("nn.Module subclass") << "nn.Module" << 0;
        QTest::addRow("torch.nn class subclass") << "nn.Transformer" << 0;
        QTest::addRow("not a module") << "object" << 1;
    }

    void wrapModelLayers()
    {
        QFETCH(QString, base);
        QFETCH(int, findings);
        QTemporaryDir dir;
        std::ofstream(dir.filePath("model_def.py").toStdString())
            << "import torch.nn as nn\n"
               "from determined.pytorch import PyTorchTrial\n\n\n"
               "class Encoding(nn.Module):\n"
               "    def forward(self, x):\n        return x\n\n\n"
               "class Outer("
            << base.toStdString()
            << "):\n"
               "    def __init__(self):\n        super().__init__()\n"
               "        self.enc = Encoding()\n\n\n"
               "class Trial(PyTorchTrial):\n"
               "    def __init__(self, context):\n"
               "        self.model = context.wrap_model(Outer())\n";
        auto a = testing::analyse(dir.path().toStdString());
        QVERIFY(a);
        const guides::Guide* g = testing::sourceGuides().find("determined-pytorchtrial");
        QVERIFY(g);
        int n = 0;
        for (const auto& f : guides::runGuide(*g, *a).allFindings())
            n += f.checkId == "determined-pytorchtrial.wrap-model";
        QCOMPARE(n, findings);
    }

    void guideResultStatuses()
    {
        const guides::Guide* g = testing::sourceGuides().find("graphcore-poptorch");
        const auto r = guides::runGuide(*g, testing::cachedAnalysis("sample:small-cnn-original"));
        QCOMPARE(r.steps.size(), g->steps.size());
        QVERIFY(r.errors > 0);
        QCOMPARE(r.steps[0].status, guides::StepStatus::Findings);
        // Memory and precision only apply once there is a training model.
        QCOMPARE(r.steps[4].status, guides::StepStatus::NotApplicable);
        const auto clean =
            guides::runGuide(*g, testing::cachedAnalysis("sample:small-cnn-poptorch"));
        QCOMPARE(clean.errors, 0);
        QCOMPARE(clean.steps[2].status, guides::StepStatus::Passed);
        // Memory fit and fp16/pipelining: only a compilation verifies them (issue 26), so they
        // are "not verified", with the reason and the action, and not counted as done.
        for (const std::size_t s : {std::size_t(4), std::size_t(5)}) {
            QCOMPARE(clean.steps[s].status, guides::StepStatus::NotVerified);
            QCOMPARE(clean.steps[s].verifyAction, guides::VerifyAction::Compile);
            QVERIFY(!clean.steps[s].notVerifiedReason.empty());
        }
        QCOMPARE(clean.stepsPassed(), static_cast<int>(clean.steps.size()) - 2);
        const nlohmann::json cleanJson = guides::toJson(*g, clean);
        QVERIFY(cleanJson["steps"][4]["id"] == "memory");
        QVERIFY(cleanJson["steps"][4]["status"] == "not-verified");
        QVERIFY(cleanJson["steps"][4]["verify_action"] == "compile");
        QVERIFY(cleanJson["steps"][4]["reason"].get<std::string>().find("compil") !=
                std::string::npos);
        const nlohmann::json sarif = guides::toSarif(*g, clean, "/p");
        QVERIFY(sarif["runs"][0]["properties"]["steps"][4]["status"] == "not-verified");
        QVERIFY(guides::guideOrderDot(*g, &clean).find("not-verified (compile to verify)") !=
                std::string::npos);
        // A step whose checks are porting advice for code without a trial class yet is done,
        // not "not applicable", once the trial class exists: the class's contract (step 1)
        // checks train_batch and evaluate_batch.
        const guides::Guide* det = testing::sourceGuides().find("determined-pytorchtrial");
        const auto port =
            guides::runGuide(*det, testing::cachedAnalysis("sample:image-classifier-determined"));
        const auto batches = std::find_if(det->steps.begin(), det->steps.end(),
                                          [](const auto& s) { return s.id == "batches"; });
        QVERIFY(batches != det->steps.end());
        QCOMPARE(port.steps[std::size_t(batches - det->steps.begin())].status,
                 guides::StepStatus::Passed);
        const nlohmann::json j = guides::toJson(*g, r);
        QCOMPARE(j["steps"].size(), g->steps.size());
        const std::string dot = guides::guideOrderDot(*g, &r);
        QVERIFY(dot.find("s0 -> s1") != std::string::npos);
    }

    // A finding about a missing model class sits on the model the program builds, not on the
    // first nn.Module of the file (a layer the model is made of).
    void modelAnchorIsTheBuiltModel_data()
    {
        QTest::addColumn<QString>("check");
        QTest::newRow("trainer config class") << "cerebras-trainer.config-class";
        QTest::newRow("trainer registration") << "cerebras-trainer.registered";
    }
    void modelAnchorIsTheBuiltModel()
    {
        QFETCH(QString, check);
        const auto found = findingsOf(check.toStdString(), "fixture:layer-first-original");
        QCOMPARE(found.size(), std::size_t(1));
        QCOMPARE(found.front().location.line, 16); // class Net(nn.Module), not Block at 7
    }

    // A YAML of named configurations handed to argparse's defaults (set_defaults(**named)):
    // a key that is a flag of the parser is read, under every named configuration and through
    // the merged defaults; a key that is no flag is still unused. Without the hand-over, no key
    // is read, and one note says why.
    void namedConfigKeysAreFlagDefaults()
    {
        const std::string id = "graphcore-poptorch.keys-unused";
        QStringList unused;
        for (const auto& f : findingsOf(id, "project:named-config-poptorch"))
            unused << QString::fromStdString(f.message.substr(0, f.message.find(' ', 1)));
        unused.sort();
        QCOMPARE(unused, (QStringList{"'tiny_2ipu.not_a_flag'", "'tiny_4ipu.not_a_flag'"}));

        QTemporaryDir tmp;
        const fs::path root = fs::path(tmp.path().toStdString()) / "named";
        testing::copyTree(testing::projectPath("project:named-config-poptorch"), root);
        std::string text = *readFile(root / "args.py").value;
        const std::string from = "parser.set_defaults(**named)";
        const auto at = text.find(from);
        QVERIFY(at != std::string::npos);
        text.replace(at, from.size(), "print(named)");
        QVERIFY(!writeFileAtomically(root / "args.py", text));
        auto a = testing::analyse(root.string());
        QVERIFY(a);
        // Then no key is seen read: one note for the file of named configurations, not one per
        // key (it was 20 and more).
        QStringList notes;
        for (const auto& f : guides::runGuide(*testing::guideOfCheck(id), *a).allFindings())
            if (f.checkId == id)
                notes << QString::fromStdString(f.message);
        QCOMPARE(notes.size(), 1);
        QVERIFY2(notes.first().contains(QStringLiteral("named configurations")),
                 qPrintable(notes.first()));
    }

    // A file of named configurations (each top-level key a whole configuration of the same
    // shape) that the code loads by a name chosen at run time and merges into its own config
    // object: none of its keys is seen read, so one note says why instead of one per key (issue
    // 26: 232 notes). A file of sections (model:, optimizer:) keeps its notes per key.
    void namedConfigurationsCollapse_data()
    {
        QTest::addColumn<QByteArray>("yaml");
        QTest::addColumn<int>("notes");
        QTest::addColumn<QString>("says");
        QTest::addRow("three named configurations")
            << QByteArray("SMALL:\n  DATA: {BATCH: 4, WORKERS: 2}\n  MODEL: {DEPTH: 2}\n"
                          "MEDIUM:\n  DATA: {BATCH: 8}\n  MODEL: {DEPTH: 4}\n"
                          "LARGE:\n  DATA: {BATCH: 16}\n  MODEL: {DEPTH: 8, WIDTH: 3}\n")
            << 1 << "holds 3 named configurations (SMALL, MEDIUM, LARGE)";
        QTest::addRow("a variant merged from another")
            << QByteArray("BASE: &base\n  DATA: {BATCH: 4}\n  MODEL: {DEPTH: 2}\n"
                          "POD: \n  <<: *base\n  IPU: {REPLICAS: 4}\n")
            << 1 << "holds 2 named configurations (BASE, POD)";
        QTest::addRow("sections, not configurations")
            << QByteArray("model:\n  depth: 2\n  width: 3\noptimizer:\n  lr: 0.1\n") << 3
            << "'model.depth' in";
    }
    void namedConfigurationsCollapse()
    {
        QFETCH(QByteArray, yaml);
        QFETCH(int, notes);
        QFETCH(QString, says);
        QTemporaryDir tmp;
        const fs::path root = fs::path(tmp.path().toStdString()) / "named";
        fs::create_directories(root / "configs");
        QVERIFY(!writeFileAtomically(root / "configs" / "configs.yaml", yaml.toStdString()));
        QVERIFY(!writeFileAtomically(root / "train.py", R"(import argparse
import poptorch
import torch
import yaml


class Config(dict):
    pass


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--cfg", default="SMALL")
    args = parser.parse_args()
    with open("configs/configs.yaml") as f:
        chosen = yaml.safe_load(f)[args.cfg]
    config = Config(chosen)
    model = torch.nn.Linear(4, 2)
    opts = poptorch.Options()
    training = poptorch.trainingModel(model, opts, torch.optim.SGD(model.parameters(), lr=0.1))
    print(config, training)


if __name__ == "__main__":
    main()
)"));
        auto a = testing::analyse(root.string());
        QVERIFY(a);
        const std::string id = "graphcore-poptorch.keys-unused";
        QStringList messages;
        for (const auto& f : guides::runGuide(*testing::guideOfCheck(id), *a).allFindings())
            if (f.checkId == id)
                messages << QString::fromStdString(f.message);
        QVERIFY2(messages.size() == notes, qPrintable(messages.join(QLatin1Char('\n'))));
        QVERIFY2(messages.first().contains(says), qPrintable(messages.first()));
    }

    // The same application with the loss taken out of the module trainingModel receives: the
    // forward-loss check fires there, and only there.
    void forwardLossOnTheTrainedModule()
    {
        QTemporaryDir tmp;
        const fs::path root = fs::path(tmp.path().toStdString()) / "pop-app";
        testing::copyTree(testing::projectPath("fixture:pop-app"), root);
        std::string text = *readFile(root / "model.py").value;
        const std::string from = "        return logits, self.criterion(logits, labels)";
        const auto at = text.find(from);
        QVERIFY(at != std::string::npos);
        text.replace(at, from.size(), "        return logits");
        QVERIFY(!writeFileAtomically(root / "model.py", text));
        auto a = testing::analyse(root.string());
        QVERIFY(a);
        const guides::Guide* g = testing::sourceGuides().find("graphcore-poptorch");
        QStringList errors;
        for (const auto& f : guides::runGuide(*g, *a).allFindings())
            if (f.severity == Severity::Error)
                errors << QString::fromStdString(f.toString());
        QCOMPARE(errors.size(), 1);
        QVERIFY2(errors.front().startsWith("model.py:23:") &&
                     errors.front().endsWith("[graphcore-poptorch.forward-loss]"),
                 qPrintable(errors.front()));
    }
};

QTEST_GUILESS_MAIN(TestGuides)
#include "test_guides.moc"
