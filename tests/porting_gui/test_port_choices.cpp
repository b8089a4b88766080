// The port dialog's plan tree offers only choices that reach the port: each editable item is an
// option of the plan, and a changed choice is in the regenerated and the written files. On a
// fixture written for the pattern (two modules in one training script). Its Manual items group
// is what the port for the dialog's target leaves, not the plan's: a target may generate an item.
#include "core/port/generate.h"
#include "port_test_support.h"
#include "tests/port/validation_fixtures.h"
#include "views/porting/port_dialog.h"
#include "views/porting/port_plan_model.h"

#include <QAbstractItemModelTester>
#include <QLabel>
#include <QListWidget>
#include <QSignalSpy>
#include <QStackedWidget>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>
#include <fstream>
#include <functional>

using namespace portolan;
using namespace porttest;
using views::PortDialog;
using views::PortPlanModel;

class TestPortChoices : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase()
    {
        QVERIFY(m_config.isValid());
        isolateConfig(m_config.path());
    }

    // Every choice the tree offers reaches the generated files: a new plan, and the files
    // written from it. (A choice that reached no file, the model's class, is shown, not offered.)
    void choicesReachTheFiles_data()
    {
        QTest::addColumn<int>("option");
        QTest::addColumn<QString>("value");
        QTest::addColumn<QString>("expected"); // in the port's files after the change
        QTest::addRow("loss expression")
            << int(PortPlanModel::LossOption) << "F.nll_loss(F.log_softmax(out, dim=1), y)"
            << "F.nll_loss(F.log_softmax(out, dim=1), y)";
        QTest::addRow("model variable") << int(PortPlanModel::ModelVariableOption) << "critic"
                                        << "Critic()";
    }
    void choicesReachTheFiles()
    {
        QFETCH(int, option);
        QFETCH(QString, value);
        QFETCH(QString, expected);
        QTemporaryDir tmp;
        const QString original = tmp.filePath(QStringLiteral("two-modules"));
        QVERIFY(
            copyTree(QStringLiteral(PORTOLAN_SOURCE_DIR "/tests/porting_gui/fixtures/two-modules"),
                     original));
        PortDialog dialog(analyse(original), QStringLiteral("determined-pytorchtrial"));
        dialog.setInteractive(false);
        QSignalSpy generated(&dialog, &PortDialog::generated);
        QTRY_COMPARE_WITH_TIMEOUT(generated.count(), 1, 30000);
        PortPlanModel* model = dialog.planModel();
        QAbstractItemModelTester tester(model,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        // The editable items, and the one of this row.
        QModelIndex choice;
        std::function<void(const QModelIndex&)> walk = [&](const QModelIndex& parent) {
            for (int r = 0; r < model->rowCount(parent); ++r) {
                const QModelIndex i = model->index(r, PortPlanModel::ChoiceColumn, parent);
                const int o = i.data(PortPlanModel::OptionRole).toInt();
                QCOMPARE(bool(i.flags() & Qt::ItemIsEditable), o != PortPlanModel::NoOption);
                if (o == option)
                    choice = i;
                walk(model->index(r, 0, parent));
            }
        };
        walk({});
        QVERIFY(choice.isValid());
        if (option == PortPlanModel::ModelVariableOption)
            QVERIFY2(choice.data(PortPlanModel::CandidatesRole).toStringList().contains(value),
                     qPrintable(choice.data(PortPlanModel::CandidatesRole)
                                    .toStringList()
                                    .join(QLatin1Char(' '))));
        auto portText = [&] {
            QString all;
            for (const auto& f : dialog.port()->files)
                all += QString::fromStdString(f.text);
            return all;
        };
        QVERIFY(!portText().contains(expected));
        QVERIFY(model->setData(choice, value));
        QTRY_COMPARE_WITH_TIMEOUT(generated.count(), 2, 30000);
        QVERIFY(dialog.port());
        QVERIFY2(portText().contains(expected), qPrintable(portText()));
        // And what is written is that port.
        dialog.setOutputFolder(tmp.filePath(QStringLiteral("out")));
        QVERIFY(dialog.writePort());
        QString written;
        for (const QString& f : dialog.fileNames()) {
            QFile file(tmp.filePath(QStringLiteral("out/") + f));
            QVERIFY(file.open(QIODevice::ReadOnly));
            written += QString::fromUtf8(file.readAll());
        }
        QVERIFY(written.contains(expected));
    }

    // A plateau decay the plan cannot place alone: PopTorch and Determined generate it (their
    // ports have no item), Cerebras keeps it. The tree's group, the Manual items tab and the
    // status line agree with the port, on every target.
    void manualGroupIsThePorts_data()
    {
        QTest::addColumn<QString>("target");
        QTest::addColumn<bool>("decayGenerated");
        QTest::addRow("determined") << "determined-pytorchtrial" << true;
        QTest::addRow("poptorch") << "graphcore-poptorch" << true;
        QTest::addRow("cerebras") << "cerebras-pytorch" << false;
    }
    void manualGroupIsThePorts()
    {
        QFETCH(QString, target);
        QFETCH(bool, decayGenerated);
        QTemporaryDir tmp;
        const QString original = tmp.filePath(QStringLiteral("decaying"));
        QVERIFY(QDir().mkpath(original));
        std::ofstream(original.toStdString() + "/main.py")
            << portfixture::withDecay(portfixture::Decay);
        PortDialog dialog(analyse(original), target);
        dialog.setInteractive(false);
        QSignalSpy generated(&dialog, &PortDialog::generated);
        QTRY_COMPARE_WITH_TIMEOUT(generated.count(), 1, 30000);
        QVERIFY(dialog.plan() && dialog.port());
        auto mentionsDecay = [](const std::vector<guides::Finding>& items) {
            return std::any_of(items.cbegin(), items.cend(), [](const guides::Finding& f) {
                return f.message.find("learning rate") != std::string::npos;
            });
        };
        QVERIFY(mentionsDecay(dialog.plan()->manual));
        QCOMPARE(mentionsDecay(dialog.port()->manual), !decayGenerated);

        const PortPlanModel* model = dialog.planModel();
        const QModelIndex group = model->groupIndex(QStringLiteral("manual"));
        QVERIFY(group.isValid());
        QCOMPARE(model->rowCount(group), int(dialog.port()->manual.size()));
        QCOMPARE(dialog.manualItems().size(), qsizetype(dialog.port()->manual.size()));
        for (int r = 0; r < model->rowCount(group); ++r)
            QCOMPARE(model->index(r, PortPlanModel::ChoiceColumn, group).data().toString(),
                     QString::fromStdString(dialog.port()->manual[std::size_t(r)].message));
        QCOMPARE(dialog.statusText() == QStringLiteral("Ready to write."),
                 dialog.port()->manual.empty());

        // The tab: no bare headers when nothing is left, and the port's notes under the items
        // (a generated decay is one: the port says what it wrote for `lr /= 4.0`).
        const auto* tabs = dialog.findChild<QTabWidget*>();
        QVERIFY(tabs);
        QVERIFY(tabs->tabText(2).startsWith(QStringLiteral("Manual items (")));
        const QWidget* page = tabs->widget(2);
        const auto* stack = page->findChild<QStackedWidget*>();
        QVERIFY(stack);
        QCOMPARE(bool(qobject_cast<QLabel*>(stack->currentWidget())),
                 dialog.port()->manual.empty());
        const auto* notes = page->findChild<QListWidget*>();
        QVERIFY(notes);
        const auto& portNotes = dialog.port()->notes;
        QVERIFY(!portNotes.empty());
        QCOMPARE(notes->count(), int(portNotes.size()));
        for (int i = 0; i < notes->count(); ++i)
            QCOMPARE(notes->item(i)->text(), QString::fromStdString(portNotes[std::size_t(i)]));
        QCOMPARE(dialog.noteTexts().size(), qsizetype(portNotes.size()));
    }

private:
    QTemporaryDir m_config;
};

QTEST_MAIN(TestPortChoices)
#include "test_port_choices.moc"
