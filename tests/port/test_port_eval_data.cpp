// An evaluation function that builds its own loader over a parameter (`def evaluate(model,
// data): loader = DataLoader(data, ...)`), called on the held-out data, and perhaps on the
// training data too: the port's validation data is the held-out data set the caller hands it,
// never the parameter's name (which the port's validation loader could not read), and not the
// training data. Fixtures written for the pattern.
#include "port_fixture.h"

#include <QTemporaryDir>
#include <QTest>

using namespace portfixture;

namespace {

// @CALLS@: what the epoch loop does with `judge` after each pass.
std::string evalScript(const std::string& calls)
{
    std::string s = R"(import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset


def judge(model, data, batch_size=5):
    model.eval()
    loader = DataLoader(data, batch_size=batch_size)
    total = 0.0
    with torch.no_grad():
        for xs, ys in loader:
            total += F.mse_loss(model(xs), ys, reduction="sum").item()
    model.train()
    return total / len(data)


def main():
    torch.manual_seed(0)
    known = TensorDataset(torch.linspace(-1, 1, 60).view(20, 3), torch.linspace(0, 1, 20).view(20, 1))
    unknown = TensorDataset(torch.linspace(1, 2, 30).view(10, 3), torch.linspace(1, 0, 10).view(10, 1))
    feed = DataLoader(known, batch_size=4, shuffle=True)
    model = nn.Sequential(nn.Linear(3, 4), nn.Dropout(0.2), nn.Linear(4, 1))
    opt = torch.optim.SGD(model.parameters(), lr=0.05)
    for epoch in range(2):
        for xs, ys in feed:
            opt.zero_grad()
            loss = F.mse_loss(model(xs), ys)
            loss.backward()
            opt.step()
@CALLS@

if __name__ == "__main__":
    main()
)";
    s.replace(s.find("@CALLS@"), 7, calls);
    return s;
}

} // namespace

class TestPortEvalData : public QObject
{
    Q_OBJECT

private slots:
    void heldOutDataValidates_data();
    void heldOutDataValidates();
};

void TestPortEvalData::heldOutDataValidates_data()
{
    QTest::addColumn<QString>("target");
    QTest::addColumn<QString>("calls");
    QTest::addColumn<bool>("verify");
    struct Form
    {
        const char* name;
        const char* calls;
        bool verify;
    };
    const Form forms[] = {
        {"held-out only", "        print(epoch, judge(model, unknown))\n", true},
        {"training data, then held-out",
         "        print(judge(model, known), judge(model, unknown, batch_size=2))\n", false},
        {"held-out, then training data",
         "        held = judge(model, unknown)\n        seen = judge(model, known)\n", false},
        {"by keyword", "        print(judge(model, data=unknown))\n", false},
    };
    for (const auto& f : forms)
        for (const char* target :
             {"determined-pytorchtrial", "graphcore-poptorch", "cerebras-pytorch"})
            QTest::addRow("%s, %s", target, f.name) << target << f.calls << f.verify;
}

void TestPortEvalData::heldOutDataValidates()
{
    QFETCH(QString, target);
    QFETCH(QString, calls);
    QFETCH(bool, verify);
    QTemporaryDir dir;
    const fs::path root = fs::path(dir.path().toStdString()) / "original";
    writeOriginal(root, evalScript(calls.toStdString()), "main.py");
    auto a = analysis::analyzeProject(root);
    QVERIFY(a);
    auto plan = port::planPort(*a.value);
    QVERIFY2(plan, plan.error.message.c_str());
    QCOMPARE(QString::fromStdString(plan.value->eval.dataset.text), QString("unknown"));
    auto r = port::generatePort(*plan.value, target.toStdString(), "");
    QVERIFY2(r, r ? "" : r.error.message.c_str());
    QVERIFY2(r.value->full(), manualText(*r.value).c_str());
    if (!verify)
        return;
    PORT_SKIP_WITHOUT_TORCH();
    PORT_VERIFY_PROOF(writeAndVerify(root, *r.value));
}

QTEST_GUILESS_MAIN(TestPortEvalData)
#include "test_port_eval_data.moc"
