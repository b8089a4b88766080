// A training function whose parameters hold its configuration as dicts, given by its caller
// (issue 24, call-site parameters): `def fit(layout, dials)` reads `dials["step"]`,
// `range(dials["laps"])`, and the caller passes names bound to dict literals, the literals
// themselves, a keyword, a `dict(...)` call, a dict spread into another. The port binds the
// parameters where the call was, to the caller's arguments with what they need, on every target;
// the epochs and the batch size are the dict's entries, not made up. Each row is a fixture
// written for the pattern.
#include "tests/port/port_fixture.h"

#include <QObject>
#include <QTemporaryDir>
#include <QTest>

using namespace portolan;
using namespace portfixture;

namespace {

// %READS% are the function's reads of the dials (how it gets the rate, the chunk and the laps),
// %MAIN% the body of the main guard.
const char* const Template = R"(import argparse

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

parser = argparse.ArgumentParser()
parser.add_argument("--step", type=float, default=0.05)
args = parser.parse_args()


def fit(layout, dials):
    torch.manual_seed(0)
%READS%
    net = nn.Sequential(nn.Linear(layout["width_in"], layout["width_mid"]), nn.ReLU(),
                        nn.Linear(layout["width_mid"], 3))
    opt = torch.optim.SGD(net.parameters(), lr=rate)
    points = TensorDataset(torch.randn(40, layout["width_in"]), torch.randint(0, 3, (40,)))
    batches = DataLoader(points, batch_size=chunk, shuffle=False)
    for lap in range(laps):
        for xb, yb in batches:
            opt.zero_grad()
            miss = nn.functional.cross_entropy(net(xb), yb)
            miss.backward()
            opt.step()
    return net


if __name__ == "__main__":
%MAIN%
)";

const char* const Subscripts = R"(    rate = dials["step"]
    chunk = dials["chunk"]
    laps = dials["laps"])";

const char* const Gets = R"(    rate = dials.get("step", 0.5)
    chunk = dials.get("chunk", 4)
    laps = dials.get("laps", 3))";

const char* const Layout = R"(    LAYOUT = {"width_in": 5, "width_mid": 7}
)";

std::string fill(std::string text, const std::map<std::string, std::string>& parts)
{
    for (const auto& [key, value] : parts)
        for (auto p = text.find(key); p != std::string::npos; p = text.find(key))
            text.replace(p, key.size(), value);
    return text;
}

} // namespace

class TestPortConfigDicts : public QObject
{
    Q_OBJECT

private slots:
    // Every row trains 3 laps over 40 samples in chunks of 4: the port's epochs and batch size
    // are those, and the rate is the dict's (a flag: the target's).
    void dictsGivenAtTheCall_data()
    {
        QTest::addColumn<QString>("reads");
        QTest::addColumn<QString>("main");
        QTest::addColumn<QString>("target");
        QTest::addColumn<QStringList>("expected"); // lines the port has besides the run values
        const struct
        {
            const char* name;
            const char* reads;
            std::string main;
            QStringList determined, poptorch, cerebras;
        } shapes[] = {
            {"dicts named at the call",
             Subscripts,
             std::string(Layout) +
                 "    DIALS = {\"step\": 0.05, \"chunk\": 4, \"laps\": 3}\n    fit(LAYOUT, DIALS)",
             {"dials = DIALS", "layout = LAYOUT"},
             {"dials = DIALS"},
             {"learning_rate: 0.05"}},
            {"inline dict literals",
             Subscripts,
             "    fit({\"width_in\": 5, \"width_mid\": 7}, {\"step\": 0.05, \"chunk\": 4, "
             "\"laps\": 3})",
             {"layout = {\"width_in\": 5, \"width_mid\": 7}"},
             {"dials = {\"step\": 0.05, \"chunk\": 4, \"laps\": 3}"},
             {"learning_rate: 0.05"}},
            {"a keyword argument, a dict() call",
             Subscripts,
             std::string(Layout) + "    fit(LAYOUT, dials=dict(step=0.05, chunk=4, laps=3))",
             {"dials = dict(step=0.05, chunk=4, laps=3)"},
             {"dials = dict(step=0.05, chunk=4, laps=3)"},
             {"learning_rate: 0.05"}},
            {"get() with a default",
             Gets,
             std::string(Layout) + "    DIALS = {\"step\": 0.05}\n    fit(LAYOUT, DIALS)",
             {"dials = DIALS"},
             {"dials = DIALS"},
             {"learning_rate: 0.05"}},
            {"a flag in the dict",
             Subscripts,
             std::string(Layout) + "    DIALS = {\"step\": args.step, \"chunk\": 4, \"laps\": 3}\n"
                                   "    fit(LAYOUT, DIALS)",
             {"DIALS = {\"step\": self.context.get_hparam(\"step\"), \"chunk\": 4, \"laps\": 3}"},
             {"DIALS = {\"step\": args.step, \"chunk\": 4, \"laps\": 3}"},
             {"learning_rate: 0.05"}},
            {"a dict spread into another",
             Subscripts,
             std::string(Layout) + "    BASE = {\"step\": 0.05, \"chunk\": 8, \"laps\": 1}\n"
                                   "    fit(LAYOUT, {**BASE, \"chunk\": 4, \"laps\": 3})",
             {"dials = {**BASE, \"chunk\": 4, \"laps\": 3}"},
             {"dials = {**BASE, \"chunk\": 4, \"laps\": 3}"},
             {"learning_rate: 0.05"}},
        };
        const QStringList determined{"global_batch_size: 4", "epochs: 3"};
        const QStringList poptorch{"for epoch in range(3):"};
        // Without the original's dry run the steps are not known, its epochs are.
        const QStringList cerebras{"batch_size: 4", "it trains 3 epochs"};
        for (const auto& s : shapes) {
            QTest::addRow("%s, determined", s.name)
                << s.reads << QString::fromStdString(s.main) << "determined-pytorchtrial"
                << s.determined + determined;
            QTest::addRow("%s, poptorch", s.name) << s.reads << QString::fromStdString(s.main)
                                                  << "graphcore-poptorch" << s.poptorch + poptorch;
            QTest::addRow("%s, cerebras", s.name) << s.reads << QString::fromStdString(s.main)
                                                  << "cerebras-pytorch" << s.cerebras + cerebras;
        }
    }
    void dictsGivenAtTheCall()
    {
        QFETCH(QString, reads);
        QFETCH(QString, main);
        QFETCH(QString, target);
        QFETCH(QStringList, expected);
        QTemporaryDir dir;
        const fs::path root = fs::path(dir.path().toStdString()) / "orig";
        auto r = generate(
            root,
            fill(Template, {{"%READS%", reads.toStdString()}, {"%MAIN%", main.toStdString()}}),
            target.toStdString());
        QVERIFY2(r, r ? "" : r.error.message.c_str());
        const std::string text = allText(*r.value);
        QVERIFY2(r.value->full(), manualText(*r.value).c_str());
        PORT_VERIFY_CONTAINS(text, expected);
        PORT_VERIFY_ABSENT(text, QStringList({"TODO(portolan)", "batch_size: 32", "epochs: 1 ",
                                              "range(1)", "undefined"}));
        PORT_SKIP_WITHOUT_TORCH();
        PORT_VERIFY_PROOF(writeAndVerify(root, *r.value));
    }

    // A dict changed in place before the call (`DIALS["laps"] = 3`): its literal is not the
    // value the training reads, so the run values do not come from it; the port still binds the
    // parameter, with the change.
    void dictChangedInPlace_data()
    {
        QTest::addColumn<QString>("target");
        for (const char* t : {"determined-pytorchtrial", "graphcore-poptorch", "cerebras-pytorch"})
            QTest::addRow("%s", t) << t;
    }
    void dictChangedInPlace()
    {
        QFETCH(QString, target);
        QTemporaryDir dir;
        const fs::path root = fs::path(dir.path().toStdString()) / "orig";
        const std::string main = std::string(Layout) +
                                 "    DIALS = {\"step\": 0.05, \"chunk\": 4, \"laps\": 1}\n"
                                 "    DIALS[\"laps\"] = 3\n"
                                 "    fit(LAYOUT, DIALS)";
        auto r = generate(root, fill(Template, {{"%READS%", Subscripts}, {"%MAIN%", main}}),
                          target.toStdString());
        QVERIFY2(r, r ? "" : r.error.message.c_str());
        const std::string text = allText(*r.value);
        QVERIFY2(r.value->full(), manualText(*r.value).c_str());
        PORT_VERIFY_CONTAINS(text, QStringList({"dials = DIALS", "DIALS[\"laps\"] = 3"}));
        PORT_VERIFY_ABSENT(text, QStringList({"the entry \"laps\""}));
    }
};

QTEST_GUILESS_MAIN(TestPortConfigDicts)
#include "test_port_config_dicts.moc"
