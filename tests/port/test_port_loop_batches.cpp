// The batch and the steps of an original without a DataLoader, on the Cerebras runner (issue
// 24): a loop over instances (`for features, label in records:`, one per step) has a batch of one
// value; a full-batch loop (the whole tensor every step) has the tensor's rows when its shape is
// written in the code, else a key said not known; a loop over values the code writes out (a list,
// a range) gives max_steps by count. Each value says where it comes from, a note says the batch,
// and the port verifies with both dry runs. Fixtures written for the pattern.
#include "port_fixture.h"

#include <QTemporaryDir>
#include <QTest>

using namespace portfixture;

namespace {

const char* const PerInstance = R"(import torch
import torch.nn as nn

torch.manual_seed(0)
records = [
    ([0.1, 0.2, 0.3], 0),
    ([0.5, 0.1, 0.0], 1),
    ([0.9, 0.4, 0.2], 2),
    ([0.3, 0.3, 0.3], 1),
    ([0.2, 0.8, 0.5], 0),
]
scorer = nn.Linear(3, 3)
criterion = nn.CrossEntropyLoss()
sgd = torch.optim.SGD(scorer.parameters(), lr=0.1)
for round in range(4):
    for features, label in records:
        sgd.zero_grad()
        out = scorer(torch.tensor([features]))
        loss = criterion(out, torch.tensor([label]))
        loss.backward()
        sgd.step()
)";

// %ROWS% is the tensor's first dimension as written.
const char* const FullBatch = R"(import torch
import torch.nn as nn

torch.manual_seed(0)
inputs = torch.randn(%ROWS%, 3)
targets = inputs.sum(dim=1, keepdim=True)
fit = nn.Linear(3, 1)
opt = torch.optim.SGD(fit.parameters(), lr=0.05)
for it in range(25):
    opt.zero_grad()
    err = nn.functional.mse_loss(fit(inputs), targets)
    err.backward()
    opt.step()
)";

std::string fullBatch(const std::string& rows)
{
    std::string s = FullBatch;
    s.replace(s.find("%ROWS%"), 6, rows);
    return s;
}

} // namespace

class TestPortLoopBatches : public QObject
{
    Q_OBJECT
private slots:
    void batchAndStepsFromTheLoop_data();
    void batchAndStepsFromTheLoop();
};

void TestPortLoopBatches::batchAndStepsFromTheLoop_data()
{
    QTest::addColumn<QString>("script");
    QTest::addColumn<QStringList>("params"); // lines of configs/params.yaml
    QTest::addColumn<QString>("note");
    QTest::addRow("per instance, counted list")
        << QString(PerInstance)
        << QStringList{"  batch_size: 1  # one value of `records` per step",
                       "  max_steps: 20  # 4 epochs", "x 5 steps", "the 5 values written"}
        << "batch_size in configs/params.yaml is 1: one value of `records` per step";
    QTest::addRow("full batch, static rows")
        << QString::fromStdString(fullBatch("40"))
        << QStringList{"  batch_size: 40  # the whole `inputs` (40 rows",
                       "  max_steps: 25  # 1 epoch"}
        << "batch_size in configs/params.yaml is 40: the whole `inputs`";
    QTest::addRow("full batch, rows not known")
        << QString::fromStdString(fullBatch("int(torch.randint(30, 50, (1,)))"))
        << QStringList{"  batch_size: null  # not known from the code", "  max_steps: 25  #"}
        << "batch_size in configs/params.yaml is not set: not known from the code";
}

void TestPortLoopBatches::batchAndStepsFromTheLoop()
{
    QFETCH(QString, script);
    QFETCH(QStringList, params);
    QFETCH(QString, note);
    QTemporaryDir dir;
    const fs::path root = fs::path(dir.path().toStdString()) / "original";
    auto r = generate(root, script.toStdString(), "cerebras-pytorch", "runner");
    QVERIFY2(r, r ? "" : r.error.message.c_str());
    std::string yaml;
    for (const auto& f : r.value->files)
        if (f.path == "configs/params.yaml")
            yaml = f.text;
    PORT_VERIFY_CONTAINS(yaml, params);
    std::string notes;
    for (const auto& n : r.value->notes)
        notes += n + "\n";
    QVERIFY2(has(notes, note.toStdString()), notes.c_str());
    QVERIFY2(r.value->full(), manualText(*r.value).c_str());
    PORT_SKIP_WITHOUT_TORCH();
    PORT_VERIFY_PROOF(writeAndVerify(root, *r.value));
}

QTEST_GUILESS_MAIN(TestPortLoopBatches)
#include "test_port_loop_batches.moc"
