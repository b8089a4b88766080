// A loader built by a helper the script imports from a module of its project (`from feeds
// import batches_for`, whose body returns `DataLoader(TensorDataset(...), batch_size=size,
// shuffle=True)`): the training data is the helper's loader, read with the call's arguments, as
// for a helper written in the script. Two forms: the loop in a function given the loader, and a
// trainer class given it in its constructor (`self.stream`). Fixtures written for the pattern;
// every row is full and verifies on its target.
#include "port_fixture.h"

#include <QTemporaryDir>
#include <QTest>

using namespace portfixture;

namespace {

const char* const Feeds = R"PY(import torch
from torch.utils.data import DataLoader, TensorDataset


def batches_for(count, size):
    pts = torch.randn(count, 5)
    tags = (pts[:, 1] > pts[:, 2]).long()
    return DataLoader(TensorDataset(pts, tags), batch_size=size, shuffle=True)
)PY";

const char* const InAFunction = R"PY(import torch
from torch import nn

from feeds import batches_for


def cycle(model, stream, mover, laps):
    for _ in range(laps):
        for pts, tags in stream:
            mover.zero_grad()
            nn.functional.cross_entropy(model(pts), tags).backward()
            mover.step()


def main():
    torch.manual_seed(12)
    stream = batches_for(70, 7)
    model = nn.Sequential(nn.Linear(5, 12), nn.ReLU(), nn.Linear(12, 2))
    mover = torch.optim.SGD(model.parameters(), lr=0.03)
    cycle(model, stream, mover, 2)


if __name__ == "__main__":
    main()
)PY";

const char* const InATrainer = R"PY(import torch
from torch import nn

from feeds import batches_for


class Coach:
    def __init__(self, model, stream, mover):
        self.model = model
        self.stream = stream
        self.mover = mover

    def lap(self):
        self.model.train()
        for pts, tags in self.stream:
            self.mover.zero_grad()
            miss = nn.functional.cross_entropy(self.model(pts), tags)
            miss.backward()
            self.mover.step()


def main():
    torch.manual_seed(13)
    stream = batches_for(60, 6)
    model = nn.Sequential(nn.Linear(5, 9), nn.Tanh(), nn.Linear(9, 2))
    mover = torch.optim.Adam(model.parameters(), lr=0.01)
    coach = Coach(model, stream, mover)
    for _ in range(2):
        coach.lap()


if __name__ == "__main__":
    main()
)PY";

struct Original
{
    const char* name;
    const char* script;
};

const Original kOriginals[] = {
    {"loop in a function", InAFunction},
    {"trainer class", InATrainer},
};

} // namespace

class TestPortImportedHelpers : public QObject
{
    Q_OBJECT

private slots:
    void verifies_data();
    void verifies();
};

void TestPortImportedHelpers::verifies_data()
{
    QTest::addColumn<int>("original");
    QTest::addColumn<QString>("target");
    for (int i = 0; i < int(std::size(kOriginals)); ++i)
        for (const char* target :
             {"determined-pytorchtrial", "graphcore-poptorch", "cerebras-pytorch"})
            QTest::addRow("%s, %s", kOriginals[i].name, target) << i << target;
}

void TestPortImportedHelpers::verifies()
{
    QFETCH(int, original);
    QFETCH(QString, target);
    QTemporaryDir dir;
    const fs::path root = fs::path(dir.path().toStdString()) / "original";
    writeOriginal(root, {{"train.py", kOriginals[original].script}, {"feeds.py", Feeds}});
    auto a = analysis::analyzeProject(root);
    QVERIFY(a);
    auto plan = port::planPort(*a.value, {});
    QVERIFY2(plan, plan.error.message.c_str());
    // The helper's loader, with the call's batch size.
    QVERIFY(plan.value->train.isDataLoader);
    QVERIFY(plan.value->train.construction.text.starts_with("batches_for("));
    auto r = generateFrom(root, target.toStdString(), "");
    QVERIFY2(r, r ? "" : r.error.message.c_str());
    QVERIFY2(r.value->full(), manualText(*r.value).c_str());
    PORT_SKIP_WITHOUT_TORCH();
    PORT_VERIFY_PROOF(writeAndVerify(root, *r.value));
}

QTEST_GUILESS_MAIN(TestPortImportedHelpers)
#include "test_port_imported_helpers.moc"
