// Learning-rate schedules, flags and batch shapes (issue 24): each row is a fixture written for
// the pattern, ported to one target, compiled and verified by both dry runs (the losses of the
// first steps agree with the original's).
#include "core/analysis/analysis.h"
#include "core/port/generate.h"
#include "core/port/plan_internal.h"
#include "core/port/port_verified.h"
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

// A rate divided by hand after some epochs and written into the optimizer (@LOOP@ and @COND@
// swapped per row). An epoch is one batch of the dry run's size, so a decay after the first
// epoch shows in the steps the verification compares.
const char* const DecayScript = R"(import argparse

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

parser = argparse.ArgumentParser()
parser.add_argument("--n-epochs", type=int, default=7)
args = parser.parse_args()

step_size = 0.4
torch.manual_seed(1)
pairs = TensorDataset(torch.randn(2, 5), torch.randint(0, 4, (2,)))
batches = DataLoader(pairs, batch_size=2)
clf = nn.Sequential(nn.Linear(5, 7), nn.ReLU(), nn.Linear(7, 4))
nll = nn.CrossEntropyLoss()
sgd = torch.optim.SGD(clf.parameters(), lr=step_size)

for ep in @LOOP@:
    for feats, labels in batches:
        sgd.zero_grad()
        loss = nll(clf(feats), labels)
        loss.backward()
        sgd.step()
    if @COND@:
        step_size *= 0.5
        for g in sgd.param_groups:
            g["lr"] = step_size
)";

std::string decay(const std::string& loop, const std::string& cond)
{
    std::string text = DecayScript;
    text.replace(text.find("@LOOP@"), 6, loop);
    text.replace(text.find("@COND@"), 6, cond);
    return text;
}

// A StepLR stepped once per epoch over 8 samples in batches of @B@ (@K@ epochs a decay).
const char* const EpochScheduleScript = R"(import torch
import torch.nn as nn
from torch.optim.lr_scheduler import StepLR
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)
rows = TensorDataset(torch.randn(8, 3), torch.randn(8, 1))
feed = DataLoader(rows, batch_size=@B@)
lin = nn.Linear(3, 1)
opt = torch.optim.SGD(lin.parameters(), lr=0.1)
sched = StepLR(opt, step_size=@K@, gamma=0.5)
mse = nn.MSELoss()
for e in range(4):
    for a, b in feed:
        opt.zero_grad()
        err = mse(lin(a), b)
        err.backward()
        opt.step()
    sched.step()
)";

const std::map<QString, std::string>& fixtures()
{
    static const std::map<QString, std::string> all{
        {"assigned-flag", AssignedFlagScript},
        {"sequence-first", SequenceFirstScript},
        // Decays after epochs 1, 4, 7: StepLR(3) would decay after 3 and 6.
        {"decay-first-epoch", decay("range(args.n_epochs)", "ep % 3 == 0")},
        // Decays after epochs 1, 3, 5: StepLR(2) would decay after 2, 4, 6.
        {"decay-from-one", decay("range(1, args.n_epochs + 1)", "(ep + 1) % 2 == 0")},
        // Decays after epochs 2, 4, 6: StepLR(2).
        {"decay-stepped", decay("range(1, args.n_epochs + 1)", "ep % 2 == 0")},
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
    void decayEpochs_data();
    void decayEpochs();
    void portsAndVerifies_data();
    void portsAndVerifies();
    void cerebrasDryRunBatch_data();
    void cerebrasDryRunBatch();
};

void TestPortSchedules::cerebrasDryRunBatch_data()
{
    QTest::addColumn<int>("batch");
    QTest::addColumn<int>("every");
    QTest::addColumn<bool>("noted");
    // 8 samples // 4 = 2 steps an epoch: the first decay, after 2 steps, is within the 3 the
    // verification compares, where the original's dry run (batch 2) decays after 4.
    QTest::addRow("decay within the compared steps") << 4 << 1 << true;
    QTest::addRow("decay after them") << 4 << 2 << false;
    QTest::addRow("batch of the dry run") << 2 << 1 << false;
}

// A Cerebras schedule counted in epochs says where the dry runs' smaller batch makes the two dry
// runs part although a real run would not.
void TestPortSchedules::cerebrasDryRunBatch()
{
    QFETCH(int, batch);
    QFETCH(int, every);
    QFETCH(bool, noted);
    QTemporaryDir dir;
    const fs::path root = fs::path(dir.path().toStdString()) / "original";
    std::string text = EpochScheduleScript;
    text.replace(text.find("@B@"), 3, std::to_string(batch));
    text.replace(text.find("@K@"), 3, std::to_string(every));
    writeOriginal(root, text);
    auto a = analysis::analyzeProject(root);
    QVERIFY(a);
    auto plan = port::planPort(*a.value);
    QVERIFY(plan);
    plan.value->train.observedSamples = 8; // as the original's dry run reports it
    auto r = port::generatePort(*plan.value, "cerebras-pytorch", "trainer");
    QVERIFY(r);
    std::string notes;
    for (const auto& n : r.value->notes)
        notes += n + "\n";
    QCOMPARE(notes.find("the dry runs shrink the batch to 2") != std::string::npos, noted);
}

void TestPortSchedules::decayEpochs_data()
{
    QTest::addColumn<QString>("iter");
    QTest::addColumn<QString>("condition");
    QTest::addColumn<int>("every"); // 0: not a decay every K epochs the plan counts
    QTest::addColumn<int>("offset");
    QTest::addRow("(e+1) mod K over range(E)") << "range(args.epochs)"
                                               << "(e + 1) % 4 == 0" << 4 << 0;
    QTest::addRow("e mod K over range(E)") << "range(n)"
                                           << "e % 4 == 0" << 4 << 3;
    QTest::addRow("e mod K over range(1, E+1)") << "range(1, n + 1)"
                                                << "e % 4 == 0" << 4 << 0;
    QTest::addRow("(e+1) mod K over range(1, E+1)") << "range(1, n + 1)"
                                                    << "(e + 1) % 4 == 0" << 4 << 1;
    QTest::addRow("(e+2) mod K over range(0, E)") << "range(0, n)"
                                                  << "(e+2)%3==0" << 3 << 1;
    QTest::addRow("start from a flag") << "range(args.start, n)"
                                       << "e % 4 == 0" << 0 << 0;
    QTest::addRow("not a range") << "epochs_list"
                                 << "e % 4 == 0" << 0 << 0;
    QTest::addRow("other condition") << "range(n)"
                                     << "e > 4" << 0 << 0;
    QTest::addRow("flag period") << "range(n)"
                                 << "e % args.k == 0" << 0 << 0;
}

// The epochs after which a decay by hand holds, from its condition and its epoch loop's range.
void TestPortSchedules::decayEpochs()
{
    QFETCH(QString, iter);
    QFETCH(QString, condition);
    QFETCH(int, every);
    QFETCH(int, offset);
    const auto d = port::planning::decayEpochs("e", iter.toStdString(), condition.toStdString());
    QCOMPARE(d.has_value(), every != 0);
    if (d) {
        QCOMPARE(d->every, long(every));
        QCOMPARE(d->offset, long(offset));
    }
}

void TestPortSchedules::portsAndVerifies_data()
{
    QTest::addColumn<QString>("fixture");
    QTest::addColumn<QString>("target");
    QTest::addColumn<QString>("api");
    QTest::addColumn<QStringList>("commandLine");
    QTest::addColumn<QStringList>("present"); // in the generated files
    QTest::addColumn<QStringList>("absent");
    // The flag is held in an attribute the trial assigns; with the branch taken too.
    QTest::addRow("assigned-flag/determined")
        << "assigned-flag"
        << "determined-pytorchtrial"
        << "" << QStringList{}
        << QStringList{"self.hp_width = self.context.get_hparam(\"width\")", "self.hp_width *= 2",
                       "nn.Linear(3, self.hp_width)"}
        << QStringList{"get_hparam(\"width\") *="};
    QTest::addRow("assigned-flag/determined/taken")
        << "assigned-flag"
        << "determined-pytorchtrial"
        << "" << QStringList{"--wide"} << QStringList{"self.hp_width *= 2", "wide: true"}
        << QStringList{};
    // PopTorch passes each input of a one-micro-batch call whole, whatever its first dimension.
    QTest::addRow("sequence-first/poptorch")
        << "sequence-first"
        << "graphcore-poptorch"
        << "" << QStringList{} << QStringList{"poptorch.trainingModel"} << QStringList{};
    // A decay off StepLR's epochs: the LambdaLR with its offset, or a MultiStepLR over the
    // run's epochs on Cerebras; one that is StepLR's stays a StepLR.
    const QStringList firstEpoch{"LambdaLR(sgd, lambda epochs: (0.5) ** ((epochs + 2) // 3))"};
    QTest::addRow("decay-first-epoch/determined")
        << "decay-first-epoch"
        << "determined-pytorchtrial"
        << "" << QStringList{} << firstEpoch << QStringList{"StepLR"};
    QTest::addRow("decay-first-epoch/poptorch")
        << "decay-first-epoch"
        << "graphcore-poptorch"
        << "" << QStringList{} << firstEpoch << QStringList{"StepLR"};
    QTest::addRow("decay-first-epoch/cerebras-runner")
        << "decay-first-epoch"
        << "cerebras-pytorch"
        << "runner" << QStringList{}
        << QStringList{"scheduler: \"PiecewiseConstant\"", "boundaries: [1, 4, 7]"}
        << QStringList{};
    QTest::addRow("decay-first-epoch/cerebras-trainer")
        << "decay-first-epoch"
        << "cerebras-pytorch"
        << "trainer" << QStringList{} << QStringList{"- MultiStepLR:", "milestones: [1, 4, 7]"}
        << QStringList{};
    QTest::addRow("decay-from-one/determined")
        << "decay-from-one"
        << "determined-pytorchtrial"
        << "" << QStringList{}
        << QStringList{"LambdaLR(sgd, lambda epochs: (0.5) ** ((epochs + 1) // 2))"}
        << QStringList{"StepLR"};
    QTest::addRow("decay-from-one/cerebras-trainer")
        << "decay-from-one"
        << "cerebras-pytorch"
        << "trainer" << QStringList{} << QStringList{"milestones: [1, 3, 5, 7]"} << QStringList{};
    QTest::addRow("decay-stepped/poptorch")
        << "decay-stepped"
        << "graphcore-poptorch"
        << "" << QStringList{} << QStringList{"StepLR(sgd, step_size=2, gamma=0.5)"}
        << QStringList{"LambdaLR"};
}

void TestPortSchedules::portsAndVerifies()
{
    QFETCH(QString, fixture);
    QFETCH(QString, target);
    QFETCH(QString, api);
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
    port::PortRequest request;
    request.project = root;
    request.out = fs::path(dir.path().toStdString()) / "port";
    request.target = target.toStdString();
    request.api = api.toStdString();
    for (const auto& w : commandLine)
        request.args.push_back(w.toStdString());
    request.verify = true;
    request.verifyOptions.python = python.toStdString();
    request.verifyOptions.steps = 3;
    const port::PortRun run = port::portWithVerification(*a.value, request);
    QVERIFY2(run.plan, run.plan ? "" : run.plan.error.message.c_str());
    QVERIFY(run.port);
    QVERIFY(!run.writeError);
    std::string all;
    for (const auto& g : run.port.value->files)
        all += g.text + "\n";
    for (const auto& p : present)
        QVERIFY2(all.find(p.toStdString()) != std::string::npos,
                 qPrintable(p + " is not in:\n" + QString::fromStdString(all)));
    for (const auto& p : absent)
        QVERIFY2(all.find(p.toStdString()) == std::string::npos, qPrintable(p));
    std::string items;
    for (const auto& m : run.port.value->manual)
        items += m.message + "\n";
    QVERIFY2(items.empty(), items.c_str());
    const QString errors = compileErrors(python, request.out);
    QVERIFY2(errors.isEmpty(), qPrintable(errors));
    QVERIFY(run.verify);
    const port::VerifyResult& v = *run.verify;
    QVERIFY2(v.originalError.empty(), v.originalError.c_str());
    QVERIFY2(v.dryRunError.empty(), v.dryRunError.c_str());
    QCOMPARE(v.checkErrors, 0);
    QCOMPARE(v.dryRunSteps, 3);
    QVERIFY2(v.agrees, qPrintable(QStringLiteral("first divergent step %1, max rel loss diff %2")
                                      .arg(v.firstDivergence)
                                      .arg(v.maxRelLossDiff)));
}

QTEST_GUILESS_MAIN(TestPortSchedules)
#include "test_port_schedules.moc"
