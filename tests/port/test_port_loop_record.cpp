// A step function called once per iteration, by a loop that also keeps its own record of the
// training: a running total of the returned loss, a list of averages for a plot, a print of a
// guess every N iterations. None of it reaches the training, so the port leaves it out and is
// full, on every target, and trains as the original does. What the loop does around the call
// that the training does read (a rate the step uses, a mode switch in a helper, a seed, a
// forward pass of the model, the model handed to a function of another module) stays a manual
// item naming the statement. Fixtures written for the pattern.
#include "port_fixture.h"

#include <QTemporaryDir>
#include <QTest>

using namespace portfixture;

namespace {

// `around` runs after `spent = fit_one(...)` in each of 30 iterations; `before` is module code
// ahead of the loop.
std::string recordScript(const std::string& before, const std::string& around)
{
    return R"(import random
import torch
import torch.nn as nn

torch.manual_seed(0)
random.seed(0)
rows = [(torch.randn(2, 5), torch.randint(0, 3, (2,))) for _ in range(16)]
judge = nn.Sequential(nn.Linear(5, 7), nn.ReLU(), nn.Linear(7, 3))
penalty = nn.CrossEntropyLoss()
trainer = torch.optim.Adam(judge.parameters(), lr=0.01)
weight = 1.0


def fit_one(inputs, labels):
    trainer.zero_grad()
    scores = judge(inputs)
    miss = penalty(scores, labels) * weight
    miss.backward()
    trainer.step()
    return scores, miss.item()


def shown(scores):
    top = scores.argmax(dim=1)
    return ' '.join(str(int(t)) for t in top)


)" + before +
           R"(
running = 0.0
curve = []
for round_no in range(30):
    inputs, labels = rows[round_no % len(rows)]
    scores, spent = fit_one(inputs, labels)
)" + around;
}

Result<port::PortResult> portOf(const QTemporaryDir& dir, const std::string& script,
                                const std::string& target, fs::path& root)
{
    root = fs::path(dir.path().toStdString()) / "original";
    writeOriginal(root, script, "loop.py");
    return generateFrom(root, target, "");
}

} // namespace

class TestPortLoopRecord : public QObject
{
    Q_OBJECT

private slots:
    void recordLeftOut_data();
    void recordLeftOut();
    void trainingAroundTheCallIsManual_data();
    void trainingAroundTheCallIsManual();
    void defaultTheCallLeaves_data();
    void defaultTheCallLeaves();
};

void TestPortLoopRecord::recordLeftOut_data()
{
    QTest::addColumn<QString>("target");
    QTest::addColumn<QString>("around");
    QTest::addColumn<bool>("verify");
    struct Form
    {
        const char* name;
        const char* around;
        bool verify;
    };
    const Form forms[] = {
        {"running total", "    running += spent\n", true},
        {"averages for a plot, reset every 5",
         "    running += spent\n"
         "    if round_no % 5 == 4:\n"
         "        curve.append(running / 5)\n"
         "        running = 0.0\n",
         true},
        {"a guess shown through a helper",
         "    if round_no % 10 == 0:\n"
         "        guess = shown(scores)\n"
         "        print('%d %.4f %s' % (round_no, spent, guess))\n",
         false},
        {"best so far", "    best = min(spent, running) if round_no else spent\n", false},
    };
    for (const auto& f : forms)
        for (const char* target :
             {"determined-pytorchtrial", "graphcore-poptorch", "cerebras-pytorch"})
            QTest::addRow("%s, %s", target, f.name) << target << f.around << f.verify;
}

// The record is a leftover: the port is full, its step is fit_one's, and it trains as the
// original does.
void TestPortLoopRecord::recordLeftOut()
{
    QFETCH(QString, target);
    QFETCH(QString, around);
    QFETCH(bool, verify);
    QTemporaryDir dir;
    fs::path root;
    auto r = portOf(dir, recordScript("", around.toStdString()), target.toStdString(), root);
    QVERIFY2(r, r ? "" : r.error.message.c_str());
    QVERIFY2(r.value->full(), manualText(*r.value).c_str());
    auto a = analysis::analyzeProject(root);
    QVERIFY(a);
    auto plan = port::planPort(*a.value);
    QVERIFY2(plan, plan.error.message.c_str());
    bool listed = false;
    for (const auto& l : plan.value->leftovers)
        listed = listed || (l.kind == "logging" && has(l.at.text, "spent"));
    QVERIFY2(listed, "the record is not a leftover");
    PORT_VERIFY_ABSENT(allText(*r.value), (QStringList{"curve.append", "running +="}));
    if (!verify)
        return;
    PORT_SKIP_WITHOUT_TORCH();
    PORT_VERIFY_PROOF(writeAndVerify(root, *r.value));
}

void TestPortLoopRecord::trainingAroundTheCallIsManual_data()
{
    QTest::addColumn<QString>("before");
    QTest::addColumn<QString>("around");
    QTest::addColumn<QString>("named"); // the statement the manual item names
    QTest::addRow("a weight the step reads") << ""
                                             << "    weight *= 0.99\n"
                                             << "weight *= 0.99";
    QTest::addRow("a helper that switches the mode")
        << "def probe():\n    judge.eval()\n    return 0\n"
        << "    if round_no % 10 == 0:\n        print(probe())\n"
        << "if round_no % 10 == 0";
    QTest::addRow("a seed") << ""
                            << "    torch.manual_seed(round_no)\n"
                            << "torch.manual_seed(round_no)";
    QTest::addRow("a random draw in a log") << ""
                                            << "    print(spent, random.random())\n"
                                            << "print(spent, random.random())";
    QTest::addRow("the model run for a log") << ""
                                             << "    print(judge(inputs).sum())\n"
                                             << "print(judge(inputs).sum())";
    QTest::addRow("the model handed to another module's function") << "from probes import report\n"
                                                                   << "    report(judge, spent)\n"
                                                                   << "report(judge, spent)";
    QTest::addRow("the optimizer's state changed")
        << ""
        << "    trainer.param_groups[0]['weight_decay'] = 0.1\n"
        << "trainer.param_groups[0]";
    QTest::addRow("a global the helper rebinds")
        << "def slow_down():\n    global weight\n    weight = weight / 2\n"
        << "    if round_no == 20:\n        slow_down()\n"
        << "if round_no == 20";
}

// Each of these changes what later steps compute: never left out, named instead.
void TestPortLoopRecord::trainingAroundTheCallIsManual()
{
    QFETCH(QString, before);
    QFETCH(QString, around);
    QFETCH(QString, named);
    QTemporaryDir dir;
    fs::path root;
    auto r = portOf(dir, recordScript(before.toStdString(), around.toStdString()),
                    "determined-pytorchtrial", root);
    QVERIFY2(r, r ? "" : r.error.message.c_str());
    QVERIFY(!r.value->full());
    const std::string manual = manualText(*r.value);
    QVERIFY2(has(manual, "what the loop does around the call (`" + named.toStdString()),
             manual.c_str());
}

void TestPortLoopRecord::defaultTheCallLeaves_data()
{
    QTest::addColumn<QString>("target");
    QTest::addColumn<QString>("factor"); // the default of fit_one's last parameter
    for (const char* target :
         {"determined-pytorchtrial", "graphcore-poptorch", "cerebras-pytorch"}) {
        QTest::addRow("%s, a module constant", target) << target << "weight";
        QTest::addRow("%s, a number", target) << target << "1.0";
    }
}

// The step function's parameter the call leaves at its default (`fit_one(inputs, labels)` for
// `def fit_one(inputs, labels, factor=weight)`): the port's step reads the default, and trains
// as the original does.
void TestPortLoopRecord::defaultTheCallLeaves()
{
    QFETCH(QString, target);
    QFETCH(QString, factor);
    std::string script = recordScript("", "    running += spent\n");
    const std::string def = "def fit_one(inputs, labels):";
    script.replace(script.find(def), def.size(),
                   "def fit_one(inputs, labels, factor=" + factor.toStdString() + "):");
    const std::string use = "penalty(scores, labels) * weight";
    script.replace(script.find(use), use.size(), "penalty(scores, labels) * factor");
    QTemporaryDir dir;
    fs::path root;
    auto r = portOf(dir, script, target.toStdString(), root);
    QVERIFY2(r, r ? "" : r.error.message.c_str());
    QVERIFY2(r.value->full(), manualText(*r.value).c_str());
    PORT_SKIP_WITHOUT_TORCH();
    PORT_VERIFY_PROOF(writeAndVerify(root, *r.value));
}

QTEST_GUILESS_MAIN(TestPortLoopRecord)
#include "test_port_loop_record.moc"
