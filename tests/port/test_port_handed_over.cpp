// Values handed over by the code that starts the training (issue 24): a training function
// started in other processes by the script itself (`mp.Process(target=..., args=(...))` in a
// loop, `mp.spawn(...)`), which builds the model, the data set and the flags and hands them over
// in the launch's tuple. The port binds each parameter to the launch's argument (the process
// index is the port's one process, 0), builds the handed values as the launching code does, reads
// the epoch count the launch passes, and says in a note that it trains one process.
#include "tests/port/port_fixture.h"

#include <QObject>
#include <QTemporaryDir>
#include <QTest>
#include <filesystem>
#include <map>

using namespace portolan;
namespace fs = std::filesystem;

namespace {

// A regression trained by workers that share one model; @LAUNCH@ is how they are started.
const char* const Launching = R"(import argparse
import torch
import torch.multiprocessing as mp
import torch.nn as nn
import torch.nn.functional as F


class Regressor(nn.Module):
    def __init__(self):
        super().__init__()
        self.hidden = nn.Linear(6, 16)
        self.out = nn.Linear(16, 1)

    def forward(self, x):
        return self.out(torch.tanh(self.hidden(x)))


def worker(index, opts, net, samples, rounds):
    torch.manual_seed(index)
    loader = torch.utils.data.DataLoader(samples, batch_size=opts.batch, shuffle=True)
    opt = torch.optim.SGD(net.parameters(), lr=opts.rate)
    for _ in range(rounds):
        for x, y in loader:
            opt.zero_grad()
            loss = F.mse_loss(net(x), y)
            loss.backward()
            opt.step()


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--rate", type=float, default=0.05)
    parser.add_argument("--batch", type=int, default=8)
    parser.add_argument("--workers", type=int, default=2)
    opts = parser.parse_args()
    torch.manual_seed(0)
    net = Regressor()
    net.share_memory()
    samples = torch.utils.data.TensorDataset(torch.randn(64, 6), torch.randn(64, 1))
@LAUNCH@
)";

// One process per value of a loop, the index passed first.
const char* const ProcessLoop = R"(    started = []
    for k in range(opts.workers):
        p = mp.Process(target=worker, args=(k, opts, net, samples, 3))
        p.start()
        started.append(p)
    for p in started:
        p.join())";

// spawn passes the process index itself.
const char* const Spawn = "    mp.spawn(worker, args=(opts, net, samples, 3), nprocs=opts.workers)";

std::string launching(const char* launch)
{
    std::string s = Launching;
    s.replace(s.find("@LAUNCH@"), 8, launch);
    return s;
}

std::string manuals(const port::PortResult& r)
{
    std::string out;
    for (const auto& m : r.manual)
        out += m.location.file + ":" + std::to_string(m.location.line) + " " + m.message + "\n";
    return out;
}

std::string allText(const port::PortResult& r)
{
    std::string all;
    for (const auto& g : r.files)
        all += "=== " + g.path + "\n" + g.text + "\n";
    for (const auto& n : r.notes)
        all += "note: " + n + "\n";
    return all;
}

void addRows()
{
    QTest::addColumn<QString>("script");
    QTest::addColumn<QString>("target");
    QTest::addColumn<QString>("api");
    const std::pair<const char*, const char*> launches[] = {{"process-loop", ProcessLoop},
                                                            {"spawn", Spawn}};
    const std::pair<const char*, const char*> targets[] = {{"determined-pytorchtrial", ""},
                                                           {"graphcore-poptorch", ""},
                                                           {"cerebras-pytorch", "runner"}};
    for (const auto& [name, launch] : launches)
        for (const auto& [target, api] : targets)
            QTest::addRow("%s/%s", name, target)
                << QString::fromStdString(launching(launch)) << target << api;
}

} // namespace

class TestPortHandedOver : public QObject
{
    Q_OBJECT

private slots:
    void bindsLaunch_data() { addRows(); }
    void bindsLaunch();
    void verifiesLaunch_data() { addRows(); }
    void verifiesLaunch();
};

// Full: the model, the data set and the flags come from the launching code; the process index
// is 0 and the epoch count the launch's; a note names the one process, not an item.
void TestPortHandedOver::bindsLaunch()
{
    QFETCH(QString, script);
    QFETCH(QString, target);
    QFETCH(QString, api);
    QTemporaryDir dir;
    const fs::path root = fs::path(dir.path().toStdString()) / "original";
    portfixture::writeOriginal(root, {{"train.py", script.toStdString()}});
    auto r = portfixture::generateFrom(root, target.toStdString(), api.toStdString());
    QVERIFY2(r, r ? "" : r.error.message.c_str());
    QVERIFY2(r.value->full(), manuals(*r.value).c_str());
    const std::string all = allText(*r.value);
    for (const char* c : {"net = Regressor()", "torch.manual_seed(0)",
                          "samples = torch.utils.data.TensorDataset(torch.randn(64, 6)",
                          "the port is the training of one of them (the first, rank 0)"})
        QVERIFY2(portfixture::has(all, c), qPrintable(QString(c) + "\n---\n" + all.c_str()));
    // Shared memory is for the original's processes: the port trains one (the note says why).
    QVERIFY2(!portfixture::has(all, "    net.share_memory()\n"), all.c_str());
    QVERIFY2(!portfixture::has(all, "manual_seed(index)"), all.c_str());
    // The model is built before what the worker builds on it.
    QVERIFY2(all.find("net = Regressor()") < all.find("net.parameters()"), all.c_str());
}

// Both dry runs: the port reaches its steps, its check has no error, it trains as the original.
void TestPortHandedOver::verifiesLaunch()
{
    PORT_SKIP_WITHOUT_TORCH();
    QFETCH(QString, script);
    QFETCH(QString, target);
    QFETCH(QString, api);
    QTemporaryDir dir;
    const fs::path root = fs::path(dir.path().toStdString()) / "original";
    portfixture::writeOriginal(root, {{"train.py", script.toStdString()}});
    auto r = portfixture::generateFrom(root, target.toStdString(), api.toStdString());
    QVERIFY2(r, r ? "" : r.error.message.c_str());
    QVERIFY2(r.value->full(), manuals(*r.value).c_str());
    PORT_VERIFY_PROOF(portfixture::writeAndVerify(root, *r.value));
}

QTEST_GUILESS_MAIN(TestPortHandedOver)
#include "test_port_handed_over.moc"
