// A step function whose inputs the loop body draws for each call, one random sample per step
// (`learn(*pick())`, `duo = pick(); learn(*duo)`, `xs, ys = pick(); learn(xs, ys)`): the port
// draws them at the start of its step, in the order the original drew them, and binds the step
// function's parameters from them, on every target. A spread the port cannot count stays a
// manual item naming the call. Fixtures written for the pattern.
#include "port_fixture.h"

#include <QTemporaryDir>
#include <QTest>

using namespace portfixture;

namespace {

// The script, the step function `learn` taking `params` and the loop body `loop` that draws and
// calls it. Adam and a random pick per step make a batch drawn in another order, or twice,
// visible in the losses.
std::string drawnScript(const std::string& params, const std::string& loop)
{
    return R"(import random
import torch
import torch.nn as nn

torch.manual_seed(0)
random.seed(0)
bank = [(torch.randn(1, 6), torch.tensor([random.randint(0, 3)])) for _ in range(24)]
scorer = nn.Sequential(nn.Linear(6, 8), nn.Tanh(), nn.Linear(8, 4))
measure = nn.CrossEntropyLoss()
mover = torch.optim.Adam(scorer.parameters(), lr=0.02)


def pick():
    return bank[random.randrange(len(bank))]


def learn()" +
           params +
           R"():
    mover.zero_grad()
    miss = measure(scorer(feature), answer)
    miss.backward()
    mover.step()
    return miss.item()


for turn in range(40):
)" + loop;
}

// The port of the script written to `dir` as an original.
Result<port::PortResult> portOf(const QTemporaryDir& dir, const std::string& script,
                                const std::string& target, fs::path& root)
{
    root = fs::path(dir.path().toStdString()) / "original";
    writeOriginal(root, script, "fit.py");
    return generateFrom(root, target, "");
}

} // namespace

class TestPortDrawnInputs : public QObject
{
    Q_OBJECT

private slots:
    void drawnInputsStartTheStep_data();
    void drawnInputsStartTheStep();
    void uncountedSpreadIsManual_data();
    void uncountedSpreadIsManual();
};

void TestPortDrawnInputs::drawnInputsStartTheStep_data()
{
    QTest::addColumn<QString>("target");
    QTest::addColumn<QString>("loop");
    QTest::addColumn<QString>("drawn");
    struct Form
    {
        const char* name;
        const char* loop;
        const char* drawn; // what the port's step starts with
    };
    const Form forms[] = {
        {"starred call", "    learn(*pick())\n", "feature, answer = pick()"},
        {"starred call, result kept", "    spent = learn(*pick())\n", "feature, answer = pick()"},
        {"bound tuple", "    duo = pick()\n    learn(*duo)\n", "duo = pick()"},
        {"unpacked", "    xs, ys = pick()\n    learn(xs, ys)\n", "xs, ys = pick()"},
    };
    for (const auto& f : forms)
        for (const char* target :
             {"determined-pytorchtrial", "graphcore-poptorch", "cerebras-pytorch"})
            QTest::addRow("%s, %s", target, f.name) << target << f.loop << f.drawn;
}

// The port is full, draws the step's inputs where its step starts, and trains as the original
// does (both dry runs, the batches drawn after the same seed).
void TestPortDrawnInputs::drawnInputsStartTheStep()
{
    QFETCH(QString, target);
    QFETCH(QString, loop);
    QFETCH(QString, drawn);
    QTemporaryDir dir;
    fs::path root;
    auto r =
        portOf(dir, drawnScript("feature, answer", loop.toStdString()), target.toStdString(), root);
    QVERIFY2(r, r ? "" : r.error.message.c_str());
    QVERIFY2(r.value->full(), manualText(*r.value).c_str());
    PORT_VERIFY_CONTAINS(allText(*r.value), QStringList{drawn});
    PORT_SKIP_WITHOUT_TORCH();
    PORT_VERIFY_PROOF(writeAndVerify(root, *r.value));
}

void TestPortDrawnInputs::uncountedSpreadIsManual_data()
{
    QTest::addColumn<QString>("learn");
    QTest::addColumn<QString>("loop");
    QTest::addRow("a parameter with a default") << "feature, answer, weight=1.0"
                                                << "    learn(*pick())\n";
    QTest::addRow("a spread and more") << "feature, answer, weight"
                                       << "    learn(*pick(), 1.0)\n";
}

// How many parameters the drawn value fills is not known: the port names the call, never binds
// a guess.
void TestPortDrawnInputs::uncountedSpreadIsManual()
{
    QFETCH(QString, learn);
    QFETCH(QString, loop);
    QTemporaryDir dir;
    fs::path root;
    auto r = portOf(dir, drawnScript(learn.toStdString(), loop.toStdString()),
                    "determined-pytorchtrial", root);
    QVERIFY2(r, r ? "" : r.error.message.c_str());
    QVERIFY(!r.value->full());
    const std::string manual = manualText(*r.value);
    QVERIFY2(manual.find("are spread from `(*pick()") != std::string::npos, manual.c_str());
}

QTEST_GUILESS_MAIN(TestPortDrawnInputs)
#include "test_port_drawn_inputs.moc"
