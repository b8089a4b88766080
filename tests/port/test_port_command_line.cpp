// The original's command line as its parser reads it (issue 24): `--quiet 3` with --quiet a
// store_true flag gives quiet and the positional 3; `-q -s` gives both flags; `-w16` and `-qs`
// are short forms; -vv counts, a store_const flag stores its const, an option with nargs takes
// its words as a list, and type=float values are numbers YAML reads as numbers. The values reach
// the port's configuration (Determined's hyperparameters, Cerebras' params file) or, on
// PopTorch, which keeps the script's parser, the plan's choice of the flag-chosen step. Each row
// is verified with both dry runs given the same words. Fixture written for the pattern.
#include "port_fixture.h"

#include <QTemporaryDir>
#include <QTest>

using namespace portfixture;

namespace {

// A positional pass count, flags that take no value, and a step chosen by one of them: the
// optimizer with momentum, or the plain one.
const char* const FlagsScript = R"(import argparse
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

cli = argparse.ArgumentParser()
cli.add_argument("passes", type=int, help="passes over the pairs")
cli.add_argument("-q", "--quiet", action="store_true")
cli.add_argument("-s", "--smooth", action="store_true")
cli.add_argument("-v", "--verbose", action="count", default=0)
cli.add_argument("--halve", action="store_const", const=0.5, default=1.0)
cli.add_argument("-w", "--width", type=int, default=12)
cli.add_argument("--rate", type=float, default=0.05)
cli.add_argument("--marks", type=int, nargs="+", default=[1])
got = cli.parse_args()

torch.manual_seed(0)
pairs = TensorDataset(torch.randn(64, 6), torch.randint(0, 3, (64,)))
feed = DataLoader(pairs, batch_size=8, shuffle=True)
head = nn.Sequential(nn.Linear(6, got.width), nn.ReLU(), nn.Linear(got.width, 3))
heavy = torch.optim.SGD(head.parameters(), lr=got.rate, momentum=0.9)
plain = torch.optim.SGD(head.parameters(), lr=got.rate)
for r in range(got.passes):
    for xb, yb in feed:
        head.zero_grad()
        cost = nn.functional.cross_entropy(head(xb), yb)
        cost.backward()
        if got.smooth:
            heavy.step()
        else:
            plain.step()
        if got.verbose > 1 and not got.quiet:
            print(r, got.marks, got.halve, cost.item())
)";

std::vector<std::string> words(const QStringList& list)
{
    std::vector<std::string> out;
    for (const auto& w : list)
        out.push_back(w.toStdString());
    return out;
}

} // namespace

class TestPortCommandLine : public QObject
{
    Q_OBJECT
private slots:
    void valuesAsTheParserReadsThem_data();
    void valuesAsTheParserReadsThem();
};

void TestPortCommandLine::valuesAsTheParserReadsThem_data()
{
    QTest::addColumn<QString>("target");
    QTest::addColumn<QStringList>("commandLine");
    QTest::addColumn<QStringList>("expected"); // lines of the port's files
    const QString determined = "determined-pytorchtrial";
    const QString cerebras = "cerebras-pytorch";
    const QString poptorch = "graphcore-poptorch";
    // A store_true flag before a positional does not take it.
    QTest::addRow("determined, flag then positional")
        << determined << QStringList{"--quiet", "3"} << QStringList{"quiet: true", "passes: 3"};
    QTest::addRow("cerebras, flag then positional")
        << cerebras << QStringList{"--quiet", "3"} << QStringList{"quiet: true", "passes: 3"};
    // A short flag that takes no value does not take the next short flag.
    QTest::addRow("determined, short flags")
        << determined << QStringList{"-q", "-s", "2"}
        << QStringList{"quiet: true", "smooth: true", "passes: 2"};
    QTest::addRow("poptorch, short flags chose the step")
        << poptorch << QStringList{"-q", "-s", "2"}
        << QStringList{"-s is True (given on the command line)"};
    // Clustered short flags, and a short option with its value attached.
    QTest::addRow("cerebras, clustered and attached")
        << cerebras << QStringList{"-qs", "-w16", "2"}
        << QStringList{"quiet: true", "smooth: true", "width: 16", "passes: 2"};
    // A count, a const, a rate in exponent form, a list of ints (the words after --marks are all
    // its own, as argparse reads them: the positional comes first).
    QTest::addRow("determined, count const exponent nargs")
        << determined << QStringList{"2", "-vv", "--halve", "--rate", "1e-2", "--marks", "3", "4"}
        << QStringList{"verbose: 2", "halve: 0.5", "rate: 1.0e-2", "marks: [3, 4]\n", "passes: 2"};
    QTest::addRow("cerebras, count const exponent nargs")
        << cerebras << QStringList{"2", "-vv", "--halve", "--rate", "1e-2", "--marks", "3", "4"}
        << QStringList{"verbose: 2", "halve: 0.5", "marks: [3, 4]\n", "passes: 2"};
}

// The values are those the original's parser gives, and the port trains like the original run
// with the same words.
void TestPortCommandLine::valuesAsTheParserReadsThem()
{
    QFETCH(QString, target);
    QFETCH(QStringList, commandLine);
    QFETCH(QStringList, expected);
    QTemporaryDir dir;
    const fs::path root = fs::path(dir.path().toStdString()) / "original";
    writeOriginal(root, FlagsScript, "fit.py");
    auto a = analysis::analyzeProject(root);
    QVERIFY(a);
    const auto args = words(commandLine);
    port::PortOptions options;
    options.values = port::argumentValues(args, a.value->facts().flags);
    auto plan = port::planPort(*a.value, options);
    QVERIFY2(plan, plan ? "" : plan.error.message.c_str());
    auto r = port::generatePort(*plan.value, target.toStdString(), "", options.values);
    QVERIFY2(r, r ? "" : r.error.message.c_str());
    std::string said = allText(*r.value);
    for (const auto& n : r.value->notes)
        said += n + "\n";
    PORT_VERIFY_CONTAINS(said, expected);
    QVERIFY2(r.value->full(), manualText(*r.value).c_str());
    PORT_SKIP_WITHOUT_TORCH();
    const fs::path out = root.parent_path() / "port";
    QVERIFY(!port::writePort(*r.value, out));
    port::VerifyOptions o;
    o.python = Python;
    o.steps = 3;
    o.originalArgs = args;
    PORT_VERIFY_PROOF(port::verifyPort(root, out, *r.value, o));
}

QTEST_GUILESS_MAIN(TestPortCommandLine)
#include "test_port_command_line.moc"
