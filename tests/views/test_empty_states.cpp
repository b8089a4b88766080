// Views before they have anything to show say what would fill them and offer the action that
// does, rather than a blank page.
#include "views/common/placeholder_table_view.h"
#include "views/params/params_editor.h"

#include <QAbstractItemModelTester>
#include <QFile>
#include <QLabel>
#include <QPushButton>
#include <QStackedWidget>
#include <QStandardItemModel>
#include <QTemporaryDir>
#include <QTest>

using portolan::views::ParamsEditor;

class TestEmptyStates : public QObject
{
    Q_OBJECT
private slots:
    // A table with no rows says why in its viewport; with rows, it shows them and nothing else.
    void placeholderTable_data()
    {
        QTest::addColumn<int>("rows");
        QTest::addColumn<bool>("says");
        QTest::addRow("empty") << 0 << true;
        QTest::addRow("one row") << 1 << false;
    }
    void placeholderTable()
    {
        QFETCH(int, rows);
        QFETCH(bool, says);
        QStandardItemModel model(rows, 2);
        QAbstractItemModelTester tester(&model);
        portolan::views::PlaceholderTableView view;
        view.setModel(&model);
        view.setPlaceholderText(QStringLiteral("No findings in this step."));
        QCOMPARE(view.shownPlaceholder().isEmpty(), !says);
        view.resize(300, 200);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        view.grab(); // paints without a crash either way
    }

    void paramsWithoutFile_data()
    {
        QTest::addColumn<QByteArray>("yaml");
        QTest::addColumn<bool>("opens");
        QTest::addRow("no file") << QByteArray() << false;
        QTest::addRow("a params file") << QByteArray("train_input:\n  batch_size: 4\n") << true;
        QTest::addRow("a broken file") << QByteArray("a: [1,\n") << true; // the text shows it
    }
    void paramsWithoutFile()
    {
        QFETCH(QByteArray, yaml);
        QFETCH(bool, opens);
        ParamsEditor editor;
        editor.resize(900, 600);
        editor.show();
        auto* empty = editor.findChild<QWidget*>(QStringLiteral("paramsEmpty"));
        QVERIFY(empty);
        QVERIFY(empty->isVisible());
        const auto* button = empty->findChild<QPushButton*>(QStringLiteral("openParamsFile"));
        QVERIFY(button && button->isVisible());
        QStringList texts;
        for (const QLabel* l : empty->findChildren<QLabel*>())
            texts << l->text();
        QVERIFY2(texts.join(' ').contains(QStringLiteral("No params file is open")),
                 qPrintable(texts.join(' ')));
        if (yaml.isEmpty())
            return;
        QTemporaryDir tmp;
        const QString file = tmp.filePath(QStringLiteral("params.yaml"));
        QFile f(file);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(yaml);
        f.close();
        QCOMPARE(editor.openFile(file), opens);
        QCOMPARE(empty->isVisible(), !opens);
    }
};

QTEST_MAIN(TestEmptyStates)
#include "test_empty_states.moc"
