// The loss a model computes in a method of its own (issue 24): the step calls `loss =
// model.cost(x, y)` while forward does inference (an argmax, a decoding). PopTorch's
// trainingModel takes the loss from the wrapped module's forward, so the port's wrapper calls that
// method on the model it wraps; the guide's check must see that method's loss through the
// wrapper, as it sees a criterion's. Each form is ported and verified with both dry runs on the
// three targets; the check's own rows show it still reports a wrapper whose method computes no
// loss. Fixtures written for the pattern.
#include "port_fixture.h"

#include <QTemporaryDir>
#include <QTest>

using namespace portfixture;

namespace {

// %TAIL% ends forward's return (an argmax for a model whose forward decides).
const char* const Model = R"(import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset


class Grader(nn.Module):
    def __init__(self):
        super().__init__()
        self.lens = nn.Linear(5, 4)

    def forward(self, feats):
        return self.lens(feats)%TAIL%

    def fault(self, feats, marks, reduction="mean"):
        return F.cross_entropy(self.lens(feats), marks, reduction=reduction)

    def surprise(self, feats, marks):
        # No loss function called: the score arithmetic of a likelihood.
        chosen = self.lens(feats).log_softmax(1).gather(1, marks[:, None])
        return -chosen.mean()
)";

// %STEP% computes `loss` in the batch loop, %AFTER% ends each epoch.
const char* const Script = R"(

def train():
    torch.manual_seed(5)
    rows = TensorDataset(torch.randn(40, 5), torch.randint(0, 4, (40,)))
    stream = DataLoader(rows, batch_size=5, shuffle=True)
    grader = Grader()
    mover = torch.optim.SGD(grader.parameters(), lr=0.05)
    for sweep in range(2):
        for xb, yb in stream:
            mover.zero_grad()
%STEP%            loss.backward()
            mover.step()
%AFTER%

if __name__ == "__main__":
    train()
)";

// The model kept on `self` of a trainer class, its loss method called through it.
const char* const Tutor = R"(

class Tutor:
    def __init__(self, rate=0.05):
        torch.manual_seed(5)
        rows = TensorDataset(torch.randn(40, 5), torch.randint(0, 4, (40,)))
        self.stream = DataLoader(rows, batch_size=5, shuffle=True)
        self.grader = Grader()
        self.mover = torch.optim.SGD(self.grader.parameters(), lr=rate)

    def drill(self, sweeps):
        for sweep in range(sweeps):
            for xb, yb in self.stream:
                self.mover.zero_grad()
                loss = self.grader.fault(xb, yb)
                loss.backward()
                self.mover.step()


if __name__ == "__main__":
    Tutor().drill(2)
)";

std::string replaced(std::string text, const std::string& key, const std::string& value)
{
    text.replace(text.find(key), key.size(), value);
    return text;
}

// A PopTorch project written by hand: a wrapper handed to trainingModel whose forward returns a
// method of the module it builds (%BUILD%) or is given.
const char* const HandWritten = R"(import torch
import torch.nn as nn
import torch.nn.functional as F
import poptorch


class Grader(nn.Module):
    def __init__(self):
        super().__init__()
        self.lens = nn.Linear(5, 4)

    def forward(self, feats):
        return self.lens(feats).argmax(1)

    def fault(self, feats, marks):
        return F.nll_loss(self.lens(feats).log_softmax(1), marks)

    def embed(self, feats, marks):
        return self.lens(feats)


class Wrapped(nn.Module):
    def __init__(self, given):
        super().__init__()
        self.inner = %BUILD%

    def forward(self, feats, marks):
        return self.inner.%METHOD%(feats, marks)


grader = Grader()
mover = poptorch.optim.SGD(grader.parameters(), lr=0.05)
runner = poptorch.trainingModel(Wrapped(grader), options=poptorch.Options(), optimizer=mover)
runner(torch.randn(5, 5), torch.randint(0, 4, (5,)))
)";

// What the forward-loss check's message says.
const char* const LossFromForward = "poptorch.trainingModel needs the loss from forward";

} // namespace

class TestPortMethodLoss : public QObject
{
    Q_OBJECT
private slots:
    void methodLossVerifies_data()
    {
        QTest::addColumn<QString>("script");
        QTest::addColumn<QString>("target");
        QTest::addColumn<QString>("call");
        struct Form
        {
            const char* name;
            std::string script;
            std::string call; // the loss method's call the port keeps
        };
        const auto script = [](const std::string& tail, const std::string& step,
                               const std::string& after = {}) {
            return replaced(Model, "%TAIL%", tail) +
                   replaced(replaced(Script, "%STEP%", step), "%AFTER%", after);
        };
        const std::vector<Form> forms{
            {"inputs and labels", script("", "            loss = grader.fault(xb, yb)\n"),
             ".fault(xb, yb)"},
            // The method's own keyword parameter, given in the step.
            {"own keyword",
             script("", "            loss = grader.fault(xb, yb, reduction=\"sum\")\n"),
             ".fault(xb, yb, reduction=\"sum\")"},
            {"no loss function inside", script("", "            loss = grader.surprise(xb, yb)\n"),
             ".surprise(xb, yb)"},
            {"forward decides", script(".argmax(1)", "            loss = grader.fault(xb, yb)\n"),
             ".fault(xb, yb)"},
            // forward called in the step too; what works today stays.
            {"forward also called",
             script("", "            guess = grader(xb)\n"
                        "            loss = grader.fault(xb, yb)\n"),
             ".fault(xb, yb)"},
            // The evaluation calls forward: the inference model's pass is unchanged.
            {"evaluated by forward",
             script(".argmax(1)", "            loss = grader.fault(xb, yb)\n",
                    "        grader.eval()\n"
                    "        hits = 0\n"
                    "        with torch.no_grad():\n"
                    "            for xv, yv in stream:\n"
                    "                hits += (grader(xv) == yv).sum().item()\n"
                    "        print('hits', hits)\n"
                    "        grader.train()\n"),
             ".fault(xb, yb)"},
            {"trainer class", replaced(Model, "%TAIL%", "") + Tutor, ".fault(xb, yb)"},
        };
        const char* const targets[][2] = {{"determined", "determined-pytorchtrial"},
                                          {"poptorch", "graphcore-poptorch"},
                                          {"cerebras", "cerebras-pytorch"}};
        for (const auto& f : forms)
            for (const auto& t : targets)
                QTest::addRow("%s, %s", f.name, t[0])
                    << QString::fromStdString(f.script) << t[1] << QString::fromStdString(f.call);
    }
    // The port is full, keeps the model class and the method's call as the step wrote it, and
    // trains like the original with a clean check.
    void methodLossVerifies()
    {
        QFETCH(QString, script);
        QFETCH(QString, target);
        QFETCH(QString, call);
        QTemporaryDir dir;
        const fs::path root = fs::path(dir.path().toStdString()) / "original";
        auto r = generate(root, script.toStdString(), target.toStdString());
        QVERIFY2(r, r ? "" : r.error.message.c_str());
        const std::string text = allText(*r.value);
        QVERIFY2(r.value->full(), (manualText(*r.value) + "---\n" + text).c_str());
        PORT_VERIFY_CONTAINS(text, QStringList({call, "    def fault(self, feats, marks, "
                                                      "reduction=\"mean\"):"}));
        QVERIFY2(!has(text, ".backward()"), text.c_str());
        PORT_SKIP_WITHOUT_TORCH();
        PORT_VERIFY_PROOF(writeAndVerify(root, *r.value));
    }

    void handWrittenWrapper_data()
    {
        QTest::addColumn<QString>("build");
        QTest::addColumn<QString>("method");
        QTest::addColumn<int>("errors");
        QTest::newRow("built, loss method") << "Grader()"
                                            << "fault" << 0;
        // The wrapped module is given: its class cannot be told, so the check cannot fault it.
        QTest::newRow("given, loss method") << "given"
                                            << "fault" << 0;
        QTest::newRow("built, method computes no loss") << "Grader()"
                                                        << "embed" << 1;
    }
    // The check follows the wrapper's call into the method of the module it wraps, and still
    // reports one whose method computes no loss.
    void handWrittenWrapper()
    {
        QFETCH(QString, build);
        QFETCH(QString, method);
        QFETCH(int, errors);
        QTemporaryDir dir;
        const fs::path root = fs::path(dir.path().toStdString()) / "project";
        writeOriginal(root, replaced(replaced(HandWritten, "%BUILD%", build.toStdString()),
                                     "%METHOD%", method.toStdString()));
        std::string said;
        QVERIFY(checkErrors(root, "graphcore-poptorch", &said) >= 0);
        // Only the forward-loss check's errors: the project is not meant to pass the others.
        int found = 0;
        for (auto at = said.find(LossFromForward); at != std::string::npos;
             at = said.find(LossFromForward, at + 1))
            ++found;
        QVERIFY2(found == errors, said.c_str());
    }
};

QTEST_GUILESS_MAIN(TestPortMethodLoss)
#include "test_port_method_loss.moc"
