// A trainer class that builds its own state on `self` (issue 24, D4): `__init__` sets
// `self.net = ...`, `self.opt = optim.X(self.net.parameters(), ...)`, `self.crit = ...`,
// `self.batches = DataLoader(...)`, and another method runs the loop. The port reads each such
// attribute as a name of the constructor's scope, with the constructor's parameters given by the
// instantiation (a literal, a flag) or their default, and every target builds the model, the
// optimizer and the data from the same expressions. Also: Determined's step-optimizer check
// knows the trial's optimizer by what it wraps, not by its name. Each row is a fixture written
// for the pattern.
#include "tests/port/port_fixture.h"

#include <QObject>
#include <QTemporaryDir>
#include <QTest>

using namespace portolan;
using namespace portfixture;

namespace {

// %INIT% is the class's constructor (and helpers), %METHODS% its training methods, %MAIN% the
// body of main().
const char* const Template = R"(import argparse

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

parser = argparse.ArgumentParser()
parser.add_argument("--rate", type=float, default=0.1)
args = parser.parse_args()


class Coach:
%INIT%
%METHODS%

def main():
%MAIN%


if __name__ == "__main__":
    main()
)";

// The constructor builds everything, its sizes from its parameters.
const char* const BuildsAll = R"(    def __init__(self, width=6, rate=0.05, rounds=2, chunk=4):
        self.rounds = rounds
        torch.manual_seed(0)
        points = TensorDataset(torch.randn(24, 5), torch.randint(0, 3, (24,)))
        self.batches = DataLoader(points, batch_size=chunk, shuffle=False)
        self.net = nn.Sequential(nn.Linear(5, width), nn.ReLU(), nn.Linear(width, 3))
        self.crit = nn.CrossEntropyLoss()
        self.opt = torch.optim.SGD(self.net.parameters(), lr=rate))";

// The constructor takes the loader and builds the rest.
const char* const TakesLoader = R"(    def __init__(self, batches, rate=0.05, rounds=2):
        self.rounds = rounds
        self.batches = batches
        self.net = nn.Sequential(nn.Linear(5, 6), nn.ReLU(), nn.Linear(6, 3))
        self.crit = nn.CrossEntropyLoss()
        self.opt = torch.optim.SGD(self.net.parameters(), lr=rate))";

// The constructor picks a device and moves the model; the loop moves the batches.
const char* const OnDevice = R"(    def __init__(self, rate=0.05, rounds=2):
        self.rounds = rounds
        self.device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
        torch.manual_seed(0)
        points = TensorDataset(torch.randn(24, 5), torch.randint(0, 3, (24,)))
        self.batches = DataLoader(points, batch_size=4, shuffle=False)
        self.net = nn.Sequential(nn.Linear(5, 6), nn.ReLU(), nn.Linear(6, 3)).to(self.device)
        self.crit = nn.CrossEntropyLoss()
        self.opt = torch.optim.SGD(self.net.parameters(), lr=rate))";

// The constructor asks a method of the class for its optimizer (`configure_optimizers`), which
// reads an attribute stored from a parameter.
const char* const AsksForOptimizer = R"(    def __init__(self, rate=0.05, rounds=2):
        self.rounds = rounds
        self.rate = rate
        torch.manual_seed(0)
        points = TensorDataset(torch.randn(24, 5), torch.randint(0, 3, (24,)))
        self.batches = DataLoader(points, batch_size=4, shuffle=False)
        self.net = nn.Sequential(nn.Linear(5, 6), nn.ReLU(), nn.Linear(6, 3))
        self.crit = nn.CrossEntropyLoss()
        self.opt = self.configure_optimizers()

    def configure_optimizers(self):
        return torch.optim.SGD(self.net.parameters(), lr=self.rate))";

// The constructor also builds held-out data, which another method evaluates the model on.
const char* const WithHeldOut = R"(    def __init__(self, rate=0.05, rounds=2):
        self.rounds = rounds
        torch.manual_seed(0)
        points = TensorDataset(torch.randn(24, 5), torch.randint(0, 3, (24,)))
        held = TensorDataset(torch.randn(8, 5), torch.randint(0, 3, (8,)))
        self.batches = DataLoader(points, batch_size=4, shuffle=False)
        self.checks = DataLoader(held, batch_size=8)
        self.net = nn.Sequential(nn.Linear(5, 6), nn.ReLU(), nn.Linear(6, 3))
        self.crit = nn.CrossEntropyLoss()
        self.opt = torch.optim.SGD(self.net.parameters(), lr=rate)

    def review(self):
        self.net.eval()
        missed = 0
        with torch.no_grad():
            for xb, yb in self.checks:
                missed += (self.net(xb).argmax(1) != yb).sum().item()
        return missed)";

// The model, its optimizer and the loader handed to the constructor, which builds the criterion.
const char* const TakesModel = R"(    def __init__(self, net, opt, batches, rounds):
        self.net = net
        self.opt = opt
        self.batches = batches
        self.rounds = rounds
        self.crit = nn.CrossEntropyLoss())";

const char* const MakesModel = R"(    torch.manual_seed(0)
    points = TensorDataset(torch.randn(24, 5), torch.randint(0, 3, (24,)))
    batches = DataLoader(points, batch_size=4, shuffle=False)
    net = nn.Sequential(nn.Linear(5, 6), nn.ReLU(), nn.Linear(6, 3))
    opt = torch.optim.SGD(net.parameters(), lr=args.rate)
    Coach(net, opt, batches, 2).season())";

const char* const LoopInMethod = R"(
    def season(self):
        self.net.train()
        for r in range(self.rounds):
            for xb, yb in self.batches:
                self.opt.zero_grad()
                err = self.crit(self.net(xb), yb)
                err.backward()
                self.opt.step()
)";

const char* const LoopInHelper = R"(
    def season(self):
        for r in range(self.rounds):
            self.one_round()

    def one_round(self):
        self.net.train()
        for xb, yb in self.batches:
            self.opt.zero_grad()
            err = self.crit(self.net(xb), yb)
            err.backward()
            self.opt.step()
)";

const char* const LoopMovesBatches = R"(
    def season(self):
        for r in range(self.rounds):
            for xb, yb in self.batches:
                xb, yb = xb.to(self.device), yb.to(self.device)
                self.opt.zero_grad()
                err = self.crit(self.net(xb), yb)
                err.backward()
                self.opt.step()
)";

const char* const MakesLoader = R"(    torch.manual_seed(0)
    points = TensorDataset(torch.randn(24, 5), torch.randint(0, 3, (24,)))
    batches = DataLoader(points, batch_size=4, shuffle=False)
    Coach(batches, rate=args.rate).season())";

// The model and the loader handed to the constructor, which stores them under its own names and
// builds the optimizer over the stored model (%STORE% is how it stores the model).
const char* const TakesNet = R"(    def __init__(self, net, batches, rate=0.05, rounds=2):
        %STORE%
        self.batches = batches
        self.rounds = rounds
        self.crit = nn.CrossEntropyLoss()
        self.opt = torch.optim.SGD(self.net.parameters(), lr=rate))";

// main() builds the model and the loader and hands them over (%RUN% makes the instance and
// runs it).
const char* const HandsNet = R"(    torch.manual_seed(0)
    points = TensorDataset(torch.randn(24, 5), torch.randint(0, 3, (24,)))
    batches = DataLoader(points, batch_size=4, shuffle=False)
    net = nn.Sequential(nn.Linear(5, 6), nn.ReLU(), nn.Linear(6, 3))
%RUN%)";

std::string fill(std::string text, const std::map<std::string, std::string>& parts)
{
    for (const auto& [key, value] : parts)
        for (auto p = text.find(key); p != std::string::npos; p = text.find(key))
            text.replace(p, key.size(), value);
    return text;
}

// A Determined trial whose optimizer the rows name and step: %INIT% follows the context,
// %STEP% follows the backward.
const char* const TrialTemplate = R"(import torch
import torch.nn as nn
from determined.pytorch import DataLoader, PyTorchTrial


class Clock:
    def __init__(self):
        self.ticks = 0

    def step(self):
        self.ticks += 1


class Drill(PyTorchTrial):
    def __init__(self, context):
        self.context = context
        self.net = self.context.wrap_model(nn.Linear(3, 2))
%INIT%

    def build_training_data_loader(self):
        data = torch.utils.data.TensorDataset(torch.randn(8, 3), torch.randint(0, 2, (8,)))
        return DataLoader(data, batch_size=self.context.get_per_slot_batch_size())

    def build_validation_data_loader(self):
        return self.build_training_data_loader()

    def train_batch(self, batch, epoch_idx, batch_idx):
        x, y = batch
        loss = nn.functional.cross_entropy(self.net(x), y)
        self.context.backward(loss)
%STEP%
        return {"loss": loss}

    def evaluate_batch(self, batch):
        x, y = batch
        return {"validation_loss": nn.functional.cross_entropy(self.net(x), y)}
)";

// The step-optimizer check's findings on a trial, one a line.
std::string stepOptimizerFindings(const fs::path& root)
{
    const guides::GuideSet set = guides::loadGuides(resourcesDir() / "guides");
    const guides::Guide* guide = set.find("determined-pytorchtrial");
    auto a = analysis::analyzeProject(root);
    if (!guide || !a)
        return "no guide or analysis\n";
    std::string said;
    for (const auto& f : guides::runGuide(*guide, *a.value).allFindings())
        if (f.checkId == "determined-pytorchtrial.step-optimizer")
            said += f.location.toString() + " " + f.message + "\n";
    return said;
}

} // namespace

class TestPortTrainerClass : public QObject
{
    Q_OBJECT

private slots:
    void stateOnSelfVerifies_data()
    {
        QTest::addColumn<QString>("init");
        QTest::addColumn<QString>("methods");
        QTest::addColumn<QString>("main");
        QTest::addColumn<QString>("target");
        QTest::addColumn<QStringList>("expected"); // lines the port has
        const struct
        {
            const char* name;
            const char* init;
            const char* methods;
            const char* main;
            QStringList determined, poptorch, cerebras;
        } shapes[] = {
            // The defaults and a flag passed by keyword.
            {"loop in the method", BuildsAll, LoopInMethod, "    Coach(rate=args.rate).season()",
             {"torch.manual_seed(0)\n        net = nn.Sequential(", "nn.Linear(5, 6)",
              "opt = torch.optim.SGD(net.parameters(), "
                                 "lr=self.context.get_hparam(\"rate\"))",
              "opt = self.context.wrap_optimizer(opt)", "self.context.step_optimizer(self.opt)",
              "batch_size=self.context.get_per_slot_batch_size()"},
             {"torch.manual_seed(0)\n    net = nn.Sequential(",
              "opt = torch.optim.SGD(net.parameters(), lr=args.rate)", "batch_size=4",
              "TrainingModel(net, crit=crit)", "for epoch in range(2):"},
             {"self.model = net", "learning_rate: 0.1", "batch_size: 4"}},
            // A literal passed by position; the loop in a helper the epoch loop calls.
            {"loop in a helper", BuildsAll, LoopInHelper,
             "    coach = Coach(8, args.rate)\n    coach.season()",
             {"nn.Linear(5, 8)", "self.context.step_optimizer(self.opt)"},
             {"nn.Linear(5, 8)", "opt = torch.optim.SGD(net.parameters(), lr=args.rate)"},
             {"nn.Linear(5, 8)", "learning_rate: 0.1"}},
            // The loader handed to the constructor, the rest built in it.
            {"loader passed in", TakesLoader, LoopInHelper, MakesLoader,
             {"opt = self.context.wrap_optimizer(opt)", "batch_size=self.context."},
             {"TrainingModel(net, crit=crit)", "batch_size=4"},
             {"self.model = net", "batch_size: 4"}},
            // `self.device`: the model's and the batches' moves are the target's.
            {"device moves", OnDevice, LoopMovesBatches, "    Coach(rate=args.rate).season()",
             {"net = nn.Sequential(nn.Linear(5, 6), nn.ReLU(), nn.Linear(6, 3))\n"},
             {"net = nn.Sequential(nn.Linear(5, 6), nn.ReLU(), nn.Linear(6, 3))\n"},
             {"net = nn.Sequential(nn.Linear(5, 6), nn.ReLU(), nn.Linear(6, 3))\n"}},
            // The optimizer a method of the class returns, its rate the flag.
            {"optimizer from a method", AsksForOptimizer, LoopInMethod,
             "    Coach(rate=args.rate).season()",
             {"opt = torch.optim.SGD(net.parameters(), lr=self.context.get_hparam(\"rate\"))"},
             {"opt = torch.optim.SGD(net.parameters(), lr=args.rate)"},
             {"optimizer_type: \"SGD\"\n  learning_rate: 0.1"}},
            // Held-out data evaluated in another method: the target's validation data.
            {"evaluation in a method", WithHeldOut, LoopInHelper,
             "    Coach(rate=args.rate).season()",
             {"def build_validation_data_loader(self) -> DataLoader:\n"
              "        held = TensorDataset(torch.randn(8, 5), torch.randint(0, 3, (8,)))\n"},
             {"TrainingModel(net, crit=crit)"},
             {"self.model = net"}},
            // Handed the model and the optimizer (main() builds them), building only the
            // criterion: the model is main()'s, not looked up in the constructor.
            {"model passed in", TakesModel, LoopInMethod, MakesModel,
             {"net = nn.Sequential(nn.Linear(5, 6)", "self.context.step_optimizer(self.opt)"},
             {"TrainingModel(net, crit=crit)", "for epoch in range(2):"},
             {"self.model = net", "self.crit = crit"}},
        };
        for (const auto& s : shapes) {
            QTest::newRow((std::string(s.name) + ", determined").c_str())
                << s.init << s.methods << s.main << "determined-pytorchtrial" << s.determined;
            QTest::newRow((std::string(s.name) + ", poptorch").c_str())
                << s.init << s.methods << s.main << "graphcore-poptorch" << s.poptorch;
            QTest::newRow((std::string(s.name) + ", cerebras").c_str())
                << s.init << s.methods << s.main << "cerebras-pytorch" << s.cerebras;
        }
    }
    void stateOnSelfVerifies()
    {
        QFETCH(QString, init);
        QFETCH(QString, methods);
        QFETCH(QString, main);
        QFETCH(QString, target);
        QFETCH(QStringList, expected);
        QTemporaryDir dir;
        const fs::path root = fs::path(dir.path().toStdString()) / "orig";
        auto r = generate(root,
                          fill(Template, {{"%INIT%", init.toStdString()},
                                          {"%METHODS%", methods.toStdString()},
                                          {"%MAIN%", main.toStdString()}}),
                          target.toStdString());
        QVERIFY2(r, r ? "" : r.error.message.c_str());
        const std::string text = allText(*r.value);
        QVERIFY2(r.value->manual.empty(), manualText(*r.value).c_str());
        PORT_VERIFY_CONTAINS(text, expected);
        // The attributes are the target's own names, never an attribute of an attribute, a
        // loader over the loop's values, or a device move.
        PORT_VERIFY_ABSENT(text, QStringList({"self.self.", "LoopValues", ".to(self.device)",
                                              "self.batches", "self.net", "self.rate", "self.checks",
                                              "configure_optimizers"}));
        PORT_SKIP_WITHOUT_TORCH();
        PORT_VERIFY_PROOF(writeAndVerify(root, *r.value));
    }

    // The caller builds the model and hands it to the constructor (`self.net = net`): the
    // attribute is the constructor's name for the caller's value, so the port builds the model
    // once, where the caller builds it, and the binding is no statement of the port (Determined
    // wraps the model once; PopTorch's main() has no `self`).
    void modelFromTheCaller_data()
    {
        QTest::addColumn<QString>("store");
        QTest::addColumn<QString>("run");
        QTest::addColumn<QString>("target");
        const struct
        {
            const char* name;
            const char* store;
            const char* run;
        } shapes[] = {
            {"inline instance", "self.net = net",
             "    Coach(net, batches, rate=args.rate).season()"},
            {"bound instance", "self.net = net",
             "    coach = Coach(net, batches, rate=args.rate)\n    coach.season()"},
            {"moved to a device", "self.net = net.to(torch.device(\"cpu\"))",
             "    Coach(net, batches, rate=args.rate).season()"},
        };
        for (const auto& s : shapes)
            for (const char* target :
                 {"determined-pytorchtrial", "graphcore-poptorch", "cerebras-pytorch"})
                QTest::newRow((std::string(s.name) + ", " + target).c_str())
                    << s.store << s.run << target;
    }
    void modelFromTheCaller()
    {
        QFETCH(QString, store);
        QFETCH(QString, run);
        QFETCH(QString, target);
        QTemporaryDir dir;
        const fs::path root = fs::path(dir.path().toStdString()) / "orig";
        const std::string init = fill(TakesNet, {{"%STORE%", store.toStdString()}});
        const std::string main = fill(HandsNet, {{"%RUN%", run.toStdString()}});
        auto r = generate(
            root, fill(Template, {{"%INIT%", init}, {"%METHODS%", LoopInMethod}, {"%MAIN%", main}}),
            target.toStdString());
        QVERIFY2(r, r ? "" : r.error.message.c_str());
        const std::string text = allText(*r.value);
        QVERIFY2(r.value->full(), manualText(*r.value).c_str());
        PORT_VERIFY_ABSENT(text, QStringList({"self.net", "= net.to(", "model=net"}));
        int built = 0, wrapped = 0;
        for (auto at = text.find("nn.Sequential("); at != std::string::npos;
             at = text.find("nn.Sequential(", at + 1))
            ++built;
        for (auto at = text.find("wrap_model("); at != std::string::npos;
             at = text.find("wrap_model(", at + 1))
            ++wrapped;
        QVERIFY2(built == 1 && wrapped == (target == "determined-pytorchtrial" ? 1 : 0),
                 text.c_str());
        PORT_SKIP_WITHOUT_TORCH();
        PORT_VERIFY_PROOF(writeAndVerify(root, *r.value));
    }

    void stepOptimizerOfAnyName_data()
    {
        QTest::addColumn<QString>("init");
        QTest::addColumn<QString>("step");
        QTest::addColumn<bool>("reported");
        const QString wrapped = "        self.sgd = self.context.wrap_optimizer(\n"
                                "            torch.optim.SGD(self.net.parameters(), lr=0.1))";
        QTest::newRow("stepped by hand") << wrapped << "        self.sgd.step()" << true;
        QTest::newRow("stepped by the context")
            << wrapped << "        self.context.step_optimizer(self.sgd)" << false;
        QTest::newRow("wrapped, then stored")
            << "        sgd = torch.optim.SGD(self.net.parameters(), lr=0.1)\n"
               "        sgd = self.context.wrap_optimizer(sgd)\n"
               "        self.trainer_opt = sgd"
            << "        self.trainer_opt.step()" << true;
        // Something else with a step() (a counter the trial keeps) is not an optimizer.
        QTest::newRow("another step()")
            << wrapped + "\n        self.clock = Clock()"
            << "        self.context.step_optimizer(self.sgd)\n        self.clock.step()" << false;
    }
    void stepOptimizerOfAnyName()
    {
        QFETCH(QString, init);
        QFETCH(QString, step);
        QFETCH(bool, reported);
        QTemporaryDir dir;
        const fs::path root = fs::path(dir.path().toStdString()) / "trial";
        writeOriginal(root,
                      fill(TrialTemplate,
                           {{"%INIT%", init.toStdString()}, {"%STEP%", step.toStdString()}}),
                      "model_def.py");
        const std::string said = stepOptimizerFindings(root);
        if (reported)
            QVERIFY2(has(said, ".step() bypasses Determined"), said.c_str());
        else
            QVERIFY2(said.empty(), said.c_str());
    }
};

QTEST_GUILESS_MAIN(TestPortTrainerClass)
#include "test_port_trainer_class.moc"
