// Script structure across functions, files and processes (issue 24): a factory that builds the
// data, the model and the optimizer together, taken apart for each target (the target that builds
// the optimizer from its config gets none from the factory, and the data code runs only what
// builds the data). Each row is a fixture written for the pattern; the verification rows run
// both dry runs.
#include "core/analysis/analysis.h"
#include "core/port/generate.h"
#include "tests/porting_gui/port_test_support.h"

#include <QObject>
#include <QTemporaryDir>
#include <QTest>
#include <filesystem>
#include <fstream>
#include <map>

using namespace portolan;
namespace fs = std::filesystem;
using porttest::pythonHasTorch;

namespace {

// The factory takes a flag and a constant; the data set reads the constant only.
const char* const Factory = R"(import argparse
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


def build_all(rate, width):
    data = TensorDataset(torch.randn(48, width), torch.randint(0, 3, (48,)))
    net = nn.Sequential(nn.Linear(width, 8), nn.ReLU(), nn.Linear(8, 3))
    opt = torch.optim.SGD(net.parameters(), lr=rate, momentum=0.9)
    return data, net, opt


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--lr", type=float, default=0.05)
    parser.add_argument("--batch", type=int, default=8)
    parser.add_argument("--epochs", type=int, default=1)
    args = parser.parse_args()
    torch.manual_seed(0)
    data, net, opt = build_all(args.lr, 6)
    loader = DataLoader(data, batch_size=args.batch, shuffle=False)
    for epoch in range(args.epochs):
        for x, y in loader:
            opt.zero_grad()
            loss = nn.functional.cross_entropy(net(x), y)
            loss.backward()
            opt.step()


if __name__ == "__main__":
    main()
)";

using Files = std::map<std::string, std::string>;

void writeOriginal(const fs::path& root, const Files& files)
{
    fs::create_directories(root);
    for (const auto& [path, text] : files)
        std::ofstream(root / path) << text;
}

bool has(const std::string& text, const std::string& what)
{
    return text.find(what) != std::string::npos;
}

int count(const std::string& text, const std::string& what)
{
    int n = 0;
    for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1))
        ++n;
    return n;
}

Result<port::PortResult> generate(const fs::path& root, const Files& files,
                                  const std::string& target, const std::string& api)
{
    writeOriginal(root, files);
    auto a = analysis::analyzeProject(root);
    if (!a)
        return Result<port::PortResult>::fail(a.error);
    auto plan = port::planPort(*a.value);
    if (!plan)
        return Result<port::PortResult>::fail(plan.error);
    return port::generatePort(*plan.value, target, api);
}

std::string allText(const port::PortResult& r)
{
    std::string all;
    for (const auto& g : r.files)
        all += "=== " + g.path + "\n" + g.text + "\n";
    return all;
}

std::string manuals(const port::PortResult& r)
{
    std::string out;
    for (const auto& m : r.manual)
        out += m.location.file + ":" + std::to_string(m.location.line) + " " + m.message + "\n";
    return out;
}

// Both dry runs of `files` ported to `target`: the port reaches its steps, its check has no
// error, and it trains as the original does.
void verifyBoth(const Files& files, const std::string& target, const std::string& api)
{
    const QString python = QStringLiteral("/usr/bin/python3");
    if (!pythonHasTorch(python))
        QSKIP("/usr/bin/python3 with torch is needed for the dry runs");
    QTemporaryDir dir;
    const fs::path root = fs::path(dir.path().toStdString()) / "original";
    auto r = generate(root, files, target, api);
    QVERIFY2(r, r ? "" : r.error.message.c_str());
    QVERIFY2(r.value->full(), manuals(*r.value).c_str());
    const fs::path out = fs::path(dir.path().toStdString()) / "port";
    QVERIFY(!port::writePort(*r.value, out));
    port::VerifyOptions o;
    o.python = python.toStdString();
    o.steps = 3;
    const port::VerifyResult v = port::verifyPort(root, out, *r.value, o);
    QVERIFY2(v.originalError.empty(), v.originalError.c_str());
    QVERIFY2(v.dryRunError.empty(), v.dryRunError.c_str());
    std::string findings;
    for (const auto& f : v.checkFindings)
        findings += f.location.toString() + " " + f.message + "\n";
    QVERIFY2(v.checkErrors == 0, findings.c_str());
    QCOMPARE(v.dryRunSteps, 3);
    QCOMPARE(v.stepsCompared, 3);
    QVERIFY2(v.agrees, qPrintable(QStringLiteral("first divergent step %1, max rel loss diff %2")
                                      .arg(v.firstDivergence)
                                      .arg(v.maxRelLossDiff)));
}

} // namespace

class TestPortLaunch : public QObject
{
    Q_OBJECT

private slots:
    void takesFactoryApart_data();
    void takesFactoryApart();
    void verifiesFactory_data();
    void verifiesFactory();
};

void TestPortLaunch::takesFactoryApart_data()
{
    QTest::addColumn<QString>("target");
    QTest::addColumn<QString>("api");
    QTest::addColumn<QStringList>("contains");
    QTest::addColumn<QString>("once"); // run once in the whole port (the model's construction)
    // The runner builds the optimizer from params.yaml: the factory the model's construction
    // runs binds it to None, and its rate is the flag the factory's caller passes.
    QTest::addRow("factory/cerebras-runner")
        << "cerebras-pytorch"
        << "runner"
        << QStringList{"    opt = None  # the runner builds the optimizer", "learning_rate: 0.05",
                       "momentum: 0.9", "the data needs only `data`",
                       "data = TensorDataset(torch.randn(48, 6), torch.randint(0, 3, (48,)))"}
        << "data, net, opt = build_all(";
    QTest::addRow("factory/cerebras-trainer")
        << "cerebras-pytorch"
        << "trainer"
        << QStringList{"    opt = None  # the Trainer builds the optimizer", "lr: 0.05",
                       "momentum: 0.9", "the data needs only `data`"}
        << "data, net, opt = build_all(";
    // Determined wraps the factory's optimizer (it stays); the loaders build the data only.
    QTest::addRow("factory/determined")
        << "determined-pytorchtrial"
        << ""
        << QStringList{"self.context.wrap_optimizer(opt)", "the data needs only `data`",
                       "data = TensorDataset(torch.randn(48, 6), torch.randint(0, 3, (48,)))"}
        << "data, net, opt = build_all(";
}

void TestPortLaunch::takesFactoryApart()
{
    QFETCH(QString, target);
    QFETCH(QString, api);
    QFETCH(QStringList, contains);
    QFETCH(QString, once);
    QTemporaryDir dir;
    const fs::path root = fs::path(dir.path().toStdString()) / "original";
    auto r = generate(root, {{"main.py", Factory}}, target.toStdString(), api.toStdString());
    QVERIFY2(r, r ? "" : r.error.message.c_str());
    QVERIFY2(r.value->full(), manuals(*r.value).c_str());
    const std::string all = allText(*r.value);
    for (const auto& c : contains)
        QVERIFY2(has(all, c.toStdString()), qPrintable(c + "\n---\n" + all.c_str()));
    QVERIFY2(count(all, once.toStdString()) == 1, all.c_str());
}

void TestPortLaunch::verifiesFactory_data()
{
    QTest::addColumn<QString>("target");
    QTest::addColumn<QString>("api");
    QTest::addRow("cerebras-runner") << "cerebras-pytorch"
                                     << "runner";
    QTest::addRow("cerebras-trainer") << "cerebras-pytorch"
                                      << "trainer";
    QTest::addRow("determined") << "determined-pytorchtrial"
                                << "";
}

void TestPortLaunch::verifiesFactory()
{
    QFETCH(QString, target);
    QFETCH(QString, api);
    verifyBoth({{"main.py", Factory}}, target.toStdString(), api.toStdString());
}

QTEST_GUILESS_MAIN(TestPortLaunch)
#include "test_port_launch.moc"
