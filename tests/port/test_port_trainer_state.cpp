// A trainer class that keeps its model, optimizer and loader on `self` (issue 24, D4). What is
// here: the Determined check sees a trial attribute read where the trial never set it (a
// doubled `self.self.x`, an attribute no method assigns, one `__init__` reads before it assigns
// it), so a port that reads such attributes is not reported clean. Each row is a fixture
// written for the pattern.
#include "tests/port/port_fixture.h"

#include <QObject>
#include <QTemporaryDir>
#include <QTest>

using namespace portolan;
using namespace portfixture;

namespace {

// A trial in model_def.py: %INIT% is __init__'s body after the context, %STEP% train_batch's.
const char* const TrialTemplate = R"(import torch
import torch.nn as nn
from determined.pytorch import DataLoader, PyTorchTrial


class Tiny(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(3, 2)

    def forward(self, x):
        return self.fc(x)


class Helper:
    def __init__(self):
        self.scale = 2


class %CLASS%:
    def __init__(self, context):
        self.context = context
%INIT%

    def build_training_data_loader(self):
        self.seen = 0
        data = torch.utils.data.TensorDataset(torch.randn(8, 3), torch.randint(0, 2, (8,)))
        return DataLoader(data, batch_size=self.context.get_per_slot_batch_size())

    def build_validation_data_loader(self):
        return self.build_training_data_loader()

    def train_batch(self, batch, epoch_idx, batch_idx):
        x, y = batch
%STEP%
        self.context.backward(loss)
        return {"loss": loss}

    def evaluate_batch(self, batch):
        x, y = batch
        return {"validation_loss": nn.functional.cross_entropy(self.net(x), y)}
)";

std::string fill(std::string text, const std::map<std::string, std::string>& parts)
{
    for (const auto& [key, value] : parts)
        for (auto p = text.find(key); p != std::string::npos; p = text.find(key))
            text.replace(p, key.size(), value);
    return text;
}

// The messages of the check on attributes, one a line.
std::string attributeErrors(const fs::path& root)
{
    std::string said;
    checkErrors(root, "determined-pytorchtrial", &said);
    std::string mine;
    std::size_t pos = 0;
    while (pos < said.size()) {
        auto e = said.find('\n', pos);
        if (e == std::string::npos)
            e = said.size();
        const std::string line = said.substr(pos, e - pos);
        if (has(line, "' is read in "))
            mine += line + "\n";
        pos = e + 1;
    }
    return mine;
}

} // namespace

class TestPortTrainerState : public QObject
{
    Q_OBJECT

private slots:
    void trialAttributeReadButNeverSet_data()
    {
        QTest::addColumn<QString>("cls");
        QTest::addColumn<QString>("init");
        QTest::addColumn<QString>("step");
        QTest::addColumn<QString>("expected"); // "" : the check says nothing

        const QString init = "        self.net = self.context.wrap_model(Tiny())\n"
                             "        self.opt = self.context.wrap_optimizer(\n"
                             "            torch.optim.SGD(self.net.parameters(), lr=0.1))";
        const QString step = "        loss = nn.functional.cross_entropy(self.net(x), y)\n"
                             "        self.context.step_optimizer(self.opt)";
        QTest::newRow("a clean trial") << "Run(PyTorchTrial)" << init << step << "";
        QTest::newRow("a doubled self")
            << "Run(PyTorchTrial)" << init
            << "        loss = nn.functional.cross_entropy(self.net(x), "
               "y)\n        self.context.step_optimizer(self.self.opt)"
            << "'self.self' is read in Run.train_batch() but Run sets "
               "self.self nowhere";
        QTest::newRow("never set") << "Run(PyTorchTrial)"
                                   << "        self.net = self.context.wrap_model(Tiny())" << step
                                   << "'self.opt' is read in Run.train_batch() but Run sets "
                                      "self.opt nowhere";
        QTest::newRow("read before set in __init__")
            << "Run(PyTorchTrial)"
            << "        self.net = self.context.wrap_model(self.net)\n"
               "        self.opt = self.context.wrap_optimizer(\n"
               "            torch.optim.SGD(self.net.parameters(), lr=0.1))"
            << step
            << "'self.net' is read in Run.__init__() but __init__ sets it only after this line";
        // Set by a method Determined calls before the step (build_training_data_loader): not an
        // error, whatever the order the methods are written in.
        QTest::newRow("set in another method")
            << "Run(PyTorchTrial)" << init
            << "        self.seen += 1\n"
               "        loss = nn.functional.cross_entropy(self.net(x), y)\n"
               "        self.context.step_optimizer(self.opt)"
            << "";
        // A project base class may set what the class reads: not judged.
        QTest::newRow("a project base")
            << "Run(Helper, PyTorchTrial)" << init
            << "        loss = nn.functional.cross_entropy(self.net(x), "
               "y) * self.scale\n        "
               "self.context.step_optimizer(self.opt)"
            << "";
    }
    void trialAttributeReadButNeverSet()
    {
        QFETCH(QString, cls);
        QFETCH(QString, init);
        QFETCH(QString, step);
        QFETCH(QString, expected);
        QTemporaryDir dir;
        const fs::path root = fs::path(dir.path().toStdString()) / "trial";
        writeOriginal(root,
                      fill(TrialTemplate, {{"%CLASS%", cls.toStdString()},
                                           {"%INIT%", init.toStdString()},
                                           {"%STEP%", step.toStdString()}}),
                      "model_def.py");
        const std::string said = attributeErrors(root);
        if (expected.isEmpty())
            QVERIFY2(said.empty(), said.c_str());
        else
            QVERIFY2(has(said, expected.toStdString()), said.c_str());
    }
};

QTEST_GUILESS_MAIN(TestPortTrainerState)
#include "test_port_trainer_state.moc"
