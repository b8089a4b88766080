// Settings the original loads from a YAML file of its project and hands to the optimizer
// (`lr=cfg["lr"]`): the Cerebras runner's params file takes the values the file holds, as it
// takes literals and flags. Two forms: the file named by a flag's default, opened in a `with`
// and the dict passed to the training function; and a file opened inline at module level.
// Fixtures written for the pattern; every row is full and verifies on its target.
#include "port_fixture.h"

#include <QTemporaryDir>
#include <QTest>

using namespace portfixture;

namespace {

const char* const ThroughAFlag = R"PY(import argparse

import torch
import yaml
from torch import nn
from torch.utils.data import DataLoader, TensorDataset


def fit(cfg):
    torch.manual_seed(cfg["seed"])
    xs = torch.randn(64, 6)
    ys = (xs[:, :3].sum(dim=1) > 0).long()
    feed = DataLoader(TensorDataset(xs, ys), batch_size=cfg["batch"], shuffle=True)
    net = nn.Sequential(nn.Linear(6, 10), nn.ReLU(), nn.Linear(10, 2))
    opt = torch.optim.Adam(net.parameters(), lr=cfg["lr"])
    for _ in range(cfg["epochs"]):
        for x, y in feed:
            opt.zero_grad()
            nn.functional.cross_entropy(net(x), y).backward()
            opt.step()


if __name__ == "__main__":
    cli = argparse.ArgumentParser()
    cli.add_argument("--config", default="setup/train.yaml")
    where = cli.parse_args()
    with open(where.config) as fh:
        cfg = yaml.safe_load(fh)
    fit(cfg)
)PY";

const char* const ThroughAFlagYaml = R"(# training settings
seed: 3
batch: 8
lr: 0.004
epochs: 2
)";

const char* const Inline = R"PY(import torch
import yaml
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

knobs = yaml.safe_load(open("knobs.yml"))

torch.manual_seed(1)
pts = torch.rand(50, 2)
vals = pts[:, :1] * 3 - pts[:, 1:]
feed = DataLoader(TensorDataset(pts, vals), batch_size=10, shuffle=True)
line = nn.Linear(2, 1)
step = torch.optim.SGD(line.parameters(), lr=knobs["rate"], momentum=knobs["momentum"])
for _ in range(2):
    for p, v in feed:
        step.zero_grad()
        nn.functional.mse_loss(line(p), v).backward()
        step.step()
)PY";

const char* const InlineYaml = "rate: 0.05\nmomentum: 0.8\n";

struct Original
{
    const char* name;
    std::map<std::string, std::string> files;
    std::vector<std::string> params; // what configs/params.yaml must say
};

std::vector<Original> originals()
{
    return {
        {"flag, with, passed on",
         {{"train.py", ThroughAFlag}, {"setup/train.yaml", ThroughAFlagYaml}},
         {"learning_rate: 0.004"}},
        {"inline at module level",
         {{"fit.py", Inline}, {"knobs.yml", InlineYaml}},
         {"learning_rate: 0.05", "momentum: 0.8"}},
    };
}

} // namespace

class TestPortYamlSettings : public QObject
{
    Q_OBJECT

private slots:
    void verifies_data();
    void verifies();
};

void TestPortYamlSettings::verifies_data()
{
    QTest::addColumn<int>("original");
    QTest::addColumn<QString>("target");
    const auto all = originals();
    for (int i = 0; i < int(all.size()); ++i)
        for (const char* target :
             {"determined-pytorchtrial", "graphcore-poptorch", "cerebras-pytorch"})
            QTest::addRow("%s, %s", all[std::size_t(i)].name, target) << i << target;
}

void TestPortYamlSettings::verifies()
{
    QFETCH(int, original);
    QFETCH(QString, target);
    const Original o = originals()[std::size_t(original)];
    QTemporaryDir dir;
    const fs::path root = fs::path(dir.path().toStdString()) / "original";
    writeOriginal(root, o.files);
    auto r = generateFrom(root, target.toStdString(), "");
    QVERIFY2(r, r ? "" : r.error.message.c_str());
    QVERIFY2(r.value->full(), manualText(*r.value).c_str());
    if (target == "cerebras-pytorch") {
        std::string params;
        for (const auto& f : r.value->files)
            if (f.path == "configs/params.yaml")
                params = f.text;
        for (const auto& want : o.params)
            QVERIFY2(has(params, want), params.c_str());
    }
    PORT_SKIP_WITHOUT_TORCH();
    PORT_VERIFY_PROOF(writeAndVerify(root, *r.value));
}

QTEST_GUILESS_MAIN(TestPortYamlSettings)
#include "test_port_yaml_settings.moc"
