// The values a port's configuration carries from the original's run (issue 24, D5): the
// training batch size, the epochs and the Cerebras steps, taken from what the original really
// uses (a flag, a literal, a constant of the script, a parameter's default, the loop around a
// call of the training function), the same on every target, with where each comes from; a value
// the port has to make up says so in the config and in a note. Each row is a fixture written for
// the pattern.
#include "tests/port/port_fixture.h"

#include <QObject>
#include <QTemporaryDir>
#include <QTest>

using namespace portolan;
using namespace portfixture;

namespace {

// A script whose batch size and epoch loop are filled in by the rows: %TOP% (module-level
// definitions), %BATCH% (the loader's batch_size), %PARAMS% (fit()'s parameters), %LOOP% (the
// epoch loop's header, or "" for none) and %CALL% (how fit() is called).
const char* const Template = R"(import argparse

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

parser = argparse.ArgumentParser()
parser.add_argument("--lr", type=float, default=0.05)
parser.add_argument("--rounds", type=int, default=7)
parser.add_argument("--bsz", type=int, default=6)
args = parser.parse_args()

%TOP%

def fit(%PARAMS%):
    torch.manual_seed(0)
    points = TensorDataset(torch.randn(40, 5), torch.randint(0, 2, (40,)))
    feeder = DataLoader(points, batch_size=%BATCH%, shuffle=False)
    net = nn.Sequential(nn.Linear(5, 4), nn.ReLU(), nn.Linear(4, 2))
    crit = nn.CrossEntropyLoss()
    sgd = torch.optim.SGD(net.parameters(), lr=args.lr)
%LOOP%
        for xb, yb in feeder:
            sgd.zero_grad()
            err = crit(net(xb), yb)
            err.backward()
            sgd.step()


%CALL%
)";

// A trainer class whose method holds the epoch loop, the epochs given by its callers: %CALL% is
// the module's code that builds a trainer and calls its method.
const char* const TrainerTemplate = R"(import argparse

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

parser = argparse.ArgumentParser()
parser.add_argument("--rounds", type=int, default=7)
args = parser.parse_args()


class Coach:
    def __init__(self, net):
        self.net = net
        self.crit = nn.CrossEntropyLoss()
        self.sgd = torch.optim.SGD(net.parameters(), lr=0.05)
        points = TensorDataset(torch.randn(40, 5), torch.randint(0, 2, (40,)))
        self.feeder = DataLoader(points, batch_size=8, shuffle=False)

    def fit(self, passes):
        for ep in range(passes):
            for xb, yb in self.feeder:
                self.sgd.zero_grad()
                err = self.crit(self.net(xb), yb)
                err.backward()
                self.sgd.step()


class Recorder:
    def fit(self, passes):
        return passes


torch.manual_seed(0)
%CALL%
)";

std::string fill(std::string text, const std::map<std::string, std::string>& parts)
{
    for (const auto& [key, value] : parts)
        for (auto p = text.find(key); p != std::string::npos; p = text.find(key))
            text.replace(p, key.size(), value);
    return text;
}

// The epoch loop around the batch loop; without one, the batch loop keeps its indentation under
// an `if True:` so the template stays one shape.
std::string loopOf(const std::string& header)
{
    return header.empty() ? "    if True:" : "    " + header;
}

// The text of the generated file whose path ends with `suffix`.
std::string fileText(const port::PortResult& r, const std::string& suffix)
{
    for (const auto& g : r.files)
        if (g.path.ends_with(suffix))
            return g.text;
    return {};
}

std::string notesText(const port::PortResult& r)
{
    std::string all;
    for (const auto& n : r.notes)
        all += n + "\n";
    return all;
}

} // namespace

class TestPortRunValues : public QObject
{
    Q_OBJECT

private slots:
    // Each target's configuration for one way of giving the batch size and the epochs.
    void configCarriesTheValues_data()
    {
        QTest::addColumn<QString>("top");
        QTest::addColumn<QString>("params");
        QTest::addColumn<QString>("batch");
        QTest::addColumn<QString>("loop");
        QTest::addColumn<QString>("call");
        QTest::addColumn<QString>("batchValue"); // what every target's config must say
        QTest::addColumn<QString>("epochValue");
        QTest::addColumn<QString>("popLoop");   // PopTorch's epoch loop header
        QTest::addColumn<QString>("batchFrom"); // in the comment of the batch size
        QTest::addColumn<QString>("epochFrom"); // in the comment of the epochs
        QTest::addColumn<bool>("madeUp");       // a note says a value is made up

        QTest::newRow("module constants") << "CHUNK = 8\nPASSES = 4"
                                          << ""
                                          << "CHUNK"
                                          << "for ep in range(PASSES):"
                                          << "fit()"
                                          << "8"
                                          << "4"
                                          << "for epoch in range(4):"
                                          << "`CHUNK = 8` (main.py:"
                                          << "`PASSES = 4` (main.py:" << false;
        QTest::newRow("literals") << ""
                                  << ""
                                  << "10"
                                  << "for ep in range(5):"
                                  << "fit()"
                                  << "10"
                                  << "5"
                                  << "for epoch in range(5):"
                                  << "batch_size=10 in the training DataLoader"
                                  << "`for ep in range(5)`" << false;
        QTest::newRow("flags, range from one") << ""
                                               << ""
                                               << "args.bsz"
                                               << "for ep in range(1, args.rounds + 1):"
                                               << "fit()"
                                               << "6"
                                               << "7"
                                               // PopTorch keeps the original's own range
                                               // (epoch numbers a decay reads stay its own).
                                               << "for epoch in range(1, args.rounds + 1):"
                                               << ""
                                               << "the flag --rounds" << false;
        QTest::newRow("a constant holding a flag") << "size = args.bsz"
                                                   << ""
                                                   << "size"
                                                   << "for ep in range(3):"
                                                   << "fit()"
                                                   << "6"
                                                   << "3"
                                                   << "for epoch in range(3):"
                                                   << ""
                                                   << "`for ep in range(3)`" << false;
        // A header written over two lines is quoted on one: a newline in the comment would end
        // it, and the rest of the quote would break const.yaml, params.yaml and train.py.
        QTest::newRow("a loop header over two lines") << ""
                                                      << ""
                                                      << "10"
                                                      << "for ep in range(\n            5):"
                                                      << "fit()"
                                                      << "10"
                                                      << "5"
                                                      << "for epoch in range(5):  # `for ep in "
                                                         "range( 5)`"
                                                      << "batch_size=10 in the training DataLoader"
                                                      << "`for ep in range( 5)`" << false;
        QTest::newRow("parameter defaults") << ""
                                            << "per_step=5, cycles=2"
                                            << "per_step"
                                            << "for ep in range(cycles):"
                                            << "fit()"
                                            << "5"
                                            << "2"
                                            << "for epoch in range(2):"
                                            << "the default `per_step=5` of fit()"
                                            << "the default `cycles=2` of fit()" << false;
        // A name of another function is another variable: the parameter's default counts.
        QTest::newRow("a same name in another function")
            << "def unrelated():\n    per_step = 99\n    return per_step\n"
            << "per_step=5, cycles=2"
            << "per_step"
            << "for ep in range(cycles):"
            << "fit()"
            << "5"
            << "2"
            << "for epoch in range(2):"
            << "the default `per_step=5` of fit()"
            << "the default `cycles=2` of fit()" << false;
        QTest::newRow("epoch loop around the call") << "STEPS_OF = 4\nTIMES = 3"
                                                    << ""
                                                    << "STEPS_OF"
                                                    << ""
                                                    << "for t in range(TIMES):\n    fit()"
                                                    << "4"
                                                    << "3"
                                                    << "for epoch in range(3):"
                                                    << "`STEPS_OF = 4`"
                                                    << "`TIMES = 3`" << false;
        QTest::newRow("no epoch loop: one pass") << ""
                                                 << ""
                                                 << "4"
                                                 << ""
                                                 << "fit()"
                                                 << "4"
                                                 << "1"
                                                 << "for epoch in range(1):"
                                                 << "batch_size=4"
                                                 << "has no epoch loop around it" << false;
        QTest::newRow("unknowable: made up, with a note")
            << "import os"
            << ""
            << "int(os.environ.get(\"B\", \"4\"))"
            << "for ep in range(int(os.environ.get(\"E\", \"2\"))):"
            << "fit()"
            << "32"
            << "1"
            << "for epoch in range(1):  # made up by the port"
            << "made up by the port"
            << "made up by the port" << true;
    }
    void configCarriesTheValues()
    {
        QFETCH(QString, top);
        QFETCH(QString, params);
        QFETCH(QString, batch);
        QFETCH(QString, loop);
        QFETCH(QString, call);
        QFETCH(QString, batchValue);
        QFETCH(QString, epochValue);
        QFETCH(QString, popLoop);
        QFETCH(QString, batchFrom);
        QFETCH(QString, epochFrom);
        QFETCH(bool, madeUp);
        const std::string script = fill(Template, {{"%TOP%", top.toStdString()},
                                                   {"%PARAMS%", params.toStdString()},
                                                   {"%BATCH%", batch.toStdString()},
                                                   {"%LOOP%", loopOf(loop.toStdString())},
                                                   {"%CALL%", call.toStdString()}});
        const std::string b = batchValue.toStdString(), e = epochValue.toStdString();
        QTemporaryDir dir;

        auto det = generate(fs::path(dir.path().toStdString()) / "orig", script,
                            "determined-pytorchtrial");
        QVERIFY2(bool(det), bool(det) ? "" : det.error.message.c_str());
        const std::string yaml = fileText(*det.value, "const.yaml");
        PORT_VERIFY_CONTAINS(
            yaml, QStringList({QString::fromStdString("epochs: " + e + "  # "), epochFrom}));
        if (batchFrom.isEmpty()) // the flag itself is the batch size
            PORT_VERIFY_CONTAINS(
                yaml, QStringList({QString::fromStdString("global_batch_size: " + b + "\n")}));
        else
            PORT_VERIFY_CONTAINS(
                yaml, QStringList(
                          {QString::fromStdString("global_batch_size: " + b + "  # "), batchFrom}));
        QCOMPARE(has(notesText(*det.value), "made up"), madeUp);

        auto pop =
            generate(fs::path(dir.path().toStdString()) / "orig", script, "graphcore-poptorch");
        QVERIFY2(bool(pop), bool(pop) ? "" : pop.error.message.c_str());
        PORT_VERIFY_CONTAINS(allText(*pop.value), QStringList({popLoop}));

        for (const char* api : {"runner", "trainer"}) {
            auto cs = generate(fs::path(dir.path().toStdString()) / "orig", script,
                               "cerebras-pytorch", api);
            QVERIFY2(bool(cs), bool(cs) ? "" : cs.error.message.c_str());
            const std::string params = fileText(*cs.value, "params.yaml");
            PORT_VERIFY_CONTAINS(params,
                                 QStringList({QString::fromStdString(
                                     "batch_size: " + b + (batchFrom.isEmpty() ? "" : "  # "))}));
            // No data set size is known without the dry run: the steps are made up, and said so.
            PORT_VERIFY_CONTAINS(params, QStringList({"max_steps: 100  # made up by the port"}));
            QVERIFY(has(notesText(*cs.value), "max_steps in configs/params.yaml is 100"));
        }
    }

    // The Cerebras steps are the epochs over the samples the original's dry run read, in batches.
    void cerebrasStepsFromTheObservedSamples()
    {
        const std::string script = fill(Template, {{"%TOP%", "CHUNK = 8\nPASSES = 4"},
                                                   {"%PARAMS%", ""},
                                                   {"%BATCH%", "CHUNK"},
                                                   {"%LOOP%", loopOf("for ep in range(PASSES):")},
                                                   {"%CALL%", "fit()"}});
        QTemporaryDir dir;
        const fs::path root = fs::path(dir.path().toStdString()) / "orig";
        writeOriginal(root, script);
        auto a = analysis::analyzeProject(root);
        QVERIFY(bool(a));
        auto plan = port::planPort(*a.value);
        QVERIFY(bool(plan));
        plan.value->train.observedSamples = 40;
        for (const char* api : {"runner", "trainer"}) {
            auto cs = port::generatePort(*plan.value, "cerebras-pytorch", api);
            QVERIFY(bool(cs));
            // 4 epochs x (40 // 8) steps.
            PORT_VERIFY_CONTAINS(fileText(*cs.value, "params.yaml"),
                                 QStringList({"max_steps: 20  # 4 epochs", "x 5 steps"}));
            QVERIFY(!has(notesText(*cs.value), "max_steps"));
        }
        // Made-up samples are not the real data's: no steps are counted from them.
        plan.value->train.observedSynthetic = true;
        auto cs = port::generatePort(*plan.value, "cerebras-pytorch", "runner");
        QVERIFY(bool(cs));
        PORT_VERIFY_CONTAINS(fileText(*cs.value, "params.yaml"),
                             QStringList({"max_steps: 100  # made up by the port"}));
    }

    // The epochs given to a method of a trainer class: its callers call it on an instance, so
    // the receiver is not an argument and only calls on that class's instances count.
    void epochsGivenToAMethod_data()
    {
        QTest::addColumn<QString>("call");
        QTest::addColumn<QString>("epochValue");
        QTest::addColumn<QString>("epochFrom");
        QTest::newRow("a flag, on an instance")
            << "coach = Coach(nn.Linear(5, 2))\ncoach.fit(args.rounds)"
            << "7"
            << "the flag --rounds";
        QTest::newRow("a keyword literal") << "coach = Coach(nn.Linear(5, 2))\ncoach.fit(passes=3)"
                                           << "3"
                                           << "given for `passes`";
        QTest::newRow("an instance made in the call")
            << "net = nn.Linear(5, 2)\nCoach(net).fit(args.rounds)"
            << "7"
            << "the flag --rounds";
        QTest::newRow("through a launcher's parameter")
            << "def main(total):\n    coach = Coach(nn.Linear(5, 2))\n    coach.fit(total)\n\n\n"
               "main(4)"
            << "4"
            << "given for `total`";
        // Another class's method of the same name says nothing about the trainer's epochs.
        QTest::newRow("another class's method of the same name")
            << "coach = Coach(nn.Linear(5, 2))\nlog = Recorder()\nlog.fit(99)\n"
               "coach.fit(args.rounds)"
            << "7"
            << "the flag --rounds";
    }
    void epochsGivenToAMethod()
    {
        QFETCH(QString, call);
        QFETCH(QString, epochValue);
        QFETCH(QString, epochFrom);
        const std::string script = fill(TrainerTemplate, {{"%CALL%", call.toStdString()}});
        QTemporaryDir dir;
        auto det = generate(fs::path(dir.path().toStdString()) / "orig", script,
                            "determined-pytorchtrial");
        QVERIFY2(bool(det), bool(det) ? "" : det.error.message.c_str());
        PORT_VERIFY_CONTAINS(fileText(*det.value, "const.yaml"),
                             QStringList({"epochs: " + epochValue + "  # ", epochFrom}));
        QVERIFY2(!has(notesText(*det.value), "made up"), notesText(*det.value).c_str());
        auto pop =
            generate(fs::path(dir.path().toStdString()) / "orig", script, "graphcore-poptorch");
        QVERIFY2(bool(pop), bool(pop) ? "" : pop.error.message.c_str());
        PORT_VERIFY_CONTAINS(allText(*pop.value), QStringList({"range("}));
        QVERIFY2(!has(notesText(*pop.value), "made up"), notesText(*pop.value).c_str());
    }

    // A port whose values are module constants still trains like the original on every target.
    void verifiesWithConstants_data()
    {
        QTest::addColumn<QString>("target");
        QTest::newRow("determined") << "determined-pytorchtrial";
        QTest::newRow("poptorch") << "graphcore-poptorch";
        QTest::newRow("cerebras") << "cerebras-pytorch";
    }
    void verifiesWithConstants()
    {
        PORT_SKIP_WITHOUT_TORCH();
        QFETCH(QString, target);
        const std::string script = fill(Template, {{"%TOP%", "CHUNK = 8\nPASSES = 4"},
                                                   {"%PARAMS%", ""},
                                                   {"%BATCH%", "CHUNK"},
                                                   {"%LOOP%", loopOf("for ep in range(PASSES):")},
                                                   {"%CALL%", "fit()"}});
        QTemporaryDir dir;
        const fs::path root = fs::path(dir.path().toStdString()) / "orig";
        auto r = generate(root, script, target.toStdString());
        QVERIFY2(bool(r), bool(r) ? "" : r.error.message.c_str());
        QCOMPARE(r.value->status(), std::string("full"));
        PORT_VERIFY_PROOF(writeAndVerify(root, *r.value));
    }
};

QTEST_GUILESS_MAIN(TestPortRunValues)
#include "test_port_run_values.moc"
