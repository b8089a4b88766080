// Every model gets QAbstractItemModelTester, on real scans and after resets.
#include "core/project/project_scan.h"
#include "views/common/diagnostics_model.h"
#include "views/project/project_files_model.h"

#include <QAbstractItemModelTester>
#include <QSignalSpy>
#include <QTest>
#include <algorithm>
#include <random>

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
        QAbstractItemModelTester tester(&model,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
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
        QAbstractItemModelTester tester(&model,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        ProjectScan scan;
        scan.files = {{"b.py", 1, FileKind::Python},
                      {"a/x.py", 1, FileKind::Python},
                      {"A.md", 1, FileKind::Text}};
        scan.skipped = {{"blob.bin", SkipReason::Binary, "binary"}};
        model.setScan(scan);
        QCOMPARE(model.rowCount(), 4);
        QCOMPARE(model.index(0, 0).data().toString(), QStringLiteral("a"));
        QCOMPARE(model.index(0, 0).data(ProjectFilesModel::IsFolderRole).toBool(), true);
        QCOMPARE(model.index(1, 0).data().toString(), QStringLiteral("A.md"));
        const QModelIndex blob = model.indexForPath(QStringLiteral("blob.bin"));
        QVERIFY(blob.data(ProjectFilesModel::IsSkippedRole).toBool());
        QVERIFY(model.index(blob.row(), ProjectFilesModel::StatusColumn)
                    .data()
                    .toString()
                    .contains("binary"));
    }

    // The fill path of the window: the tree built apart (on the loader's thread), then handed over
    // in one reset. Wide folders, a deep chain and skipped entries, in the scan's own order and
    // shuffled (rows and parents must not depend on the order entries come in).
    void builtTree_data()
    {
        QTest::addColumn<int>("files");
        QTest::addColumn<int>("perFolder");
        QTest::addColumn<int>("depth");
        QTest::addColumn<bool>("shuffled");
        QTest::addRow("wide") << 5000 << 1000 << 3 << false;
        QTest::addRow("wide, shuffled") << 5000 << 1000 << 3 << true;
        QTest::addRow("deep") << 50 << 10 << 120 << false;
        QTest::addRow("many small folders, shuffled") << 3000 << 3 << 5 << true;
    }
    void builtTree()
    {
        QFETCH(int, files);
        QFETCH(int, perFolder);
        QFETCH(int, depth);
        QFETCH(bool, shuffled);
        ProjectScan scan;
        for (int i = 0; i < files; ++i)
            scan.files.push_back(
                {"pkg" + std::to_string(i / perFolder) + "/m" + std::to_string(i) + ".py",
                 std::uint64_t(i), FileKind::Python});
        std::string chain = "deep";
        for (int d = 0; d < depth; ++d)
            chain += "/d";
        scan.files.push_back({chain + "/bottom.py", 1, FileKind::Python});
        scan.skipped.push_back({chain + "/d/", SkipReason::TooDeep, "too deep"});
        scan.skipped.push_back({"secret.py", SkipReason::Unreadable, "unreadable"});
        if (shuffled) {
            std::mt19937 random(7);
            std::shuffle(scan.files.begin(), scan.files.end(), random);
        }
        ProjectFilesModel model;
        QAbstractItemModelTester tester(&model,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        QSignalSpy resets(&model, &QAbstractItemModel::modelReset);
        model.setTree(ProjectFilesModel::buildTree(scan));
        QCOMPARE(resets.count(), 1); // one reset, no per-row signals
        for (const auto& f : scan.files) {
            const QModelIndex idx = model.indexForPath(QString::fromStdString(f.path));
            QVERIFY2(idx.isValid(), f.path.c_str());
            QCOMPARE(model.index(idx.row(), 0, idx.parent()), idx);
            QCOMPARE(idx.data(ProjectFilesModel::RelativePathRole).toString(),
                     QString::fromStdString(f.path));
        }
        // Folders first, then files, each by name, at every level.
        const QModelIndex pkg0 = model.indexForPath(QStringLiteral("pkg0"));
        QVERIFY(pkg0.data(ProjectFilesModel::IsFolderRole).toBool());
        QCOMPARE(model.rowCount(pkg0), std::min(files, perFolder));
        for (int r = 1; r < model.rowCount(pkg0); ++r)
            QVERIFY(model.index(r - 1, 0, pkg0)
                        .data()
                        .toString()
                        .compare(model.index(r, 0, pkg0).data().toString(), Qt::CaseInsensitive) <
                    0);
        const QModelIndex tooDeep = model.indexForPath(QString::fromStdString(chain + "/d"));
        QVERIFY(tooDeep.isValid());
        QVERIFY(tooDeep.data(ProjectFilesModel::IsSkippedRole).toBool());
        QVERIFY(tooDeep.data(ProjectFilesModel::IsFolderRole).toBool());
        QVERIFY(model.indexForPath(QStringLiteral("secret.py"))
                    .data(ProjectFilesModel::IsSkippedRole)
                    .toBool());
        // A second project replaces the first in one reset too.
        model.setScan(ProjectScan{});
        QCOMPARE(model.rowCount(), 0);
        QCOMPARE(resets.count(), 2);
    }

    void diagnostics()
    {
        DiagnosticsModel model;
        QAbstractItemModelTester tester(&model,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        std::vector<Diagnostic> ds(3);
        ds[0].severity = Severity::Error;
        ds[0].message = "bad";
        ds[0].location = {"a.py", 3, 7};
        ds[1].severity = Severity::Warning;
        ds[2].severity = Severity::Info;
        model.setDiagnostics(ds);
        QCOMPARE(model.rowCount(), 3);
        QCOMPARE(model.index(0, DiagnosticsModel::LocationColumn).data().toString(),
                 QStringLiteral("a.py:3:7"));
        QCOMPARE(model.index(0, 0).data(DiagnosticsModel::LineRole).toInt(), 3);
        QCOMPARE(model.index(1, DiagnosticsModel::SeverityColumn).data().toString(),
                 QStringLiteral("warning"));
        model.setDiagnostics({});
        QCOMPARE(model.rowCount(), 0);
    }
};

QTEST_MAIN(TestViewsModels)
#include "test_views_models.moc"
