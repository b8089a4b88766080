// What an original does to its model between building and training it, for the GPUs it ran on:
// `model = nn.DataParallel(model)` (under `if cuda:` or not), `model = model.to(device)`. Every
// target spreads the model over its devices itself, so the port drops the wrapper as it drops
// the device move, leaves no `model = model` behind, and Determined wraps the model once, after
// the original is done with it. And an error the target's guide reports in a helper file the
// port copies unchanged, which the original's file has too (a function of dead code reading a
// name it never imported), is the original's: reported, not counted. Fixtures written for the
// pattern.
#include "port_fixture.h"

#include <QTemporaryDir>
#include <QTest>

using namespace portfixture;

namespace {

// SETUP: what the script does to `learner` after building it.
std::string setupScript(const std::string& setup)
{
    return R"(import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)
device = 'cuda' if torch.cuda.is_available() else 'cpu'
points = TensorDataset(torch.randn(24, 4), torch.randn(24, 1))
feed = DataLoader(points, batch_size=6)
learner = nn.Sequential(nn.Linear(4, 6), nn.Tanh(), nn.Linear(6, 1))
)" + setup +
           R"(
cost = nn.MSELoss()
mover = torch.optim.SGD(learner.parameters(), lr=0.05, momentum=0.5)
for epoch in range(2):
    for xs, ys in feed:
        xs, ys = xs.to(device), ys.to(device)
        mover.zero_grad()
        loss = cost(learner(xs), ys)
        loss.backward()
        mover.step()
)";
}

} // namespace

class TestPortModelSetup : public QObject
{
    Q_OBJECT

private slots:
    void spreadOverDevicesDropped_data();
    void spreadOverDevicesDropped();
    void originalsOwnErrorNotCounted_data();
    void originalsOwnErrorNotCounted();
};

void TestPortModelSetup::spreadOverDevicesDropped_data()
{
    QTest::addColumn<QString>("target");
    QTest::addColumn<QString>("setup");
    QTest::addColumn<QString>("kept"); // a line of the setup the port keeps, "" none
    struct Form
    {
        const char* name;
        const char* setup;
        const char* kept;
    };
    const Form forms[] = {
        {"moved, then DataParallel under a device test",
         "learner = learner.to(device)\n"
         "if device == 'cuda':\n"
         "    learner = torch.nn.DataParallel(learner)\n"
         "    torch.backends.cudnn.benchmark = True\n",
         "torch.backends.cudnn.benchmark = True"},
        {"DataParallel alone in the block",
         "if torch.cuda.device_count() > 1:\n    learner = nn.DataParallel(learner, "
         "device_ids=[0, 1])\n",
         ""},
        {"DataParallel, unconditional", "learner = nn.DataParallel(learner)\n", ""},
        {"moved, then rebuilt from itself",
         "learner = learner.to(device)\nlearner = learner.requires_grad_(True)\n",
         "learner = learner.requires_grad_(True)"},
    };
    for (const auto& f : forms)
        for (const char* target :
             {"determined-pytorchtrial", "graphcore-poptorch", "cerebras-pytorch"})
            QTest::addRow("%s, %s", target, f.name) << target << f.setup << f.kept;
}

void TestPortModelSetup::spreadOverDevicesDropped()
{
    QFETCH(QString, target);
    QFETCH(QString, setup);
    QFETCH(QString, kept);
    QTemporaryDir dir;
    const fs::path root = fs::path(dir.path().toStdString()) / "original";
    auto r = generate(root, setupScript(setup.toStdString()), target.toStdString());
    QVERIFY2(r, r ? "" : r.error.message.c_str());
    QVERIFY2(r.value->full(), manualText(*r.value).c_str());
    const std::string text = allText(*r.value);
    PORT_VERIFY_ABSENT(text, (QStringList{"DataParallel", "learner = learner\n"}));
    if (!kept.isEmpty())
        PORT_VERIFY_CONTAINS(text, QStringList{kept});
    if (target == "determined-pytorchtrial") {
        // Wrapped once, after the last statement that makes the model.
        QCOMPARE(occurrences(text, "wrap_model("), 1);
        if (!kept.isEmpty() && kept.startsWith("learner"))
            QVERIFY2(text.find(kept.toStdString()) < text.find("wrap_model("), text.c_str());
    }
    PORT_SKIP_WITHOUT_TORCH();
    PORT_VERIFY_PROOF(writeAndVerify(root, *r.value));
}

void TestPortModelSetup::originalsOwnErrorNotCounted_data()
{
    QTest::addColumn<QString>("target");
    QTest::addRow("determined") << "determined-pytorchtrial";
    QTest::addRow("poptorch") << "graphcore-poptorch";
    QTest::addRow("cerebras runner") << "cerebras-pytorch";
}

// A helper module of the original with a function nobody calls that reads `torch`, which the
// module never imports (it imports `torch.nn as nn` only): the Determined guide reports it in
// the original as in the port's unchanged copy. The port is full and verified, and the error is
// listed as the original's.
void TestPortModelSetup::originalsOwnErrorNotCounted()
{
    QFETCH(QString, target);
    QTemporaryDir dir;
    const fs::path root = fs::path(dir.path().toStdString()) / "original";
    const std::string helpers = "import torch.nn as nn\n\n\n"
                                "def widen(width):\n"
                                "    return nn.Linear(4, width)\n\n\n"
                                "def never_called(rows):\n"
                                "    return torch.stack(rows).mean(0)\n";
    std::string script = setupScript("");
    script.replace(script.find("learner = nn.Sequential(nn.Linear(4, 6)"),
                   std::string("learner = nn.Sequential(nn.Linear(4, 6)").size(),
                   "learner = nn.Sequential(widen(6)");
    script.insert(0, "from helpers import widen\n");
    writeOriginal(root, {{"train.py", script}, {"helpers.py", helpers}});
    auto r = generateFrom(root, target.toStdString(), "");
    QVERIFY2(r, r ? "" : r.error.message.c_str());
    QVERIFY2(r.value->full(), manualText(*r.value).c_str());
    PORT_SKIP_WITHOUT_TORCH();
    const port::VerifyResult v = writeAndVerify(root, *r.value);
    PORT_VERIFY_PROOF(v);
    if (target == "determined-pytorchtrial") {
        QCOMPARE(int(v.inheritedFindings.size()), 1);
        QCOMPARE(QString::fromStdString(v.inheritedFindings[0].location.file),
                 QString("helpers.py"));
        QCOMPARE(v.inheritedFindings[0].location.line, 9);
    }
}

QTEST_GUILESS_MAIN(TestPortModelSetup)
#include "test_port_model_setup.moc"
