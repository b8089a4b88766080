// Data files the original reads from its folder (issue 24): the port runs from its own folder,
// so a small file the code reads by a literal path (or joined from __file__'s folder) is copied
// there at the same place, and listed with its `from`; a large one, an absolute path, or a file
// the original's folder lacks gets a note that says where the port expects it. Each row is a
// fixture written for the pattern; the verification rows run both dry runs on each target.
#include "core/port/port_verified.h"
#include "tests/port/port_fixture.h"

#include <QObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

using namespace portolan;
using namespace portfixture;

namespace {

// A regression trained on points read from a CSV file beside the script.
const char* const ReadsPoints = R"(import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

points = np.loadtxt('data/points.csv', delimiter=',', dtype=np.float32)
x = torch.from_numpy(points[:, :3])
y = torch.from_numpy(points[:, 3:])
loader = DataLoader(TensorDataset(x, y), batch_size=4, shuffle=False)
model = nn.Linear(3, 1)
criterion = nn.MSELoss()
optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
for epoch in range(2):
    for inputs, targets in loader:
        optimizer.zero_grad()
        loss = criterion(model(inputs), targets)
        loss.backward()
        optimizer.step()
)";

std::string pointsCsv()
{
    std::string csv;
    for (int i = 0; i < 16; ++i) {
        const double a = i * 0.1, b = 1.0 - i * 0.05, c = (i % 4) * 0.25;
        csv += std::to_string(a) + "," + std::to_string(b) + "," + std::to_string(c) + "," +
               std::to_string(2 * a - b + 0.5 * c) + "\n";
    }
    return csv;
}

// A training script whose first lines read (or write) a file: `read` is that statement.
std::string withRead(const std::string& read)
{
    return "import os\nimport numpy as np\nimport pandas as pd\nimport torch\nimport torch.nn as "
           "nn\n\n" +
           read +
           "\nmodel = nn.Linear(2, 1)\noptimizer = torch.optim.SGD(model.parameters(), lr=0.1)\n"
           "for step in range(4):\n    x = torch.randn(4, 2)\n    optimizer.zero_grad()\n"
           "    loss = model(x).pow(2).mean()\n    loss.backward()\n    optimizer.step()\n";
}

} // namespace

class TestPortDataFiles : public QObject
{
    Q_OBJECT
private slots:
    void placed_data();
    void placed();
    void globbed_data();
    void globbed();
    void verified_data();
    void verified();
    void readByTheRun_data();
    void readByTheRun();
};

void TestPortDataFiles::placed_data()
{
    QTest::addColumn<QString>("read");     // the statement that reads
    QTest::addColumn<QString>("file");     // the data file written beside main.py ("" none)
    QTest::addColumn<int>("megabytes");    // its size, 0 for a few bytes
    QTest::addColumn<QString>("extra");    // another script, "name=text"
    QTest::addColumn<QString>("copiedTo"); // the port's file, "" when not copied
    QTest::addColumn<QString>("note");     // a note that must be there, "" when none
    QTest::addRow("relative literal") << "table = np.load('data/table.npy')\n"
                                      << "data/table.npy" << 0 << ""
                                      << "data/table.npy"
                                      << "";
    QTest::addRow("open a text file") << "names = open('names.txt').read().split()\n"
                                      << "names.txt" << 0 << ""
                                      << "names.txt"
                                      << "";
    QTest::addRow("read_csv") << "frame = pd.read_csv('rows.csv')\n"
                              << "rows.csv" << 0 << ""
                              << "rows.csv"
                              << "";
    QTest::addRow("joined from __file__")
        << "here = os.path.dirname(os.path.abspath(__file__))\n"
           "vocab = open(os.path.join(os.path.dirname(os.path.abspath(__file__)), 'vocab.txt'))\n"
        << "vocab.txt" << 0 << ""
        << "vocab.txt"
        << "";
    QTest::addRow("a flag's default")
        << "import argparse\nparser = argparse.ArgumentParser()\n"
           "parser.add_argument('--names', default='data/names.txt')\n"
           "opts = parser.parse_args()\nwords = open(opts.names).read().split()\n"
        << "data/names.txt" << 0 << ""
        << "data/names.txt"
        << "";
    QTest::addRow("a flag's default, handed to a function")
        << "import argparse\nparser = argparse.ArgumentParser()\n"
           "parser.add_argument('--names', default='data/names.txt')\n"
           "opts = parser.parse_args()\ndef words_of(path):\n    with open(path) as f:\n"
           "        return f.read().split()\nwords = words_of(opts.names)\n"
        << "data/names.txt" << 0 << ""
        << "data/names.txt"
        << "";
    QTest::addRow("large") << "big = torch.load('big.pt')\n"
                           << "big.pt" << 9 << ""
                           << ""
                           << "data file big.pt (9 MB, read at main.py:7) is not copied";
    QTest::addRow("absolute path") << "table = np.load('/srv/data/table.npy')\n"
                                   << "" << 0 << ""
                                   << ""
                                   << "data file /srv/data/table.npy (read at main.py:7) is an "
                                      "absolute path";
    QTest::addRow("written by a script")
        << "series = torch.load('series.pt')\n"
        << "" << 0
        << "make_series.py=import torch\ntorch.save(torch.arange(8.0), open('series.pt', 'wb'))\n"
        << ""
        << "data file series.pt (read at main.py:7) is not in the original's folder: "
           "make_series.py:2 writes it; run make_series.py in the port's folder first";
    QTest::addRow("missing") << "series = torch.load('series.pt')\n"
                             << "" << 0 << ""
                             << ""
                             << "put it in the port's folder at series.pt";
    QTest::addRow("saved and loaded back by the script")
        << "torch.save(torch.zeros(2), 'state.pt')\nstate = torch.load('state.pt')\n"
        << "" << 0 << ""
        << ""
        << "";
    QTest::addRow("written, not read") << "log = open('log.txt', 'w')\n"
                                       << "log.txt" << 0 << ""
                                       << ""
                                       << "";
}

// The one rule on every target: where the copy goes, its `from`, and the notes.
void TestPortDataFiles::placed()
{
    QFETCH(QString, read);
    QFETCH(QString, file);
    QFETCH(int, megabytes);
    QFETCH(QString, extra);
    QFETCH(QString, copiedTo);
    QFETCH(QString, note);
    for (const char* target :
         {"determined-pytorchtrial", "graphcore-poptorch", "cerebras-pytorch"}) {
        QTemporaryDir dir;
        const fs::path root = fs::path(dir.path().toStdString()) / "original";
        std::map<std::string, std::string> files{{"main.py", withRead(read.toStdString())}};
        const std::string content =
            megabytes ? std::string(std::size_t(megabytes) << 20, 'x') : "1,2,3\n";
        if (!file.isEmpty())
            files[file.toStdString()] = content;
        if (!extra.isEmpty()) {
            const auto e = extra.toStdString();
            files[e.substr(0, e.find('='))] = e.substr(e.find('=') + 1);
        }
        fs::create_directories(root / "data");
        writeOriginal(root, files);
        auto r = generateFrom(root, target, "runner");
        QVERIFY2(r, r.error.message.c_str());
        const port::GeneratedFile* copied = nullptr;
        for (const auto& g : r.value->files)
            if (g.from == file.toStdString() && !file.isEmpty())
                copied = &g;
        QVERIFY2((copied != nullptr) == !copiedTo.isEmpty(), target);
        if (copied) {
            QCOMPARE(QString::fromStdString(copied->path), copiedTo);
            QVERIFY2(copied->text == content, target);
        }
        std::string notes;
        for (const auto& n : r.value->notes)
            notes += n + "\n";
        QVERIFY2(note.isEmpty() ? !has(notes, "data file") : has(notes, note.toStdString()),
                 (std::string(target) + "\n" + notes).c_str());
        QVERIFY(!has(notes, "log.txt"));
    }
}

void TestPortDataFiles::globbed_data()
{
    QTest::addColumn<QString>("read"); // the statements that list and read
    QTest::addColumn<int>("shards");   // data/shard_<i>.npy files beside main.py
    QTest::addColumn<int>("copies");   // how many of them the port copies
    QTest::addColumn<QString>("note"); // a note that must be there, "" when none
    const char* reads = "shards = [np.load(p) for p in {}]\n";
    auto read = [&](const std::string& listing) {
        std::string r = reads;
        return QString::fromStdString(r.replace(r.find("{}"), 2, listing));
    };
    QTest::addRow("a glob pattern")
        << "import glob\n" + read("glob.glob('data/shard_*.npy')") << 3 << 3 << "";
    QTest::addRow("through a function of the project")
        << "import glob\ndef listed(pattern):\n    return sorted(glob.glob(pattern))\n" +
               read("listed('data/shard_*.npy')")
        << 3 << 3 << "";
    QTest::addRow("through a function, by keyword")
        << "import glob\ndef listed(pattern):\n    return glob.glob(pattern)\n" +
               read("listed(pattern='data/shard_*.npy')")
        << 3 << 3 << "";
    // Built from the parameters: which files is not known from the code.
    QTest::addRow("through a function, a pattern built inside")
        << "import glob\ndef listed(where, pattern):\n    return glob.glob(where + pattern)\n" +
               read("listed(where='', pattern='data/shard_*.npy')")
        << 3 << 0 << "";
    QTest::addRow("iglob, a pattern that matches none")
        << "import glob\n" + read("glob.iglob('data/part_*.npy')") << 2 << 0 << "";
    QTest::addRow("a dataset of many files")
        << "import glob\n" + read("glob.glob('data/shard_*.npy')") << 260 << 0
        << "data file data/shard_*.npy";
    // A path formatted from values: the files it can name in the original's folder.
    QTest::addRow("a percent-formatted path")
        << "shards = [np.load('data/shard_%d.npy' % i) for i in range(3)]\n"
        << 3 << 3 << "";
    QTest::addRow("an f-string path")
        << "shards = [np.load(f'data/shard_{i}.npy') for i in range(3)]\n"
        << 3 << 3 << "";
    QTest::addRow("a .format path")
        << "shards = [np.load('data/shard_{}.npy'.format(i)) for i in range(3)]\n"
        << 3 << 3 << "";
    QTest::addRow("a formatted path that could be any file")
        << "names = ['shard_0.npy']\nshards = [np.load('data/%s' % n) for n in names]\n"
        << 3 << 0 << "";
    QTest::addRow("a reader's wrapper") << "def table(name):\n    return np.load(name)\n"
                                           "first = table('data/shard_1.npy')\n"
                                        << 3 << 1 << "";
}

// The files a pattern matches in the original's folder are data the port needs, each copied
// as a file read by name is; a pattern that matches a dataset of many files is one note.
void TestPortDataFiles::globbed()
{
    QFETCH(QString, read);
    QFETCH(int, shards);
    QFETCH(int, copies);
    QFETCH(QString, note);
    QTemporaryDir dir;
    const fs::path root = fs::path(dir.path().toStdString()) / "original";
    std::map<std::string, std::string> files{{"main.py", withRead(read.toStdString())}};
    for (int i = 0; i < shards; ++i)
        files["data/shard_" + std::to_string(i) + ".npy"] = "shard " + std::to_string(i);
    files["data/.shard_hidden.npy"] = "not matched by *";
    files["data/notes.txt"] = "not matched";
    fs::create_directories(root / "data");
    writeOriginal(root, files);
    auto r = generateFrom(root, "determined-pytorchtrial", "");
    QVERIFY2(r, r.error.message.c_str());
    int copied = 0;
    for (const auto& g : r.value->files)
        if (g.from.starts_with("data/")) {
            QVERIFY2(g.from.starts_with("data/shard_") && g.path == g.from &&
                         g.text == files.at(g.from),
                     g.from.c_str());
            ++copied;
        }
    QCOMPARE(copied, copies);
    std::string notes;
    for (const auto& n : r.value->notes)
        notes += n + "\n";
    QVERIFY2(note.isEmpty() ? !has(notes, "data file") : has(notes, note.toStdString()),
             notes.c_str());
}

void TestPortDataFiles::verified_data()
{
    QTest::addColumn<QString>("target");
    QTest::addRow("determined") << "determined-pytorchtrial";
    QTest::addRow("poptorch") << "graphcore-poptorch";
    QTest::addRow("cerebras runner") << "cerebras-pytorch";
}

// The port reads the copy from its own folder: both dry runs run, and the port trains like the
// original. The original's folder is left as it was.
void TestPortDataFiles::verified()
{
    PORT_SKIP_WITHOUT_TORCH();
    QFETCH(QString, target);
    QTemporaryDir dir;
    const fs::path root = fs::path(dir.path().toStdString()) / "original";
    fs::create_directories(root / "data");
    writeOriginal(root, {{"main.py", ReadsPoints}, {"data/points.csv", pointsCsv()}});
    auto r = generateFrom(root, target.toStdString(), "runner");
    QVERIFY2(r, r.error.message.c_str());
    QVERIFY2(r.value->manual.empty(), manualText(*r.value).c_str());
    const port::VerifyResult v = writeAndVerify(root, *r.value);
    PORT_VERIFY_PROOF(v);
    QVERIFY(fs::exists(root.parent_path() / "port" / "data" / "points.csv"));
    int entries = 0;
    for (const auto& e : fs::recursive_directory_iterator(root))
        entries += e.is_regular_file() ? 1 : 0;
    QCOMPARE(entries, 2);
}

// Data files whose names the code builds in ways no reading of it follows (a folder constant
// joined twice, a list of names, gzip.open): the files the original's dry run read from its
// folder are put in the port, in the CLI's order (the original's run before generation).
void TestPortDataFiles::readByTheRun_data()
{
    QTest::addColumn<QString>("target");
    QTest::addRow("determined") << "determined-pytorchtrial";
    QTest::addRow("poptorch") << "graphcore-poptorch";
    QTest::addRow("cerebras runner") << "cerebras-pytorch";
}

void TestPortDataFiles::readByTheRun()
{
    PORT_SKIP_WITHOUT_TORCH();
    QFETCH(QString, target);
    QTemporaryDir dir;
    const fs::path root = fs::path(dir.path().toStdString()) / "original";
    const std::string shelf = R"(import gzip
import os

import torch

BASE = "store"
PARTS = ["inputs.txt.gz", "outputs.txt.gz"]


def columns():
    where = os.path.join(os.path.join(BASE, "v2"), "")
    missing = [p for p in PARTS if not os.path.exists(os.path.join(where, p))]
    if missing:
        raise FileNotFoundError("not in place: %s" % missing)
    out = []
    for p in PARTS:
        with gzip.open(os.path.join(where, p), "rt") as f:
            out.append(torch.tensor([[float(v) for v in line.split()] for line in f]))
    return out
)";
    const std::string main = R"(import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

from shelf import columns

torch.manual_seed(1)
xs, ys = columns()
feed = DataLoader(TensorDataset(xs, ys), batch_size=4, shuffle=True)
net = nn.Linear(3, 1)
opt = torch.optim.SGD(net.parameters(), lr=0.05)
for lap in range(2):
    for xb, yb in feed:
        opt.zero_grad()
        miss = nn.functional.mse_loss(net(xb), yb)
        miss.backward()
        opt.step()
)";
    writeOriginal(root, {{"main.py", main}, {"shelf.py", shelf}});
    fs::create_directories(root / "store" / "v2");
    const auto gz = [&](const std::string& name, const std::string& text) {
        QProcess p;
        p.start(Python, {"-c", "import gzip,sys; gzip.open(sys.argv[1],'wt').write(sys.argv[2])",
                         QString::fromStdString((root / "store" / "v2" / name).string()),
                         QString::fromStdString(text)});
        QVERIFY(p.waitForFinished(30000) && p.exitCode() == 0);
    };
    std::string in, out;
    for (int i = 0; i < 16; ++i) {
        in += std::to_string(i * 0.1) + " " + std::to_string(1 - i * 0.05) + " 0.5\n";
        out += std::to_string(i * 0.2) + "\n";
    }
    gz("inputs.txt.gz", in);
    gz("outputs.txt.gz", out);
    auto a = analysis::analyzeProject(root);
    QVERIFY(a);
    port::PortRequest request;
    request.project = root;
    request.out = root.parent_path() / "port";
    request.target = target.toStdString();
    request.verify = true;
    request.verifyOptions.python = Python;
    request.verifyOptions.steps = 3;
    const auto run = port::portWithVerification(*a.value, request);
    QVERIFY2(run.port, run.port ? "" : run.port.error.message.c_str());
    QVERIFY(!run.writeError);
    QVERIFY(run.verify);
    PORT_VERIFY_PROOF(*run.verify);
    for (const char* name : {"inputs.txt.gz", "outputs.txt.gz"})
        QVERIFY2(fs::exists(request.out / "store" / "v2" / name), name);
}

QTEST_GUILESS_MAIN(TestPortDataFiles)
#include "test_port_data_files.moc"
