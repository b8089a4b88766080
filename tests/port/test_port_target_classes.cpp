// Per-target generation classes (issue 24), each on a small fixture written for its pattern
// (target_class_fixtures.h): state a step carries from batch to batch (a hidden state made before
// the batch loop, passed through the model and detached each step), gradient clipping in each
// target's form, a learning rate decayed by hand as the scheduler it equals, seeds, two models
// trained in turn on the one-loss targets, and the one status rule that a port whose
// verification could not run its dry run is not full. The verification rows run both dry runs.
#include "tests/port/port_fixture.h"
#include "tests/port/target_class_fixtures.h"

#include <QObject>
#include <QTemporaryDir>
#include <QTest>

using namespace portolan;
using namespace portfixture;
using namespace targetfixtures;

namespace {

std::string clipped(const std::string& clip, const std::string& opt = "SGD")
{
    std::string s = Clipped;
    s.replace(s.find("@CLIP@"), 6, clip);
    s.replace(s.find("@OPT@"), 5, opt);
    return s;
}

std::string seeded(const std::string& seed)
{
    std::string s = Seeded;
    s.replace(s.find("@SEED@"), 6, seed);
    return s;
}

std::string decayed(const std::string& cond)
{
    std::string s = Decayed;
    s.replace(s.find("@COND@"), 6, cond);
    return s;
}

} // namespace

class TestPortTargetClasses : public QObject
{
    Q_OBJECT

private slots:
    void carriedState_data();
    void carriedState();
    void verifiesCarriedState();
    void gradientClipping_data();
    void gradientClipping();
    void verifiesGradientClipping_data();
    void verifiesGradientClipping();
    void seeds_data();
    void seeds();
    void verifiesNoneSeed_data();
    void verifiesNoneSeed();
    void lrDecay_data();
    void lrDecay();
    void verifiesLrDecay_data();
    void verifiesLrDecay();
    void modelsInTurn_data();
    void modelsInTurn();
    void statusNeedsDryRun_data();
    void statusNeedsDryRun();
};

void TestPortTargetClasses::carriedState_data()
{
    QTest::addColumn<QString>("target");
    QTest::addColumn<QStringList>("contains");
    // The state is built once with the model and kept by the trial between its steps.
    QTest::addRow("determined")
        << "determined-pytorchtrial"
        << QStringList{"        carry = (torch.zeros(1, width, 16), torch.zeros(1, width, 16))",
                       "self.carry = carry", "self.carry = cut(self.carry)",
                       "logits, self.carry = self.model(x, self.carry)"};
    // The program takes the state and gives back the new one; the host keeps it.
    QTest::addRow("poptorch") << "graphcore-poptorch"
                              << QStringList{
                                     "def forward(self, x, y, carry):", "return loss, carry",
                                     "loss, carry = training_model(x, y, carry)"};
    QTest::addRow("cerebras") << "cerebras-pytorch"
                              << QStringList{"self.carry = carry",
                                             "logits, self.carry = self.model(x, self.carry)"};
}

void TestPortTargetClasses::carriedState()
{
    QFETCH(QString, target);
    QFETCH(QStringList, contains);
    QTemporaryDir dir;
    auto r = generate(fs::path(dir.path().toStdString()) / "original", CarriedState,
                      target.toStdString());
    QVERIFY2(r, r ? "" : r.error.message.c_str());
    const std::string all = allText(*r.value);
    const std::string manuals = manualText(*r.value);
    QVERIFY2(r.value->full(), manuals.c_str());
    PORT_VERIFY_CONTAINS(all, contains);
    // The step's own names are not reported as read from outside.
    for (const auto& n : r.value->notes)
        QVERIFY2(!has(n, "`logits` is read"), n.c_str());
}

// Both dry runs: the port keeps the state between its steps, so it reaches its steps and its
// losses are the original's (a state rebuilt each step, or lost, parts from step 2).
void TestPortTargetClasses::verifiesCarriedState()
{
    PORT_SKIP_WITHOUT_TORCH();
    QTemporaryDir dir;
    const fs::path root = fs::path(dir.path().toStdString()) / "original";
    auto r = generate(root, CarriedState, "determined-pytorchtrial");
    QVERIFY(r);
    const port::VerifyResult v = writeAndVerify(root, *r.value);
    PORT_VERIFY_PROOF(v);
    QVERIFY(r.value->full(&v));
}

void TestPortTargetClasses::gradientClipping_data()
{
    QTest::addColumn<QString>("script");
    QTest::addColumn<QString>("target");
    QTest::addColumn<QString>("api");
    QTest::addColumn<bool>("full");
    QTest::addColumn<QStringList>("contains");
    const std::string norm = "torch.nn.utils.clip_grad_norm_(net.parameters(), args.clip)";
    const std::string literal = "nn.utils.clip_grad_norm_(net.parameters(), max_norm=0.25)";
    const std::string value = "torch.nn.utils.clip_grad_value_(net.parameters(), args.clip)";
    // Each target's documented form.
    QTest::addRow("norm/determined")
        << QString::fromStdString(clipped(norm)) << "determined-pytorchtrial"
        << "" << true
        << QStringList{"clip_grads=lambda params: torch.nn.utils.clip_grad_norm_(params, "};
    QTest::addRow("norm/poptorch")
        << QString::fromStdString(clipped(norm)) << "graphcore-poptorch"
        << "" << true
        << QStringList{"poptorch.optim.SGD(net.parameters(), lr=args.lr, max_grad_norm=args.clip)"};
    QTest::addRow("literal/poptorch-adam")
        << QString::fromStdString(clipped(literal, "Adam")) << "graphcore-poptorch"
        << "" << true
        << QStringList{"poptorch.optim.Adam(net.parameters(), lr=args.lr, max_grad_norm=0.25)"};
    QTest::addRow("norm/cerebras-runner")
        << QString::fromStdString(clipped(norm)) << "cerebras-pytorch"
        << "runner" << true << QStringList{"  max_gradient_norm: 0.01\n"};
    QTest::addRow("literal/cerebras-trainer")
        << QString::fromStdString(clipped(literal)) << "cerebras-pytorch"
        << "trainer" << true << QStringList{"    precision:\n      max_gradient_norm: 0.25\n"};
    QTest::addRow("value/cerebras-trainer")
        << QString::fromStdString(clipped(value)) << "cerebras-pytorch"
        << "trainer" << true << QStringList{"    precision:\n      max_gradient_value: 0.01\n"};
    // No exact form: PopTorch's optimizers clip by norm only, RMSprop not at all; a clip of
    // some of the parameters is not the target's clip of all of them. One item, at the clip.
    QTest::addRow("value/poptorch")
        << QString::fromStdString(clipped(value)) << "graphcore-poptorch"
        << "" << false << QStringList{};
    QTest::addRow("rmsprop/poptorch")
        << QString::fromStdString(clipped(norm, "RMSprop")) << "graphcore-poptorch"
        << "" << false << QStringList{};
    QTest::addRow("some-parameters/cerebras")
        << QString::fromStdString(
               clipped("torch.nn.utils.clip_grad_norm_(net[0].parameters(), args.clip)"))
        << "cerebras-pytorch"
        << "runner" << false << QStringList{};
}

void TestPortTargetClasses::gradientClipping()
{
    QFETCH(QString, script);
    QFETCH(QString, target);
    QFETCH(QString, api);
    QFETCH(bool, full);
    QFETCH(QStringList, contains);
    QTemporaryDir dir;
    auto r = generate(fs::path(dir.path().toStdString()) / "original", script.toStdString(),
                      target.toStdString(), api.toStdString());
    QVERIFY2(r, r ? "" : r.error.message.c_str());
    const std::string all = allText(*r.value);
    const std::string manuals = manualText(*r.value);
    QCOMPARE(r.value->full(), full);
    if (!full) {
        // Exactly one item, at the clip's line (line 23 of the fixture).
        QCOMPARE(r.value->manual.size(), std::size_t(1));
        QVERIFY2(has(manuals, "clip_grad_"), manuals.c_str());
        QCOMPARE(r.value->manual.front().location.line, 23);
    }
    PORT_VERIFY_CONTAINS(all, contains);
}

void TestPortTargetClasses::verifiesGradientClipping_data()
{
    QTest::addColumn<QString>("target");
    QTest::addColumn<QString>("api");
    QTest::addRow("poptorch") << "graphcore-poptorch"
                              << "";
    QTest::addRow("cerebras-trainer") << "cerebras-pytorch"
                                      << "trainer";
}

// Both dry runs: the target's clip is the original's (every step clips, so a port without it,
// or with another limit, parts from the original at step 2).
void TestPortTargetClasses::verifiesGradientClipping()
{
    QFETCH(QString, target);
    QFETCH(QString, api);
    PORT_SKIP_WITHOUT_TORCH();
    QTemporaryDir dir;
    const fs::path root = fs::path(dir.path().toStdString()) / "original";
    auto r = generate(root, clipped("torch.nn.utils.clip_grad_norm_(net.parameters(), args.clip)"),
                      target.toStdString(), api.toStdString());
    QVERIFY(r);
    QVERIFY(r.value->full());
    PORT_VERIFY_PROOF(writeAndVerify(root, *r.value));
}

void TestPortTargetClasses::seeds_data()
{
    QTest::addColumn<QString>("script");
    QTest::addColumn<QString>("target");
    QTest::addColumn<QString>("api");
    QTest::addColumn<QStringList>("contains");
    QTest::addColumn<QStringList>("absent");
    const QString none = QString::fromStdString(seeded("torch.manual_seed(args.seed)"));
    const QString literal = QString::fromStdString(seeded("torch.manual_seed(7)"));
    const QString unseeded = QString::fromStdString(seeded(""));
    // A seed flag that defaults to None: every target guards the call, as the original would
    // otherwise raise on torch.manual_seed(None).
    QTest::addRow("none/determined")
        << none << "determined-pytorchtrial"
        << ""
        << QStringList{"if self.context.get_hparam(\"seed\") is not None:\n"
                       "            torch.manual_seed(self.context.get_hparam(\"seed\"))"}
        << QStringList{};
    // PopTorch parses the flags at module level as the original does: the seed stays there,
    // before what the module draws.
    QTest::addRow("none/poptorch") << none << "graphcore-poptorch"
                                   << ""
                                   << QStringList{"\nif args.seed is not None:\n"
                                                  "    torch.manual_seed(args.seed)"}
                                   << QStringList{};
    QTest::addRow("none/cerebras-runner")
        << none << "cerebras-pytorch"
        << "runner" << QStringList{"is not None:\n            torch.manual_seed("} << QStringList{};
    // The Cerebras port seeds where the original does, and invents no seed of its own.
    for (const char* api : {"runner", "trainer"}) {
        QTest::addRow("literal/cerebras-%s", api)
            << literal << "cerebras-pytorch" << api << QStringList{"torch.manual_seed(7)"}
            << QStringList{"seed: 1\n"};
        QTest::addRow("unseeded/cerebras-%s", api)
            << unseeded << "cerebras-pytorch" << api << QStringList{}
            << QStringList{"seed: 1\n", "manual_seed"};
    }
}

void TestPortTargetClasses::seeds()
{
    QFETCH(QString, script);
    QFETCH(QString, target);
    QFETCH(QString, api);
    QFETCH(QStringList, contains);
    QFETCH(QStringList, absent);
    QTemporaryDir dir;
    auto r = generate(fs::path(dir.path().toStdString()) / "original", script.toStdString(),
                      target.toStdString(), api.toStdString());
    QVERIFY2(r, r ? "" : r.error.message.c_str());
    const std::string all = allText(*r.value);
    PORT_VERIFY_CONTAINS(all, contains);
    PORT_VERIFY_ABSENT(all, absent);
}

void TestPortTargetClasses::verifiesNoneSeed_data()
{
    QTest::addColumn<QString>("target");
    QTest::addColumn<QString>("api");
    QTest::addRow("poptorch") << "graphcore-poptorch"
                              << "";
    QTest::addRow("cerebras-runner") << "cerebras-pytorch"
                                     << "runner";
}

// Both dry runs, the seed flag unset and drawn by the original when None (the port does not
// assign flags): the port's dry run reaches its steps (unguarded, it stops on
// torch.manual_seed(None) before the first) and trains as the original.
void TestPortTargetClasses::verifiesNoneSeed()
{
    QFETCH(QString, target);
    QFETCH(QString, api);
    PORT_SKIP_WITHOUT_TORCH();
    QTemporaryDir dir;
    const fs::path root = fs::path(dir.path().toStdString()) / "original";
    auto r = generate(root,
                      seeded("import random\nif args.seed is None:\n"
                             "    args.seed = random.randint(1, 10000)\n"
                             "torch.manual_seed(args.seed)"),
                      target.toStdString(), api.toStdString());
    QVERIFY(r);
    PORT_VERIFY_PROOF(writeAndVerify(root, *r.value));
}

void TestPortTargetClasses::lrDecay_data()
{
    QTest::addColumn<QString>("script");
    QTest::addColumn<QString>("target");
    QTest::addColumn<QString>("api");
    QTest::addColumn<bool>("full");
    QTest::addColumn<QStringList>("contains");
    const QString every3 = QString::fromStdString(decayed("(epoch + 1) % 3 == 0"));
    const QStringList stepLr{
        "torch.optim.lr_scheduler.StepLR(optimizer, step_size=3, gamma=1 / 4)"};
    QTest::addRow("step/determined")
        << every3 << "determined-pytorchtrial"
        << "" << true << (stepLr + QStringList{"step_mode=LRScheduler.StepMode.STEP_EVERY_EPOCH"});
    QTest::addRow("step/poptorch")
        << every3 << "graphcore-poptorch"
        << "" << true << (stepLr + QStringList{"        lr_decay.step()\n"});
    // An epoch of 2 samples in batches of 2 (what the original's dry run read): 3 epochs are
    // 3 steps.
    QTest::addRow("step/cerebras-runner")
        << every3 << "cerebras-pytorch"
        << "runner" << true
        << QStringList{"decay_steps: 3\n", "decay_rate: 0.25\n", "staircase: true"};
    QTest::addRow("step/cerebras-trainer")
        << every3 << "cerebras-pytorch"
        << "trainer" << true << QStringList{"- StepLR:\n", "step_size: 3\n", "gamma: 0.25\n"};
    // Not a StepLR: `epoch % 3 == 0` decays after the first epoch already, the LambdaLR with
    // that offset (test_port_schedules verifies it on every target).
    QTest::addRow("first-epoch/determined")
        << QString::fromStdString(decayed("epoch % 3 == 0")) << "determined-pytorchtrial"
        << "" << true
        << QStringList{"LambdaLR(optimizer, lambda epochs: (1 / 4) ** ((epochs + 2) // 3))"};
    QTest::addRow("other-condition/poptorch")
        << QString::fromStdString(decayed("loss.item() < 0.1")) << "graphcore-poptorch"
        << "" << false << QStringList{};
}

void TestPortTargetClasses::lrDecay()
{
    QFETCH(QString, script);
    QFETCH(QString, target);
    QFETCH(QString, api);
    QFETCH(bool, full);
    QFETCH(QStringList, contains);
    QTemporaryDir dir;
    const fs::path root = fs::path(dir.path().toStdString()) / "original";
    writeOriginal(root, script.toStdString());
    auto a = analysis::analyzeProject(root);
    QVERIFY(a);
    auto plan = port::planPort(*a.value);
    QVERIFY(plan);
    plan.value->train.observedSamples = 2; // as the original's dry run reports it
    auto r = port::generatePort(*plan.value, target.toStdString(), api.toStdString());
    QVERIFY(r);
    const std::string all = allText(*r.value);
    const std::string manuals = manualText(*r.value);
    QVERIFY2(r.value->full() == full, manuals.c_str());
    if (!full) // no scheduler made (the items keep naming the decay)
        QVERIFY2(!has(all, "lr_decay"), all.c_str());
    PORT_VERIFY_CONTAINS(all, contains);
}

void TestPortTargetClasses::verifiesLrDecay_data()
{
    QTest::addColumn<QString>("target");
    QTest::addColumn<QString>("api");
    QTest::addRow("determined") << "determined-pytorchtrial"
                                << "";
    QTest::addRow("poptorch") << "graphcore-poptorch"
                              << "";
    QTest::addRow("cerebras-runner") << "cerebras-pytorch"
                                     << "runner";
}

// Both dry runs, the rate divided after every epoch of one step: the port's scheduler decays it
// as the original does (with the starting rate kept, the losses part at step 3).
void TestPortTargetClasses::verifiesLrDecay()
{
    QFETCH(QString, target);
    QFETCH(QString, api);
    PORT_SKIP_WITHOUT_TORCH();
    QTemporaryDir dir;
    const fs::path root = fs::path(dir.path().toStdString()) / "original";
    writeOriginal(root, decayed("(epoch + 1) % 1 == 0"));
    auto a = analysis::analyzeProject(root);
    QVERIFY(a);
    auto plan = port::planPort(*a.value);
    QVERIFY(plan);
    port::VerifyOptions o;
    o.python = Python;
    // The original's run first, as the CLI's --verify does: it says the samples of an epoch.
    const port::OriginalRun original = port::runOriginal(root, *plan.value, o);
    plan.value->train.observedSamples = original.trainSamples;
    plan.value->train.observedSynthetic = original.trainSamplesSynthetic;
    auto r = port::generatePort(*plan.value, target.toStdString(), api.toStdString());
    QVERIFY(r);
    QVERIFY(r.value->full());
    PORT_VERIFY_PROOF(writeAndVerify(root, *r.value, 3, &original));
}

void TestPortTargetClasses::modelsInTurn_data()
{
    QTest::addColumn<QString>("target");
    QTest::addColumn<QString>("api");
    QTest::addColumn<bool>("dryRun"); // also run the port's dry run
    QTest::addRow("poptorch") << "graphcore-poptorch"
                              << "" << false;
    QTest::addRow("cerebras-runner") << "cerebras-pytorch"
                                     << "runner" << true;
}

void TestPortTargetClasses::modelsInTurn()
{
    QFETCH(QString, target);
    QFETCH(QString, api);
    QFETCH(bool, dryRun);
    QTemporaryDir dir;
    const fs::path root = fs::path(dir.path().toStdString()) / "original";
    auto r = generate(root, InTurn, target.toStdString(), api.toStdString());
    QVERIFY2(r, r ? "" : r.error.message.c_str());
    const std::string manuals = manualText(*r.value);
    QVERIFY2(r.value->manual.size() == 1, manuals.c_str());
    QVERIFY2(has(manuals, "2 models trained in turn"), manuals.c_str());
    QCOMPARE(r.value->manual.front().location.line, 52); // loss_m.backward()
    const fs::path out = fs::path(dir.path().toStdString()) / "port";
    QVERIFY(!port::writePort(*r.value, out));
    std::string said;
    QVERIFY2(checkErrors(out, target.toStdString(), &said) == 0, said.c_str());
    if (!dryRun)
        return;
    PORT_SKIP_WITHOUT_TORCH();
    port::VerifyOptions o;
    o.python = Python;
    o.steps = 3;
    const port::VerifyResult v = port::verifyPort(root, out, *r.value, o);
    QVERIFY2(v.dryRunError.empty(), v.dryRunError.c_str());
    QCOMPARE(v.dryRunSteps, 3);
    QCOMPARE(r.value->leftFor(&v).size(), std::size_t(1));
}

void TestPortTargetClasses::statusNeedsDryRun_data()
{
    QTest::addColumn<int>("checkErrors");
    QTest::addColumn<int>("steps");
    QTest::addColumn<QString>("error");
    QTest::addColumn<bool>("full");
    QTest::addColumn<QString>("leftAt"); // the file:line of the item left, "" when none
    QTest::addRow("ran") << 0 << 3 << "" << true << "";
    QTest::addRow("no step") << 0 << 0
                             << "model_def.py:118:25: error: UnboundLocalError: cannot access "
                                "local variable 'h' [dryrun.project-error]"
                             << false << "model_def.py:118";
    QTest::addRow("stopped later")
        << 0 << 2 << "train.py:40:3: error: RuntimeError: boom" << false << "train.py:40";
    QTest::addRow("no step, no message") << 0 << 0 << "" << false << "";
    QTest::addRow("check error") << 2 << 3 << "" << false << "";
}

// The one status rule: verification that could not run the port is not a verified, full port,
// and what is left names the dry run's error at its spot.
void TestPortTargetClasses::statusNeedsDryRun()
{
    QFETCH(int, checkErrors);
    QFETCH(int, steps);
    QFETCH(QString, error);
    QFETCH(bool, full);
    QFETCH(QString, leftAt);
    port::PortResult r;
    r.target = "determined-pytorchtrial";
    port::VerifyResult v;
    v.checkErrors = checkErrors;
    v.dryRunSteps = steps;
    v.dryRunError = error.toStdString();
    QCOMPARE(r.full(&v), full);
    QCOMPARE(r.status(&v), std::string(full ? "full" : "partial"));
    QVERIFY(r.full()); // not verified: the plan alone decides
    if (checkErrors == 0) {
        const auto left = r.leftFor(&v);
        QCOMPARE(left.size(), std::size_t(full ? 0 : 1));
        // A port with an item left fails its dry run because of it: no second item.
        port::PortResult withItem = r;
        withItem.manual.push_back(port::manualFinding("the step is the user's", {}));
        QCOMPARE(withItem.leftFor(&v).size(), std::size_t(1));
        if (!leftAt.isEmpty())
            QCOMPARE(QString::fromStdString(left.front().location.file + ":" +
                                            std::to_string(left.front().location.line)),
                     leftAt);
    }
}

QTEST_GUILESS_MAIN(TestPortTargetClasses)
#include "test_port_target_classes.moc"
