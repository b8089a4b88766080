// The Profile's named-configuration selector (issue 22, section 2): a Graphcore application
// config (tests/fixtures/projects/named-config-poptorch, written for the layout) lists the
// configurations that describe a model, opens on the one portolan-cli compile takes without
// --config, and a pick re-builds and re-compiles off the GUI thread through the workflow, with
// the configuration's own settings: the same options `compile --config NAME` starts from.
#include "core/workflow/compile_project.h"
#include "views/profile/compile_settings.h"
#include "views/profile/profile_panel.h"
#include "views/profile/summary_page.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDir>
#include <QFile>
#include <QLabel>
#include <QPushButton>
#include <QSignalSpy>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QtTest>

using namespace portolan;
using namespace portolan::views;

namespace {

const QString kProject = QStringLiteral(PORTOLAN_FIXTURES "/projects/named-config-poptorch");

bool waitIdle(ProfilePanel& panel, int ms = 60000)
{
    return QTest::qWaitFor([&] { return !panel.isBusy(); }, ms);
}

QString joined(const std::vector<int>& v)
{
    QStringList out;
    for (int x : v)
        out << QString::number(x);
    return out.join(QLatin1Char(','));
}

// What the CLI's compile starts from for `config` (workflow::openModel, projectOptions).
sim::CompileOptions cliOptions(const QString& config)
{
    workflow::ModelInput in;
    in.path = kProject.toStdString();
    in.namedConfig = config.toStdString();
    auto model = workflow::openModel(in);
    if (!model)
        return {};
    sim::CompileOptions given;
    given.target = sim::defaultTarget(model.value->source).id;
    return workflow::projectOptions(*model.value, given);
}

} // namespace

class TestProfileConfig : public QObject
{
    Q_OBJECT
private slots:
    // "defaults" sets settings only: it is no model, so it is not offered.
    void listsTheConfigurationsThatDescribeAModel()
    {
        ProfilePanel panel;
        panel.setProject(kProject);
        QVERIFY(waitIdle(panel, 120000));
        QVERIFY2(panel.result(), qPrintable(panel.statusText()));
        QCOMPARE(panel.namedConfigs(), (QStringList{"tiny_2ipu", "tiny_4ipu"}));
        QCOMPARE(panel.namedConfig(), QStringLiteral("tiny_2ipu"));
        auto* combo = panel.findChild<QComboBox*>(QStringLiteral("profileConfig"));
        QVERIFY(combo);
        QVERIFY(!combo->isHidden());
        QVERIFY(combo->isEnabled());
        QVERIFY(QFileInfo(panel.compiledParamsFile()).fileName() == QLatin1String("configs.yml"));
        QVERIFY(!panel.selectNamedConfig(QStringLiteral("defaults")));
        QVERIFY(!panel.selectNamedConfig(QStringLiteral("no_such_config")));
        QVERIFY(!panel.selectNamedConfig(QStringLiteral("tiny_2ipu"))); // compiled now
        QVERIFY(!panel.isBusy());
    }

    // A params file of one model has no configurations: no selector.
    void noSelectorWithoutNamedConfigurations()
    {
        ProfilePanel panel;
        panel.setProject(kProject);
        QVERIFY(waitIdle(panel, 120000));
        panel.setProject(QStringLiteral(PORTOLAN_SAMPLES "/mnist-mlp-cerebras-pytorch"));
        QVERIFY(panel.namedConfigs().isEmpty()); // another file: the old list goes at once
        QVERIFY(waitIdle(panel, 120000));
        QVERIFY2(panel.result(), qPrintable(panel.statusText()));
        QVERIFY(panel.namedConfigs().isEmpty());
        QVERIFY(panel.findChild<QComboBox*>(QStringLiteral("profileConfig"))->isHidden());
        QVERIFY(!panel.selectNamedConfig(QStringLiteral("tiny_4ipu")));
    }

    // The params selector shows the file compiled, not the project's default, when another
    // was opened on its own (a params_gpt2_xl.yaml showed params_gpt2_large.yaml).
    void paramsSelectorShowsTheFileCompiled()
    {
        QTemporaryDir dir;
        QVERIFY(QDir(dir.path()).mkpath(QStringLiteral("configs")));
        const QString sample =
            QStringLiteral(PORTOLAN_SAMPLES "/mnist-mlp-cerebras-pytorch/configs/params.yaml");
        for (const char* name : {"params_a.yaml", "params_b.yaml"})
            QVERIFY(QFile::copy(sample, dir.filePath(QStringLiteral("configs/") + name)));
        ProfilePanel panel;
        panel.setParamsFiles(dir.path(), {"configs/params_a.yaml", "configs/params_b.yaml"},
                             QStringLiteral("configs/params_a.yaml"));
        QCOMPARE(panel.paramsFile(), QStringLiteral("configs/params_a.yaml"));
        panel.setProject(dir.filePath(QStringLiteral("configs/params_b.yaml")));
        QVERIFY(waitIdle(panel, 120000));
        QVERIFY2(panel.result(), qPrintable(panel.statusText()));
        QCOMPARE(panel.paramsFile(), QStringLiteral("configs/params_b.yaml"));
        // A later analysis names the default again: the file compiled stays shown.
        panel.setParamsFiles(dir.path(), {"configs/params_a.yaml", "configs/params_b.yaml"},
                             QStringLiteral("configs/params_a.yaml"));
        QCOMPARE(panel.paramsFile(), QStringLiteral("configs/params_b.yaml"));
    }

    // A project whose model only a dry run can tell: the summary, where one looks first, says
    // so in place of a report (no empty advice or tile tables) and offers the dry run; the
    // previous project's report is not kept on the pages.
    void noModelOnTheSummary()
    {
        QTemporaryDir dir;
        QFile script(dir.filePath(QStringLiteral("train.py")));
        QVERIFY(script.open(QIODevice::WriteOnly));
        script.write("import torch\n");
        script.close();
        ProfilePanel panel;
        panel.setProject(kProject);
        QVERIFY(waitIdle(panel, 120000));
        QVERIFY(panel.result());
        panel.setProject(dir.path());
        QVERIFY(waitIdle(panel, 120000));
        QVERIFY(!panel.result());
        SummaryPage* summary = panel.summaryPage();
        QVERIFY2(summary->headline().contains(QStringLiteral("dry run")),
                 qPrintable(summary->headline()));
        QVERIFY2(summary->figures().contains(QStringLiteral("no capture of a dry run")),
                 qPrintable(summary->figures()));
        QVERIFY(!summary->figures().contains(QStringLiteral("portolan-cli")));
        QVERIFY(summary->adviceTable()->isHidden());
        auto* dry = summary->findChild<QPushButton*>(QStringLiteral("summaryDryRun"));
        QVERIFY(dry && !dry->isHidden());
        QSignalSpy asked(&panel, &ProfilePanel::dryRunRequested);
        dry->click();
        QCOMPARE(asked.count(), 1);
        // A report again: the button goes.
        panel.setProject(kProject);
        QVERIFY(waitIdle(panel, 120000));
        QVERIFY(panel.result());
        QVERIFY(dry->isHidden());
        QVERIFY2(summary->headline().contains(QStringLiteral("fit"), Qt::CaseInsensitive),
                 qPrintable(summary->headline()));
    }

    // A pick in the selector compiles that configuration with its own IPUs, split and
    // serialization, from the project folder or from the file itself.
    void pickRecompiles_data()
    {
        QTest::addColumn<QString>("input");
        QTest::addColumn<QString>("pick");
        QTest::addColumn<int>("ipus");
        QTest::addColumn<QString>("split");
        QTest::addColumn<int>("serialization");
        QTest::addRow("project folder, tiny_4ipu")
            << kProject << "tiny_4ipu" << 4 << "1,1,1,1" << 2;
        QTest::addRow("the file, tiny_4ipu")
            << kProject + QStringLiteral("/configs.yml") << "tiny_4ipu" << 4 << "1,1,1,1" << 2;
    }
    void pickRecompiles()
    {
        QFETCH(QString, input);
        QFETCH(QString, pick);
        QFETCH(int, ipus);
        QFETCH(QString, split);
        QFETCH(int, serialization);
        ProfilePanel panel;
        panel.setProject(input);
        QVERIFY(waitIdle(panel, 120000));
        QVERIFY2(panel.result(), qPrintable(panel.statusText()));
        const auto before = panel.result();
        QVERIFY(before->options.ipus != ipus);

        auto* combo = panel.findChild<QComboBox*>(QStringLiteral("profileConfig"));
        const int index = combo->findText(pick);
        QVERIFY(index >= 0);
        QSignalSpy results(&panel, &ProfilePanel::resultChanged);
        combo->setCurrentIndex(index);
        emit combo->activated(index); // what a click on the item sends
        // Built and compiled on a worker thread: the GUI thread is back at once, busy.
        QVERIFY(panel.isBusy());
        QCOMPARE(panel.result(), before);
        QVERIFY(waitIdle(panel, 120000));
        QVERIFY2(panel.result() && panel.result() != before, qPrintable(panel.statusText()));
        QCOMPARE(panel.namedConfig(), pick);
        QCOMPARE(panel.namedConfigs().size(), 2); // the list stays
        const sim::CompileResult& r = *panel.result();
        QCOMPARE(QString::fromStdString(r.graph.name), QStringLiteral("bert (%1)").arg(pick));
        QCOMPARE(r.options.ipus, ipus);
        QCOMPARE(joined(r.options.split), split);
        QCOMPARE(r.options.training.serializationFactor, serialization);
        // The settings the CLI's `compile --config NAME` opens on (advice aside: the form's).
        sim::CompileOptions cli = cliOptions(pick);
        cli.advice = r.options.advice;
        QCOMPARE(r.options, cli);
        QVERIFY(panel.findChild<QLabel*>(QStringLiteral("profileSource"))
                    ->text()
                    .contains(QStringLiteral("'%1'").arg(pick)));

        // Back to the first: its settings come back, not the second's.
        QVERIFY(panel.selectNamedConfig(QStringLiteral("tiny_2ipu")));
        QVERIFY(waitIdle(panel, 120000));
        QCOMPARE(panel.result()->options.ipus, 2);
        QCOMPARE(joined(panel.result()->options.split), QStringLiteral("2,2"));
        QCOMPARE(panel.namedConfig(), QStringLiteral("tiny_2ipu"));
    }

    // The compile form's check boxes stand in one column at any width (the widest one wrapped
    // under the labels alone when each had a row).
    void checkBoxesInOneColumn_data()
    {
        QTest::addColumn<int>("width");
        for (int w : {260, 340, 420, 600})
            QTest::addRow("%d px", w) << w;
    }
    void checkBoxesInOneColumn()
    {
        QFETCH(int, width);
        CompileSettings form;
        form.resize(std::max(width, form.minimumSizeHint().width()), 900);
        form.show();
        QVERIFY(QTest::qWaitForWindowExposed(&form));
        const auto boxes = form.findChildren<QCheckBox*>();
        QCOMPARE(boxes.size(), 6);
        for (QCheckBox* box : boxes) {
            const QPoint at = box->mapTo(&form, QPoint(0, 0));
            QCOMPARE(at.x(), boxes.front()->mapTo(&form, QPoint(0, 0)).x());
            QVERIFY2(at.x() + box->width() <= form.width(), qPrintable(box->text()));
        }
    }
};

QTEST_MAIN(TestProfileConfig)
#include "test_profile_config.moc"
