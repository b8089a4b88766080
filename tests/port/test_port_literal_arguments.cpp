// A training function whose parameters are given literals where it is called (issue 24):
// `def train(steps, rate)` called `train(40, 0.05)`, at module level or in the main guard, by
// position or keyword, a literal written as arithmetic, or a module name bound to a literal.
// The port binds each parameter where the call was, so that the loop (`range(steps)`), the
// optimizer and the data read the caller's values on every target. Each row is a fixture
// written for the pattern.
#include "tests/port/port_fixture.h"

#include <QObject>
#include <QTemporaryDir>
#include <QTest>

using namespace portolan;
using namespace portfixture;

namespace {

// A loop that draws its own batch every round (no loader): `range(%ROUNDS%)` is the
// parameter's, and %CALL% the lines that call the function.
const char* const OwnBatches = R"(import torch
import torch.nn as nn

points = torch.randn(24, 4)
goal = points.sum(1, keepdim=True)


def train(rounds, pace, width):
    torch.manual_seed(3)
    body = nn.Sequential(nn.Linear(4, width), nn.Tanh(), nn.Linear(width, 1))
    mover = torch.optim.SGD(body.parameters(), lr=pace, momentum=0.8)
    for r in range(rounds):
        mover.zero_grad()
        gap = ((body(points) - goal) ** 2).mean()
        gap.backward()
        mover.step()


%CALL%
)";

// An epoch loop over a loader whose batch size is a parameter too.
const char* const Epochs = R"(import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


def train(epochs, pace, chunk):
    torch.manual_seed(5)
    body = nn.Linear(6, 3)
    mover = torch.optim.Adam(body.parameters(), lr=pace)
    pairs = TensorDataset(torch.randn(30, 6), torch.randint(0, 3, (30,)))
    for epoch in range(epochs):
        for xb, yb in DataLoader(pairs, batch_size=chunk):
            mover.zero_grad()
            miss = nn.functional.cross_entropy(body(xb), yb)
            miss.backward()
            mover.step()


%CALL%
)";

std::string withCall(std::string text, const std::string& call)
{
    const auto at = text.find("%CALL%");
    return text.replace(at, 6, call);
}

} // namespace

class TestPortLiteralArguments : public QObject
{
    Q_OBJECT

private slots:
    void literalsGivenAtTheCall_data()
    {
        QTest::addColumn<QString>("original");
        QTest::addColumn<QString>("target");
        QTest::addColumn<QStringList>("expected");
        struct Shape
        {
            const char* name;
            std::string text;
            QStringList expected;
        };
        const std::vector<Shape> shapes{
            {"own batches, module level",
             withCall(OwnBatches, "train(40, 0.02, 8)"),
             {"rounds = 40", "pace = 0.02", "width = 8"}},
            {"own batches, main guard, keywords",
             withCall(OwnBatches, "if __name__ == \"__main__\":\n    train(pace=0.02, width=6, "
                                  "rounds=40)"),
             {"rounds = 40", "pace = 0.02", "width = 6"}},
            {"own batches, arithmetic",
             withCall(OwnBatches, "train(4 * 10, 2e-2, 2 ** 3)"),
             {"rounds = 4 * 10", "pace = 2e-2", "width = 2 ** 3"}},
            {"epochs, module names",
             withCall(Epochs, "EPOCHS = 3\nPACE = 0.01\nif __name__ == \"__main__\":\n"
                              "    train(EPOCHS, PACE, 6)"),
             {"epochs = EPOCHS", "pace = PACE", "chunk = 6"}},
            {"epochs, literals",
             withCall(Epochs, "train(3, 0.01, 6)"),
             {"epochs = 3", "pace = 0.01", "chunk = 6"}},
        };
        for (const auto& s : shapes)
            for (const char* target :
                 {"determined-pytorchtrial", "graphcore-poptorch", "cerebras-pytorch"})
                QTest::addRow("%s, %s", s.name, target)
                    << QString::fromStdString(s.text) << target << s.expected;
    }

    // Full, each parameter bound to the caller's value, and the port trains like the original.
    void literalsGivenAtTheCall()
    {
        QFETCH(QString, original);
        QFETCH(QString, target);
        QFETCH(QStringList, expected);
        QTemporaryDir dir;
        const fs::path root = fs::path(dir.path().toStdString()) / "orig";
        auto r = generate(root, original.toStdString(), target.toStdString());
        QVERIFY2(r, r ? "" : r.error.message.c_str());
        const std::string text = allText(*r.value);
        QVERIFY2(r.value->full(), manualText(*r.value).c_str());
        PORT_VERIFY_CONTAINS(text, expected);
        PORT_VERIFY_ABSENT(text, QStringList({"TODO(portolan)", "undefined"}));
        PORT_SKIP_WITHOUT_TORCH();
        PORT_VERIFY_PROOF(writeAndVerify(root, *r.value));
    }
};

QTEST_GUILESS_MAIN(TestPortLiteralArguments)
#include "test_port_literal_arguments.moc"
