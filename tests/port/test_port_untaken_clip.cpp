// Gradient clipping under a flag between backward() and the step (`if args.clip > 0:` with a
// default that turns it off): the original's run does not clip, so the targets that run backward
// and the step themselves leave it out with a note, and the port trains like the original. A
// default that turns it on keeps the clip the target's to write. Fixtures written for the
// pattern.
#include "port_fixture.h"

#include <QTemporaryDir>
#include <QTest>

using namespace portfixture;

namespace {

const char* const Script = R"(import argparse
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

p = argparse.ArgumentParser()
p.add_argument("--clip", type=float, default=@DEFAULT@, help="gradient clip, -1 for none")
p.add_argument("--lr", type=float, default=0.03)
opts = p.parse_args()

torch.manual_seed(6)
rows = TensorDataset(torch.randn(40, 4), torch.randn(40, 1))
feed = DataLoader(rows, batch_size=5, shuffle=True)
net = nn.Sequential(nn.Linear(4, 6), nn.Tanh(), nn.Linear(6, 1))
sgd = torch.optim.SGD(net.parameters(), lr=opts.lr)
for lap in range(2):
    for xb, yb in feed:
        sgd.zero_grad()
        gap = nn.functional.mse_loss(net(xb), yb)
        gap.backward()
        if opts.clip > 0:
            torch.nn.utils.clip_grad_norm_(net.parameters(), opts.clip)
        sgd.step()
)";

} // namespace

class TestPortUntakenClip : public QObject
{
    Q_OBJECT

private slots:
    void untakenBranchLeftOut_data();
    void untakenBranchLeftOut();
};

void TestPortUntakenClip::untakenBranchLeftOut_data()
{
    QTest::addColumn<QString>("target");
    QTest::addColumn<QString>("byDefault");
    QTest::addColumn<bool>("clips");
    for (const char* target : {"graphcore-poptorch", "cerebras-pytorch"}) {
        QTest::addRow("%s, off", target) << target << "-1" << false;
        QTest::addRow("%s, on", target) << target << "0.5" << true;
    }
}

void TestPortUntakenClip::untakenBranchLeftOut()
{
    QFETCH(QString, target);
    QFETCH(QString, byDefault);
    QFETCH(bool, clips);
    QTemporaryDir dir;
    const fs::path root = fs::path(dir.path().toStdString()) / "original";
    std::string s = Script;
    s.replace(s.find("@DEFAULT@"), 9, byDefault.toStdString());
    writeOriginal(root, s, "main.py");
    auto r = generateFrom(root, target.toStdString(), "");
    QVERIFY2(r, r ? "" : r.error.message.c_str());
    std::string text;
    for (const auto& n : r.value->notes)
        text += n + "\n";
    if (clips) {
        // Not left out: the original clips, and the port places the clip or names it.
        QVERIFY(!has(text, "does not run with the original's flags"));
        return;
    }
    QVERIFY2(r.value->full(), manualText(*r.value).c_str());
    QVERIFY(has(text, "`if opts.clip > 0:` between backward() and the step (main.py:21) does "
                      "not run with the original's flags"));
    PORT_SKIP_WITHOUT_TORCH();
    PORT_VERIFY_PROOF(writeAndVerify(root, *r.value));
}

QTEST_GUILESS_MAIN(TestPortUntakenClip)
#include "test_port_untaken_clip.moc"
