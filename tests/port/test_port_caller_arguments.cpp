// The function holding the batch loop, called with the caller's own names for its parameters
// (`fit(model, feed, opt)` for `def fit(net, batches, step_rule)`) or leaving some at their
// defaults (`rate=0.05`): the port builds the caller's values and its step reads them, on every
// target. Where the calls disagree (two models through one function) or the function binds the
// parameter again itself, the parameter is not read as a caller's name. Fixtures written for
// the pattern.
#include "port_fixture.h"

#include <QTemporaryDir>
#include <QTest>

using namespace portfixture;

namespace {

const char* const kHead = R"(import random
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset


class Ridge(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.inner = nn.Linear(width, 3)
        self.outer = nn.Linear(3, 1)

    def forward(self, x):
        return self.outer(torch.tanh(self.inner(x)))


)";

// The caller in a main() handing everything over by position, under its own names.
const char* const kPositional = R"(def fit(net, batches, step_rule, judge, rounds):
    net.train()
    for r in range(rounds):
        for i, (xs, ys) in enumerate(batches):
            step_rule.zero_grad()
            cost = judge(net(xs), ys)
            cost.backward()
            step_rule.step()


def main():
    torch.manual_seed(3)
    table = TensorDataset(torch.linspace(-1, 1, 80).view(20, 4), torch.linspace(0, 1, 20).view(20, 1))
    feed = DataLoader(table, batch_size=4, shuffle=True)
    model = Ridge(4)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.5)
    criterion = nn.MSELoss()
    fit(model, feed, optimizer, criterion, 2)


if __name__ == "__main__":
    main()
)";

// By keyword, in another order.
const char* const kKeywords = R"(def fit(net, batches, step_rule, rounds=2):
    for r in range(rounds):
        for xs, ys in batches:
            step_rule.zero_grad()
            F.smooth_l1_loss(net(xs), ys).backward()
            step_rule.step()


def main():
    torch.manual_seed(5)
    table = TensorDataset(torch.linspace(-2, 2, 60).view(15, 4), torch.linspace(1, 0, 15).view(15, 1))
    feed = DataLoader(table, batch_size=5, shuffle=True)
    model = Ridge(4)
    adam = torch.optim.Adam(model.parameters(), lr=0.01)
    fit(step_rule=adam, batches=feed, net=model)


if __name__ == "__main__":
    main()
)";

// Called at module level; the function builds its optimizer from a defaulted rate and draws its
// samples from data the module drew after seeding: the module's values and the default.
const char* const kModuleCall = R"(def train_for(net, count, rate=0.05, log_every=10):
    opt = torch.optim.SGD(net.parameters(), lr=rate)
    picks = [random.choice(samples) for _ in range(count)]
    running = 0.0
    for k in range(count):
        x, y = picks[k]
        opt.zero_grad()
        err = F.mse_loss(net(x), y)
        err.backward()
        opt.step()
        running += err.item()
        if (k + 1) % log_every == 0:
            print(k + 1, running / log_every)
            running = 0.0


random.seed(1)
torch.manual_seed(1)
samples = [(torch.randn(4), torch.randn(1)) for _ in range(25)]
ridge = Ridge(4)
train_for(ridge, 30)
)";

// A step function inside the loop function, handed the loop function's parameters.
const char* const kNestedStep = R"(def one_step(m, o, x, y):
    o.zero_grad()
    out = F.mse_loss(m(x), y)
    out.backward()
    o.step()
    return out.item()


def run(net, batches, step_rule, passes=2):
    for p in range(passes):
        for x, y in batches:
            one_step(net, step_rule, x, y)


def main():
    torch.manual_seed(7)
    table = TensorDataset(torch.linspace(-1, 2, 72).view(18, 4), torch.linspace(0, 2, 18).view(18, 1))
    model = Ridge(4)
    sgd = torch.optim.SGD(model.parameters(), lr=0.05)
    loader = DataLoader(table, batch_size=6, shuffle=True)
    run(model, loader, sgd)


if __name__ == "__main__":
    main()
)";

// Two levels: main() hands its values to a driver by keyword, the driver hands them on to the
// per-pass function under its own names.
const char* const kTwoLevels = R"(def one_pass(net, batches, judge, step_rule):
    net.train()
    for xs, ys in batches:
        err = judge(net(xs), ys)
        step_rule.zero_grad()
        err.backward()
        step_rule.step()


def drive(learner, source, rule, metric, passes):
    for p in range(passes):
        one_pass(net=learner, batches=source, judge=metric, step_rule=rule)


def main():
    torch.manual_seed(11)
    table = TensorDataset(torch.linspace(-1, 1, 80).view(20, 4), torch.linspace(2, 0, 20).view(20, 1))
    feed = DataLoader(table, batch_size=5, shuffle=True)
    model = Ridge(4)
    optimizer = torch.optim.Adam(model.parameters(), lr=0.02)
    crit = nn.L1Loss()
    drive(rule=optimizer, metric=crit, learner=model, source=feed, passes=2)


if __name__ == "__main__":
    main()
)";

// Two calls that hand the function different models: `net` is neither of them.
const char* const kTwoModels = R"(def fit(net, batches, step_rule):
    for xs, ys in batches:
        step_rule.zero_grad()
        F.mse_loss(net(xs), ys).backward()
        step_rule.step()


def main():
    table = TensorDataset(torch.randn(20, 4), torch.randn(20, 1))
    feed = DataLoader(table, batch_size=4)
    first = Ridge(4)
    second = Ridge(4)
    fit(first, feed, torch.optim.SGD(first.parameters(), lr=0.1))
    fit(second, feed, torch.optim.SGD(second.parameters(), lr=0.1))


main()
)";

// The function binds the parameter again itself: it is not only the caller's value.
const char* const kRebound = R"(def fit(net, batches, step_rule):
    net = nn.Sequential(net, nn.Identity())
    for xs, ys in batches:
        step_rule.zero_grad()
        F.mse_loss(net(xs), ys).backward()
        step_rule.step()


def main():
    table = TensorDataset(torch.randn(20, 4), torch.randn(20, 1))
    model = Ridge(4)
    fit(model, DataLoader(table, batch_size=4), torch.optim.SGD(model.parameters(), lr=0.1))


main()
)";

// The plan of kHead + `body`, written as an original under `dir`.
Result<port::PortPlan> planOf(const QTemporaryDir& dir, const QString& body, fs::path& root)
{
    root = fs::path(dir.path().toStdString()) / "original";
    writeOriginal(root, std::string(kHead) + body.toStdString(), "main.py");
    auto a = analysis::analyzeProject(root);
    if (!a)
        return Result<port::PortPlan>::fail(a.error);
    return port::planPort(*a.value);
}

} // namespace

class TestPortCallerArguments : public QObject
{
    Q_OBJECT

private slots:
    void callersNamesAreRead_data();
    void callersNamesAreRead();
    void notACallersName_data();
    void notACallersName();
};

void TestPortCallerArguments::callersNamesAreRead_data()
{
    QTest::addColumn<QString>("target");
    QTest::addColumn<QString>("body");
    // "param=name;param=name": what LoopPlan::callerArguments must hold.
    QTest::addColumn<QString>("aliases");
    struct Form
    {
        const char* name;
        const char* body;
        const char* aliases;
    };
    const Form forms[] = {
        {"positional, in main()", kPositional,
         "batches=feed;judge=criterion;net=model;step_rule=optimizer"},
        {"by keyword, defaulted rounds", kKeywords,
         "batches=feed;net=model;rounds=2;step_rule=adam"},
        {"module-level call, defaulted rate", kModuleCall, "log_every=10;net=ridge;rate=0.05"},
        {"two levels by keyword", kTwoLevels,
         "batches=feed;judge=crit;net=model;step_rule=optimizer"},
        {"step function inside", kNestedStep, "batches=loader;net=model;passes=2;step_rule=sgd"},
    };
    for (const auto& f : forms)
        for (const char* target :
             {"determined-pytorchtrial", "graphcore-poptorch", "cerebras-pytorch"})
            QTest::addRow("%s, %s", target, f.name) << target << f.body << f.aliases;
}

void TestPortCallerArguments::callersNamesAreRead()
{
    QFETCH(QString, target);
    QFETCH(QString, body);
    QFETCH(QString, aliases);
    QTemporaryDir dir;
    fs::path root;
    auto plan = planOf(dir, body, root);
    QVERIFY2(plan, plan.error.message.c_str());
    QVERIFY(plan.value->loop);
    QStringList held;
    for (const auto& [param, value] : plan.value->loop->callerArguments)
        held << QString::fromStdString(param + "=" + value);
    QCOMPARE(held.join(';'), aliases);
    auto r = port::generatePort(*plan.value, target.toStdString(), "");
    QVERIFY2(r, r ? "" : r.error.message.c_str());
    QVERIFY2(r.value->full(), manualText(*r.value).c_str());
    PORT_SKIP_WITHOUT_TORCH();
    PORT_VERIFY_PROOF(writeAndVerify(root, *r.value));
}

void TestPortCallerArguments::notACallersName_data()
{
    QTest::addColumn<QString>("body");
    QTest::addColumn<QString>("parameter");
    QTest::newRow("two calls, two models") << kTwoModels << "net";
    QTest::newRow("rebound in the function") << kRebound << "net";
}

void TestPortCallerArguments::notACallersName()
{
    QFETCH(QString, body);
    QFETCH(QString, parameter);
    QTemporaryDir dir;
    fs::path root;
    auto plan = planOf(dir, body, root);
    QVERIFY2(plan, plan.error.message.c_str());
    QVERIFY(plan.value->loop);
    QVERIFY(!plan.value->loop->callerArguments.count(parameter.toStdString()));
    // The port is still written, whole or with what it could not place named.
    auto r = port::generatePort(*plan.value, "determined-pytorchtrial", "");
    QVERIFY2(r, r ? "" : r.error.message.c_str());
}

QTEST_GUILESS_MAIN(TestPortCallerArguments)
#include "test_port_caller_arguments.moc"
