// Whole tensors drawn at module level after a seed that reads a flag, moved to the accelerator
// in a branch on a flag, and cut into batches by a batch-size flag larger than the dry run's:
// - the branch only moves values (`net.cuda()` in place, `points = points.cuda()`) whatever
//   its flag is called, so it is dropped, and the tensors are the ones drawn before it;
// - the seed stays before the draws where the port parses the flags at module level (PopTorch);
// - the batch-size flag is shrunk in the port's dry run as in the original's (the Cerebras
//   port reads it from params.yaml's model section).
// Each row must verify. Fixtures written for the pattern.
#include "port_fixture.h"

#include <QTemporaryDir>
#include <QTest>

using namespace portfixture;

namespace {

// @FLAG@: the branch's flag; @BRANCH@: the branch after the model is built.
const char* const Script = R"(import argparse
import torch
from torch import nn
import torch.nn.functional as F

parser = argparse.ArgumentParser()
parser.add_argument('--batch_size', type=int, default=24)
parser.add_argument('--seed', type=int, default=3)
parser.add_argument('--lr', type=float, default=0.05)
@FLAG@
cfg = parser.parse_args()

torch.manual_seed(cfg.seed)
points = torch.randn(240, 5)
targets = points.sum(dim=1, keepdim=True)
probe = torch.randn(40, 5)
net = nn.Sequential(nn.Linear(5, 8), nn.Tanh(), nn.Linear(8, 1))
@BRANCH@
sgd = torch.optim.SGD(net.parameters(), lr=cfg.lr)


def one_epoch():
    net.train()
    for start in range(0, points.size(0), cfg.batch_size):
        xb = points[start:start + cfg.batch_size]
        yb = targets[start:start + cfg.batch_size]
        sgd.zero_grad()
        err = F.mse_loss(net(xb), yb)
        err.backward()
        sgd.step()


for epoch in range(3):
    one_epoch()
    print(epoch, net(probe).mean().item())
)";

} // namespace

class TestPortModuleTensors : public QObject
{
    Q_OBJECT

private slots:
    void drawnOnceAndSliced_data();
    void drawnOnceAndSliced();
};

void TestPortModuleTensors::drawnOnceAndSliced_data()
{
    QTest::addColumn<QString>("target");
    QTest::addColumn<QString>("flag");
    QTest::addColumn<QString>("branch");
    struct Form
    {
        const char* name;
        const char* flag;
        const char* branch;
    };
    const Form forms[] = {
        {"no device branch", "", ""},
        // The flag's name says nothing of the device: its branch only calls `.cuda()`.
        {"in-place move under a flag named for speed",
         "parser.add_argument('--fast', action='store_false')",
         "if cfg.fast:\n    net.cuda()\n    points = points.cuda()\n    targets = targets.cuda()\n"
         "    probe = probe.cuda()"},
        {"moves with .to() under a gpu flag",
         "parser.add_argument('--use_gpu', type=int, default=1)",
         "if cfg.use_gpu:\n    net.to('cuda')\n    points, targets = points.to('cuda'), "
         "targets.to('cuda')"},
    };
    for (const auto& f : forms)
        for (const char* target :
             {"determined-pytorchtrial", "graphcore-poptorch", "cerebras-pytorch"})
            QTest::addRow("%s, %s", target, f.name) << target << f.flag << f.branch;
}

void TestPortModuleTensors::drawnOnceAndSliced()
{
    QFETCH(QString, target);
    QFETCH(QString, flag);
    QFETCH(QString, branch);
    QTemporaryDir dir;
    const fs::path root = fs::path(dir.path().toStdString()) / "original";
    std::string s = Script;
    s.replace(s.find("@FLAG@"), 6, flag.toStdString());
    s.replace(s.find("@BRANCH@"), 8, branch.toStdString());
    writeOriginal(root, s, "fit.py");
    auto r = generateFrom(root, target.toStdString(), "");
    QVERIFY2(r, r ? "" : r.error.message.c_str());
    QVERIFY2(r.value->full(), manualText(*r.value).c_str());
    const std::string text = allText(*r.value);
    // The branch is gone: the port places the model and the batches.
    QVERIFY2(text.find(".cuda()") == std::string::npos && text.find("'cuda'") == std::string::npos,
             text.c_str());
    PORT_SKIP_WITHOUT_TORCH();
    PORT_VERIFY_PROOF(writeAndVerify(root, *r.value));
}

QTEST_GUILESS_MAIN(TestPortModuleTensors)
#include "test_port_module_tensors.moc"
