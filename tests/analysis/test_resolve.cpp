// The resolution layer: imports to qualified names (aliases, relative, Model Zoo style), names to
// project definitions across files, values across return paths and assignments, call sites,
// argument binding and class ancestry. Small in-memory projects, one table row per case.
#include "core/python/index.h"
#include "core/python/resolve.h"

#include <QTest>
#include <map>
#include <set>

using namespace portolan::python;

namespace {

// A project of named sources, indexed and resolved.
struct Project
{
    std::vector<PyIndex> files;
    std::unique_ptr<Resolver> resolver;

    explicit Project(const std::map<std::string, std::string>& sources)
    {
        for (const auto& [path, text] : sources)
            files.push_back(indexSource(text, path));
        std::vector<const PyIndex*> p;
        for (const auto& f : files)
            p.push_back(&f);
        resolver = std::make_unique<Resolver>(std::move(p));
    }
    int file(const std::string& path) const { return resolver->fileIndex(path); }
    FunctionId function(const std::string& path, const std::string& qualified) const
    {
        const PyIndex& idx = files[std::size_t(file(path))];
        for (std::size_t i = 0; i < idx.functions.size(); ++i)
            if (idx.functions[i].qualifiedName == qualified)
                return FunctionId(i);
        return ModuleLevel;
    }
};

using Sources = std::map<std::string, std::string>;

const Sources& zooGpt2()
{
    // A copy of one Model Zoo model: it imports its own modules by their Model Zoo path.
    static const Sources s{
        {"run.py", "from modelzoo.common.pytorch.run_utils import run\n"
                   "from modelzoo.transformers.pytorch.gpt2.data import train_input_dataloader\n"
                   "from modelzoo.transformers.pytorch.gpt2.model import Gpt2Model\n"
                   "def main():\n    run(Gpt2Model, train_input_dataloader)\n"},
        {"data.py", "from torch.utils.data import DataLoader\n"
                    "from modelzoo.transformers.pytorch.gpt2.input.Proc import Proc\n"
                    "def train_input_dataloader(params):\n"
                    "    return Proc(params['train_input']).create()\n"},
        {"model.py", "import torch.nn as nn\n"
                     "from modelzoo.common.pytorch.PyTorchBaseModel import PyTorchBaseModel\n"
                     "class Gpt2Model(PyTorchBaseModel):\n    pass\n"
                     "class Head(nn.Module):\n    pass\n"
                     "class Deeper(Head):\n    pass\n"},
        {"input/Proc.py", "from torch.utils.data import DataLoader\n"
                          "class Proc:\n    def create(self):\n        return DataLoader([])\n"},
    };
    return s;
}

const Sources& package()
{
    static const Sources s{
        {"pkg/__init__.py", "from .data import loader\n"},
        {"pkg/data.py", "import torch\nfrom torch.utils.data import DataLoader as DL\n"
                        "def loader(flag):\n"
                        "    if flag:\n        out = DL([])\n    else:\n        out = [1, 2]\n"
                        "    return out\n"
                        "def helper():\n    return DL([])\n"
                        "def twice():\n    return helper()\n"},
        {"pkg/run.py", "from . import data\nfrom .data import loader as make\nimport pkg.data\n"
                       "def main():\n    a = make(True)\n    b = data.helper()\n"
                       "    return pkg.data.twice()\n"
                       "class Trainer:\n    def fit(self):\n        return self.step()\n"
                       "    def step(self):\n        return 3\n"},
        {"data.py", "def top():\n    return None\n"},
    };
    return s;
}

} // namespace

class TestResolve : public QObject
{
    Q_OBJECT
private slots:
    void names_data()
    {
        QTest::addColumn<int>("set");
        QTest::addColumn<QString>("file");
        QTest::addColumn<QString>("function");
        QTest::addColumn<QString>("name");
        QTest::addColumn<QString>("kind");
        QTest::addColumn<QString>("qualified");
        QTest::addRow("zoo: own module by its Model Zoo path") << 0 << "run.py"
                                                               << "main"
                                                               << "train_input_dataloader"
                                                               << "function"
                                                               << "data.train_input_dataloader";
        QTest::addRow("zoo: own class by its Model Zoo path") << 0 << "run.py"
                                                              << "main"
                                                              << "Gpt2Model"
                                                              << "class"
                                                              << "model.Gpt2Model";
        QTest::addRow("zoo: shared Model Zoo module stays outside")
            << 0 << "run.py"
            << "main"
            << "run"
            << "external"
            << "modelzoo.common.pytorch.run_utils.run";
        QTest::addRow("zoo: torch is not the project's data.py") << 0 << "data.py"
                                                                 << "train_input_dataloader"
                                                                 << "DataLoader"
                                                                 << "external"
                                                                 << "torch.utils.data.DataLoader";
        QTest::addRow("zoo: a submodule of the project") << 0 << "data.py"
                                                         << "train_input_dataloader"
                                                         << "Proc"
                                                         << "class"
                                                         << "input.Proc.Proc";
        QTest::addRow("alias of a module") << 0 << "model.py"
                                           << ""
                                           << "nn.Module"
                                           << "external"
                                           << "torch.nn.Module";
        QTest::addRow("relative import in a package") << 1 << "pkg/__init__.py"
                                                      << ""
                                                      << "loader"
                                                      << "function"
                                                      << "pkg.data.loader";
        QTest::addRow("from . import module") << 1 << "pkg/run.py"
                                              << "main"
                                              << "data.helper"
                                              << "function"
                                              << "pkg.data.helper";
        QTest::addRow("from .x import y as z") << 1 << "pkg/run.py"
                                               << "main"
                                               << "make"
                                               << "function"
                                               << "pkg.data.loader";
        QTest::addRow("import a.b, then a.b.f") << 1 << "pkg/run.py"
                                                << "main"
                                                << "pkg.data.twice"
                                                << "function"
                                                << "pkg.data.twice";
        QTest::addRow("import as alias of a name") << 1 << "pkg/data.py"
                                                   << "loader"
                                                   << "DL"
                                                   << "external"
                                                   << "torch.utils.data.DataLoader";
        QTest::addRow("a parameter") << 1 << "pkg/data.py"
                                     << "loader"
                                     << "flag"
                                     << "parameter"
                                     << "flag";
        QTest::addRow("a local") << 1 << "pkg/run.py"
                                 << "main"
                                 << "a"
                                 << "local"
                                 << "a";
        QTest::addRow("self.method") << 1 << "pkg/run.py"
                                     << "Trainer.fit"
                                     << "self.step"
                                     << "function"
                                     << "pkg.run.Trainer.step";
        QTest::addRow("a builtin") << 1 << "pkg/run.py"
                                   << "main"
                                   << "len"
                                   << "builtin"
                                   << "len";
        QTest::addRow("nothing") << 1 << "pkg/run.py"
                                 << "main"
                                 << "nowhere"
                                 << "unknown"
                                 << "nowhere";
    }
    void names()
    {
        QFETCH(int, set);
        QFETCH(QString, file);
        QFETCH(QString, function);
        QFETCH(QString, name);
        QFETCH(QString, kind);
        QFETCH(QString, qualified);
        const Project p(set == 0 ? zooGpt2() : package());
        const int f = p.file(file.toStdString());
        QVERIFY(f >= 0);
        const FunctionId fn = function.isEmpty()
                                  ? ModuleLevel
                                  : p.function(file.toStdString(), function.toStdString());
        QVERIFY(function.isEmpty() || fn != ModuleLevel);
        const Symbol s = p.resolver->resolve(f, fn, name.toStdString());
        QCOMPARE(QString::fromStdString(std::string(symbolKindName(s.kind))), kind);
        QCOMPARE(QString::fromStdString(s.qualified), qualified);
    }

    void packagePrefix()
    {
        QCOMPARE(Project(zooGpt2()).resolver->packagePrefix(),
                 std::string("modelzoo.transformers.pytorch.gpt2"));
        QCOMPARE(Project(package()).resolver->packagePrefix(), std::string());
        // An import of torch.utils.data is no vote for a project that has a data.py.
        const Project torchOnly({{"data.py", "from torch.utils.data import DataLoader\n"},
                                 {"run.py", "from torch.utils.data import Dataset\n"}});
        QCOMPARE(torchOnly.resolver->packagePrefix(), std::string());
    }

    // Every return path, with locals followed to their assignments and project calls to what
    // they return, across files.
    void returnValues_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QString>("function");
        QTest::addColumn<QStringList>("values");
        QTest::addRow("a local assigned on two paths")
            << "pkg/data.py"
            << "loader" << QStringList{"call torch.utils.data.DataLoader", "list"};
        QTest::addRow("a project call")
            << "pkg/data.py"
            << "twice" << QStringList{"call torch.utils.data.DataLoader"};
        QTest::addRow("across files, through a module attribute")
            << "pkg/run.py"
            << "main" << QStringList{"call torch.utils.data.DataLoader"};
        QTest::addRow("through self") << "pkg/run.py"
                                      << "Trainer.fit" << QStringList{"number"};
        QTest::addRow("an explicit None") << "data.py"
                                          << "top" << QStringList{"None"};
    }
    void returnValues()
    {
        QFETCH(QString, file);
        QFETCH(QString, function);
        QFETCH(QStringList, values);
        const Project p(package());
        const auto got = p.resolver->returnValues(
            p.file(file.toStdString()), p.function(file.toStdString(), function.toStdString()));
        QStringList shown;
        for (const auto& v : got) {
            QString s = QString::fromStdString(std::string(valueKindName(v.kind)));
            if (v.kind == ValueKind::Call)
                s += " " + QString::fromStdString(v.symbol.qualified);
            shown << s;
        }
        QCOMPARE(shown, values);
    }

    void knownAndUnknownValues()
    {
        // A value through a method of an object the analysis cannot type is not known.
        const Project p(zooGpt2());
        const auto got = p.resolver->returnValues(p.file("data.py"),
                                                  p.function("data.py", "train_input_dataloader"));
        QCOMPARE(got.size(), std::size_t(1));
        QVERIFY(!got[0].known());
        const Project q(package());
        const auto lists =
            q.resolver->returnValues(q.file("pkg/data.py"), q.function("pkg/data.py", "loader"));
        QVERIFY(lists[0].known() && lists[1].known());
    }

    void callSitesAcrossFiles()
    {
        const Project p(package());
        Symbol helper = p.resolver->resolve(p.file("pkg/run.py"), p.function("pkg/run.py", "main"),
                                            "data.helper");
        QVERIFY(helper.isDefinition());
        // Called from data.twice() and from run.main().
        const auto& sites = p.resolver->callSites(helper);
        QCOMPARE(sites.size(), std::size_t(2));
        std::set<std::string> from;
        for (const auto& s : sites)
            from.insert(p.files[std::size_t(s.file)].file);
        QCOMPARE(from, (std::set<std::string>{"pkg/data.py", "pkg/run.py"}));
    }

    void parameterBinding_data()
    {
        QTest::addColumn<QString>("def");
        QTest::addColumn<QString>("call");
        QTest::addColumn<bool>("skipSelf");
        QTest::addColumn<QList<int>>("expected");
        QTest::addRow("positional") << "def f(a, b, c=1): pass"
                                    << "f(1, 2, 3)" << false << QList<int>{0, 1, 2};
        QTest::addRow("keyword") << "def f(a, b, c=1): pass"
                                 << "f(1, c=3, b=2)" << false << QList<int>{0, 2, 1};
        QTest::addRow("method through an instance") << "def m(self, x): pass"
                                                    << "obj.m(5)" << true << QList<int>{1};
        QTest::addRow("keyword-only") << "def f(a, *, key): pass"
                                      << "f(1, 2)" << false << QList<int>{0, -1};
        QTest::addRow("splat") << "def f(a, b): pass"
                               << "f(*xs)" << false << QList<int>{-1};
    }
    void parameterBinding()
    {
        QFETCH(QString, def);
        QFETCH(QString, call);
        QFETCH(bool, skipSelf);
        QFETCH(QList<int>, expected);
        const PyIndex idx = indexSource((def + "\n" + call + "\n").toStdString(), "x.py");
        QCOMPARE(idx.functions.size(), std::size_t(1));
        const Call* c = nullptr;
        for (const auto& candidate : idx.calls)
            if (!candidate.arguments.empty() || candidate.callee.ends_with("f"))
                c = &candidate;
        QVERIFY(c);
        QList<int> got;
        for (std::size_t i = 0; i < c->arguments.size(); ++i)
            got << Resolver::parameterFor(idx.functions[0], *c, i, skipSelf);
        QCOMPARE(got, expected);
    }

    void ancestryThroughProjectClasses()
    {
        const Project p(zooGpt2());
        const int f = p.file("model.py");
        const PyIndex& idx = p.files[std::size_t(f)];
        int deeper = -1;
        for (std::size_t c = 0; c < idx.classes.size(); ++c)
            if (idx.classes[c].name == "Deeper")
                deeper = int(c);
        bool unknown = false;
        const auto bases = p.resolver->ancestors(f, deeper, &unknown);
        QVERIFY(!unknown);
        QCOMPARE(bases, (std::vector<std::string>{"model.Head", "torch.nn.Module"}));
    }

    void indexRecordsWhatTheResolverNeeds()
    {
        const PyIndex idx =
            indexSource("def f(params, *args, key=1, **kw):\n"
                        "    with open(path) as stream:\n        cfg = load(stream)\n"
                        "    mp = params['model'].copy()\n"
                        "    x = mp.pop('depth')\n"
                        "    y = mp.pop('width', 4)\n"
                        "    params['model']['extra'] = 1\n"
                        "    if x:\n        z = params['runconfig']['seed']\n"
                        "    return [x]\n",
                        "f.py");
        const auto& ps = idx.functions[0].parameters;
        QCOMPARE(ps.size(), std::size_t(4));
        QCOMPARE(ps[1].star, 1);
        QVERIFY(ps[2].keywordOnly && ps[2].hasDefault());
        QCOMPARE(ps[3].star, 2);
        bool withItem = false;
        for (const auto& a : idx.assignments)
            withItem =
                withItem || (a.target == "stream" && a.kind == ValueKind::Call && a.call >= 0);
        QVERIFY(withItem);
        std::map<std::string, const KeyRead*> reads;
        for (const auto& k : idx.keyReads)
            reads[k.path()] = &k;
        QVERIFY(reads.count("model.depth") && !reads["model.depth"]->isDefault);
        QVERIFY(reads.count("model.width") && reads["model.width"]->isDefault);
        QVERIFY(reads.count("model.extra") && reads["model.extra"]->isWrite);
        QVERIFY(reads.count("runconfig.seed") && reads["runconfig.seed"]->conditional);
        QVERIFY(!reads["model.depth"]->conditional);
        QCOMPARE(idx.returns.back().kind, ValueKind::List);
        // mp = params['model'].copy(), and z = params['runconfig']['seed'] (a value that may be
        // a section itself).
        QCOMPARE(idx.aliases.size(), std::size_t(2));
        QCOMPARE(idx.aliases[0].name, std::string("mp"));
        QCOMPARE(idx.aliases[0].keys, (std::vector<std::string>{"model"}));
    }

    // A membership test of the same key guards the branch it selects: the read there handles the
    // key's absence (isDefault); a read in the other branch, or of another key, does not.
    void membershipGuardsHandleAbsence_data()
    {
        QTest::addColumn<QString>("source");
        QTest::addColumn<QString>("path");
        QTest::addColumn<bool>("handled");
        QTest::newRow("conditional expression") << "mp = p['model'] if 'model' in p else p\n"
                                                << "model" << true;
        QTest::newRow("negated, else branch") << "mp = p if 'model' not in p else p['model']\n"
                                              << "model" << true;
        QTest::newRow("if statement, nested path")
            << "if 'depth' in p['model']:\n    d = p['model']['depth']\n"
            << "model.depth" << true;
        QTest::newRow("guard covers deeper reads")
            << "if 'model' in p:\n    d = p['model']['depth']\n"
            << "model.depth" << true;
        QTest::newRow("and") << "d = 'lr' in p and p['lr']\n"
                             << "lr" << true;
        QTest::newRow("not in ... or") << "d = 'lr' not in p or p['lr']\n"
                                       << "lr" << true;
        QTest::newRow("other key") << "mp = p['model'] if 'data' in p else p\n"
                                   << "model" << false;
        QTest::newRow("other mapping") << "mp = p['model'] if 'model' in q else p\n"
                                       << "model" << false;
        QTest::newRow("wrong branch") << "mp = p if 'model' in p else p['model']\n"
                                      << "model" << false;
        QTest::newRow("if, else branch") << "if 'lr' in p:\n    pass\nelse:\n    d = p['lr']\n"
                                         << "lr" << false;
        QTest::newRow("or with positive test") << "d = 'lr' in p or p['lr']\n"
                                               << "lr" << false;
    }
    void membershipGuardsHandleAbsence()
    {
        QFETCH(QString, source);
        QFETCH(QString, path);
        QFETCH(bool, handled);
        // The source becomes the body of f(p, q): every line indented once.
        std::string indented = "def f(p, q):\n";
        for (const QString& line : source.split('\n', Qt::SkipEmptyParts))
            indented += "    " + line.toStdString() + "\n";
        const PyIndex idx = indexSource(indented, "f.py");
        const KeyRead* read = nullptr;
        for (const auto& k : idx.keyReads)
            if (k.base == "p" && k.path() == path.toStdString())
                read = &k;
        QVERIFY2(read,
                 qPrintable("no read of " + path + " in:\n" + QString::fromStdString(indented)));
        QCOMPARE(read->isDefault, handled);
    }
};

QTEST_GUILESS_MAIN(TestResolve)
#include "test_resolve.moc"
