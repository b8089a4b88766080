// The real configs of Cerebras's Model Zoo and Determined's examples (../shared/corpus): every
// file loads, saves byte-identically, and every one of its values can be edited losslessly.
#include "core/params/params_document.h"
#include "core/params/validate.h"
#include "corpus_checks.h"

#include <QDir>
#include <QElapsedTimer>
#include <QTemporaryDir>
#include <QTest>
#include <map>

using namespace portolan::params;

namespace {

// Files that are expected not to load, with the reason (checked both ways: they must fail,
// with a position, and every other file must load).
const std::map<QString, QString>& expectedLoadFailures()
{
    static const std::map<QString, QString> files = {};
    return files;
}

// Files whose validation errors are expected, with the reason. Everything else must validate
// without errors against its detected schema (warnings, such as deprecated keys, are fine).
const std::map<QString, QString>& expectedValidationErrors()
{
    static const QString blankMount =
        "template: bind_mounts[0].host_path is left empty for the user to fill in";
    static const std::map<QString, QString> files = {
        {"legacy__model_hub__mmdetection__hydra__configs__config.yaml",
         "a Hydra composition file (`defaults:` list, no searcher), not a complete experiment"},
        {"computer_vision__efficientdet_pytorch__const.yaml", blankMount},
        {"computer_vision__efficientdet_pytorch__const.v2.yaml", blankMount},
        {"computer_vision__efficientdet_pytorch__const.v3.yaml", blankMount},
        {"computer_vision__efficientdet_pytorch__const.v4.yaml", blankMount},
        {"computer_vision__efficientdet_pytorch__const.v5.yaml", blankMount},
        {"computer_vision__efficientdet_pytorch__const.v6.yaml", blankMount},
        {"computer_vision__efficientdet_pytorch__const.v7.yaml", blankMount},
        {"computer_vision__efficientdet_pytorch__const.v8.yaml", blankMount},
        {"computer_vision__efficientdet_pytorch__const.v9.yaml", blankMount},
        {"computer_vision__efficientdet_pytorch__const.v10.yaml", blankMount},
        {"computer_vision__efficientdet_pytorch__const.v11.yaml", blankMount},
        {"computer_vision__efficientdet_pytorch__const.v12.yaml", blankMount},
        {"computer_vision__efficientdet_pytorch__const.v13.yaml", blankMount},
        {"computer_vision__efficientdet_pytorch__const.v14.yaml", blankMount},
        {"legacy__computer_vision__efficientdet_pytorch__const.yaml", blankMount},
    };
    return files;
}

QString corpusDir(const char* sub)
{
    const QByteArray root = qgetenv("PORTOLAN_CORPUS");
    if (root.isEmpty())
        return {};
    return QDir(QString::fromLocal8Bit(root)).filePath(QString::fromLatin1(sub));
}

QByteArray readAll(const QString& path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

} // namespace

class TestParamsCorpus : public QObject
{
    Q_OBJECT

private slots:
    void everyFile_data();
    void everyFile();
    void cleanupTestCase();

private:
    SchemaSet m_schemas = loadBuiltinSchemas();
    std::map<std::string, int> m_layouts;
    std::map<std::string, int> m_findings;
    int m_files = 0;
    int m_loaded = 0;
    int m_scalars = 0;
    int m_skipped = 0;
    int m_noOps = 0;
    int m_blocks = 0;
};

void TestParamsCorpus::everyFile_data()
{
    QTest::addColumn<QString>("path");
    for (const char* sub : {"cerebras-modelzoo-configs", "determined-experiment-configs"}) {
        const QString dir = corpusDir(sub);
        if (dir.isEmpty())
            QSKIP("PORTOLAN_CORPUS is not set; the corpus tests need ../shared/corpus");
        const auto names = QDir(dir).entryList({"*.yaml", "*.yml"}, QDir::Files, QDir::Name);
        QVERIFY2(!names.isEmpty(), qPrintable("no YAML files in " + dir));
        for (const QString& n : names)
            QTest::addRow("%s", qPrintable(n)) << QDir(dir).filePath(n);
    }
}

void TestParamsCorpus::everyFile()
{
    QFETCH(QString, path);
    ++m_files;
    const QString name = QFileInfo(path).fileName();
    auto opened = ParamsDocument::open(path.toStdString());
    QVERIFY2(opened, opened ? "" : opened.error.toString().c_str());
    ParamsDocument& doc = *opened.value;

    // (a) loads, or fails as expected with a position
    const auto expected = expectedLoadFailures().find(name);
    if (!doc.isParsed()) {
        QVERIFY2(expected != expectedLoadFailures().end(),
                 qPrintable("unexpected load failure: " +
                            QString::fromStdString(doc.syntaxError()->toString())));
        QVERIFY(doc.syntaxError()->location.line > 0);
        return;
    }
    QVERIFY2(expected == expectedLoadFailures().end(),
             qPrintable("expected to fail (" + expected->second + ") but loads"));
    ++m_loaded;

    // (b) a no-op save is byte-identical
    const QByteArray original = readAll(path);
    QCOMPARE(QByteArray::fromStdString(doc.text()), original);
    QTemporaryDir tmp;
    const QString copy = tmp.filePath(name);
    QVERIFY(!doc.saveAs(copy.toStdString()));
    QCOMPARE(readAll(copy), original);

    // (c) every value can be set, alone touching only its lines, and reads back
    const EditCheckResult edits = checkEveryScalarEdit(doc.text(), name.toStdString());
    m_scalars += edits.scalars;
    m_skipped += edits.skipped;
    m_noOps += edits.noOps;
    m_blocks += edits.blocks;
    QString problems;
    for (std::size_t i = 0; i < edits.problems.size() && i < 10; ++i)
        problems += "\n  " + QString::fromStdString(edits.problems[i]);
    QVERIFY2(edits.problems.empty(), qPrintable(problems));

    // (c') the document's in-place tree patching agrees with a fresh parse
    std::vector<int> someValues;
    for (int i = 0; i < int(doc.tree().nodes.size()) && someValues.size() < 25; i += 3)
        if (doc.tree().at(i).isScalarLike())
            someValues.push_back(i);
    const std::string patchProblem =
        compareWithFreshParse(doc.text(), name.toStdString(), someValues);
    QVERIFY2(patchProblem.empty(), patchProblem.c_str());

    // (d) no validation errors against the detected schema
    QVERIFY(m_schemas.errors.empty());
    const ValidationReport report = validateDetected(doc.tree(), m_schemas, name.toStdString());
    ++m_layouts[report.schema.empty() ? "unknown" : report.schema];
    QString errors;
    for (const auto& d : report.diagnostics) {
        ++m_findings[std::string(severityName(d.severity)) + " " + d.code];
        if (d.severity == portolan::Severity::Error)
            errors += "\n  " + QString::fromStdString(d.toString());
    }
    const auto expectedErrors = expectedValidationErrors().find(name);
    if (expectedErrors != expectedValidationErrors().end()) {
        QVERIFY2(report.errors() > 0,
                 qPrintable("expected errors (" + expectedErrors->second + ") but it validates"));
        return;
    }
    QVERIFY2(report.errors() == 0, qPrintable(errors));
}

void TestParamsCorpus::cleanupTestCase()
{
    if (m_files > 0)
        qInfo("corpus: %d files, %d loaded, %d values edited, %d reached only through aliases "
              "or shadowed by duplicate keys",
              m_files, m_loaded, m_scalars, m_skipped);
    if (m_files > 0)
        qInfo("corpus: %d no-op sets left every byte alone; %d block scalars edited in their own "
              "style",
              m_noOps, m_blocks);
    for (const auto& [layout, n] : m_layouts)
        qInfo("layout %s: %d files", layout.c_str(), n);
    for (const auto& [finding, n] : m_findings)
        qInfo("%s: %d", finding.c_str(), n);
}

QTEST_GUILESS_MAIN(TestParamsCorpus)
#include "test_params_corpus.moc"
