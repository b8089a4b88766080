// What a verification proved, said plainly (issue 24). `status` stays the port's completeness;
// `verified` and `not_verified_because` (JSON) and the status line (text) say whether the port
// was shown to train like the original, and why not: an original that did not run leaves nothing
// compared, a port whose dry run is short of the steps asked proves only what it reached.
#include "core/port/verify_outcome.h"
#include "tests/port/port_fixture.h"

#include <QObject>
#include <QTemporaryDir>
#include <QTest>
#include <nlohmann/json.hpp>

using namespace portolan;
using namespace portfixture;

namespace {

// An original whose data file is not in its folder: its dry run stops before its first step.
const char* const ReadsAbsentFile = R"(import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

data = torch.load('absent.pt')
loader = DataLoader(TensorDataset(data[:, :4], data[:, 4:]), batch_size=4)
model = nn.Linear(4, 1)
criterion = nn.MSELoss()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
for epoch in range(1):
    for x, y in loader:
        optimizer.zero_grad()
        loss = criterion(model(x), y)
        loss.backward()
        optimizer.step()
)";

// A linear classifier over `classes` classes trained with SGD at `rate`: over one class the
// cross-entropy is 0 with no gradient, and at a rate of 0 nothing moves either.
std::string classifier(int classes, const std::string& rate)
{
    const std::string n = std::to_string(classes);
    return "import torch\n"
           "import torch.nn as nn\n"
           "import torch.nn.functional as F\n"
           "from torch.utils.data import DataLoader, TensorDataset\n\n"
           "torch.manual_seed(2)\n"
           "samples = TensorDataset(torch.randn(32, 6), torch.randint(0, " +
           n +
           ", (32,)))\n"
           "batches = DataLoader(samples, batch_size=4, shuffle=True)\n"
           "sorter = nn.Linear(6, " +
           n +
           ")\n"
           "rule = torch.optim.SGD(sorter.parameters(), lr=" +
           rate +
           ")\n"
           "for rnd in range(2):\n"
           "    for feats, labels in batches:\n"
           "        rule.zero_grad()\n"
           "        miss = F.cross_entropy(sorter(feats), labels)\n"
           "        miss.backward()\n"
           "        rule.step()\n";
}

} // namespace

class TestPortHonest : public QObject
{
    Q_OBJECT
private slots:
    void verdict_data();
    void verdict();
    void originalThatDidNotRun();
    void comparisonWithoutPower_data();
    void comparisonWithoutPower();
};

void TestPortHonest::verdict_data()
{
    QTest::addColumn<int>("originalSteps"); // losses the original recorded
    QTest::addColumn<QString>("originalError");
    QTest::addColumn<int>("portSteps");
    QTest::addColumn<QString>("portError");
    QTest::addColumn<int>("compared");
    QTest::addColumn<int>("divergence");
    QTest::addColumn<int>("checkErrors");
    QTest::addColumn<QString>("status");
    QTest::addColumn<QString>("because"); // "" when verified
    const QString missing = "train.py:5:8: error: a file the project reads is not there";
    QTest::addRow("proof") << 3 << "" << 3 << "" << 3 << 0 << 0 << "full"
                           << "";
    QTest::addRow("original did not run")
        << 0 << missing << 3 << "" << 0 << 0 << 0 << "full"
        << "the original's dry run did not reach a training step (" + missing +
               "): nothing was compared";
    QTest::addRow("neither ran") << 0 << missing << 0 << "model_def.py:7:8: error: boom" << 0 << 0
                                 << 0 << "partial"
                                 << "the original's dry run did not reach a training step";
    QTest::addRow("port reached no step")
        << 3 << "" << 0 << "model_def.py:7:8: error: boom" << 0 << 0 << 0 << "partial"
        << "the port's dry run did not reach a training step (model_def.py:7:8: error: boom): "
           "nothing was compared";
    QTest::addRow("port short of the steps asked")
        << 3 << "" << 2 << "" << 2 << 0 << 0 << "full"
        << "the port's dry run reached 2 step(s) of the 3 asked: only 2 compared";
    QTest::addRow("original short of the steps asked")
        << 1 << "" << 3 << "" << 1 << 0 << 0 << "full"
        << "the original's dry run reached 1 step(s) of the 3 asked: only 1 compared";
    QTest::addRow("losses part") << 3 << "" << 3 << "" << 3 << 2 << 0 << "full"
                                 << "the losses part at step 2";
    QTest::addRow("check error") << 3 << "" << 3 << "" << 3 << 0 << 1 << "partial"
                                 << "the target's guide reports 1 error(s)";
}

// The verdict and the JSON beside the status: `status` is the port's completeness, unchanged;
// `verified` is false with the reason whenever the proof is not whole.
void TestPortHonest::verdict()
{
    QFETCH(int, originalSteps);
    QFETCH(QString, originalError);
    QFETCH(int, portSteps);
    QFETCH(QString, portError);
    QFETCH(int, compared);
    QFETCH(int, divergence);
    QFETCH(int, checkErrors);
    QFETCH(QString, status);
    QFETCH(QString, because);
    port::VerifyResult v;
    v.stepsAsked = 3;
    v.checkErrors = checkErrors;
    v.originalLosses.assign(std::size_t(originalSteps), 1.0);
    v.originalError = originalError.toStdString();
    v.dryRunSteps = portSteps;
    v.portLosses.assign(std::size_t(portSteps), 1.0);
    v.dryRunError = portError.toStdString();
    v.stepsCompared = compared;
    v.firstDivergence = divergence;
    v.maxRelLossDiff = compared ? (divergence ? 0.5 : 0.0) : -1;
    v.maxAbsWeightDiff = compared ? 0.0 : -1;
    v.agrees = compared == 3 && divergence == 0 && checkErrors == 0;
    port::PortResult r;
    r.target = "determined-pytorchtrial";
    const std::string why = port::notProvenBecause(v);
    QVERIFY2(has(why, because.toStdString()), why.c_str());
    QCOMPARE(why.empty(), because.isEmpty());
    const auto j = port::toJson(r, "out", &v);
    QCOMPARE(QString::fromStdString(j["status"].get<std::string>()), status);
    QCOMPARE(j["verified"].get<bool>(), because.isEmpty());
    QCOMPARE(j.contains("not_verified_because"), !because.isEmpty());
    if (!because.isEmpty())
        QCOMPARE(j["not_verified_because"].get<std::string>(), why);
    // The issue's fields stay, beside the new ones.
    for (const char* key :
         {"check_errors", "dry_run_steps", "steps_compared", "original_losses", "port_losses",
          "max_rel_loss_diff", "max_abs_weight_diff", "agrees", "steps_asked"})
        QVERIFY2(j["verify"].contains(key), key);
    QCOMPARE(j["verify"]["agrees"].get<bool>(), because.isEmpty());
}

// Both dry runs for real: an original that stops before its first step is never reported as
// verified, whatever the port's status, and the reason names the original's error.
void TestPortHonest::originalThatDidNotRun()
{
    PORT_SKIP_WITHOUT_TORCH();
    QTemporaryDir dir;
    const fs::path root = fs::path(dir.path().toStdString()) / "original";
    auto r = generate(root, ReadsAbsentFile, "determined-pytorchtrial");
    QVERIFY2(r, r.error.message.c_str());
    const port::VerifyResult v = writeAndVerify(root, *r.value);
    QCOMPARE(v.stepsCompared, 0);
    QVERIFY2(has(v.originalError, "absent.pt"), v.originalError.c_str());
    const auto j = port::toJson(*r.value, "port", &v);
    QCOMPARE(j["verified"].get<bool>(), false);
    const std::string why = j["not_verified_because"].get<std::string>();
    QVERIFY2(has(why, "the original's dry run did not reach a training step") &&
                 has(why, "absent.pt") && has(why, "nothing was compared"),
             why.c_str());
    QCOMPARE(j["verify"]["steps_asked"].get<int>(), 3);
}

void TestPortHonest::comparisonWithoutPower_data()
{
    QTest::addColumn<QString>("script");
    QTest::addColumn<QString>("target");
    QTest::addColumn<bool>("powered");
    const char* const targets[][2] = {{"determined", "determined-pytorchtrial"},
                                      {"poptorch", "graphcore-poptorch"}};
    for (const auto& t : targets) {
        QTest::addRow("one class, %s", t[0])
            << QString::fromStdString(classifier(1, "0.1")) << t[1] << false;
        QTest::addRow("rate 0, %s", t[0])
            << QString::fromStdString(classifier(3, "0.0")) << t[1] << false;
        QTest::addRow("training, %s", t[0])
            << QString::fromStdString(classifier(3, "0.1")) << t[1] << true;
    }
}

// Both dry runs for real: when the original's steps move no weight, the losses and weights agree
// whatever the port does, so the port is complete but not verified, and the JSON says the
// comparison had no power; a training that moves its weights is still verified.
void TestPortHonest::comparisonWithoutPower()
{
    QFETCH(QString, script);
    QFETCH(QString, target);
    QFETCH(bool, powered);
    PORT_SKIP_WITHOUT_TORCH();
    QTemporaryDir dir;
    const fs::path root = fs::path(dir.path().toStdString()) / "original";
    auto r = generate(root, script.toStdString(), target.toStdString());
    QVERIFY2(r, r ? "" : r.error.message.c_str());
    const port::VerifyResult v = writeAndVerify(root, *r.value);
    const auto j = port::toJson(*r.value, "port", &v);
    QCOMPARE(QString::fromStdString(j["status"].get<std::string>()), QString("full"));
    // The numbers agree either way: what differs is whether agreeing could have failed.
    QVERIFY2(v.agrees, j.dump(2).c_str());
    QVERIFY2(j["verify"]["original_weight_change"].is_number(), j.dump(2).c_str());
    QCOMPARE(j["verified"].get<bool>(), powered);
    if (powered) {
        PORT_VERIFY_PROOF(v);
        QCOMPARE(j["verify"]["power"].get<std::string>(), std::string("weights-changed"));
        QVERIFY(!j["verify"].contains("no_power_because"));
        return;
    }
    const std::string said = "the training did not change the weights: the comparison cannot "
                             "show a difference";
    QCOMPARE(j["not_verified_because"].get<std::string>(), said);
    QCOMPARE(j["verify"]["power"].get<std::string>(), std::string("none"));
    QCOMPARE(j["verify"]["no_power_because"].get<std::string>(), said);
}

QTEST_GUILESS_MAIN(TestPortHonest)
#include "test_port_honest.moc"
