// The loss as the original writes it (issue 24): backward() called on an expression never bound
// to a name (a criterion's call, a functional loss, a sum of terms, a method or a subscript of a
// call, inside a step function that returns nothing). The port computes that expression where
// the original did and hands it to the target as its loss; each form verified on the three
// targets. Fixtures written for the pattern.
#include "port_fixture.h"

#include <QTemporaryDir>
#include <QTest>

using namespace portfixture;

namespace {

const char* const Head = R"(import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset


class Scorer(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Linear(5, 4)

    def forward(self, x):
        return self.body(x)
)";

const char* const Run = R"(

def run():
    torch.manual_seed(3)
    pairs = TensorDataset(torch.randn(40, 5), torch.randint(0, 4, (40,)))
    feed = DataLoader(pairs, batch_size=5, shuffle=True)
    scorer = Scorer()
    judge = nn.CrossEntropyLoss()
    sgd = torch.optim.SGD(scorer.parameters(), lr=0.05)
    for epoch in range(2):
        for xb, yb in feed:
)";

const char* const Tail = R"(

if __name__ == "__main__":
    run()
)";

// The loop body of the usual step, with `backward` the statement between zero_grad and step.
std::string usualStep(const std::string& backward, const std::string& after = {})
{
    return "            sgd.zero_grad()\n" + backward + "            sgd.step()\n" + after;
}

} // namespace

class TestPortLossForms : public QObject
{
    Q_OBJECT
private slots:
    void unnamedLossVerifies_data()
    {
        QTest::addColumn<QString>("helpers");
        QTest::addColumn<QString>("body");
        QTest::addColumn<QString>("target");
        struct Form
        {
            const char* name;
            std::string helpers; // module-level definitions after the model
            std::string body;    // the batch loop's body
        };
        const std::vector<Form> forms{
            {"functional loss", "",
             usualStep("            F.cross_entropy(scorer(xb), yb).backward()\n")},
            {"criterion's call", "", usualStep("            judge(scorer(xb), yb).backward()\n")},
            // Two named terms summed where backward is called; a term printed after the step.
            {"sum of terms", "",
             usualStep("            fit = judge(scorer(xb), yb)\n"
                       "            penalty = 0.01 * scorer.body.weight.pow(2).sum()\n"
                       "            (fit + penalty).backward()\n",
                       "            print('fit', fit.item())\n")},
            {"method of a call", "",
             usualStep("            F.cross_entropy(scorer(xb), yb, reduction='none')"
                       ".mean().backward()\n")},
            {"subscript", "",
             usualStep("            terms = {'fit': judge(scorer(xb), yb)}\n"
                       "            terms['fit'].backward()\n",
                       "            print('fit', terms['fit'].item())\n")},
            // The step in a function of its own that returns nothing, called for each batch.
            {"step function",
             "\n\ndef descend(net, crit, opt, xs, ys):\n"
             "    opt.zero_grad()\n"
             "    crit(net(xs), ys).backward()\n"
             "    opt.step()\n",
             "            descend(scorer, judge, sgd, xb, yb)\n"},
        };
        const char* const targets[][2] = {{"determined", "determined-pytorchtrial"},
                                          {"poptorch", "graphcore-poptorch"},
                                          {"cerebras", "cerebras-pytorch"}};
        for (const auto& f : forms)
            for (const auto& t : targets)
                QTest::addRow("%s, %s", f.name, t[0])
                    << QString::fromStdString(f.helpers) << QString::fromStdString(f.body) << t[1];
    }
    // The port is full and trains like the original: the loss it hands the target is the
    // expression backward() was called on.
    void unnamedLossVerifies()
    {
        QFETCH(QString, helpers);
        QFETCH(QString, body);
        QFETCH(QString, target);
        QTemporaryDir dir;
        const fs::path root = fs::path(dir.path().toStdString()) / "original";
        const std::string script =
            std::string(Head) + helpers.toStdString() + Run + body.toStdString() + Tail;
        auto r = generate(root, script, target.toStdString());
        QVERIFY2(r, r ? "" : r.error.message.c_str());
        const std::string text = allText(*r.value);
        QVERIFY2(r.value->full(), (manualText(*r.value) + "---\n" + text).c_str());
        QVERIFY2(has(text, "loss = "), text.c_str());
        QVERIFY2(!has(text, ".backward()"), text.c_str());
        PORT_SKIP_WITHOUT_TORCH();
        PORT_VERIFY_PROOF(writeAndVerify(root, *r.value));
    }
};

QTEST_GUILESS_MAIN(TestPortLossForms)
#include "test_port_loss_forms.moc"
