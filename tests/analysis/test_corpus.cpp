// The checks on real projects written by other people (../shared/corpus/projects), against the
// reviewed expectations in fixtures/corpus_expectations.yaml:
//   - published ports: no error or warning that is not listed (with the code line it is about),
//     and every listed one still fires;
//   - the flavour of all 41 projects, with evidence, and the Cerebras API generation;
//   - originals: the porting work each suggested guide must report;
//   - planted bugs: a copy of a port with one bug planted by a text edit; the bug is reported at
//     its line and nothing else in the report changes.
// Skipped with a message when PORTOLAN_CORPUS is not set; CI sets it.
#include "core/analysis/analysis.h"
#include "core/analysis/flavour.h"
#include "core/common/atomic_file.h"
#include "tests/analysis/test_support.h"

#include <QTemporaryDir>
#include <QTest>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <yaml-cpp/yaml.h>

using namespace portolan;
namespace fs = std::filesystem;

namespace {

std::string corpusRoot()
{
    return qEnvironmentVariable("PORTOLAN_CORPUS").toStdString();
}

const YAML::Node& expectations()
{
    static const YAML::Node n =
        YAML::LoadFile(std::string(PORTOLAN_ANALYSIS_FIXTURES) + "/corpus_expectations.yaml");
    return n;
}

const analysis::ProjectAnalysis& analysed(const std::string& project)
{
    static std::map<std::string, analysis::ProjectAnalysis> cache;
    auto it = cache.find(project);
    if (it == cache.end()) {
        auto a = testing::analyse(corpusRoot() + "/projects/" + project);
        if (!a)
            qFatal("cannot analyse %s", project.c_str());
        it = cache.emplace(project, std::move(*a)).first;
    }
    return it->second;
}

std::string at(const guides::Finding& f)
{
    return f.location.file + ":" + std::to_string(f.location.line);
}

std::string trimmed(std::string s)
{
    const auto b = s.find_first_not_of(" \t");
    const auto e = s.find_last_not_of(" \t\r");
    return b == std::string::npos ? std::string() : s.substr(b, e - b + 1);
}

// The line `file:line` of a corpus project, trimmed.
std::string sourceLine(const std::string& project, const std::string& where)
{
    const auto colon = where.rfind(':');
    const std::string file = where.substr(0, colon);
    const int line = std::stoi(where.substr(colon + 1));
    std::ifstream in(corpusRoot() + "/projects/" + project + "/" + file);
    std::string text;
    for (int i = 1; std::getline(in, text); ++i)
        if (i == line)
            return trimmed(text);
    return {};
}

std::vector<guides::Finding> run(const analysis::ProjectAnalysis& a, const std::string& guideId)
{
    const guides::Guide* g = testing::sourceGuides().find(guideId);
    if (!g)
        qFatal("no guide %s", guideId.c_str());
    return guides::runGuide(*g, a).allFindings();
}

void fileRows(const char* kindFilter)
{
    QTest::addColumn<QString>("project");
    for (const auto& kv : expectations()["projects"]) {
        const std::string kind = kv.second["kind"].as<std::string>();
        const bool original = kind == "original";
        if ((std::string(kindFilter) == "original") == original || std::string(kindFilter) == "all")
            QTest::addRow("%s", kv.first.Scalar().c_str())
                << QString::fromStdString(kv.first.Scalar());
    }
}

} // namespace

class TestCorpus : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase()
    {
        if (corpusRoot().empty())
            QSKIP("PORTOLAN_CORPUS is not set; the corpus of real projects is in ../shared/corpus");
    }

    void everyProjectIsListed()
    {
        std::ifstream manifest(corpusRoot() + "/projects/MANIFEST.tsv");
        std::string line;
        std::getline(manifest, line); // header
        int count = 0;
        while (std::getline(manifest, line)) {
            const std::string project = line.substr(0, line.find('\t'));
            QVERIFY2(expectations()["projects"][project], project.c_str());
            ++count;
        }
        // The corpus grows; a new project fails here until it is reviewed into the expectations.
        QCOMPARE(count, 41);
    }

    void flavour_data() { fileRows("all"); }
    void flavour()
    {
        QFETCH(QString, project);
        const auto& e = expectations()["projects"][project.toStdString()];
        const auto& a = analysed(project.toStdString());
        QCOMPARE(QString::fromStdString(std::string(analysis::flavourId(a.flavour.flavour))),
                 QString::fromStdString(e["flavour"].as<std::string>()));
        QVERIFY(!a.flavour.beingPorted);
        QVERIFY2(!a.flavour.evidence.empty(), "a flavour without evidence");
        const std::string generation =
            e["api_generation"] ? e["api_generation"].as<std::string>() : std::string();
        QCOMPARE(
            QString::fromStdString(std::string(analysis::apiGenerationId(a.flavour.apiGeneration))),
            QString::fromStdString(generation));
        if (!generation.empty() && e["kind"].as<std::string>() != "original")
            QVERIFY2(!a.flavour.generationEvidence.empty(), "a generation without evidence");
    }

    // Every error and warning on a published port is a listed, reviewed real problem.
    void publishedPorts_data() { fileRows("ports"); }
    void publishedPorts()
    {
        QFETCH(QString, project);
        const std::string name = project.toStdString();
        const auto& e = expectations()["projects"][name];
        const auto& a = analysed(name);
        std::set<std::pair<std::string, std::string>> allowed, seen;
        for (const auto& entry : e["allowed"]) {
            const std::string where = entry["at"].as<std::string>();
            allowed.insert({entry["check"].as<std::string>(), where});
            // The quoted line must be the code at that place, so that the list cannot go stale.
            QCOMPARE(QString::fromStdString(sourceLine(name, where)),
                     QString::fromStdString(entry["code"].as<std::string>()));
            QVERIFY2(!entry["reason"].as<std::string>().empty(), where.c_str());
        }
        int errors = 0, warnings = 0, notes = 0;
        QStringList unexplained;
        for (const auto& guide : e["guides"]) {
            for (const auto& f : run(a, guide.as<std::string>())) {
                if (f.severity == Severity::Info) {
                    ++notes;
                    continue;
                }
                ++(f.severity == Severity::Error ? errors : warnings);
                const std::pair<std::string, std::string> key{f.checkId, at(f)};
                if (!allowed.count(key))
                    unexplained << QString::fromStdString(f.toString());
                seen.insert(key);
            }
        }
        qInfo("%s: %d errors, %d warnings, %d notes", name.c_str(), errors, warnings, notes);
        QVERIFY2(unexplained.isEmpty(), qPrintable(unexplained.join("\n")));
        for (const auto& key : allowed)
            QVERIFY2(
                seen.count(key),
                ("allowed but no longer reported: " + key.first + " at " + key.second).c_str());
    }

    // The porting work on the unported originals.
    void originals_data() { fileRows("original"); }
    void originals()
    {
        QFETCH(QString, project);
        const std::string name = project.toStdString();
        const auto& e = expectations()["projects"][name];
        const auto& a = analysed(name);
        const std::string guide = e["guides"][0].as<std::string>();
        QCOMPARE(QString::fromStdString(a.flavour.suggestedGuide), QString::fromStdString(guide));
        std::multiset<std::pair<std::string, std::string>> got;
        int errors = 0, warnings = 0, notes = 0;
        const bool pending = e["pending"] && e["pending"].as<bool>();
        QVERIFY2(!(pending && e["reviewed"].as<bool>()), "a pending project is not reviewed");
        for (const auto& f : run(a, guide)) {
            if (f.severity == Severity::Info) {
                ++notes;
                continue;
            }
            ++(f.severity == Severity::Error ? errors : warnings);
            got.insert({f.checkId, at(f)});
            if (pending)
                qInfo("  pending review: %s", f.toString().c_str());
        }
        qInfo("%s (%s): %d errors, %d warnings, %d notes", name.c_str(), guide.c_str(), errors,
              warnings, notes);
        std::multiset<std::pair<std::string, std::string>> expected;
        for (const auto& entry : e["expected"])
            expected.insert({entry["check"].as<std::string>(), entry["at"].as<std::string>()});
        for (const auto& key : expected)
            QVERIFY2(
                got.count(key),
                ("expected porting work not reported: " + key.first + " at " + key.second).c_str());
        // A reviewed list is complete: nothing else may be reported.
        if (e["reviewed"].as<bool>())
            for (const auto& key : got)
                QVERIFY2(expected.count(key),
                         ("not in the reviewed list: " + key.first + " at " + key.second).c_str());
    }

    // One bug planted in a copy of a published port: caught at its line, and nothing else in the
    // report changes.
    void plantedBugs_data()
    {
        QTest::addColumn<QString>("project");
        QTest::addColumn<QString>("guide");
        QTest::addColumn<QString>("file");
        QTest::addColumn<QString>("before");
        QTest::addColumn<QString>("after");
        QTest::addColumn<QString>("check");
        QTest::addColumn<int>("line");
        QTest::addRow("vendor call with a wrong arity (Determined get_hparam)")
            << "determined-mnist"
            << "determined-pytorchtrial"
            << "model_def.py"
            << "nn.Conv2d(1, self.context.get_hparam(\"n_filters1\"), 3, 1)"
            << "nn.Conv2d(1, self.context.get_hparam(\"n_filters1\", 32), 3, 1)"
            << "determined-pytorchtrial.vendor-signature" << 35;
        QTest::addRow("vendor call with a wrong keyword (CerebrasEstimator)")
            << "cerebras-tf-t5"
            << "cerebras-tensorflow"
            << "run.py"
            << "        params=params,"
            << "        param=params,"
            << "cerebras-tensorflow.vendor-signature" << 198;
        QTest::addRow("DataLoader replaced by a plain list (Determined)")
            << "determined-cifar10"
            << "determined-pytorchtrial"
            << "model_def.py"
            << "        return DataLoader(trainset, "
               "batch_size=self.context.get_per_slot_batch_size())"
            << "        return [trainset]"
            << "determined-pytorchtrial.loader-returns" << 106;
        QTest::addRow("config key read but missing (Model Zoo T5)")
            << "cerebras-pt-t5"
            << "cerebras-pytorch"
            << "model.py"
            << "\"src_vocab_size\": model_params.pop(\"src_vocab_size\"),"
            << "\"src_vocab_size\": model_params.pop(\"src_vocab_sise\"),"
            << "cerebras-pytorch.keys-exist" << 58;
        QTest::addRow("name used but defined nowhere (PopTorch tutorial)")
            << "graphcore-mixed-precision"
            << "graphcore-poptorch"
            << "walkthrough_code_only.py"
            << "            return x, self.loss(x, labels)"
            << "            return x, self.loss(x, target)"
            << "graphcore-poptorch.undefined-name" << 35;
        QTest::addRow("data function that cannot take params (Model Zoo GPT-2)")
            << "cerebras-pt-gpt2"
            << "cerebras-layers"
            << "data.py"
            << "def eval_input_dataloader(params):"
            << "def eval_input_dataloader(params, mode):"
            << "cerebras-layers.dataloaders" << 31;
        // The newer Cerebras generations (a fixture written for the cstorch flow where the
        // corpus has no project that drives cstorch itself).
        QTest::addRow("loss not returned from the model (Trainer, Model Zoo fc_mnist)")
            << "cerebras-trainer-fc-mnist"
            << "cerebras-trainer"
            << "model.py"
            << "        return loss"
            << "        return pred_logits"
            << "cerebras-trainer.model-returns-loss" << 133;
        QTest::addRow("Trainer YAML key the model config lacks (Model Zoo fc_mnist)")
            << "cerebras-trainer-fc-mnist"
            << "cerebras-trainer"
            << "configs/params_cszoov2.yaml"
            << "      hidden_size: 50"
            << "      hiden_size: 50"
            << "cerebras-trainer.model-keys" << 8;
        QTest::addRow("cstorch.compile given the optimizer (cstorch fixture)")
            << "fixture:cstorch-mlp"
            << "cerebras-cstorch"
            << "run.py"
            << "    compiled_model = cstorch.compile(model, backend)\n    compiled_model.train()"
            << "    compiled_model = cstorch.compile(model, optimizer, backend)\n"
               "    compiled_model.train()"
            << "cerebras-cstorch.vendor-signature" << 30;
    }
    void plantedBugs()
    {
        QFETCH(QString, project);
        QFETCH(QString, guide);
        QFETCH(QString, file);
        QFETCH(QString, before);
        QFETCH(QString, after);
        QFETCH(QString, check);
        QFETCH(int, line);
        QTemporaryDir tmp;
        QVERIFY(tmp.isValid());
        // "fixture:NAME" is a project of tests/fixtures/projects, written for a pattern the
        // corpus lacks.
        const bool fixture = project.startsWith("fixture:");
        const std::string name = fixture ? project.mid(8).toStdString() : project.toStdString();
        const fs::path root = fs::path(tmp.path().toStdString()) / name;
        fs::copy(fixture
                     ? std::string(PORTOLAN_ANALYSIS_FIXTURES) + "/../../fixtures/projects/" + name
                     : corpusRoot() + "/projects/" + name,
                 root, fs::copy_options::recursive);
        auto findings = [&](const fs::path& dir) {
            auto a = testing::analyse(dir.string());
            std::multiset<std::string> out;
            if (!a)
                return out;
            for (const auto& f : run(*a, guide.toStdString()))
                out.insert(f.toString());
            return out;
        };
        const auto clean = findings(root);

        const fs::path path = root / file.toStdString();
        std::string text = *readFile(path).value;
        const auto pos = text.find(before.toStdString());
        QVERIFY2(pos != std::string::npos, "the line to plant the bug in is not there");
        QVERIFY(text.find(before.toStdString(), pos + 1) == std::string::npos);
        text.replace(pos, before.size(), after.toStdString());
        QVERIFY(!writeFileAtomically(path, text));

        const auto planted = findings(root);
        std::vector<std::string> added, removed;
        for (const auto& f : planted)
            if (planted.count(f) > clean.count(f) && (added.empty() || added.back() != f))
                added.push_back(f);
        for (const auto& f : clean)
            if (clean.count(f) > planted.count(f) && (removed.empty() || removed.back() != f))
                removed.push_back(f);
        const std::string gone = removed.empty() ? std::string() : removed.front();
        QVERIFY2(removed.empty(), ("a finding went away: " + gone).c_str());
        std::string all;
        for (const auto& a : added)
            all += "\n" + a;
        QVERIFY2(added.size() == 1,
                 (std::to_string(added.size()) + " new findings:" + all).c_str());
        const std::string want = file.toStdString() + ":" + std::to_string(line) + ":";
        QVERIFY2(added.front().starts_with(want), added.front().c_str());
        QVERIFY2(added.front().find(": error: ") != std::string::npos, added.front().c_str());
        QVERIFY2(added.front().ends_with("[" + check.toStdString() + "]"), added.front().c_str());
    }
};

QTEST_GUILESS_MAIN(TestCorpus)
#include "test_corpus.moc"
