// The loop's function takes its hyperparameters as parameters, which its caller fills from the
// command line: by keyword (`learn(chunk=opts.chunk, ...)`), by position, or spread whole
// (`learn(**vars(opts))`), with a parameter left at its default; or the namespace is a dict
// (`opts = vars(ap.parse_args())`, then `learn(**opts)` or `opts["rate"]`). learn() runs the
// loop itself, or builds the loader, model and optimizer from its parameters and hands them to
// the loop's function one call below under other names. Each parameter reads its flag
// as the target reads flags (a hyperparameter, params.yaml, the port's own parser) and the
// default where the call leaves one; every row verifies. Fixtures written for the pattern.
#include "port_fixture.h"

#include <QTemporaryDir>
#include <QTest>

using namespace portfixture;

namespace {

// @CALL@: how main() calls learn().
const char* const Script = R"(import argparse
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset


class Small(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.a = nn.Linear(12, width)
        self.b = nn.Linear(width, 3)

    def forward(self, x):
        return self.b(torch.tanh(self.a(x)))


def learn(chunk, rounds, rate, width=20):
    pairs = TensorDataset(torch.randn(200, 12), torch.randint(0, 3, (200,)))
    feed = DataLoader(pairs, batch_size=chunk, shuffle=True)
    model = Small(width)
    sgd = torch.optim.SGD(model.parameters(), lr=rate, momentum=0.9)
@LOOP@

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--chunk", type=int, default=16)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--rate", type=float, default=0.03)
@CALL@


if __name__ == "__main__":
    main()
)";

// The loop in learn() itself.
const char* const LoopInLearn = R"(    for r in range(rounds):
        model.train()
        for x, y in feed:
            sgd.zero_grad()
            loss = F.cross_entropy(model(x), y)
            loss.backward()
            sgd.step()
        print(r, loss.item())
)";

// The loop one call below learn(), which builds what it hands over from its parameters.
const char* const LoopBelowLearn = R"(    for r in range(rounds):
        print(r, one_round(feed, model, sgd))


def one_round(batches, net, opt):
    net.train()
    for x, y in batches:
        opt.zero_grad()
        loss = F.cross_entropy(net(x), y)
        loss.backward()
        opt.step()
    return loss.item()
)";

} // namespace

class TestPortFlagParameters : public QObject
{
    Q_OBJECT

private slots:
    void parametersReadFlags_data();
    void parametersReadFlags();
};

void TestPortFlagParameters::parametersReadFlags_data()
{
    QTest::addColumn<QString>("target");
    QTest::addColumn<QString>("call");
    QTest::addColumn<QStringList>("contains");
    QTest::addColumn<bool>("below");
    // The namespace is an object (`opts.rate`) or, through vars(), a dict (`opts["rate"]`).
    const char* const parsed = "    opts = ap.parse_args()\n";
    const char* const asDict = "    opts = vars(ap.parse_args())\n";
    const struct
    {
        const char* name;
        const char* parse;
        const char* call;
    } forms[] = {
        {"keywords", parsed, "    learn(chunk=opts.chunk, rounds=opts.rounds, rate=opts.rate)"},
        {"positions", parsed, "    learn(opts.chunk, opts.rounds, opts.rate)"},
        {"spread", parsed, "    learn(**vars(opts))"},
        {"spread through a name", parsed, "    given = vars(opts)\n    learn(**given)"},
        {"dict spread", asDict, "    learn(**opts)"},
        {"dict keywords", asDict,
         "    learn(chunk=opts[\"chunk\"], rounds=opts[\"rounds\"], rate=opts[\"rate\"])"},
    };
    for (const auto& form : forms) {
        const bool dict = form.parse == asDict;
        // What the optimizer's rate reads on each target.
        const std::pair<const char*, const char*> rates[] = {
            {"determined-pytorchtrial", "lr=self.context.get_hparam(\"rate\")"},
            {"graphcore-poptorch", dict ? "lr=opts[\"rate\"]" : "lr=opts.rate"},
            {"cerebras-pytorch", "learning_rate: 0.03"},
        };
        for (const bool below : {false, true})
            for (const auto& [target, rate] : rates)
                QTest::addRow("%s, %s%s", target, form.name, below ? ", loop one call below" : "")
                    << target << QString::fromLatin1(form.parse) + form.call << QStringList{rate}
                    << below;
    }
}

void TestPortFlagParameters::parametersReadFlags()
{
    QFETCH(QString, target);
    QFETCH(QString, call);
    QFETCH(QStringList, contains);
    QFETCH(bool, below);
    QTemporaryDir dir;
    const fs::path root = fs::path(dir.path().toStdString()) / "original";
    std::string s = Script;
    s.replace(s.find("@LOOP@"), 6, below ? LoopBelowLearn : LoopInLearn);
    s.replace(s.find("@CALL@"), 6, call.toStdString());
    writeOriginal(root, s, "train.py");
    auto r = generateFrom(root, target.toStdString(), "");
    QVERIFY2(r, r ? "" : r.error.message.c_str());
    QVERIFY2(r.value->full(), manualText(*r.value).c_str());
    PORT_VERIFY_CONTAINS(allText(*r.value), contains);
    PORT_SKIP_WITHOUT_TORCH();
    PORT_VERIFY_PROOF(writeAndVerify(root, *r.value));
}

QTEST_GUILESS_MAIN(TestPortFlagParameters)
#include "test_port_flag_parameters.moc"
