// A tensor made on a named device (`torch.randn(n, 3, device=where)`, `where = torch.device(...)`):
// the port drops the device with its binding, as it drops `.to(where)`, so no target reads a name
// it no longer binds; each target places the tensor its own way. Fixtures written for the
// pattern.
#include "port_fixture.h"

#include <QTemporaryDir>
#include <QTest>

using namespace portfixture;

namespace {

// TOP / MAKE: the statements that make the data, at module level or in the training function
// (the other one empty).
const char* const DeviceScript = R"(import torch
import torch.nn as nn

where = torch.device("cpu")
kind = torch.float
TOP

def fit():
    torch.manual_seed(0)
MAKE
    net = nn.Linear(3, 1)
    tuner = torch.optim.SGD(net.parameters(), lr=0.01, momentum=0.9)
    for rnd in range(30):
        tuner.zero_grad()
        cost = ((net(inputs) - wanted) ** 2).mean()
        cost.backward()
        tuner.step()


fit()
)";

} // namespace

class TestPortDevicePlacement : public QObject
{
    Q_OBJECT

private slots:
    void tensorsMadeOnANamedDevice_data();
    void tensorsMadeOnANamedDevice();
};

void TestPortDevicePlacement::tensorsMadeOnANamedDevice_data()
{
    QTest::addColumn<QString>("target");
    QTest::addColumn<bool>("atModuleLevel");
    QTest::addColumn<QString>("make");
    const std::pair<const char*, const char*> targets[] = {
        {"determined", "determined-pytorchtrial"},
        {"poptorch", "graphcore-poptorch"},
        {"cerebras", "cerebras-pytorch"}};
    const char* const between = "inputs = torch.randn(40, 3, device=where, dtype=kind)\n"
                                "wanted = torch.randn(40, 1, device=where, dtype=kind)";
    const char* const last = "inputs = torch.randn(40, 3, dtype=kind, device=where)\n"
                             "wanted = torch.ones(40, 1,\n"
                             "                    device=where)";
    for (const auto& [name, target] : targets) {
        // At module level the port drops the binding of `where` (a device name): every read goes.
        QTest::addRow("%s, module level, the device between other keywords", name)
            << target << true << between;
        QTest::addRow("%s, module level, the device last", name) << target << true << last;
        // In the training function the target's device stands for it, as in the step.
        QTest::addRow("%s, in the function, the device last", name) << target << false << last;
    }
}

void TestPortDevicePlacement::tensorsMadeOnANamedDevice()
{
    QFETCH(QString, target);
    QFETCH(bool, atModuleLevel);
    QFETCH(QString, make);
    std::string script = DeviceScript;
    std::string lines = make.toStdString();
    if (!atModuleLevel)
        for (auto at = lines.find('\n'); at != std::string::npos; at = lines.find('\n', at + 1))
            lines.insert(at + 1, "    ");
    script.replace(script.find("TOP"), 3, atModuleLevel ? lines : "");
    script.replace(script.find("MAKE"), 4, atModuleLevel ? "" : "    " + lines);
    QTemporaryDir dir;
    const fs::path root = fs::path(dir.path().toStdString()) / "original";
    writeOriginal(root, script, "fit.py");
    auto r = generateFrom(root, target.toStdString(), "");
    QVERIFY2(r, r ? "" : r.error.message.c_str());
    QVERIFY2(r.value->full(), manualText(*r.value).c_str());
    const std::string all = allText(*r.value);
    if (atModuleLevel)
        PORT_VERIFY_CONTAINS(all, QStringList{"inputs = torch.randn(40, 3, dtype=kind)"});
    // The port's code (a config's comment may quote the original's line).
    std::string code;
    for (const auto& g : r.value->files)
        if (g.path.ends_with(".py"))
            code += g.text;
    PORT_VERIFY_ABSENT(code, QStringList{"device=where"});
    PORT_SKIP_WITHOUT_TORCH();
    PORT_VERIFY_PROOF(writeAndVerify(root, *r.value));
}

QTEST_GUILESS_MAIN(TestPortDevicePlacement)
#include "test_port_device_placement.moc"
