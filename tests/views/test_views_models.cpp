// Every model gets QAbstractItemModelTester, on real scans and after resets.
#include "core/project/project_scan.h"
#include "views/common/diagnostics_model.h"
#include "views/project/project_files_model.h"

#include <QAbstractItemModelTester>
#include <QTest>

using namespace portolan;
using namespace portolan::views;

class TestViewsModels : public QObject
{
    Q_OBJECT
private slots:
    void projectFiles_data()
    {
        QTest::addColumn<QString>("folder");
        QTest::addRow("tiny fixture") << QStringLiteral(PORTOLAN_FIXTURES "/projects/tiny");
        QTest::addRow("sample projects") << QStringLiteral(PORTOLAN_SAMPLES);
        QTest::addRow("tests folder") << QStringLiteral(PORTOLAN_SOURCE_DIR "/tests");
    }
    void projectFiles()
    {
        QFETCH(QString, folder);
        ProjectFilesModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        auto scan = scanProject(folder.toStdString());
        QVERIFY(scan);
        model.setScan(*scan.value);
        QVERIFY(model.rowCount() > 0);
        // Every scanned file can be found again by its path, with the same kind.
        for (const auto& f : scan.value->files) {
            const QModelIndex idx = model.indexForPath(QString::fromStdString(f.path));
            QVERIFY2(idx.isValid(), f.path.c_str());
            QCOMPARE(idx.data(ProjectFilesModel::RelativePathRole).toString(),
                     QString::fromStdString(f.path));
            QCOMPARE(idx.data(ProjectFilesModel::IsFolderRole).toBool(), false);
            QCOMPARE(idx.data(ProjectFilesModel::FileKindRole).toString(),
                     QString::fromUtf8(fileKindName(f.kind).data()));
        }
        model.clear();
        QCOMPARE(model.rowCount(), 0);
    }

    void foldersFirst()
    {
        ProjectFilesModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        ProjectScan scan;
        scan.files = {{"b.py", 1, FileKind::Python}, {"a/x.py", 1, FileKind::Python}, {"A.md", 1, FileKind::Text}};
        scan.skipped = {{"blob.bin", SkipReason::Binary, "binary"}};
        model.setScan(scan);
        QCOMPARE(model.rowCount(), 4);
        QCOMPARE(model.index(0, 0).data().toString(), QStringLiteral("a"));
        QCOMPARE(model.index(0, 0).data(ProjectFilesModel::IsFolderRole).toBool(), true);
        QCOMPARE(model.index(1, 0).data().toString(), QStringLiteral("A.md"));
        const QModelIndex blob = model.indexForPath(QStringLiteral("blob.bin"));
        QVERIFY(blob.data(ProjectFilesModel::IsSkippedRole).toBool());
        QVERIFY(model.index(blob.row(), ProjectFilesModel::StatusColumn).data().toString().contains("binary"));
    }

    void diagnostics()
    {
        DiagnosticsModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        std::vector<Diagnostic> ds(3);
        ds[0].severity = Severity::Error;
        ds[0].message = "bad";
        ds[0].location = {"a.py", 3, 7};
        ds[1].severity = Severity::Warning;
        ds[2].severity = Severity::Info;
        model.setDiagnostics(ds);
        QCOMPARE(model.rowCount(), 3);
        QCOMPARE(model.index(0, DiagnosticsModel::LocationColumn).data().toString(), QStringLiteral("a.py:3:7"));
        QCOMPARE(model.index(0, 0).data(DiagnosticsModel::LineRole).toInt(), 3);
        QCOMPARE(model.index(1, DiagnosticsModel::SeverityColumn).data().toString(), QStringLiteral("warning"));
        model.setDiagnostics({});
        QCOMPARE(model.rowCount(), 0);
    }
};

QTEST_MAIN(TestViewsModels)
#include "test_views_models.moc"
