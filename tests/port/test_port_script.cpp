// Script structure (issue 24): a training loop written at module level, between the code that
// prepares its data and the code that uses the trained model. Each row is a fixture written for
// the pattern: what the port carries (the statements that fill the loop's data) and what it does
// not (the statements after the training). The verification row runs both dry runs: a
// vocabulary numbered from a `set` is the same in the original's process and in the port's.
#include "tests/port/port_fixture.h"

#include <QObject>
#include <QTemporaryDir>
#include <QTest>

using namespace portolan;
using namespace portfixture;

namespace {

// Word pairs filled in place by a loop before the training, a vocabulary numbered from a set,
// the training loop at module level (its step reads a comprehension's own variable, `w`), and
// after it a prediction that rebinds the step's names.
const char* const ModuleLoop = R"(import torch
import torch.nn as nn

text = "the quick brown fox jumps over the lazy dog while the cat sleeps on the warm mat".split()
words = set(text)
index = {}
for n, token in enumerate(words):
    index[token] = n

pairs = []
for n in range(1, len(text)):
    pairs.append((text[n - 1], text[n]))


def encode(word):
    return torch.tensor([index[word]])


class Bigram(nn.Module):
    def __init__(self, size, dim):
        super().__init__()
        self.emb = nn.Embedding(size, dim)
        self.out = nn.Linear(dim, size)

    def forward(self, x):
        return torch.log_softmax(self.out(self.emb(x)), dim=-1)


torch.manual_seed(0)
model = Bigram(len(words), 8)
criterion = nn.NLLLoss()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)

for epoch in range(2):
    for prev, word in pairs:
        x = torch.tensor([index[w] for w in [prev]])
        model.zero_grad()
        out = model(x)
        loss = criterion(out, encode(word))
        loss.backward()
        optimizer.step()

# After the training: a prediction that reuses the step's names.
prev = 'quick'
x = encode(prev)
print(model(x).argmax().item())
)";

// The flags parsed in main() read a module-level list (`choices=arch_names`).
const char* const FlagsReadModule = R"(import argparse
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

arch_names = sorted(name for name in ("wide", "narrow"))
widths = {"wide": 32, "narrow": 8}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument('--arch', default='narrow', choices=arch_names)
    parser.add_argument('--lr', type=float, default=0.1)
    args = parser.parse_args()
    model = nn.Sequential(nn.Linear(4, widths[args.arch]), nn.ReLU(), nn.Linear(widths[args.arch], 2))
    optimizer = torch.optim.SGD(model.parameters(), lr=args.lr)
    criterion = nn.CrossEntropyLoss()
    loader = DataLoader(TensorDataset(torch.randn(16, 4), torch.randint(0, 2, (16,))), batch_size=4)
    for x, y in loader:
        optimizer.zero_grad()
        loss = criterion(model(x), y)
        loss.backward()
        optimizer.step()


if __name__ == '__main__':
    main()
)";

// The flags are those of a sub-command (`script.py train --lr 0.1`).
const char* const SubParsers = R"(import argparse
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


def train(args):
    model = nn.Linear(4, 2)
    optimizer = torch.optim.SGD(model.parameters(), lr=args.lr)
    criterion = nn.CrossEntropyLoss()
    loader = DataLoader(TensorDataset(torch.randn(16, 4), torch.randint(0, 2, (16,))), batch_size=4)
    for x, y in loader:
        optimizer.zero_grad()
        loss = criterion(model(x), y)
        loss.backward()
        optimizer.step()


def main():
    parser = argparse.ArgumentParser()
    commands = parser.add_subparsers(dest="command")
    train_parser = commands.add_parser("train")
    train_parser.add_argument("--lr", type=float, default=0.1)
    show_parser = commands.add_parser("show")
    show_parser.add_argument("--path", type=str)
    args = parser.parse_args()
    if args.command == "train":
        train(args)


if __name__ == '__main__':
    main()
)";

// Hyperparameters as module constants; the batch size is read only by the loaders, and the
// evaluation after the training reads the other loader. A target that writes the loader's
// batch size from its text needs the constant even though nothing it keeps reads it otherwise.
const char* const ModuleConstants = R"(import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

EPOCHS = 1
BATCH = 4
LR = 0.1

train_set = TensorDataset(torch.randn(16, 4), torch.randint(0, 2, (16,)))
test_set = TensorDataset(torch.randn(8, 4), torch.randint(0, 2, (8,)))
train_loader = DataLoader(train_set, batch_size=BATCH, shuffle=True)
test_loader = DataLoader(test_set, batch_size=BATCH)

model = nn.Linear(4, 2)
criterion = nn.CrossEntropyLoss()
optimizer = torch.optim.SGD(model.parameters(), lr=LR)

for epoch in range(EPOCHS):
    for x, y in train_loader:
        out = model(x)
        loss = criterion(out, y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()

with torch.no_grad():
    correct = 0
    for x, y in test_loader:
        correct += (model(x).argmax(1) == y).sum().item()
    print(correct)
)";

} // namespace

class TestPortScript : public QObject
{
    Q_OBJECT

private slots:
    void slicesModuleLoop_data();
    void slicesModuleLoop();
    void verifiesModuleLoop();
};

void TestPortScript::slicesModuleLoop_data()
{
    QTest::addColumn<QString>("script");
    QTest::addColumn<QString>("target");
    QTest::addColumn<QStringList>("contains");
    QTest::addColumn<QStringList>("absent");
    // The loop that fills the pairs runs in the port; the prediction after the training does not
    // (it reads `prev`, which only the step and that later code bind).
    const QStringList contains{"pairs.append((text[n - 1], text[n]))", "index[token] = n"};
    const QStringList absent{"\nx = encode(prev)", "prev = 'quick'", "argmax()"};
    for (const char* t : {"determined-pytorchtrial", "graphcore-poptorch", "cerebras-pytorch"})
        QTest::addRow("module-loop/%s", t) << ModuleLoop << t << contains << absent;
    // PopTorch parses the original's flags in the port: what they read moves with them.
    QTest::addRow("flags-read-module/poptorch")
        << FlagsReadModule << "graphcore-poptorch"
        << QStringList{"\narch_names = sorted(", "choices=arch_names"} << QStringList{};
    // The loader's batch size names a module constant: its definition comes with the loader;
    // the evaluation after the training stays out.
    for (const char* t : {"determined-pytorchtrial", "graphcore-poptorch", "cerebras-pytorch"})
        QTest::addRow("module-constants/%s", t)
            << ModuleConstants << t << QStringList{} << QStringList{"correct +=", "print(correct)"};
    QTest::addRow("batch-constant/poptorch")
        << ModuleConstants << "graphcore-poptorch"
        << QStringList{"\nBATCH = 4\n", "batch_size=BATCH"} << QStringList{};
    // PopTorch keeps the original's parser: its sub-commands and their flags too.
    QTest::addRow("sub-parsers/poptorch")
        << SubParsers << "graphcore-poptorch"
        << QStringList{"train_parser = commands.add_parser(\"train\")",
                       "train_parser.add_argument(\"--lr\"", "show_parser.add_argument("}
        << QStringList{};
}

void TestPortScript::slicesModuleLoop()
{
    QFETCH(QString, script);
    QFETCH(QString, target);
    QFETCH(QStringList, contains);
    QFETCH(QStringList, absent);
    QTemporaryDir dir;
    const fs::path root = fs::path(dir.path().toStdString()) / "original";
    auto r = generate(root, script.toStdString(), target.toStdString());
    QVERIFY2(r, r ? "" : r.error.message.c_str());
    const std::string all = allText(*r.value);
    QVERIFY2(r.value->full(), manualText(*r.value).c_str());
    PORT_VERIFY_CONTAINS(all, contains);
    PORT_VERIFY_ABSENT(all, absent);
}

// Both dry runs: the port reaches its steps and trains as the original does. Without one hash
// seed for the two processes, `set(text)` numbers the words in another order in each, the
// embedding rows the replayed weights give each word differ, and the losses part at step 1.
void TestPortScript::verifiesModuleLoop()
{
    PORT_SKIP_WITHOUT_TORCH();
    QTemporaryDir dir;
    const fs::path root = fs::path(dir.path().toStdString()) / "original";
    auto r = generate(root, ModuleLoop, "determined-pytorchtrial", "");
    QVERIFY(r);
    PORT_VERIFY_PROOF(writeAndVerify(root, *r.value));
}

QTEST_GUILESS_MAIN(TestPortScript)
#include "test_port_script.moc"
