// Models rebuilt from the sample projects' params, positioned errors for bad params, and the
// learning-rate schedules as params files write them.
#include "core/runtime/lr_schedule.h"
#include "core/runtime/models.h"
#include "core/runtime/run_config.h"

#include <QtTest>
#include <torch/torch.h>

using namespace portolan::runtime;

class TestRuntimeModels : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void sampleModels_data();
    void sampleModels();
    void sequentialContract();
    void sameSeedSameWeights();
    void badParams_data();
    void badParams();
    void searchedHyperparameterRejected();
    void schedules_data();
    void schedules();
    void determinedConfig();
};

void TestRuntimeModels::sampleModels_data()
{
    QTest::addColumn<QString>("params");
    QTest::addColumn<QString>("name");
    QTest::addColumn<qint64>("parameters");
    QTest::addColumn<qint64>("classes");
    // Parameter counts are those of the Python models (sum of p.numel()).
    QTest::addRow("mnist-mlp") << "mnist-mlp-cerebras-pytorch/configs/params.yaml"
                               << "fc_mnist" << qint64(118282) << qint64(10);
    QTest::addRow("alphabet") << "alphabet-transformer-cerebras-layers/configs/params.yaml"
                              << "alphabet_transformer" << qint64(70298) << qint64(26);
    QTest::addRow("small-cnn") << "small-cnn-poptorch/configs/params.yaml"
                               << "small_cnn" << qint64(54314) << qint64(10);
    QTest::addRow("determined") << "image-classifier-determined/const.yaml"
                                << "cifar_convnet" << qint64(268650) << qint64(10);
}

void TestRuntimeModels::sampleModels()
{
    QFETCH(QString, params);
    QFETCH(QString, name);
    QFETCH(qint64, parameters);
    QFETCH(qint64, classes);
    auto built = buildModelFromParams(std::string(PORTOLAN_SAMPLES) + "/" + params.toStdString());
    QVERIFY2(built, built.error.toString().c_str());
    QCOMPARE(QString::fromStdString(built.value->name), name);
    QCOMPARE(qint64(built.value->numClasses), classes);
    int64_t count = 0;
    for (const auto& p : built.value->net->parameters())
        count += p.numel();
    QCOMPARE(qint64(count), parameters);

    std::vector<int64_t> shape{3};
    shape.insert(shape.end(), built.value->inputShape.begin(), built.value->inputShape.end());
    auto input = built.value->inputDtype == torch::kInt64
                     ? torch::randint(0, classes, shape, torch::kInt64)
                     : torch::rand(shape);
    built.value->net->eval();
    const auto out = built.value->net->forward(input);
    QCOMPARE(out.size(0), int64_t(3));
    QCOMPARE(out.size(-1), int64_t(classes));
    if (built.value->inputDtype == torch::kInt64)
        QCOMPARE(out.size(1), built.value->inputShape[0]);
    QVERIFY(torch::isfinite(out).all().item<bool>());
}

void TestRuntimeModels::sequentialContract()
{
    // Children run in order, one Tensor -> Tensor each: feeding them by hand gives the same
    // output as the Sequential (the compiler simulation walks them this way).
    const auto built =
        buildModelFromParams(std::string(PORTOLAN_SAMPLES) +
                             "/alphabet-transformer-cerebras-layers/configs/params.yaml");
    QVERIFY(built);
    auto net = built.value->net;
    net->eval();
    auto ids = torch::randint(0, 26, {2, 32}, torch::kInt64);
    QStringList names;
    for (const auto& child : net->named_children())
        names << QString::fromStdString(child.key());
    torch::Tensor x = ids;
    for (auto& child : *net)
        x = child.forward(x);
    QVERIFY(torch::equal(x, net->forward(ids)));
    QCOMPARE(x.sizes().vec(), (std::vector<int64_t>{2, 32, 26}));
    QCOMPARE(names.first(), QStringLiteral("embedding"));
    QVERIFY(names.contains("layer0") && names.contains("layer1"));
    QCOMPARE(names.last(), QStringLiteral("head"));
}

void TestRuntimeModels::sameSeedSameWeights()
{
    const std::string file =
        std::string(PORTOLAN_SAMPLES) + "/mnist-mlp-cerebras-pytorch/configs/params.yaml";
    torch::manual_seed(7);
    const auto a = buildModelFromParams(file);
    torch::manual_seed(7);
    const auto b = buildModelFromParams(file);
    QVERIFY(a && b);
    const auto pa = a.value->net->parameters();
    const auto pb = b.value->net->parameters();
    QCOMPARE(pa.size(), pb.size());
    for (std::size_t i = 0; i < pa.size(); ++i)
        QVERIFY(torch::equal(pa[i], pb[i]));
}

void TestRuntimeModels::badParams_data()
{
    QTest::addColumn<QString>("file");
    QTest::addColumn<int>("line");
    QTest::addColumn<int>("column");
    QTest::addColumn<QString>("code");
    QTest::addColumn<QString>("words");
    QTest::addRow("unknown model") << "unknown_model.yaml" << 4 << 11 << "runtime.unknown-model"
                                   << "resnet9000";
    QTest::addRow("depth not an integer") << "bad_depth.yaml" << 5 << 12 << "runtime.params-type"
                                          << "model.depth";
    QTest::addRow("negative hidden size")
        << "negative_hidden.yaml" << 6 << 18 << "runtime.params-range"
        << "model.hidden_size";
    QTest::addRow("unknown activation")
        << "bad_activation.yaml" << 7 << 20 << "runtime.params-choice"
        << "swish";
    QTest::addRow("heads do not divide")
        << "heads_not_dividing.yaml" << 8 << 16 << "runtime.params-range"
        << "divisible";
    QTest::addRow("unknown scheduler")
        << "bad_scheduler.yaml" << 14 << 22 << "runtime.params-choice"
        << "Zigzag";
    QTest::addRow("unknown optimizer") << "bad_optimizer.yaml" << 8 << 21 << "runtime.params-choice"
                                       << "Lamb";
    QTest::addRow("YAML syntax") << "syntax_error.yaml" << -1 << -1 << "runtime.params-syntax"
                                 << "syntax";
}

void TestRuntimeModels::badParams()
{
    QFETCH(QString, file);
    QFETCH(int, line);
    QFETCH(int, column);
    QFETCH(QString, code);
    QFETCH(QString, words);
    const std::string path = std::string(RUNTIME_FIXTURES) + "/" + file.toStdString();
    // The error comes from the run configuration or from the model, whichever checks the key.
    auto config = loadRunConfig(RUNTIME_FIXTURES, path);
    portolan::Diagnostic d;
    if (!config) {
        d = config.error;
    } else {
        const auto built = buildModelFromParams(path);
        QVERIFY2(!built, "bad params were accepted");
        d = built.error;
    }
    QCOMPARE(QString::fromStdString(d.code), code);
    QCOMPARE(QString::fromStdString(d.location.file), QString::fromStdString(path));
    if (line > 0) {
        QCOMPARE(d.location.line, line);
        QCOMPARE(d.location.column, column);
    } else {
        QVERIFY(d.location.line > 0);
    }
    QVERIFY2(QString::fromStdString(d.message).contains(words), d.message.c_str());
}

void TestRuntimeModels::searchedHyperparameterRejected()
{
    const std::string path =
        std::string(PORTOLAN_SAMPLES) + "/image-classifier-determined/adaptive.yaml";
    auto config =
        loadRunConfig(std::string(PORTOLAN_SAMPLES) + "/image-classifier-determined", path);
    QVERIFY(!config);
    QCOMPARE(config.error.code, std::string("runtime.params-searched"));
    QVERIFY(config.error.location.line > 0);
    QVERIFY(QString::fromStdString(config.error.message).contains("learning_rate"));
}

void TestRuntimeModels::schedules_data()
{
    QTest::addColumn<QString>("yaml");
    QTest::addColumn<QList<int>>("steps");
    QTest::addColumn<QList<double>>("expected");
    QTest::addRow("constant") << "learning_rate: 0.05" << QList<int>{0, 1000}
                              << QList<double>{0.05, 0.05};
    QTest::addRow("warmup then cosine")
        << "learning_rate:\n"
           "  - {scheduler: Linear, initial_learning_rate: 0.0, end_learning_rate: 1.0, "
           "total_iters: 10}\n"
           "  - {scheduler: CosineDecay, initial_learning_rate: 1.0, end_learning_rate: 0.0, "
           "total_iters: 100}\n"
        << QList<int>{0, 5, 10, 60, 110, 500} << QList<double>{0.0, 0.5, 1.0, 0.5, 0.0, 0.0};
    QTest::addRow("linear steps then constant")
        << "learning_rate:\n"
           "  - {steps: 4, scheduler: Linear, initial_learning_rate: 0.0, end_learning_rate: 0.4}\n"
           "  - {scheduler: Constant, learning_rate: 0.01}\n"
        << QList<int>{0, 2, 4, 100} << QList<double>{0.0, 0.2, 0.01, 0.01};
    QTest::addRow("step") << "learning_rate: {scheduler: Step, initial_learning_rate: 0.1, "
                             "step_size: 10, gamma: 0.5}"
                          << QList<int>{0, 9, 10, 25} << QList<double>{0.1, 0.1, 0.05, 0.025};
    QTest::addRow("exponential staircase")
        << "learning_rate: {scheduler: Exponential, initial_learning_rate: 1.0, decay_rate: 0.5, "
           "decay_steps: 10, staircase: true}"
        << QList<int>{0, 15, 20} << QList<double>{1.0, 0.5, 0.25};
    QTest::addRow("cosine alpha") << "learning_rate: {scheduler: Cosine, initial_learning_rate: "
                                     "2.0, alpha: 0.1, decay_steps: 100}"
                                  << QList<int>{0, 100, 200} << QList<double>{2.0, 0.2, 0.2};
    QTest::addRow("piecewise") << "learning_rate: {scheduler: PiecewiseConstant, values: [0.3, "
                                  "0.2, 0.1], boundaries: [10, 20]}"
                               << QList<int>{0, 10, 19, 20} << QList<double>{0.3, 0.2, 0.2, 0.1};
}

void TestRuntimeModels::schedules()
{
    QFETCH(QString, yaml);
    QFETCH(QList<int>, steps);
    QFETCH(QList<double>, expected);
    const YAML::Node root = YAML::Load(yaml.toStdString());
    const LrSchedule s =
        parseLrSchedule(ParamsSection(root, "inline.yaml", "optimizer"), "learning_rate");
    for (int i = 0; i < steps.size(); ++i)
        QVERIFY2(
            std::abs(s.at(steps[i]) - expected[i]) < 1e-9,
            qPrintable(
                QString("step %1: %2 != %3").arg(steps[i]).arg(s.at(steps[i])).arg(expected[i])));
}

void TestRuntimeModels::determinedConfig()
{
    const std::string dir = std::string(PORTOLAN_SAMPLES) + "/image-classifier-determined";
    auto c = loadRunConfig(dir, dir + "/const.yaml");
    QVERIFY2(c, c.error.toString().c_str());
    QCOMPARE(c.value->layout, std::string("determined"));
    QCOMPARE(c.value->train.batchSize, int64_t(64));
    QCOMPARE(c.value->maxSteps, int64_t(2343));
    QCOMPARE(c.value->evalEvery, int64_t(781));
    QCOMPARE(c.value->optimizer.momentum, 0.9);
    QCOMPARE(c.value->optimizer.weightDecay, 0.0005);
    QCOMPARE(c.value->lrStepEpochs, int64_t(1));
    QCOMPARE(c.value->eval.samples, int64_t(10000));
}

QTEST_GUILESS_MAIN(TestRuntimeModels)
#include "test_runtime_models.moc"
