// A Graphcore application config of named configurations (tests/fixtures/projects/
// named-config-poptorch, written for the layout): the Profile and `compile` open on the model
// its keys describe and on its own execution settings, for the configuration asked for.
#include "core/families/families.h"
#include "core/sim/project_training.h"
#include "core/workflow/compile_project.h"

#include <QTest>

using namespace portolan;

namespace {

const std::string kProject = std::string(PORTOLAN_FIXTURES) + "/projects/named-config-poptorch";

QString joined(const std::vector<int>& v)
{
    QStringList out;
    for (int x : v)
        out << QString::number(x);
    return out.join(',');
}

QString joined(const std::vector<double>& v)
{
    QStringList out;
    for (double x : v)
        out << QString::number(x);
    return out.join(',');
}

} // namespace

class TestNamedConfig : public QObject
{
    Q_OBJECT

private slots:
    void projectSettings_data()
    {
        QTest::addColumn<QString>("config");
        QTest::addColumn<QString>("built"); // the named configuration the model comes from
        QTest::addColumn<int>("ipus");
        QTest::addColumn<QString>("split");
        QTest::addColumn<QString>("amp"); // per stage, or the single value
        QTest::addColumn<int>("serialization");
        // The first configuration that describes a model ("defaults" sets settings only).
        QTest::newRow("default") << ""
                                 << "tiny_2ipu" << 2 << "2,2"
                                 << "0.2,0.3" << 1;
        // Merged from tiny_2ipu, which it overrides: a scalar matmul_proportion, 4 IPUs.
        QTest::newRow("by name") << "tiny_4ipu"
                                 << "tiny_4ipu" << 4 << "1,1,1,1"
                                 << "0.25" << 2;
    }
    void projectSettings()
    {
        QFETCH(QString, config);
        QFETCH(QString, built);
        QFETCH(int, ipus);
        QFETCH(QString, split);
        QFETCH(QString, amp);
        QFETCH(int, serialization);
        workflow::ModelInput in;
        in.path = kProject;
        in.namedConfig = config.toStdString();
        auto model = workflow::openModel(in);
        QVERIFY2(model, qPrintable(QString::fromStdString(model.error.toString())));
        QCOMPARE(model.value->source.kind, graph::GraphSourceKind::ModelFamily);
        QVERIFY(model.value->graph);
        QCOMPARE(QString::fromStdString(model.value->graph->name), "bert (" + built + ")");
        // What a user can pick: the configurations that describe a model ("defaults" sets
        // execution settings only), whichever was built.
        QCOMPARE(model.value->namedConfigs, (std::vector<std::string>{"tiny_2ipu", "tiny_4ipu"}));
        QCOMPARE(model.value->source.training->namedConfig, built.toStdString());
        // The vendor's hardware first: a Graphcore config opens on an IPU.
        QCOMPARE(sim::defaultTarget(model.value->source).id, std::string("ipu-mk2"));

        const sim::CompileOptions o = workflow::projectOptions(*model.value, {});
        QCOMPARE(o.ipus, ipus);
        QCOMPARE(joined(o.split), split);
        const auto& t = o.training;
        QCOMPARE(t.replicas, 2);
        QCOMPARE(t.microBatch, 4);
        QCOMPARE(t.gradAccum, 8);
        QCOMPARE(o.deviceIterations, 2);
        QCOMPARE(t.precision, sim::Precision::Fp16); // precision "16.16"
        QVERIFY(t.halfPartials);
        QVERIFY(t.recompute);
        QCOMPARE(t.serializationFactor, serialization);
        QCOMPARE(t.optimizer, sim::Optimizer::AdamW);
        QCOMPARE(t.availableMemoryProportionPerStage.empty()
                     ? QString::number(t.availableMemoryProportion)
                     : joined(t.availableMemoryProportionPerStage),
                 amp);

        // What the user gives explicitly stays.
        sim::CompileOptions given;
        given.ipus = 3;
        given.training.microBatch = 1;
        sim::TrainingOverrides keep;
        keep.ipus = true;
        keep.microBatch = true;
        const sim::CompileOptions mine = workflow::projectOptions(*model.value, given, keep);
        QCOMPARE(mine.ipus, 3);
        QVERIFY(mine.split.empty());
        QCOMPARE(mine.training.microBatch, 1);

        // And the configuration compiles as the project's split.
        auto r = workflow::compileModel(*model.value->graph, o);
        QVERIFY2(r, qPrintable(QString::fromStdString(r.error.toString())));
        QCOMPARE(int(r.value->ipu->stages.empty() ? 0 : 1), 1);
    }

    // What is not a file of named configurations, and a name the file lacks.
    void layouts_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QString>("config");
        QTest::addColumn<QString>("error"); // empty: builds
        QTest::addColumn<QString>("layout");
        QTest::newRow("missing name") << kProject.c_str() + QString("/configs.yml") << "nope"
                                      << "families.no-named-config"
                                      << "";
        QTest::newRow("model zoo params")
            << QString(PORTOLAN_SOURCE_DIR) +
                   "/sample_projects/mnist-mlp-cerebras-pytorch/configs/params.yaml"
            << ""
            << ""
            << "classic";
    }
    void layouts()
    {
        QFETCH(QString, file);
        QFETCH(QString, config);
        QFETCH(QString, error);
        QFETCH(QString, layout);
        auto m = families::buildFromParamsFile(file.toStdString(), config.toStdString());
        if (!error.isEmpty()) {
            QVERIFY(!m);
            QCOMPARE(QString::fromStdString(m.error.code), error);
            QVERIFY(m.error.message.find("tiny_2ipu") != std::string::npos); // lists them
            return;
        }
        QVERIFY2(m, qPrintable(QString::fromStdString(m.error.toString())));
        QCOMPARE(QString::fromStdString(m.value->layout), layout);
        QVERIFY(!m.value->execution);
        QVERIFY(m.value->namedConfig.empty());
    }
};

QTEST_GUILESS_MAIN(TestNamedConfig)
#include "test_named_config.moc"
