// Learning-rate schedules, flags and batch shapes (issue 24): each row is a fixture written for
// the pattern, ported to one target, compiled and verified by both dry runs (the losses of the
// first steps agree with the original's).
#include "core/analysis/analysis.h"
#include "core/port/generate.h"
#include "tests/porting_gui/port_test_support.h"

#include <QObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>
#include <filesystem>
#include <fstream>
#include <map>

using namespace portolan;
namespace fs = std::filesystem;
using porttest::pythonHasTorch;

namespace {

// A flag assigned in a branch on another flag that the port keeps as written: Determined reads
// flags through context.get_hparam, which cannot be assigned to.
const char* const AssignedFlagScript = R"(import argparse

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

parser = argparse.ArgumentParser()
parser.add_argument("--batch", type=int, default=8)
parser.add_argument("--lr", type=float, default=0.05)
parser.add_argument("--width", type=int, default=6)
parser.add_argument("--wide", action="store_true")
parser.add_argument("--epochs", type=int, default=1)


def main():
    args = parser.parse_args()
    if args.wide:
        args.width *= 2
        gain = 0.5
    else:
        gain = 1.0
    torch.manual_seed(0)
    x = torch.randn(48, 3)
    y = torch.randn(48, 1)
    loader = DataLoader(TensorDataset(x, y), batch_size=args.batch)
    net = nn.Sequential(nn.Linear(3, args.width), nn.Tanh(), nn.Linear(args.width, 1))
    opt = torch.optim.SGD(net.parameters(), lr=args.lr)
    mse = nn.MSELoss()
    for epoch in range(args.epochs):
        for inputs, labels in loader:
            opt.zero_grad()
            loss = mse(net(inputs), labels) * gain
            loss.backward()
            opt.step()


if __name__ == "__main__":
    main()
)";

// Sequence-first batches cut from one long stream (the batch is the second dimension) with a
// flattened target: the first dimensions of the step's inputs differ.
const char* const SequenceFirstScript = R"(import argparse

import torch
import torch.nn as nn

parser = argparse.ArgumentParser()
parser.add_argument("--columns", type=int, default=4)
parser.add_argument("--span", type=int, default=5)
parser.add_argument("--lr", type=float, default=0.5)
parser.add_argument("--epochs", type=int, default=1)
args = parser.parse_args()

torch.manual_seed(0)
stream = torch.randint(0, 20, (400,))


def as_columns(data, n):
    rows = data.size(0) // n
    return data.narrow(0, 0, rows * n).view(n, -1).t().contiguous()


source = as_columns(stream, args.columns)


class Tagger(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(20, 8)
        self.out = nn.Linear(8, 20)

    def forward(self, x):
        return self.out(self.emb(x)).view(-1, 20)


tagger = Tagger()
criterion = nn.CrossEntropyLoss()
opt = torch.optim.SGD(tagger.parameters(), lr=args.lr)


def window(src, i):
    n = min(args.span, len(src) - 1 - i)
    return src[i:i + n], src[i + 1:i + 1 + n].reshape(-1)


for epoch in range(args.epochs):
    for i in range(0, source.size(0) - 1, args.span):
        tokens, targets = window(source, i)
        opt.zero_grad()
        loss = criterion(tagger(tokens), targets)
        loss.backward()
        opt.step()
)";

const std::map<QString, const char*>& fixtures()
{
    static const std::map<QString, const char*> all{
        {"assigned-flag", AssignedFlagScript},
        {"sequence-first", SequenceFirstScript},
    };
    return all;
}

void writeOriginal(const fs::path& root, const std::string& text)
{
    fs::create_directories(root);
    std::ofstream(root / "main.py") << text;
}

// py_compile of every generated Python file: "" when all compile, else the compiler's words.
QString compileErrors(const QString& python, const fs::path& port)
{
    QString errors;
    for (const auto& e : fs::recursive_directory_iterator(port)) {
        if (e.path().extension() != ".py")
            continue;
        QProcess p;
        p.start(python, {"-m", "py_compile", QString::fromStdString(e.path().string())});
        p.waitForFinished(60000);
        if (p.exitCode() != 0)
            errors += QString::fromUtf8(p.readAllStandardError());
    }
    return errors;
}

} // namespace

class TestPortSchedules : public QObject
{
    Q_OBJECT

private slots:
    void portsAndVerifies_data();
    void portsAndVerifies();
};

void TestPortSchedules::portsAndVerifies_data()
{
    QTest::addColumn<QString>("fixture");
    QTest::addColumn<QString>("target");
    QTest::addColumn<QStringList>("commandLine");
    QTest::addColumn<QStringList>("present"); // in the generated files
    QTest::addColumn<QStringList>("absent");
    // The flag is held in an attribute the trial assigns; with the branch taken too.
    QTest::addRow("assigned-flag/determined")
        << "assigned-flag"
        << "determined-pytorchtrial" << QStringList{}
        << QStringList{"self.hp_width = self.context.get_hparam(\"width\")", "self.hp_width *= 2",
                       "nn.Linear(3, self.hp_width)"}
        << QStringList{"get_hparam(\"width\") *="};
    QTest::addRow("assigned-flag/determined/taken")
        << "assigned-flag"
        << "determined-pytorchtrial" << QStringList{"--wide"}
        << QStringList{"self.hp_width *= 2", "wide: true"} << QStringList{};
    // PopTorch passes each input of a one-micro-batch call whole, whatever its first dimension.
    QTest::addRow("sequence-first/poptorch")
        << "sequence-first"
        << "graphcore-poptorch" << QStringList{} << QStringList{"poptorch.trainingModel"}
        << QStringList{};
}

void TestPortSchedules::portsAndVerifies()
{
    QFETCH(QString, fixture);
    QFETCH(QString, target);
    QFETCH(QStringList, commandLine);
    QFETCH(QStringList, present);
    QFETCH(QStringList, absent);
    const QString python = QStringLiteral("/usr/bin/python3");
    if (!pythonHasTorch(python))
        QSKIP("/usr/bin/python3 with torch is needed for the dry runs");
    QTemporaryDir dir;
    const fs::path root = fs::path(dir.path().toStdString()) / "original";
    writeOriginal(root, fixtures().at(fixture));
    auto a = analysis::analyzeProject(root);
    QVERIFY(a);
    std::vector<std::string> words;
    for (const auto& w : commandLine)
        words.push_back(w.toStdString());
    port::PortOptions options;
    options.values = port::argumentValues(words);
    auto plan = port::planPort(*a.value, options);
    QVERIFY2(plan, plan ? "" : plan.error.message.c_str());
    auto r = port::generatePort(*plan.value, target.toStdString(), "", options.values);
    QVERIFY(r);
    std::string all;
    for (const auto& g : r.value->files)
        all += g.text + "\n";
    for (const auto& p : present)
        QVERIFY2(all.find(p.toStdString()) != std::string::npos,
                 qPrintable(p + " is not in:\n" + QString::fromStdString(all)));
    for (const auto& p : absent)
        QVERIFY2(all.find(p.toStdString()) == std::string::npos, qPrintable(p));
    std::string items;
    for (const auto& m : r.value->manual)
        items += m.message + "\n";
    QVERIFY2(items.empty(), items.c_str());
    const fs::path out = fs::path(dir.path().toStdString()) / "port";
    QVERIFY(!port::writePort(*r.value, out));
    const QString errors = compileErrors(python, out);
    QVERIFY2(errors.isEmpty(), qPrintable(errors));
    port::VerifyOptions o;
    o.python = python.toStdString();
    o.steps = 3;
    o.originalArgs = words;
    const port::VerifyResult v = port::verifyPort(root, out, *r.value, o);
    QVERIFY2(v.originalError.empty(), v.originalError.c_str());
    QVERIFY2(v.dryRunError.empty(), v.dryRunError.c_str());
    QCOMPARE(v.dryRunSteps, 3);
    QVERIFY(v.agrees);
}

QTEST_GUILESS_MAIN(TestPortSchedules)
#include "test_port_schedules.moc"
