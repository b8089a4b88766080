// Names a copied class or function reads as module globals that the script binds only in its
// `if __name__ == "__main__":` block (issue 24): the port copies the definition, so it binds
// those globals too, from the same statements and before the model or the data is built, in the
// function of the target that builds them (declared `global` there), flags read as the target
// reads its flags. A name the step reads too is bound once. Each row is a fixture written for
// the pattern, ported to each target and verified with both dry runs.
#include "tests/port/port_fixture.h"

#include <QObject>
#include <QTemporaryDir>
#include <QTest>

using namespace portolan;
using namespace portfixture;

namespace {

// The model class reads sizes the `__main__` block sets before it builds the model; the
// step reads one of them too.
const char* const ModelReads = R"(import torch
import torch.nn as nn


class Tagger(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Linear(inputs, hidden)
        self.head = nn.Linear(hidden, labels)

    def forward(self, x):
        return self.head(torch.relu(self.body(x)))


if __name__ == "__main__":
    inputs = 5
    hidden = 7
    labels = 3
    torch.manual_seed(0)
    tagger = Tagger()
    measure = nn.CrossEntropyLoss()
    stepper = torch.optim.SGD(tagger.parameters(), lr=0.1)
    xs = torch.randn(12, inputs)
    ys = torch.randint(0, labels, (12,))
    for turn in range(20):
        stepper.zero_grad()
        miss = measure(tagger(xs), ys)
        miss.backward()
        stepper.step()
)";

// A helper function the model class calls reads a global of the `__main__` block.
const char* const HelperReads = R"(import torch
import torch.nn as nn


def block(size_in, size_out):
    return nn.Sequential(nn.Linear(size_in, size_out), nn.Tanh(), nn.Dropout(drop))


class Stack(nn.Module):
    def __init__(self):
        super().__init__()
        self.first = block(4, breadth)
        self.last = nn.Linear(breadth, 2)

    def forward(self, x):
        return self.last(self.first(x))


if __name__ == "__main__":
    breadth = 6
    drop = 0.0
    torch.manual_seed(0)
    stack = Stack()
    measure = nn.CrossEntropyLoss()
    stepper = torch.optim.SGD(stack.parameters(), lr=0.1)
    xs = torch.randn(10, 4)
    ys = torch.randint(0, 2, (10,))
    for turn in range(20):
        stepper.zero_grad()
        miss = measure(stack(xs), ys)
        miss.backward()
        stepper.step()
)";

// A global computed from others (`wide = base * rungs`, `rungs = len(names)`).
const char* const ChainReads = R"(import torch
import torch.nn as nn


class Ladder(nn.Module):
    def __init__(self):
        super().__init__()
        self.up = nn.Linear(rungs, wide)
        self.down = nn.Linear(wide, 2)

    def forward(self, x):
        return self.down(torch.relu(self.up(x)))


if __name__ == "__main__":
    names = ["a", "b", "c", "d"]
    rungs = len(names)
    base = 3
    wide = base * rungs
    torch.manual_seed(0)
    ladder = Ladder()
    measure = nn.CrossEntropyLoss()
    stepper = torch.optim.SGD(ladder.parameters(), lr=0.1)
    xs = torch.randn(8, rungs)
    ys = torch.randint(0, 2, (8,))
    for turn in range(20):
        stepper.zero_grad()
        miss = measure(ladder(xs), ys)
        miss.backward()
        stepper.step()
)";

// The dataset class reads sizes the `__main__` block sets before it builds the loader.
const char* const DatasetReads = R"(import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset


class Ramp(Dataset):
    def __len__(self):
        return count

    def __getitem__(self, i):
        return torch.full((features,), i / count), i % 2


if __name__ == "__main__":
    count = 16
    features = 3
    torch.manual_seed(0)
    loader = DataLoader(Ramp(), batch_size=4, shuffle=False)
    net = nn.Linear(features, 2)
    measure = nn.CrossEntropyLoss()
    stepper = torch.optim.SGD(net.parameters(), lr=0.1)
    for turn in range(2):
        for xb, yb in loader:
            stepper.zero_grad()
            miss = measure(net(xb), yb)
            miss.backward()
            stepper.step()
)";

// A model class of one width read as a global (`hidden`), and the statements that train it
// (indented for a block): the two rows below differ in where `hidden` is set.
const char* const HiddenClass = R"(import argparse

import torch
import torch.nn as nn


class Tagger(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Linear(5, hidden)
        self.head = nn.Linear(hidden, 3)

    def forward(self, x):
        return self.head(torch.relu(self.body(x)))

)";
const char* const HiddenTraining = R"(    torch.manual_seed(0)
    tagger = Tagger()
    measure = nn.CrossEntropyLoss()
    stepper = torch.optim.SGD(tagger.parameters(), lr=0.1)
    xs = torch.randn(12, 5)
    ys = torch.randint(0, 3, (12,))
    for turn in range(20):
        stepper.zero_grad()
        miss = measure(tagger(xs), ys)
        miss.backward()
        stepper.step()
)";

// A global computed from a flag of the command line (`hidden = opts.width * 2`).
const std::string FlagReads = std::string(HiddenClass) + R"(
if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--width", type=int, default=4)
    opts = parser.parse_args()
    hidden = opts.width * 2
)" + HiddenTraining;

// The loop runs in main(), which the `__main__` block calls after setting a global.
const std::string MainCallReads = std::string(HiddenClass) + "\ndef main():\n" + HiddenTraining +
                                  R"(

if __name__ == "__main__":
    hidden = 6
    main()
)";

// A script whose loop logs with a helper that evaluates the model, the model a module global
// the helper reads: the port builds the model where the target builds it, and the helper, copied
// at module level, still reads it.
const char* const ModelReadByHelper = R"(import torch
from torch import nn

torch.manual_seed(3)
pool_x = torch.randn(120, 4)
pool_y = pool_x @ torch.tensor([[1.0], [-0.5], [0.25], [2.0]])


def sample(n):
    at = torch.randint(len(pool_x), (n,))
    return pool_x[at], pool_y[at]


@torch.no_grad()
def spot_check():
    learner.eval()
    a, b = sample(30)
    gap = nn.functional.mse_loss(learner(a), b).item()
    learner.train()
    return gap


learner = nn.Sequential(nn.Linear(4, 12), nn.ReLU(), nn.Linear(12, 1))
mover = torch.optim.AdamW(learner.parameters(), lr=5e-3)
for tick in range(40):
    if tick % 10 == 0:
        print(tick, spot_check())
    xb, yb = sample(8)
    miss = nn.functional.mse_loss(learner(xb), yb)
    mover.zero_grad(set_to_none=True)
    miss.backward()
    mover.step()
)";

} // namespace

class TestPortModuleGlobals : public QObject
{
    Q_OBJECT

private slots:
    void mainBlockGlobalsVerify_data()
    {
        QTest::addColumn<QString>("script");
        QTest::addColumn<QString>("target");
        QTest::addColumn<QString>("once"); // a binding the port has exactly once ("": none)
        const struct
        {
            const char* name;
            std::string script;
            const char* once;
        } shapes[] = {
            {"read by the model class", ModelReads, "inputs = 5\n"},
            {"read by a helper function", HelperReads, "breadth = 6\n"},
            {"computed from another", ChainReads, "wide = base * rungs\n"},
            {"read by the dataset class", DatasetReads, ""},
            {"computed from a flag", FlagReads, ""},
            {"set before main() is called", MainCallReads, "hidden = 6\n"},
        };
        for (const auto& s : shapes)
            for (const char* target :
                 {"determined-pytorchtrial", "graphcore-poptorch", "cerebras-pytorch"})
                QTest::newRow((std::string(s.name) + ", " + target).c_str())
                    << QString::fromStdString(s.script) << target << s.once;
    }
    void mainBlockGlobalsVerify()
    {
        QFETCH(QString, script);
        QFETCH(QString, target);
        QFETCH(QString, once);
        QTemporaryDir dir;
        const fs::path root = fs::path(dir.path().toStdString()) / "orig";
        auto r = generate(root, script.toStdString(), target.toStdString());
        QVERIFY2(r, r ? "" : r.error.message.c_str());
        const std::string text = allText(*r.value);
        QVERIFY2(r.value->full(), manualText(*r.value).c_str());
        // The copied definitions read the globals the generated function declares.
        PORT_VERIFY_CONTAINS(text, QStringList({"    global "}));
        if (!once.isEmpty())
            QVERIFY2(occurrences(text, once.toStdString()) == 1, text.c_str());
        PORT_SKIP_WITHOUT_TORCH();
        PORT_VERIFY_PROOF(writeAndVerify(root, *r.value));
    }

    void modelReadByAHelper_data()
    {
        QTest::addColumn<QString>("target");
        for (const char* target :
             {"determined-pytorchtrial", "graphcore-poptorch", "cerebras-pytorch"})
            QTest::newRow(target) << target;
    }
    void modelReadByAHelper()
    {
        QFETCH(QString, target);
        QTemporaryDir dir;
        const fs::path root = fs::path(dir.path().toStdString()) / "orig";
        auto r = generate(root, ModelReadByHelper, target.toStdString());
        QVERIFY2(r, r ? "" : r.error.message.c_str());
        QVERIFY2(r.value->full(), manualText(*r.value).c_str());
        // PopTorch builds the model in main(), which the helper's global then names.
        if (target == "graphcore-poptorch")
            PORT_VERIFY_CONTAINS(allText(*r.value), QStringList({"    global learner"}));
        PORT_SKIP_WITHOUT_TORCH();
        PORT_VERIFY_PROOF(writeAndVerify(root, *r.value));
    }
};

QTEST_GUILESS_MAIN(TestPortModuleGlobals)
#include "test_port_module_globals.moc"
