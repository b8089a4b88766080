// A scheduler stepped with a metric once per epoch (ReduceLROnPlateau's step(metric), issue 24),
// each on a small fixture written for its pattern: the mean of the epoch's training losses, a
// validation's loss, and a metric Portolan cannot trace. Determined wraps it with MANUAL_STEP (its
// harness refuses the other modes) and steps it where the metric is known; PopTorch steps it
// with the metric in its own epoch loop; both are verified over 5 steps of 2-batch epochs, so
// the step(metric) of two epoch ends is inside the compared training. Cerebras (the runner) has
// no schedule that reads a metric: a partial port with the item.
#include "tests/port/port_fixture.h"

#include <QObject>
#include <QTemporaryDir>
#include <QTest>
#include <sstream>

using namespace portolan;
using namespace portfixture;

namespace {

// What every fixture shares: 4 samples in batches of 2 (2 steps an epoch), and a plateau
// scheduler whose threshold makes every step after the first reduce the rate, so a port that
// steps it at another time, or never, trains otherwise within the 5 compared steps.
const char* const Head = R"(import torch
import torch.nn as nn
import torch.optim as optim
from torch.utils.data import DataLoader, TensorDataset


class Scorer(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(3, 1)

    def forward(self, x):
        return self.fc(x)


def held_out_cost(scorer, batches, crit):
    scorer.eval()
    summed = 0.0
    with torch.no_grad():
        for feats, goals in batches:
            summed += crit(scorer(feats), goals).item()
    scorer.train()
    return summed / len(batches)


)";

// The training: the epoch's losses added up, then the scheduler stepped with the metric @METRIC@
// binds (`metric`), in a function.
const char* const Fit = R"(def fit():
    torch.manual_seed(3)
    pairs = TensorDataset(torch.randn(4, 3), torch.randn(4, 1))
    spare = TensorDataset(torch.randn(4, 3), torch.randn(4, 1))
    batches = DataLoader(pairs, batch_size=2)
    spare_batches = DataLoader(spare, batch_size=2)
    scorer = Scorer()
    crit = nn.MSELoss()
    sgd = optim.SGD(scorer.parameters(), lr=0.3)
    shrink = optim.lr_scheduler.ReduceLROnPlateau(sgd, factor=0.2, patience=0, threshold=50.0,
                                                  threshold_mode="abs")
    for rnd in range(3):
        step_costs = []
        for feats, goals in batches:
            sgd.zero_grad()
            err = crit(scorer(feats), goals)
            step_costs.append(err.item())
            err.backward()
            sgd.step()
        metric = @METRIC@
        shrink.step(metric)
        print(rnd, metric)


if __name__ == "__main__":
    fit()
)";

// The original: Fit with `metric`, in its function or (`script`) at module level.
std::string original(const QString& metric, bool script)
{
    std::string fit = Fit;
    fit.replace(fit.find("@METRIC@"), 8, metric.toStdString());
    if (!script)
        return Head + fit;
    // The function's body, one level out: the sums are then module globals.
    std::string body;
    std::istringstream lines(fit.substr(fit.find('\n') + 1, fit.find("\n\n\n") - fit.find('\n')));
    for (std::string line; std::getline(lines, line);)
        body += (line.starts_with("    ") ? line.substr(4) : line) + "\n";
    return Head + body;
}

} // namespace

class TestPortPlateauMetric : public QObject
{
    Q_OBJECT

private slots:
    void steppedWithMetric_data();
    void steppedWithMetric();
};

void TestPortPlateauMetric::steppedWithMetric_data()
{
    QTest::addColumn<QString>("metric");
    QTest::addColumn<bool>("script");
    QTest::addColumn<QString>("target");
    QTest::addColumn<QString>("api");
    QTest::addColumn<bool>("full");
    QTest::addColumn<QStringList>("present");
    QTest::addColumn<QStringList>("absent");
    QTest::addColumn<QString>("item"); // a manual item's words, "" when none

    const QString det = "determined-pytorchtrial", pop = "graphcore-poptorch";
    const QString manual = "step_mode=LRScheduler.StepMode.MANUAL_STEP";
    // The metrics: the epoch's mean training loss, a validation's loss, a measure of the weights.
    const QString mean = "sum(step_costs) / len(step_costs)",
                  held = "held_out_cost(scorer, spare_batches, crit)",
                  weights = "scorer.fc.weight.abs().mean().item()";
    // Each fails before: Determined wrapped every scheduler STEP_EVERY_EPOCH (its dry run
    // reached no step), PopTorch called step() without the metric at the first epoch end.
    QTest::newRow("epoch-mean/determined")
        << mean << false << det << "" << true
        << QStringList{manual, "if epoch_idx != getattr(self, \"metric_epoch\", epoch_idx):\n"
                               "            metric = sum(self.step_costs) / "
                               "len(self.step_costs)\n            self.shrink.step(metric)\n"
                               "            self.step_costs = []\n"}
        << QStringList{"STEP_EVERY_EPOCH", "TODO(portolan)"} << "";
    QTest::newRow("epoch-mean-script/determined")
        << mean << true << det << "" << true
        << QStringList{manual, "global step_costs\n",
                       "        metric = sum(step_costs) / len(step_costs)\n"
                       "            self.shrink.step(metric)\n            step_costs = []\n"}
        << QStringList{"STEP_EVERY_EPOCH", "TODO(portolan)"} << "";
    QTest::newRow("epoch-mean/poptorch")
        << mean << false << pop << "" << true
        << QStringList{"        step_costs = []\n        for feats, goals in train_loader:\n"
                       "            err = training_model(feats, goals)\n"
                       "            step_costs.append(err.item())\n",
                       "        metric = sum(step_costs) / len(step_costs)\n"
                       "        shrink.step(metric)\n"
                       "        training_model.setOptimizer(sgd)\n"}
        << QStringList{"shrink.step()", "TODO(portolan)"} << "";
    QTest::newRow("epoch-mean-script/poptorch")
        << mean << true << pop << "" << true
        << QStringList{"        step_costs = []\n        for feats, goals in train_loader:\n",
                       "            step_costs.append(err.item())\n", "shrink.step(metric)"}
        << QStringList{"shrink.step()", "TODO(portolan)"} << "";
    QTest::newRow("held-out/determined")
        << held << false << det << "" << true
        << QStringList{manual, "        self.shrink.step(metric)\n"
                               "        return {\"validation_loss\": metric"}
        << QStringList{"STEP_EVERY_EPOCH", "TODO(portolan)"} << "";
    QTest::newRow("held-out/poptorch")
        << held << false << pop << "" << true << QStringList{"shrink.step(metric)\n"}
        << QStringList{"shrink.step()", "TODO(portolan)"} << "";
    // Untraced: the item, a TODO at the spot, and never a step the harness refuses or a step()
    // without the metric.
    QTest::newRow("of-weights/determined")
        << weights << false << det << "" << false
        << QStringList{manual, "TODO(portolan): step self.shrink"}
        << QStringList{"STEP_EVERY_EPOCH"}
        << "`shrink` (torch.optim.lr_scheduler.ReduceLROnPlateau) is stepped with `metric`, which "
           "the port does not compute: the trial wraps it with step_mode=MANUAL_STEP";
    QTest::newRow("of-weights/poptorch")
        << weights << false << pop << "" << false << QStringList{"TODO(portolan): step shrink"}
        << QStringList{"shrink.step()"}
        << "is stepped with `metric`, which the port does not compute: the port's loop must "
           "compute it and call step(metric)";
    // Cerebras: no schedule reads a metric, whatever the metric is.
    QTest::newRow("epoch-mean/cerebras")
        << mean << false << "cerebras-pytorch"
        << "runner" << false << QStringList{} << QStringList{}
        << "none reads a metric as ReduceLROnPlateau's step(metric) does";
}

void TestPortPlateauMetric::steppedWithMetric()
{
    QFETCH(QString, metric);
    QFETCH(bool, script);
    QFETCH(QString, target);
    QFETCH(QString, api);
    QFETCH(bool, full);
    QFETCH(QStringList, present);
    QFETCH(QStringList, absent);
    QFETCH(QString, item);
    QTemporaryDir dir;
    const fs::path root = fs::path(dir.path().toStdString()) / "original";
    auto r = generate(root, original(metric, script), target.toStdString(), api.toStdString());
    QVERIFY2(r, r ? "" : r.error.message.c_str());
    const std::string all = allText(*r.value), manuals = manualText(*r.value);
    QVERIFY2(firstMismatch(all, present).isEmpty(),
             qPrintable(firstMismatch(all, present) + "\n---\n" + QString::fromStdString(all)));
    QVERIFY2(
        firstMismatch(all, absent, false).isEmpty(),
        qPrintable(firstMismatch(all, absent, false) + "\n---\n" + QString::fromStdString(all)));
    QVERIFY2(item.isEmpty() || has(manuals, item.toStdString()), manuals.c_str());
    QVERIFY2(r.value->full() == full, manuals.c_str());
    if (!full)
        return;
    if (!torchAvailable())
        QSKIP("/usr/bin/python3 with torch is needed for the dry runs");
    // 5 steps of 2-batch epochs: the scheduler's step(metric) at two epoch ends is inside the
    // compared training.
    const port::VerifyResult v = writeAndVerify(root, *r.value, 5);
    const std::string problem = verificationProblem(v, 5);
    QVERIFY2(problem.empty(), (problem + "\n---\n" + all).c_str());
}

QTEST_GUILESS_MAIN(TestPortPlateauMetric)
#include "test_port_plateau_metric.moc"
