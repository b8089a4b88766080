// "Generate the port…" in the window, offscreen: the port written from the dialog opens as the
// current project (the Code tab no longer shows the original's file), and the dialog's
// verification reaches the Runs tab (it is shown when the verification starts, and each update of
// the two runs overlays them with the verdict). The verification's history is written here for
// the pattern; the dry runs themselves are tested in test_port_dialog.
#include "app/gui/main_window.h"
#include "tests/porting_gui/port_test_support.h"
#include "views/code/code_view.h"
#include "views/porting/analysis_runner.h"
#include "views/porting/port_dialog.h"
#include "views/porting/porting_wizard.h"
#include "views/runs/loss_chart.h"
#include "views/runs/run_history.h"
#include "views/runs/run_panel.h"

#include <QDirIterator>
#include <QFile>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>

using portolan::app::MainWindow;
using namespace portolan::views;
using porttest::copyTree;

namespace {

QString currentView(MainWindow& w)
{
    auto* tabs = qobject_cast<QTabWidget*>(w.centralWidget());
    return tabs && tabs->currentWidget() ? tabs->currentWidget()->objectName() : QString();
}

} // namespace

class TestPortFlow : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase()
    {
        QVERIFY(m_config.isValid());
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName(QStringLiteral("PortolanTest"));
        QCoreApplication::setApplicationName(QStringLiteral("test_port_flow"));
        QSettings().clear();
        qputenv("PORTOLAN_CONFIG_DIR", m_config.path().toUtf8());
        if (qEnvironmentVariableIsEmpty("PORTOLAN_RESOURCES"))
            qputenv("PORTOLAN_RESOURCES", QByteArray(PORTOLAN_SOURCE_DIR "/resources"));
    }

    void writtenPortOpensAndShowsItsVerification_data()
    {
        QTest::addColumn<QString>("guide");
        QTest::addRow("determined") << "determined-pytorchtrial";
        QTest::addRow("poptorch") << "graphcore-poptorch";
    }
    void writtenPortOpensAndShowsItsVerification()
    {
        QFETCH(QString, guide);
        QTemporaryDir tmp;
        const QString original = tmp.filePath(QStringLiteral("net"));
        QVERIFY(copyTree(QStringLiteral(PORTOLAN_SAMPLES "/mnist-mlp-original"), original));
        MainWindow w;
        w.setInteractive(false);
        w.resize(1024, 700);
        w.show();
        QSignalSpy analysed(&w, &MainWindow::projectAnalysed);
        QSignalSpy opened(&w, &MainWindow::projectOpened);
        w.openProject(original);
        QTRY_VERIFY_WITH_TIMEOUT(analysed.count() >= 1, 60000);
        w.analysisRunner()->setGuide(guide);
        QTRY_VERIFY_WITH_TIMEOUT(analysed.count() >= 2 && !w.isBusy(), 60000);
        w.openCode(QStringLiteral("train.py"));
        QCOMPARE(w.codeView()->fileName(), QStringLiteral("train.py"));

        PortDialog* dialog = w.wizard()->openPortDialog();
        QVERIFY(dialog);
        dialog->setInteractive(false);
        QSignalSpy generated(dialog, &PortDialog::generated);
        QTRY_COMPARE_WITH_TIMEOUT(generated.count(), 1, 30000);
        const QString port = tmp.filePath(QStringLiteral("net-port"));
        dialog->setOutputFolder(port);
        QVERIFY(dialog->writePort());
        // The port is the open project; the original's file is not shown under its name.
        QTRY_COMPARE_WITH_TIMEOUT(opened.count(), 2, 30000);
        QCOMPARE(QFileInfo(w.projectFolder()).canonicalFilePath(),
                 QFileInfo(port).canonicalFilePath());
        // (It may show a file of the port: the Porting tab opens its first finding's file.)
        const QString shown = w.codeView()->fileName();
        if (!shown.isEmpty()) {
            QFile file(port + QLatin1Char('/') + shown);
            QVERIFY2(file.open(QIODevice::ReadOnly), qPrintable(shown));
            QCOMPARE(w.codeView()->toPlainText(), QString::fromUtf8(file.readAll()));
        }

        // The verification's two runs, as the dialog records them, reach the Runs tab.
        RunHistory h;
        QVERIFY(h.open(port));
        qint64 ids[2] = {0, 0};
        for (int side = 0; side < 2; ++side) {
            const QString name = side == 0 ? QStringLiteral("original") : QStringLiteral("port");
            ids[side] = h.beginRun(QStringLiteral("verify"),
                                   QJsonObject{{"verification", true}, {"side", name}});
            for (int step = 1; step <= 3; ++step)
                h.appendEvent(ids[side], RunEvent::makeStep(step, 2.0 / step, 1.0));
            h.appendEvent(ids[side],
                          RunEvent::fromJson(QJsonObject{
                              {"event", "info"}, {"kind", "verification"}, {"agrees", true}}));
            h.finishRun(ids[side], QStringLiteral("completed"),
                        QStringLiteral("The port trains like the original: 3 steps compared."));
        }
        emit dialog->verifyStarted();
        QCOMPARE(currentView(w), QStringLiteral("runs"));
        emit dialog->verifyProgress(port, ids[0], ids[1]);
        QVERIFY2(w.runPanel()->verificationText().contains(QLatin1String("trains like")),
                 qPrintable(w.runPanel()->verificationText()));
        QCOMPARE(w.runPanel()->chart()->pointCount(ids[0]), 3);
        QCOMPARE(w.runPanel()->chart()->pointCount(ids[1]), 3);
        dialog->close();
    }

private:
    QTemporaryDir m_config;
};

QTEST_MAIN(TestPortFlow)
#include "test_port_flow.moc"
