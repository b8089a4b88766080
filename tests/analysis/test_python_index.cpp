// The Python index on small sources: every kind of fact it records, with positions.
#include "core/python/index.h"

#include <QTest>
#include <set>

using namespace portolan::python;

namespace {

std::string keyPaths(const PyIndex& idx)
{
    std::string out;
    for (const auto& k : idx.keyReads)
        out +=
            (out.empty() ? "" : " ") + k.base + ":" + k.path() + "@" + std::to_string(k.span.line);
    return out;
}

} // namespace

class TestPythonIndex : public QObject
{
    Q_OBJECT
private slots:
    void keyReads_data()
    {
        QTest::addColumn<QString>("source");
        QTest::addColumn<QString>("expected");
        QTest::addRow("nested") << "x = params[\"model\"][\"hidden_size\"]\n"
                                << "params:model.hidden_size@1";
        QTest::addRow("alias")
            << "def f(params):\n    mp = params[\"model\"]\n    return mp[\"depth\"]\n"
            << "params:model@2 params:model.depth@3";
        QTest::addRow("alias-reassigned")
            << "def f(params):\n    mp = params[\"model\"]\n    mp = {}\n    return mp[\"depth\"]\n"
            << "params:model@2 mp:depth@4";
        QTest::addRow("dynamic-key-keeps-prefix")
            << "def f(params, i):\n    return params[\"model\"][i]\n"
            << "params:model@2";
        QTest::addRow("get-default")
            << "def f(params):\n    return params[\"optimizer\"].get(\"momentum\", 0.0)\n"
            << "params:optimizer.momentum@2 params:optimizer@2";
        QTest::addRow("self-attribute-base")
            << "class T:\n    def f(self):\n        return self.data_config[\"data_dir\"]\n"
            << "self.data_config:data_dir@3";
        QTest::addRow("fstring") << "def f(params):\n    print(f\"{params['model']['name']!r}\")\n"
                                 << "params:model.name@2";
    }
    void keyReads()
    {
        QFETCH(QString, source);
        QFETCH(QString, expected);
        const PyIndex idx = indexSource(source.toStdString(), "t.py");
        QCOMPARE(QString::fromStdString(keyPaths(idx)), expected);
    }

    void imports_data()
    {
        QTest::addColumn<QString>("source");
        QTest::addColumn<QString>("dotted");
        QTest::addColumn<QString>("resolved");
        QTest::addRow("import-as") << "import torch.nn as nn\n"
                                   << "nn.Linear"
                                   << "torch.nn.Linear";
        QTest::addRow("from-import-as") << "from torch.optim import lr_scheduler as ls\n"
                                        << "ls.StepLR"
                                        << "torch.optim.lr_scheduler.StepLR";
        QTest::addRow("from-import") << "from torch.utils.data import DataLoader\n"
                                     << "DataLoader"
                                     << "torch.utils.data.DataLoader";
        QTest::addRow("plain-import") << "import torch.distributed\n"
                                      << "torch.distributed.barrier"
                                      << "torch.distributed.barrier";
        QTest::addRow("not-imported") << "import os\n"
                                      << "model.cuda"
                                      << "model.cuda";
    }
    void imports()
    {
        QFETCH(QString, source);
        QFETCH(QString, dotted);
        QFETCH(QString, resolved);
        const PyIndex idx = indexSource(source.toStdString(), "t.py");
        QCOMPARE(QString::fromStdString(idx.resolve(dotted.toStdString())), resolved);
    }

    void callsAndArguments()
    {
        const std::string src =
            "import torch\n"
            "def main(args):\n"
            "    model = Net(args.depth)\n"
            "    opt = ctx.wrap_optimizer(torch.optim.SGD(model.parameters(), lr=args.lr))\n"
            "    mask = x.masked_fill(m, float(\"-inf\"))\n"
            "    lr = context.get_hparam(\"lr\")\n";
        const PyIndex idx = indexSource(src, "t.py");
        QVERIFY(idx.syntaxErrors.empty());
        const Call* sgd = nullptr;
        const Call* fl = nullptr;
        const Call* net = nullptr;
        for (const auto& c : idx.calls) {
            if (c.callee == "torch.optim.SGD")
                sgd = &c;
            if (c.callee == "float")
                fl = &c;
            if (c.callee == "Net")
                net = &c;
        }
        QVERIFY(sgd && fl && net);
        QCOMPARE(sgd->nameSpan.line, 4);
        QCOMPARE(sgd->nameSpan.column, 42);
        QVERIFY(sgd->parentCall >= 0);
        QCOMPARE(
            QString::fromStdString(idx.calls[static_cast<std::size_t>(sgd->parentCall)].callee),
            QStringLiteral("ctx.wrap_optimizer"));
        QVERIFY(sgd->keyword("lr"));
        QCOMPARE(QString::fromStdString(sgd->keyword("lr")->text), QStringLiteral("args.lr"));
        QVERIFY(fl->arguments.at(0).isString);
        QCOMPARE(QString::fromStdString(fl->arguments.at(0).stringValue), QStringLiteral("-inf"));
        QCOMPARE(QString::fromStdString(net->assignedTo), QStringLiteral("model"));
        QCOMPARE(idx.hparams.size(), std::size_t(1));
        QCOMPARE(QString::fromStdString(idx.hparams[0].name), QStringLiteral("lr"));
        int argsUses = 0;
        for (const auto& a : idx.attributes)
            argsUses += a.base == "args" ? 1 : 0;
        QCOMPARE(argsUses, 2);
    }

    void classesFunctionsReturns()
    {
        const std::string src =
            "class W(PyTorchBaseModel, nn.Module):\n"
            "    def __init__(self, params, device=None, *rest, **kw):\n"
            "        super().__init__(params=params)\n"
            "    @property\n"
            "    def size(self) -> int:\n"
            "        return 3\n"
            "def model_fn(features, labels, mode, params):\n"
            "    return tf.estimator.EstimatorSpec(mode=mode, loss=l, train_op=t)\n";
        const PyIndex idx = indexSource(src, "t.py");
        QCOMPARE(idx.classes.size(), std::size_t(1));
        QCOMPARE(idx.classes[0].bases.size(), std::size_t(2));
        QCOMPARE(QString::fromStdString(idx.classes[0].bases[1]), QStringLiteral("nn.Module"));
        const FunctionDef* init = idx.findFunction("W.__init__");
        QVERIFY(init);
        QCOMPARE(init->parameters.size(), std::size_t(5));
        QCOMPARE(QString::fromStdString(init->parameters[2].defaultText), QStringLiteral("None"));
        QCOMPARE(QString::fromStdString(init->parameters[3].name), QStringLiteral("rest"));
        const FunctionDef* size = idx.findFunction("W.size");
        QVERIFY(size);
        QCOMPARE(size->decorators.size(), std::size_t(1));
        QCOMPARE(idx.returns.size(), std::size_t(2));
        QCOMPARE(QString::fromStdString(idx.returns[1].callee),
                 QStringLiteral("tf.estimator.EstimatorSpec"));
        QCOMPARE(idx.returns[1].keywords.size(), std::size_t(3));
    }

    void scopes_data()
    {
        QTest::addColumn<QString>("source");
        QTest::addColumn<QString>("undefined"); // names used in functions and bound nowhere
        QTest::addRow("leftover-local") << "def save(m):\n    return checkpoint_dir + m\n"
                                           "def main():\n    checkpoint_dir = 1\n"
                                        << "checkpoint_dir";
        QTest::addRow("all-bound")
            << "import os\nfrom x import y as z\nG = 1\n"
               "def f(a, *b, c=2, **d):\n    global H\n    for i, (j, k) in enumerate(a):\n        "
               "pass\n"
               "    with open(a) as fh:\n        pass\n    try:\n        pass\n    except "
               "ValueError as e:\n        print(e)\n"
               "    v = [w for w in b if w]\n    if (n := len(a)):\n        pass\n"
               "    return os, z, G, H, i, j, k, fh, v, n, c, d, lambda q: q + 1, later()\n"
               "def later():\n    return 1\n"
            << "";
        // `global x` in one function binds the module's x, which another function reads.
        QTest::addRow("global-elsewhere")
            << "def read():\n    return width\ndef setup():\n    global width\n    width = 3\n"
            << "";
        QTest::addRow("closure")
            << "def outer():\n    x = 1\n    def inner():\n        return x + y\n    return inner\n"
            << "y";
    }
    void scopes()
    {
        QFETCH(QString, source);
        QFETCH(QString, undefined);
        const PyIndex idx = indexSource(source.toStdString(), "t.py");
        std::set<std::string> module;
        for (const auto& d : idx.scopes[0].defined)
            module.insert(d.name);
        QStringList missing;
        for (std::size_t s = 1; s < idx.scopes.size(); ++s) {
            for (const auto& u : idx.scopes[s].used) {
                if (module.count(u.name) || isBuiltinName(u.name))
                    continue;
                bool found = false;
                for (FunctionId f = idx.scopes[s].function; f >= 0 && !found;
                     f = idx.functions[static_cast<std::size_t>(f)].parent)
                    for (const auto& d : idx.scopeOf(f).defined)
                        found = found || d.name == u.name;
                if (!found)
                    missing << QString::fromStdString(u.name);
            }
        }
        QCOMPARE(missing.join(','), undefined);
    }

    void syntaxErrorKeepsIndexing()
    {
        const std::string src = "import torch\n"
                                "def broken(:\n"
                                "    pass\n"
                                "def good(params):\n"
                                "    return params[\"model\"][\"depth\"]\n";
        const PyIndex idx = indexSource(src, "t.py");
        QVERIFY(!idx.syntaxErrors.empty());
        QCOMPARE(idx.syntaxErrors.front().location.line, 2);
        QVERIFY(idx.findFunction("good"));
        QCOMPARE(QString::fromStdString(keyPaths(idx)), QStringLiteral("params:model.depth@5"));
    }

    void hostileSources()
    {
        // Deep nesting, a 10 MB file, NUL bytes and invalid UTF-8: indexed or rejected, never a
        // crash.
        std::string deep = "x = " + std::string(5000, '(') + "1" + std::string(5000, ')') + "\n";
        const PyIndex a = indexSource(deep, "deep.py");
        QVERIFY(a.scopes.size() >= 1);
        std::string big;
        big.reserve(10u << 20);
        for (int i = 0; big.size() < (10u << 20); ++i)
            big += "def f" + std::to_string(i) + "(params):\n    return params[\"model\"][\"k\"]\n";
        const PyIndex b = indexSource(big, "big.py");
        QVERIFY(b.functions.size() > 100000);
        // The length comes from the array, not a count by hand (a wrong count read past it).
        static constexpr char binary[] = "x = 1\0\xff\xfe def(\n";
        const std::string bin(binary, sizeof binary - 1);
        QCOMPARE(bin.size(), std::size_t(14));
        QCOMPARE(bin[5], '\0');
        const PyIndex c = indexSource(bin, "bin.py");
        QVERIFY(!c.syntaxErrors.empty());
    }
};

QTEST_GUILESS_MAIN(TestPythonIndex)
#include "test_python_index.moc"
