// Vendor contracts (resources/contracts): they load, their signatures judge calls right (fire on a
// wrong arity or an unknown keyword, silent on every correct form, positional or keyword, for each
// release), a broken contract file is a positioned message, and the vendor-signature check fires
// and stays silent on small projects. A runner's hand-over makes a project a port, scripts that
// never train are not its training path (analysis/port_scope.h), and what the vendor receives is
// followed through aliases and wrappers. Classes of real-project code that are not errors each
// have a fixture written for the class (notErrors), and a mutation of it that is one.
#include "core/analysis/contracts.h"
#include "core/analysis/facts.h"
#include "core/analysis/port_scope.h"
#include "core/common/atomic_file.h"
#include "tests/analysis/test_support.h"

#include <QTemporaryDir>
#include <QTest>
#include <filesystem>
#include <fstream>

using namespace portolan;
namespace fs = std::filesystem;

namespace {

const analysis::ContractSet& contracts()
{
    static const analysis::ContractSet set =
        analysis::loadContracts(std::string(PORTOLAN_SOURCE_DIR) + "/resources/contracts");
    return set;
}

python::Call callOf(const std::string& source)
{
    const python::PyIndex idx = python::indexSource(source + "\n", "x.py");
    if (idx.calls.empty())
        qFatal("no call in %s", source.c_str());
    return idx.calls.front();
}

} // namespace

class TestContracts : public QObject
{
    Q_OBJECT
private slots:
    void contractsLoad()
    {
        for (const auto& d : contracts().diagnostics)
            qWarning("%s", d.toString().c_str());
        QVERIFY(contracts().diagnostics.empty());
        QVERIFY(contracts().findApi("modelzoo.common.pytorch.run_utils.run"));
        QVERIFY(contracts().findApi("poptorch.trainingModel"));
        QVERIFY(contracts().findApi("modelzoo.common.tf.estimator.cs_estimator.CerebrasEstimator"));
        QVERIFY(!contracts().findApi("torch.utils.data.DataLoader"));
        const auto* ctx = contracts().findType("determined.pytorch.PyTorchTrialContext");
        QVERIFY(ctx && ctx->method("get_hparam") && ctx->method("wrap_optimizer"));
        QVERIFY(!contracts().runconfigFlags.empty());
        // Determined's trial, and the Model Zoo Trainer's model and data configs.
        QCOMPARE(contracts().classes.size(), std::size_t(3));
        QVERIFY(contracts().findApi("modelzoo.common.run_utils.main"));
        QVERIFY(contracts().findApi("cerebras.pytorch.compile"));
        int modelConfigs = 0;
        for (const auto& c : contracts().classes)
            modelConfigs += c.role == "model-config" ? 1 : 0;
        QCOMPARE(modelConfigs, 1);
        // Every API names where its facts come from.
        for (const auto& api : contracts().apis)
            QVERIFY2(!api.source.empty(), api.name.c_str());
    }

    // Each row: the API, a call, and what is wrong with it ("" = fits).
    void signatures_data()
    {
        QTest::addColumn<QString>("api");
        QTest::addColumn<QString>("call");
        QTest::addColumn<QString>("problem");
        const char* run = "modelzoo.common.pytorch.run_utils.run";
        QTest::addRow("run, positional (1.x)") << run << "run(M, train, evaluate)"
                                               << "";
        QTest::addRow("run, keywords") << run
                                       << "run(model_fn=M, train_data_fn=t, eval_data_fn=e, "
                                          "default_params_fn=d)"
                                       << "";
        QTest::addRow("run, 2.x extra parser") << run << "run(M, t, e, d, extra_args_parser_fn=x)"
                                               << "";
        QTest::addRow("run, too many") << run << "run(M, t, e, d, x, y)"
                                       << "positional";
        QTest::addRow("run, unknown keyword") << run << "run(M, train_fn=t)"
                                              << "unknown keyword 'train_fn'";
        QTest::addRow("run, no model") << run << "run(train_data_fn=t)"
                                       << "missing required argument 'model_fn'";
        QTest::addRow("run, given twice") << run << "run(M, model_fn=M)"
                                          << "given twice";
        const char* training = "poptorch.trainingModel";
        QTest::addRow("trainingModel") << training << "trainingModel(m, opts, opt)"
                                       << "";
        QTest::addRow("trainingModel, keywords")
            << training << "trainingModel(m, options=opts, optimizer=opt)"
            << "";
        QTest::addRow("trainingModel, misspelt") << training << "trainingModel(m, optimiser=opt)"
                                                 << "unknown keyword 'optimiser'";
        const char* loader = "poptorch.DataLoader";
        QTest::addRow("DataLoader, torch keywords pass through")
            << loader << "DataLoader(opts, ds, batch_size=4, pin_memory=True)"
            << "";
        QTest::addRow("DataLoader, no options") << loader << "DataLoader()"
                                                << "missing required argument 'options'";
        QTest::addRow("BeginBlock") << "poptorch.BeginBlock"
                                    << "BeginBlock(layer, ipu_id=1)"
                                    << "";
        QTest::addRow("BeginBlock, old order") << "poptorch.BeginBlock"
                                               << "BeginBlock(1, layer, 2, 3)"
                                               << "positional";
        const char* compile = "cerebras.pytorch.compile";
        QTest::addRow("cstorch compile") << compile << "compile(model, backend)"
                                         << "";
        QTest::addRow("cstorch compile, optimizer too") << compile << "compile(m, backend, opt)"
                                                        << "positional";
        QTest::addRow("cstorch DataLoader, input_fn arguments")
            << "cerebras_pytorch.utils.data.DataLoader"
            << "DataLoader(input_fn, params, x=1)"
            << "";
        QTest::addRow("splat: cannot tell") << run << "run(*args, **kwargs)"
                                            << "";
    }
    void signatures()
    {
        QFETCH(QString, api);
        QFETCH(QString, call);
        QFETCH(QString, problem);
        const analysis::ApiContract* c = contracts().findApi(api.toStdString());
        QVERIFY(c);
        const auto why = analysis::signatureMismatch(c->signatures, callOf(call.toStdString()));
        if (problem.isEmpty()) {
            QVERIFY2(!why, why ? why->message.c_str() : "");
        } else {
            QVERIFY(why);
            QVERIFY2(why->message.find(problem.toStdString()) != std::string::npos,
                     why->message.c_str());
        }
    }

    void methodSignatures_data()
    {
        QTest::addColumn<QString>("method");
        QTest::addColumn<QString>("call");
        QTest::addColumn<bool>("fits");
        QTest::addRow("get_hparam(name)") << "get_hparam"
                                          << "ctx.get_hparam('lr')" << true;
        QTest::addRow("get_hparam with a default") << "get_hparam"
                                                   << "ctx.get_hparam('lr', 0.1)" << false;
        QTest::addRow("get_hparam(name=)") << "get_hparam"
                                           << "ctx.get_hparam(name='lr')" << true;
        QTest::addRow("wrap_optimizer, old") << "wrap_optimizer"
                                             << "ctx.wrap_optimizer(o, 2)" << true;
        QTest::addRow("wrap_optimizer, newer keyword")
            << "wrap_optimizer"
            << "ctx.wrap_optimizer(o, fp16_compression=True)" << true;
        QTest::addRow("wrap_lr_scheduler needs step_mode") << "wrap_lr_scheduler"
                                                           << "ctx.wrap_lr_scheduler(s)" << false;
        QTest::addRow("step_optimizer, clip_grads")
            << "step_optimizer"
            << "ctx.step_optimizer(o, clip_grads=f)" << true;
        QTest::addRow("backward, unknown keyword") << "backward"
                                                   << "ctx.backward(l, retain=True)" << false;
    }
    void methodSignatures()
    {
        QFETCH(QString, method);
        QFETCH(QString, call);
        QFETCH(bool, fits);
        const auto* t = contracts().findType("determined.pytorch.PyTorchTrialContext");
        const auto* m = t->method(method.toStdString());
        QVERIFY(m);
        const auto why = analysis::signatureMismatch(m->signatures, callOf(call.toStdString()));
        QCOMPARE(!why, fits);
    }

    void brokenContracts_data()
    {
        QTest::addColumn<QString>("yaml");
        QTest::addColumn<int>("line");
        QTest::addRow("not yaml") << "apis: [unclosed\n" << 2;
        QTest::addRow("no id") << "apis: []\n" << 1;
        QTest::addRow("api without match") << "id: x\napis:\n  - name: f\n" << 3;
        QTest::addRow("role is not a mapping")
            << "id: x\napis:\n  - name: f\n    match: [a.f]\n    roles:\n      p: model\n"
            << 6;
    }
    void brokenContracts()
    {
        QFETCH(QString, yaml);
        QFETCH(int, line);
        const auto set = analysis::parseContracts(yaml.toStdString(), "bad.yaml");
        QCOMPARE(set.diagnostics.size(), std::size_t(1));
        QCOMPARE(set.diagnostics[0].location.file, std::string("bad.yaml"));
        QCOMPARE(set.diagnostics[0].location.line, line);
        QVERIFY(set.apis.empty());
    }

    // The vendor-signature check on small projects: fires on the wrong form, at the argument at
    // fault, and stays silent on the right ones.
    void vendorSignatureCheck_data()
    {
        QTest::addColumn<QString>("check");
        QTest::addColumn<QString>("source");
        QTest::addColumn<QString>("at"); // "" = silent
        const char* det = "determined-pytorchtrial.vendor-signature";
        const char* trial = "from determined.pytorch import PyTorchTrial\n"
                            "class T(PyTorchTrial):\n"
                            "    def __init__(self, context):\n"
                            "        self.context = context\n"
                            "    def lr(self):\n";
        QTest::addRow("get_hparam with a default")
            << det << QString(trial) + "        return self.context.get_hparam('lr', 0.1)\n"
            << "model_def.py:6";
        QTest::addRow("get_hparam")
            << det << QString(trial) + "        return self.context.get_hparam('lr')\n"
            << "";
        QTest::addRow("context passed on as a local")
            << det
            << QString(trial) + "        c = self.context\n        return c.get_hparam('lr', 1)\n"
            << "model_def.py:7";
        const char* pop = "graphcore-poptorch.vendor-signature";
        QTest::addRow("trainingModel, misspelt keyword")
            << pop << "import poptorch\nm = poptorch.trainingModel(net, optimiser=opt)\n"
            << "model_def.py:2";
        QTest::addRow("trainingModel") << pop
                                       << "import poptorch\nm = poptorch.trainingModel(net, "
                                          "options=poptorch.Options(), optimizer=opt)\n"
                                       << "";
        QTest::addRow("Options method, wrong arity")
            << pop << "import poptorch\nopts = poptorch.Options()\nopts.deviceIterations(4, 2)\n"
            << "model_def.py:3";
        QTest::addRow("Options method") << pop
                                        << "import poptorch\nopts = poptorch.Options()\n"
                                           "opts.deviceIterations(4)\n"
                                        << "";
        const char* zoo = "cerebras-pytorch.vendor-signature";
        QTest::addRow("run, unknown keyword")
            << zoo << "from modelzoo.common.pytorch.run_utils import run\nrun(M, train_fn=t)\n"
            << "model_def.py:2";
        QTest::addRow("run") << zoo
                             << "from modelzoo.common.pytorch.run_utils import run\nrun(M, t, e)\n"
                             << "";
        QTest::addRow("a project function of the same name")
            << zoo << "def run(a, b):\n    pass\nrun(1, 2, 3, x=4)\n"
            << "";
    }
    void vendorSignatureCheck()
    {
        QFETCH(QString, check);
        QFETCH(QString, source);
        QFETCH(QString, at);
        QTemporaryDir tmp;
        QVERIFY(!writeFileAtomically(fs::path(tmp.path().toStdString()) / "model_def.py",
                                     source.toStdString()));
        auto a = testing::analyse(tmp.path().toStdString());
        QVERIFY(a);
        const guides::Guide* g = testing::guideOfCheck(check.toStdString());
        QVERIFY(g);
        QStringList where;
        for (const auto& f : guides::runGuide(*g, *a).allFindings())
            if (f.checkId == check.toStdString())
                where << QString::fromStdString(f.location.file + ":" +
                                                std::to_string(f.location.line));
        if (at.isEmpty())
            QVERIFY2(where.isEmpty(), qPrintable(where.join(", ")));
        else
            QCOMPARE(where, QStringList{at});
    }

    // A Model Zoo runner hands model_fn and the input functions over (here the appliance-era
    // TensorFlow runner): they are entries, so the checks that ask for a hand-written
    // CerebrasEstimator, an eval_input section the code never reads, or a Dataset built in
    // input_fn itself stay silent on the port.
    void runnerHandOverIsAPort()
    {
        auto a = testing::analyse(testing::projectPath("fixture:ctf-appliance-runner"));
        QVERIFY(a);
        QStringList roles;
        for (const auto& e : a->facts().entries)
            roles << QString::fromStdString(e.role + ":" + e.text);
        QVERIFY2(roles.contains("model:model_fn") && roles.contains("data:train_input_fn"),
                 qPrintable(roles.join(", ")));
        const guides::Guide* g = testing::sourceGuides().find("cerebras-tensorflow");
        QVERIFY(g);
        QStringList wrong;
        for (const auto& f : guides::runGuide(*g, *a).allFindings())
            if (f.severity != Severity::Info)
                wrong << QString::fromStdString(f.toString());
        QVERIFY2(wrong.isEmpty(), qPrintable(wrong.join("\n")));
    }

    // Scripts whose code never trains, next to one that does (a prediction script and a module
    // only it uses), are not the training path: findings there are notes, said so, and the
    // missing pieces are anchored on the training script. Once the other script trains too, it
    // is checked as the port again.
    void scriptsThatNeverTrain()
    {
        const std::string id = "fixture:inference-script-original";
        auto a = testing::analyse(testing::projectPath(id));
        QVERIFY(a);
        QCOMPARE(QString::fromStdString(analysis::outsidePortReason(*a, "fit.py")), QString());
        QVERIFY(analysis::outsidePortReason(*a, "net.py").empty());
        QVERIFY(analysis::outsidePortReason(*a, "checkpoints.py").empty()); // a module, unused
        QVERIFY(!analysis::outsidePortReason(*a, "predict.py").empty());
        QVERIFY(!analysis::outsidePortReason(*a, "render.py").empty());
        // predict.py, render.py, and tests/ (which imports fit.py without making it a module).
        QCOMPARE(analysis::describeOutsidePort(*a).size(), std::size_t(3));
        const guides::Guide* g = testing::sourceGuides().find("cerebras-trainer");
        QVERIFY(g);
        int fitErrors = 0, otherNotes = 0;
        QStringList wrong;
        for (const auto& f : guides::runGuide(*g, *a).allFindings()) {
            const bool off = f.location.file == "predict.py" || f.location.file == "render.py";
            if (off && f.severity != Severity::Info)
                wrong << QString::fromStdString(f.toString());
            otherNotes += off && f.message.find("never train") != std::string::npos;
            fitErrors += f.location.file == "fit.py" && f.severity == Severity::Error;
        }
        QVERIFY2(wrong.isEmpty(), qPrintable(wrong.join("\n")));
        QVERIFY(otherNotes >= 3);
        QVERIFY(fitErrors >= 4); // the loop, the optimizer, the missing YAML and data config

        QTemporaryDir tmp;
        const fs::path root = fs::path(tmp.path().toStdString()) / "p";
        fs::copy(testing::projectPath(id), root, fs::copy_options::recursive);
        std::ofstream(root / "predict.py", std::ios::app)
            << "\n\ndef tune(model, x):\n    model(x).sum().backward()\n\n\ntune(None, None)\n";
        auto b = testing::analyse(root.string());
        QVERIFY(b);
        QVERIFY(analysis::outsidePortReason(*b, "predict.py").empty());
        int predictErrors = 0;
        for (const auto& f : guides::runGuide(*g, *b).allFindings())
            predictErrors += f.location.file == "predict.py" && f.severity != Severity::Info;
        QVERIFY(predictErrors > 0);
    }

    // An API the contracts say trains with what it reads itself (the Trainer's run()) makes the
    // script that calls it the training path, though it hands over no project code; a script
    // next to it that never trains is not.
    void vendorThatTrainsByItself()
    {
        auto a = testing::analyse(testing::projectPath("fixture:trainer-run-script"));
        QVERIFY(a);
        QCOMPARE(QString::fromStdString(analysis::outsidePortReason(*a, "run.py")), QString());
        QVERIFY(!analysis::outsidePortReason(*a, "export.py").empty());
    }

    // A params alias bound in the branches of an if, or by a conditional expression (the
    // section, or the mapping itself), reads a key under every path it can take: an error only
    // when no path finds it.
    void aliasBoundInBranches_data()
    {
        QTest::addColumn<QString>("project");
        QTest::addColumn<QString>("from");
        QTest::newRow("if statement") << "fixture:ctf-branch-alias"
                                      << "section[\"dropout\"]";
        QTest::newRow("conditional expression") << "fixture:ctf-helper-dataset"
                                                << "model_params[\"dropout\"]";
    }
    void aliasBoundInBranches()
    {
        QFETCH(QString, project);
        QFETCH(QString, from);
        const std::string id = project.toStdString();
        const guides::Guide* g = testing::sourceGuides().find("cerebras-tensorflow");
        QVERIFY(g);
        auto errorsOf = [&](const analysis::ProjectAnalysis& a) {
            QStringList out;
            for (const auto& f : guides::runGuide(*g, a).allFindings())
                if (f.severity == Severity::Error)
                    out << QString::fromStdString(f.toString());
            return out;
        };
        auto a = testing::analyse(testing::projectPath(id));
        QVERIFY(a);
        QCOMPARE(errorsOf(*a), QStringList());

        QTemporaryDir tmp;
        const fs::path root = fs::path(tmp.path().toStdString()) / "p";
        fs::copy(testing::projectPath(id), root, fs::copy_options::recursive);
        std::string text = *readFile(root / "model.py").value;
        const std::string read = from.toStdString();
        const auto at = text.find(read);
        QVERIFY(at != std::string::npos);
        // Under neither path.
        text.replace(at, read.size(), read.substr(0, read.find('[')) + "[\"depth\"]");
        QVERIFY(!writeFileAtomically(root / "model.py", text));
        auto b = testing::analyse(root.string());
        QVERIFY(b);
        const QStringList errors = errorsOf(*b);
        QCOMPARE(errors.size(), 1);
        QVERIFY2(errors.front().contains(".depth'") &&
                     errors.front().endsWith("[cerebras-tensorflow.keys-exist]"),
                 qPrintable(errors.front()));
    }

    // The module trainingModel receives is a wrapper that calls the wrapped module's forward
    // explicitly: its loss is the wrapped module's. Without a loss there, the wrapper is reported.
    void wrapperCallingForward()
    {
        const std::string id = "fixture:pop-delegating-wrapper";
        const guides::Guide* g = testing::sourceGuides().find("graphcore-poptorch");
        QVERIFY(g);
        auto lossFindings = [&](const analysis::ProjectAnalysis& a) {
            QStringList out;
            for (const auto& f : guides::runGuide(*g, a).allFindings())
                if (f.checkId == "graphcore-poptorch.forward-loss")
                    out << QString::fromStdString(f.toString());
            return out;
        };
        auto a = testing::analyse(testing::projectPath(id));
        QVERIFY(a);
        QCOMPARE(lossFindings(*a), QStringList());

        QTemporaryDir tmp;
        const fs::path root = fs::path(tmp.path().toStdString()) / "p";
        fs::copy(testing::projectPath(id), root, fs::copy_options::recursive);
        std::string text = *readFile(root / "model.py").value;
        const std::string from =
            "return poptorch.identity_loss(F.cross_entropy(logits, labels), reduction=\"none\")";
        const auto at = text.find(from);
        QVERIFY(at != std::string::npos);
        text.replace(at, from.size(), "return logits");
        QVERIFY(!writeFileAtomically(root / "model.py", text));
        auto b = testing::analyse(root.string());
        QVERIFY(b);
        const QStringList found = lossFindings(*b);
        QCOMPARE(found.size(), 1);
        QVERIFY2(found.front().startsWith("model.py:27:") && found.front().contains("error"),
                 qPrintable(found.front()));
    }

    // Trial checks concern the trial classes the experiment configs name (entrypoint
    // module:Class). The project's other trial classes are not what Determined instantiates;
    // naming another one moves the checks there, and a config that runs a script names none.
    void trialNamedByTheConfig_data()
    {
        QTest::addColumn<QString>("entrypoint");
        QTest::addColumn<QStringList>("trials");
        QTest::addColumn<int>("errors");
        QTest::newRow("as written")
            << "trials.current:CurrentTrial" << QStringList{"CurrentTrial"} << 0;
        QTest::newRow("the other one")
            << "trials.sketch:SketchTrial" << QStringList{"SketchTrial"} << 4;
        QTest::newRow("a script") << "python3 run.py" << QStringList{"CurrentTrial", "SketchTrial"}
                                  << 4;
        QTest::newRow("a class it lacks")
            << "trials.gone:GoneTrial" << QStringList{"CurrentTrial", "SketchTrial"} << 4;
    }
    void trialNamedByTheConfig()
    {
        QFETCH(QString, entrypoint);
        QFETCH(QStringList, trials);
        QFETCH(int, errors);
        QTemporaryDir tmp;
        const fs::path root = fs::path(tmp.path().toStdString()) / "p";
        fs::copy(testing::projectPath("fixture:det-named-trial"), root,
                 fs::copy_options::recursive);
        std::string text = *readFile(root / "const.yaml").value;
        const std::string from = "trials.current:CurrentTrial";
        const auto at = text.find(from);
        QVERIFY(at != std::string::npos);
        text.replace(at, from.size(), entrypoint.toStdString());
        QVERIFY(!writeFileAtomically(root / "const.yaml", text));
        auto a = testing::analyse(root.string());
        QVERIFY(a);
        QStringList found;
        for (const auto& e : a->facts().entries)
            if (e.classContract)
                found << QString::fromStdString(e.text);
        found.sort();
        QCOMPARE(found, trials);
        const guides::Guide* g = testing::sourceGuides().find("determined-pytorchtrial");
        QVERIFY(g);
        QStringList wrong;
        for (const auto& f : guides::runGuide(*g, *a).allFindings())
            if (f.checkId == "determined-pytorchtrial.trial-class" && f.severity == Severity::Error)
                wrong << QString::fromStdString(f.toString());
        QVERIFY2(wrong.size() == errors, qPrintable(wrong.join("\n")));
    }

    // An unmanaged Core API script carries its experiment's configuration in the Config given to
    // core_v2.init: it needs no experiment YAML. Without that Config, it does.
    void unmanagedScriptNeedsNoExperimentConfig_data()
    {
        QTest::addColumn<QString>("init");
        QTest::addColumn<int>("missing");
        QTest::newRow("with a Config")
            << "core_v2.init(config=core_v2.Config(name=\"fit-by-hand\"))" << 0;
        QTest::newRow("without") << "core_v2.init()" << 1;
    }
    void unmanagedScriptNeedsNoExperimentConfig()
    {
        QFETCH(QString, init);
        QFETCH(int, missing);
        QTemporaryDir tmp;
        const fs::path root = fs::path(tmp.path().toStdString()) / "p";
        fs::copy(testing::projectPath("fixture:det-core-unmanaged"), root,
                 fs::copy_options::recursive);
        std::string text = *readFile(root / "fit.py").value;
        const std::string from = "core_v2.init(config=core_v2.Config(name=\"fit-by-hand\"))";
        const auto at = text.find(from);
        QVERIFY(at != std::string::npos);
        text.replace(at, from.size(), init.toStdString());
        QVERIFY(!writeFileAtomically(root / "fit.py", text));
        auto a = testing::analyse(root.string());
        QVERIFY(a);
        QCOMPARE(a->flavour.flavour, analysis::Flavour::DeterminedCore);
        const guides::Guide* g = testing::sourceGuides().find("determined-core");
        QVERIFY(g);
        int found = 0;
        for (const auto& f : guides::runGuide(*g, *a).allFindings())
            found += f.checkId == "determined-core.experiment-config";
        QCOMPARE(found, missing);
    }

    // The early PopTorch API took the loss in trainingModel(..., loss=...): forward returns only
    // the output and no Options object is needed. Without that loss the same script breaks the
    // contract: forward computes no loss.
    void earlyPopTorchLoss()
    {
        const guides::Guide* g = testing::sourceGuides().find("graphcore-poptorch");
        QVERIFY(g);
        auto errorsOf = [&](const analysis::ProjectAnalysis& a) {
            QStringList out;
            for (const auto& f : guides::runGuide(*g, a).allFindings())
                if (f.severity == Severity::Error)
                    out << QString::fromStdString(f.checkId);
            out.sort();
            return out;
        };
        auto a = testing::analyse(testing::projectPath("fixture:pop-early-api"));
        QVERIFY(a);
        QCOMPARE(errorsOf(*a), QStringList());
        QTemporaryDir tmp;
        const fs::path root = fs::path(tmp.path().toStdString()) / "p";
        fs::copy(testing::projectPath("fixture:pop-early-api"), root, fs::copy_options::recursive);
        std::string text = *readFile(root / "fit.py").value;
        const std::string from = ", loss=nn.CrossEntropyLoss()";
        const auto at = text.find(from);
        QVERIFY(at != std::string::npos);
        text.erase(at, from.size());
        QVERIFY(!writeFileAtomically(root / "fit.py", text));
        auto b = testing::analyse(root.string());
        QVERIFY(b);
        QCOMPARE(errorsOf(*b),
                 (QStringList{"graphcore-poptorch.forward-loss", "graphcore-poptorch.options"}));
    }

    // Classes of real-project code that are not errors, each in a fixture written for the class
    // (not taken from the project where it was found): a PopTorch application whose network and
    // preprocessing modules compute no loss while the module handed to trainingModel does, a CPU
    // reference loop under tests/, vendored Python 2 code, torch.optim.swa_utils; a TensorFlow
    // input function whose dataset comes from a helper or tfds, and a params alias taken through
    // a conditional expression or bound in the branches of an if; a wrapper whose forward calls
    // the wrapped module's forward explicitly; a trial class the project constructs itself;
    // a trial class no experiment config names.
    void notErrors_data()
    {
        QTest::addColumn<QString>("project");
        QTest::addColumn<QString>("guide");
        QTest::addColumn<int>("notPortNotes"); // notes on test or vendored code, at least
        QTest::addRow("poptorch application") << "fixture:pop-app"
                                              << "graphcore-poptorch" << 1;
        QTest::addRow("tensorflow helpers") << "fixture:ctf-helper-dataset"
                                            << "cerebras-tensorflow" << 0;
        QTest::addRow("alias bound in branches") << "fixture:ctf-branch-alias"
                                                 << "cerebras-tensorflow" << 0;
        QTest::addRow("wrapper calling forward") << "fixture:pop-delegating-wrapper"
                                                 << "graphcore-poptorch" << 0;
        // A Trainer-API script that builds its trial itself (its __init__ takes what the script
        // passes) from a factory returning a container with a custom layer inside.
        QTest::addRow("trial built by the script") << "fixture:det-trainer-script"
                                                   << "determined-pytorchtrial" << 0;
        QTest::addRow("trial named by the config") << "fixture:det-named-trial"
                                                   << "determined-pytorchtrial" << 0;
        QTest::addRow("unmanaged core_v2 script") << "fixture:det-core-unmanaged"
                                                  << "determined-core" << 0;
        QTest::addRow("early PopTorch API") << "fixture:pop-early-api"
                                            << "graphcore-poptorch" << 0;
    }
    void notErrors()
    {
        QFETCH(QString, project);
        QFETCH(QString, guide);
        QFETCH(int, notPortNotes);
        const guides::Guide* g = testing::sourceGuides().find(guide.toStdString());
        QVERIFY(g);
        const auto analysed = testing::analyse(testing::projectPath(project.toStdString()));
        QVERIFY(analysed);
        QStringList wrong;
        int notes = 0;
        for (const auto& f : guides::runGuide(*g, *analysed).allFindings()) {
            if (f.severity != Severity::Info)
                wrong << QString::fromStdString(f.toString());
            else if (f.message.find("not checked as the port") != std::string::npos)
                ++notes;
        }
        QVERIFY2(wrong.isEmpty(), qPrintable(wrong.join("\n")));
        QVERIFY2(notes >= notPortNotes, qPrintable(QString::number(notes)));
    }
};

QTEST_GUILESS_MAIN(TestContracts)
#include "test_contracts.moc"
