// Batches cut from whole tensors by the loop itself (`lo, hi = j * size, (j + 1) * size`, then
// `total += update(net, xs[lo:hi], ys[lo:hi])`), the tensors drawn once where the model is
// built: each step's batch is the slice, the bounds computed at the start of the step as the
// original did, and the step slices the tensors the model's set-up drew (PopTorch does not draw
// them again for its loader), on every target. Fixtures written for the pattern.
#include "port_fixture.h"

#include <QTemporaryDir>
#include <QTest>

using namespace portfixture;

namespace {

// @CALL@: the loop body, which calls `update` on a slice.
const char* const Script = R"(import torch
from torch import nn


def update(model, judge, rule, xa, ya):
    rule.zero_grad()
    out = judge(model(xa), ya)
    out.backward()
    rule.step()
    return out.item()


def run():
    torch.manual_seed(4)
    xs = torch.randn(90, 6)
    ys = (xs[:, 0] - xs[:, 1] > 0).long()
    model = nn.Sequential(nn.Linear(6, 10), nn.ReLU(), nn.Linear(10, 2))
    judge = nn.CrossEntropyLoss()
    rule = torch.optim.Adam(model.parameters(), lr=0.02)
    size = 15
    for ep in range(2):
        total = 0.0
        for j in range(len(xs) // size):
@CALL@
        print(ep, total)


if __name__ == "__main__":
    run()
)";

} // namespace

class TestPortSlicedBatches : public QObject
{
    Q_OBJECT

private slots:
    void sliceIsTheBatch_data();
    void sliceIsTheBatch();
};

void TestPortSlicedBatches::sliceIsTheBatch_data()
{
    QTest::addColumn<QString>("target");
    QTest::addColumn<QString>("call");
    const std::pair<const char*, const char*> forms[] = {
        {"bounds bound first",
         "            lo, hi = j * size, (j + 1) * size\n"
         "            total += update(model, judge, rule, xs[lo:hi], ys[lo:hi])"},
        {"bounds inline",
         "            total += update(model, judge, rule, xs[j * size:(j + 1) * size],\n"
         "                            ys[j * size:(j + 1) * size])"},
        // update() starts with a statement that does not run the model: PopTorch runs it on
        // the host, reading the slice main() cuts.
        {"update prepares the batch first",
         "            lo, hi = j * size, (j + 1) * size\n"
         "            total += update(model, judge, rule, xs[lo:hi], ys[lo:hi])"},
        {"result bound", "            lo = j * size\n"
                         "            got = update(model, judge, rule, xs[lo:lo + size], "
                         "ys[lo:lo + size])\n"
                         "            total = total + got"},
    };
    for (const auto& [name, call] : forms)
        for (const char* target :
             {"determined-pytorchtrial", "graphcore-poptorch", "cerebras-pytorch"})
            QTest::addRow("%s, %s", target, name) << target << call;
}

void TestPortSlicedBatches::sliceIsTheBatch()
{
    QFETCH(QString, target);
    QFETCH(QString, call);
    QTemporaryDir dir;
    const fs::path root = fs::path(dir.path().toStdString()) / "original";
    std::string s = Script;
    s.replace(s.find("@CALL@"), 6, call.toStdString());
    if (QString(QTest::currentDataTag()).contains("prepares")) {
        const std::string first = "    rule.zero_grad()\n    out = judge(model(xa), ya)";
        s.replace(s.find(first), first.size(),
                  "    xb = xa * 1.0\n    rule.zero_grad()\n    out = judge(model(xb), ya)");
    }
    writeOriginal(root, s, "main.py");
    auto r = generateFrom(root, target.toStdString(), "");
    QVERIFY2(r, r ? "" : r.error.message.c_str());
    QVERIFY2(r.value->full(), manualText(*r.value).c_str());
    // PopTorch builds the program and its loader in one main(): the tensors are drawn there
    // once, as the original drew them (the other targets build the loader in a method of its own,
    // which draws them after the same seed).
    if (target == "graphcore-poptorch")
        QCOMPARE(occurrences(allText(*r.value), "torch.randn(90, 6)"), 1);
    PORT_SKIP_WITHOUT_TORCH();
    PORT_VERIFY_PROOF(writeAndVerify(root, *r.value));
}

QTEST_GUILESS_MAIN(TestPortSlicedBatches)
#include "test_port_sliced_batches.moc"
