// A value bound, then bound again in a block that may not run (`shuffle = False`, then
// `if os.environ.get(...): shuffle = True`): both bindings reach the reads, so the port carries
// both; with the block alone the name is unbound wherever the block does not run. Fixtures
// written for the pattern.
#include "port_fixture.h"

#include <QTemporaryDir>
#include <QTest>

using namespace portfixture;

namespace {

// BIND: how the script decides `mixing`, which the loader reads.
const char* const ConditionalScript = R"(import os
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

BIND

torch.manual_seed(0)
pairs = TensorDataset(torch.randn(48, 6), torch.randint(0, 3, (48,)))
feed = DataLoader(pairs, batch_size=8, shuffle=mixing)
net = nn.Sequential(nn.Linear(6, 12), nn.ReLU(), nn.Linear(12, 3))
tuner = torch.optim.SGD(net.parameters(), lr=0.05, momentum=0.9)
for rnd in range(2):
    for xb, yb in feed:
        tuner.zero_grad()
        cost = nn.functional.cross_entropy(net(xb), yb)
        cost.backward()
        tuner.step()
)";

} // namespace

class TestPortConditionalBindings : public QObject
{
    Q_OBJECT

private slots:
    void bindingBeforeABlockIsCarried_data();
    void bindingBeforeABlockIsCarried();
};

void TestPortConditionalBindings::bindingBeforeABlockIsCarried_data()
{
    QTest::addColumn<QString>("target");
    QTest::addColumn<QString>("bind");
    const std::pair<const char*, const char*> targets[] = {
        {"determined", "determined-pytorchtrial"},
        {"poptorch", "graphcore-poptorch"},
        {"cerebras", "cerebras-pytorch"}};
    for (const auto& [name, target] : targets) {
        QTest::addRow("%s, an if without else", name)
            << target
            << "mixing = False\nif os.environ.get('FIT_MIX_NEVER_SET'):\n    mixing = True";
        QTest::addRow("%s, a loop that may not bind", name)
            << target
            << "mixing = False\nfor marker in ('./never-there', './nor-there'):\n"
               "    if os.path.exists(marker):\n        mixing = True";
    }
}

// The port binds `mixing` where the block leaves it, and trains as the original does.
void TestPortConditionalBindings::bindingBeforeABlockIsCarried()
{
    QFETCH(QString, target);
    QFETCH(QString, bind);
    std::string script = ConditionalScript;
    script.replace(script.find("BIND"), 4, bind.toStdString());
    QTemporaryDir dir;
    const fs::path root = fs::path(dir.path().toStdString()) / "original";
    writeOriginal(root, script, "fit.py");
    auto r = generateFrom(root, target.toStdString(), "");
    QVERIFY2(r, r ? "" : r.error.message.c_str());
    QVERIFY2(r.value->full(), manualText(*r.value).c_str());
    PORT_VERIFY_CONTAINS(allText(*r.value), QStringList{"mixing = False\n"});
    PORT_SKIP_WITHOUT_TORCH();
    PORT_VERIFY_PROOF(writeAndVerify(root, *r.value));
}

QTEST_GUILESS_MAIN(TestPortConditionalBindings)
#include "test_port_conditional_bindings.moc"
