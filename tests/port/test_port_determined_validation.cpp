// The original's validation on Determined (issue 24): evaluate_full_dataset runs the original's
// own statements (its evaluation function written out, or the loop written inline in its epoch
// loop), so the metrics are its sums and the ratios it computes from them; a rate divided when
// the validation loss stops improving is ReduceLROnPlateau stepped there (MANUAL_STEP). The
// verification's dry run validates one batch only, so each row also trains the written trial
// epoch by epoch under the stand-ins, validates it over the whole validation data, and compares
// what it reports with what the original prints for the same epochs; the same data validated
// batch by batch, its ratios averaged, must not give the original's numbers.
#include "tests/port/port_fixture.h"
#include "tests/port/validation_fixtures.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QObject>
#include <QProcess>
#include <QProcessEnvironment>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>

using namespace portolan;
using namespace portfixture;

namespace {

// A classifier validated by a function that sums a loss and the right answers over a loader of
// uneven batches (8, 8, 4) and divides by the data set's size.
const char* const Classifier = R"(import argparse
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset


class Classifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.hidden = nn.Linear(5, 12)
        self.head = nn.Linear(12, 4)

    def forward(self, x):
        return F.log_softmax(self.head(torch.tanh(self.hidden(x))), dim=1)


def fit(net, loader, opt):
    net.train()
    for xs, ys in loader:
        opt.zero_grad()
        loss = F.nll_loss(net(xs), ys)
        loss.backward()
        opt.step()


def check(net, loader):
    net.eval()
    test_loss = 0
    correct = 0
    with torch.no_grad():
        for xs, ys in loader:
            scores = net(xs)
            test_loss += F.nll_loss(scores, ys, reduction="sum").item()
            guess = scores.argmax(dim=1, keepdim=True)
            correct += guess.eq(ys.view_as(guess)).sum().item()
    test_loss /= len(loader.dataset)
    accuracy = correct / len(loader.dataset)
    print("valid test_loss={!r} accuracy={!r}".format(test_loss, accuracy))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=2)
    parser.add_argument("--rate", type=float, default=0.5)
    args = parser.parse_args()
    fit_set = TensorDataset(torch.linspace(-3, 3, 200).view(40, 5).sin(), torch.arange(40) % 4)
    check_set = TensorDataset(torch.linspace(-2, 2, 100).view(20, 5).cos(), torch.arange(20) % 4)
    fit_loader = DataLoader(fit_set, batch_size=8)
    check_loader = DataLoader(check_set, batch_size=8)
    net = Classifier()
    opt = torch.optim.SGD(net.parameters(), lr=args.rate)
    for epoch in range(1, args.epochs + 1):
        fit(net, fit_loader, opt)
        check(net, check_loader)


if __name__ == "__main__":
    main()
)";

// The validation written inline in the epoch loop: a mean of per-batch losses over the batches
// counted by the loop's index, and hits over the data set's size. Its batches are the training's
// size, as the port's validation loader's are (the per-slot batch size): a mean of per-batch
// means depends on it.
const char* const Inline = R"(import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

train_set = TensorDataset(torch.linspace(-2, 2, 240).view(40, 6).sin(), torch.arange(40) % 3)
valid_set = TensorDataset(torch.linspace(-2, 2, 126).view(21, 6).cos(), torch.arange(21) % 3)
train_loader = DataLoader(train_set, batch_size=8)
valid_loader = DataLoader(valid_set, batch_size=8)
model = nn.Sequential(nn.Linear(6, 10), nn.Tanh(), nn.Linear(10, 3), nn.LogSoftmax(dim=1))
optimizer = torch.optim.SGD(model.parameters(), lr=0.2)

for ep in range(2):
    model.train()
    for x, y in train_loader:
        optimizer.zero_grad()
        loss = F.nll_loss(model(x), y)
        loss.backward()
        optimizer.step()
    running_loss = 0.0
    hits = 0
    model.eval()
    with torch.no_grad():
        for i, (x, y) in enumerate(valid_loader):
            out = model(x)
            running_loss += F.nll_loss(out, y).item()
            hits += (out.argmax(1) == y).sum().item()
    val_loss = running_loss / (i + 1)
    hit_rate = hits / len(valid_loader.dataset)
    print("valid val_loss={!r} hit_rate={!r}".format(val_loss, hit_rate))
)";

// Trains the written trial (the port's model_def.py under Determined's stand-ins) for `epochs`
// passes over its training loader and validates it after each over the whole validation loader
// as Determined does (evaluate_batch on every batch, then its reducers reduced; or
// evaluate_full_dataset); prints each epoch's metrics as JSON. With `per_batch`, each batch is
// validated on its own and the epoch's metrics are the mean of those: a reduction that is not
// the original's. `drop`, when given, is taken out of model_def.py first.
const char* const Harness = R"(import json, sys, torch, types, yaml
port, epochs, per_batch, drop = sys.argv[1], int(sys.argv[2]), sys.argv[3] == "1", sys.argv[4]
sys.path.insert(0, port)
torch.manual_seed(0)
from determined.pytorch import PyTorchTrialContext
text = open(port + "/model_def.py").read()
assert drop in text, drop
model_def = types.ModuleType("model_def")
exec(compile(text.replace(drop, "", 1), "model_def.py", "exec"), model_def.__dict__)
context = PyTorchTrialContext(yaml.safe_load(open(port + "/const.yaml")))
trial = model_def.Trial(context)
train = trial.build_training_data_loader().get_data_loader()
reducers = [(r, name) for r, name, _, validation in context._reducers if validation]


def reduced(metrics):
    for r, name in reducers:
        value = r.cross_slot_reduce([r.per_slot_reduce()])
        metrics.update(value if name is None else {name: value})
    return metrics


def validate(loader):
    if hasattr(type(trial), "evaluate_full_dataset"):
        return trial.evaluate_full_dataset(loader)
    for r, _ in reducers:
        r.reset()
    metrics = {}
    for index, batch in enumerate(loader):
        metrics.update(trial.evaluate_batch(batch, index))
    return reduced(metrics)


for epoch in range(epochs):
    for model in context.models:
        model.train()
    for index, batch in enumerate(train):
        trial.train_batch(batch, epoch, index)
    for model in context.models:
        model.eval()
    loader = trial.build_validation_data_loader()
    with torch.no_grad():
        if not per_batch:
            metrics = validate(loader.get_data_loader())
        else:
            parts = [validate([batch]) for batch in loader.get_data_loader()]
            metrics = {k: sum(p[k] for p in parts) / len(parts) for k in parts[0]}
    print("metrics " + json.dumps({k: float(v) for k, v in metrics.items()}))
)";

QProcessEnvironment standIns()
{
    auto env = QProcessEnvironment::systemEnvironment();
    env.insert("PYTHONPATH",
               QString::fromStdString((resourcesDir() / "python" / "portolan_standins").string()));
    return env;
}

// Runs Python with `arguments` in `dir`; its standard output, or the error.
QString runPython(const fs::path& dir, const QStringList& arguments, QString* error)
{
    QProcess p;
    p.setProcessEnvironment(standIns());
    p.setWorkingDirectory(QString::fromStdString(dir.string()));
    p.start(Python, arguments);
    if (!p.waitForFinished(180000) || p.exitCode() != 0)
        *error = QString::fromUtf8(p.readAllStandardError());
    return QString::fromUtf8(p.readAllStandardOutput());
}

// The original's printed `valid name=value ...` lines, each as name -> value.
QList<QMap<QString, double>> printedByOriginal(const QString& out)
{
    QList<QMap<QString, double>> epochs;
    static const QRegularExpression pair(R"((\w+)=([-+0-9.eE]+))");
    for (const auto& line : out.split('\n', Qt::SkipEmptyParts)) {
        if (!line.startsWith("valid "))
            continue;
        QMap<QString, double> m;
        for (auto it = pair.globalMatch(line); it.hasNext();) {
            const auto match = it.next();
            m[match.captured(1)] = match.captured(2).toDouble();
        }
        epochs << m;
    }
    return epochs;
}

QList<QJsonObject> reportedByTrial(const QString& out)
{
    QList<QJsonObject> epochs;
    for (const auto& line : out.split('\n', Qt::SkipEmptyParts))
        if (line.startsWith("metrics "))
            epochs << QJsonDocument::fromJson(line.mid(8).toUtf8()).object();
    return epochs;
}

// Whether the trial reported, epoch by epoch, every value the original printed.
bool same(const QList<QMap<QString, double>>& original, const QList<QJsonObject>& trial,
          QString* why)
{
    if (original.size() != trial.size()) {
        *why = QString("%1 epochs printed, %2 reported").arg(original.size()).arg(trial.size());
        return false;
    }
    for (qsizetype e = 0; e < original.size(); ++e)
        for (auto it = original[e].begin(); it != original[e].end(); ++it) {
            const double got = trial[e].value(it.key()).toDouble(qQNaN());
            if (!(std::abs(got - it.value()) <= 1e-9 * std::max(1.0, std::abs(it.value())))) {
                *why = QString("epoch %1: %2 is %3, the original's %4")
                           .arg(e + 1)
                           .arg(it.key())
                           .arg(got, 0, 'g', 17)
                           .arg(it.value(), 0, 'g', 17);
                return false;
            }
        }
    return true;
}

} // namespace

class TestPortDeterminedValidation : public QObject
{
    Q_OBJECT

private slots:
    void runsOriginalsValidation_data();
    void runsOriginalsValidation();
};

void TestPortDeterminedValidation::runsOriginalsValidation_data()
{
    QTest::addColumn<QString>("script");
    QTest::addColumn<QStringList>("present");
    QTest::addColumn<QStringList>("absent");
    QTest::addColumn<int>("epochs");
    QTest::addColumn<bool>("loaderRead"); // it validates the loader Determined hands it
    QTest::addColumn<QString>("drop");    // a generated line without which the numbers part
    QTest::addRow("function-of-a-loader")
        << QString(Classifier)
        << QStringList{"def evaluate_batch(self, batch: Any, batch_idx: int)",
                       "        xs, ys = batch\n",
                       "test_loss += F.nll_loss(scores, ys, reduction=\"sum\").item()",
                       "self.validation_sums.update(correct=correct, test_loss=test_loss, "
                       "batches=1)",
                       "def validation_metrics(self, correct, test_loss, batches: int)",
                       "data_loader = self.build_validation_data_loader()",
                       "test_loss /= len(data_loader.dataset)",
                       "accuracy = correct / len(data_loader.dataset)",
                       "\"validation_loss\": test_loss",
                       "\"accuracy\": accuracy",
                       "class ValidationSums(MetricReducer)",
                       "self.context.wrap_reducer(\n            ValidationSums(self.validation_"
                       "metrics), for_training=False)"}
        << QStringList{"def evaluate_full_dataset", "is not carried over"} << 2 << true
        << QString();
    // The language model of validation_fixtures.h, which also prints its validation loss whole.
    QTest::addRow("function-slicing-a-tensor-with-plateau")
        << QString::fromStdString(withDecay(
               std::string(Decay) + "    print(\"valid val_loss={!r}\".format(val_loss))\n"))
        << QStringList{"        self.val_data = val_data\n",
                       "data, targets = get_batch(self.val_data, i, args)",
                       "val_loss = total_loss / (len(self.val_data) - 1)",
                       "self.plateau = self.context.wrap_lr_scheduler(\n"
                       "            torch.optim.lr_scheduler.ReduceLROnPlateau(\n"
                       "                self.optimizer, mode=\"min\", factor=1 / 4.0, patience=0, "
                       "threshold=0, threshold_mode=\"abs\"),\n"
                       "            step_mode=LRScheduler.StepMode.MANUAL_STEP)",
                       "self.plateau.step(val_loss)",
                       "\"validation_loss\": val_loss"}
        << QStringList{"def evaluate_batch", "TODO(portolan)"} << 6 << false
        << "        self.plateau.step(val_loss)\n";
    QTest::addRow("inline-in-the-epoch-loop")
        << QString(Inline)
        << QStringList{"        i = batch_idx\n",
                       "        (x, y) = batch\n",
                       "        i = batches - 1  # the loop's last index\n",
                       "val_loss = running_loss / (i + 1)",
                       "hit_rate = hits / len(data_loader.dataset)",
                       "\"hit_rate\": hit_rate"}
        << QStringList{"def evaluate_full_dataset", "print(\"valid"} << 2 << true << QString();
}

void TestPortDeterminedValidation::runsOriginalsValidation()
{
    QFETCH(QString, script);
    QFETCH(QStringList, present);
    QFETCH(QStringList, absent);
    QFETCH(int, epochs);
    QFETCH(bool, loaderRead);
    QFETCH(QString, drop);
    PORT_SKIP_WITHOUT_TORCH();
    QTemporaryDir dir;
    const fs::path root = fs::path(dir.path().toStdString()) / "original";
    auto r = generate(root, script.toStdString(), "determined-pytorchtrial");
    QVERIFY2(r, r ? "" : r.error.message.c_str());
    const std::string text = allText(*r.value);
    PORT_VERIFY_CONTAINS(text, present);
    PORT_VERIFY_ABSENT(text, absent);
    QVERIFY2(r.value->manual.empty(), manualText(*r.value).c_str());
    const auto v = writeAndVerify(root, *r.value);
    PORT_VERIFY_PROOF(v);

    // The original run whole, seeded as the harness seeds the trial; then the trial.
    QString error;
    const QString original =
        runPython(root,
                  {"-c", "import sys, torch\ntorch.manual_seed(0)\nsys.argv = ['main.py']\n"
                         "exec(compile(open('main.py').read(), 'main.py', 'exec'), "
                         "{'__name__': '__main__'})\n"},
                  &error);
    QVERIFY2(error.isEmpty(), qPrintable(error));
    const auto printed = printedByOriginal(original);
    QCOMPARE(printed.size(), epochs);
    const fs::path port = root.parent_path() / "port";
    const QString port_ = QString::fromStdString(port.string());
    const QString whole =
        runPython(port, {"-c", Harness, port_, QString::number(epochs), "0", ""}, &error);
    QVERIFY2(error.isEmpty(), qPrintable(error + "\n---\n" + QString::fromStdString(text)));
    QString why;
    QVERIFY2(same(printed, reportedByTrial(whole), &why),
             qPrintable(why + "\n---\n" + whole + "\n---\n" + QString::fromStdString(text)));
    // Validated batch by batch and averaged, the ratios are not the original's.
    if (loaderRead) {
        const QString batches =
            runPython(port, {"-c", Harness, port_, QString::number(epochs), "1", ""}, &error);
        QVERIFY2(error.isEmpty(), qPrintable(error));
        QVERIFY(!same(printed, reportedByTrial(batches), &why));
    }
    if (!drop.isEmpty()) {
        const QString without =
            runPython(port, {"-c", Harness, port_, QString::number(epochs), "0", drop}, &error);
        QVERIFY2(error.isEmpty(), qPrintable(error));
        QVERIFY(!same(printed, reportedByTrial(without), &why));
    }
}

QTEST_GUILESS_MAIN(TestPortDeterminedValidation)
#include "test_port_determined_validation.moc"
