// Where a params file keeps its model, for every Model Zoo API generation (issue 26: a Trainer
// configuration, `trainer: init: model:`, was told it "names none of its models" because only a
// top-level `model:` was read). One rule in core (params::modelSectionOf), read by the runtime's
// known-model check, its run configuration and the model builders.
#include "core/families/families.h"
#include "core/params/model_section.h"
#include "core/runtime/model_names.h"
#include "core/runtime/run_config.h"

#include <QTemporaryDir>
#include <QtTest>
#include <fstream>

using namespace portolan;

namespace {

// The same small model and training settings, written in each generation's layout.
const char* kRunner =
    R"(train_input: {data_processor: DigitsProcessor, data_dir: ./d, batch_size: 8}
eval_input: {data_processor: DigitsProcessor, data_dir: ./d, batch_size: 4}
model: {name: fc_mnist, depth: 2, hidden_size: 16}
optimizer: {optimizer_type: SGD, learning_rate: 0.01, momentum: 0.5}
runconfig: {max_steps: 40, log_steps: 5, checkpoint_steps: 20, seed: 3}
)";
const char* kTrainer = R"(trainer:
  init:
    seed: 3
    model: {name: fc_mnist, depth: 2, hidden_size: 16}
    optimizer:
      SGD: {learning_rate: 0.01, momentum: 0.5}
    loop: {max_steps: 40}
    checkpoint: {steps: 20}
    logging: {log_steps: 5}
  fit:
    train_dataloader: {data_processor: DigitsProcessor, data_dir: ./d, batch_size: 8}
    val_dataloader: {data_processor: DigitsProcessor, data_dir: ./d, batch_size: 4}
)";

} // namespace

class TestModelSection : public QObject
{
    Q_OBJECT
private slots:
    void sectionOfEachLayout_data()
    {
        QTest::addColumn<QByteArray>("yaml");
        QTest::addColumn<QString>("path"); // "" when there is none
        QTest::addColumn<QString>("name");
        QTest::addColumn<bool>("known"); // by the LibTorch runtime
        QTest::addRow("runner / cstorch: top-level model") << QByteArray(kRunner) << "model"
                                                           << "fc_mnist" << true;
        QTest::addRow("Trainer: trainer.init.model") << QByteArray(kTrainer) << "trainer.init.model"
                                                     << "fc_mnist" << true;
        QTest::addRow("Trainer, a model the runtime does not build")
            << QByteArray("trainer:\n  init:\n    model: {name: llama, hidden_size: 8}\n")
            << "trainer.init.model"
            << "llama" << false;
        QTest::addRow("top-level model wins over a trainer")
            << QByteArray("model: {name: a}\ntrainer: {init: {model: {name: b}}}\n") << "model"
            << "a" << false;
        QTest::addRow("model without a name") << QByteArray("model: {hidden_size: 8}\n") << "model"
                                              << "" << false;
        QTest::addRow("trainer without init.model")
            << QByteArray("trainer: {fit: {train_dataloader: {batch_size: 2}}}\n") << ""
            << "" << false;
        QTest::addRow("trainer.init.model not a mapping")
            << QByteArray("trainer: {init: {model: fc_mnist}}\n") << ""
            << "" << false;
        QTest::addRow("data preparation config")
            << QByteArray("setup: {mode: pretraining}\nprocessing: {max_seq_length: 8}\n") << ""
            << "" << false;
        QTest::addRow("named configurations (each key a config)")
            << QByteArray("tiny:\n  model: {name: fc_mnist}\nlarge:\n  model: {name: x}\n") << ""
            << "" << false;
        QTest::addRow("not a mapping") << QByteArray("- model\n") << ""
                                       << "" << false;
    }
    void sectionOfEachLayout()
    {
        QFETCH(QByteArray, yaml);
        QFETCH(QString, path);
        QFETCH(QString, name);
        QFETCH(bool, known);
        const YAML::Node root = YAML::Load(yaml.toStdString());
        const auto section = params::modelSectionOf(root);
        QCOMPARE(section ? QString::fromStdString(section->path) : QString(), path);
        QCOMPARE(QString::fromStdString(params::modelNameOf(root)), name);
        QCOMPARE(runtime::knownModelIn(root).has_value(), known);
        if (section)
            QCOMPARE(runtime::knownModelIn(root).value_or(""), known ? name.toStdString() : "");
    }

    // The runtime reads the same run from either layout: a Trainer configuration trains as its
    // runner-generation twin does.
    void runConfigOfEachLayout_data()
    {
        QTest::addColumn<QByteArray>("yaml");
        QTest::addColumn<QString>("layout");
        QTest::addRow("runner") << QByteArray(kRunner) << "modelzoo";
        QTest::addRow("trainer") << QByteArray(kTrainer) << "modelzoo-trainer";
    }
    void runConfigOfEachLayout()
    {
        QFETCH(QByteArray, yaml);
        QFETCH(QString, layout);
        QTemporaryDir dir;
        const std::string file = dir.filePath(QStringLiteral("params.yaml")).toStdString();
        std::ofstream(file) << yaml.toStdString();
        const auto c = runtime::loadRunConfig(dir.path().toStdString(), file);
        QVERIFY2(c, c ? "" : c.error.message.c_str());
        QCOMPARE(QString::fromStdString(c.value->layout), layout);
        QCOMPARE(QString::fromStdString(c.value->modelName), QStringLiteral("fc_mnist"));
        QCOMPARE(c.value->modelSection["hidden_size"].as<int>(), 16);
        QCOMPARE(c.value->seed, int64_t(3));
        QCOMPARE(c.value->train.batchSize, int64_t(8));
        QCOMPARE(c.value->eval.batchSize, int64_t(4));
        QCOMPARE(QString::fromStdString(c.value->optimizer.type), QStringLiteral("sgd"));
        QCOMPARE(c.value->optimizer.momentum, 0.5);
        QCOMPARE(c.value->maxSteps, int64_t(40));
        QCOMPARE(c.value->logSteps, int64_t(5));
        QCOMPARE(c.value->checkpointSteps, int64_t(20));
    }

    // The model builders find the model where the runtime does.
    void familiesFindTheSameSection_data()
    {
        QTest::addColumn<QByteArray>("yaml");
        QTest::addColumn<QString>("layout");
        QTest::addRow("runner") << QByteArray(kRunner) << "classic";
        QTest::addRow("trainer") << QByteArray(kTrainer) << "trainer";
    }
    void familiesFindTheSameSection()
    {
        QFETCH(QByteArray, yaml);
        QFETCH(QString, layout);
        const auto built = families::buildFromParamsText(yaml.toStdString(), "params.yaml");
        QVERIFY2(built, built ? "" : built.error.message.c_str());
        QCOMPARE(QString::fromStdString(built.value->layout), layout);
        QCOMPARE(QString::fromStdString(built.value->family), QStringLiteral("fc_mnist"));
    }
};

QTEST_GUILESS_MAIN(TestModelSection)
#include "test_model_section.moc"
