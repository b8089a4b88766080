// The params editor offscreen: form pages and widgets by type, form and text in sync both ways,
// undo/redo, dirty state, save/revert, reload prompt on disk changes, close prompt.
#include "views/common/diagnostics_model.h"
#include "views/params/list_field.h"
#include "views/params/lr_schedule_editor.h"
#include "views/params/params_editor.h"
#include "views/params/params_field.h"
#include "views/params/params_form.h"
#include "views/params/yaml_text_view.h"

#include <QAbstractItemModelTester>
#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFile>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>

using namespace portolan::views;

namespace {
QString fixture(const char* name)
{
    return QStringLiteral(PARAMS_FIXTURES "/") + name;
}
QByteArray readAll(const QString& path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}
void writeAll(const QString& path, const QByteArray& bytes)
{
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
    f.write(bytes);
}
} // namespace

class TestParamsEditor : public QObject
{
    Q_OBJECT

private slots:
    void init();
    void formPagesAndWidgets_data();
    void formPagesAndWidgets();
    void longTextReadsFromItsStart();
    void formEditChangesOnlyThatValue();
    void textEditRebuildsForm();
    void invalidFieldsAreMarked();
    void listAndScheduleEditors();
    void undoRedoAndDirty();
    void saveRevertAndClosePrompt();
    void reloadPromptWhenChangedOnDisk();
    void overwritePromptOnSave();
    void syntaxErrorInText();
    void diagnosticsModelIsSound();

private:
    QTemporaryDir m_dir;
    QString m_file;
    QList<ParamsEditor::Question> m_questions;
    ParamsEditor::Answer m_answer = ParamsEditor::Answer::Cancel;
    std::unique_ptr<ParamsEditor> open(const char* fixtureName);
};

void TestParamsEditor::init()
{
    m_questions.clear();
}

std::unique_ptr<ParamsEditor> TestParamsEditor::open(const char* fixtureName)
{
    m_file = m_dir.filePath(QString::fromLatin1(fixtureName));
    QFile::remove(m_file);
    QFile::copy(fixture(fixtureName), m_file);
    QFile(m_file).setPermissions(QFile::ReadOwner | QFile::WriteOwner);
    auto e = std::make_unique<ParamsEditor>();
    e->setQuestionHandler([this](ParamsEditor::Question q, const QString&, QWidget*) {
        m_questions << q;
        return m_answer;
    });
    e->resize(1200, 800);
    e->show();
    if (!e->openFile(m_file))
        return nullptr;
    return e;
}

void TestParamsEditor::formPagesAndWidgets_data()
{
    QTest::addColumn<QString>("fixtureName");
    QTest::addColumn<QStringList>("pages");
    QTest::addColumn<QString>("path");
    QTest::addColumn<QString>("kind");
    QTest::addRow("int spin box") << "classic_ok.yaml"
                                  << QStringList{"train_input", "eval_input", "model", "optimizer",
                                                 "runconfig"}
                                  << "runconfig.max_steps"
                                  << "int";
    QTest::addRow("scientific learning rate")
        << "classic_ok.yaml" << QStringList{} << "optimizer.learning_rate"
        << "scientific";
    QTest::addRow("check box") << "classic_ok.yaml" << QStringList{} << "train_input.shuffle"
                               << "bool";
    QTest::addRow("enum combo") << "classic_ok.yaml" << QStringList{} << "model.activation_fn"
                                << "enum";
    QTest::addRow("path with browse")
        << "classic_ok.yaml" << QStringList{} << "train_input.data_dir"
        << "path";
    QTest::addRow("unknown key as raw") << "classic_ok.yaml" << QStringList{} << "model.depth"
                                        << "raw";
    QTest::addRow("float spin box") << "classic_ok.yaml" << QStringList{} << "optimizer.momentum"
                                    << "float";
    QTest::addRow("determined general page")
        << "determined_ok.yaml" << QStringList{"General", "hyperparameters", "searcher"}
        << "searcher.name"
        << "enum";
    QTest::addRow("determined nested hyperparameter")
        << "determined_ok.yaml" << QStringList{} << "hyperparameters.dropout.minval"
        << "float";
}

void TestParamsEditor::formPagesAndWidgets()
{
    QFETCH(QString, fixtureName);
    QFETCH(QStringList, pages);
    QFETCH(QString, path);
    QFETCH(QString, kind);
    auto e = open(fixtureName.toLatin1().constData());
    QVERIFY(e);
    if (!pages.isEmpty())
        QCOMPARE(e->form()->pageTitles(), pages);
    ParamsField* f = e->form()->field(path);
    QVERIFY2(f, qPrintable(path));
    QCOMPARE(f->kind(), kind);
    QVERIFY(!f->editor()->toolTip().isEmpty());
}

// A text longer than its box shows its start (issue 26's look: a config's description read
// "ze 2*2. ~2 Billion(...) trainable params without VAE", its end).
void TestParamsEditor::longTextReadsFromItsStart()
{
    const QString file = m_dir.filePath(QStringLiteral("long_text.yaml"));
    QFile f(file);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write("description: \"Start of a long description that goes on well past the width of "
            "its box, with more and more words, up to its very end\"\n"
            "model: {name: fc_mnist}\n");
    f.close();
    ParamsEditor e;
    e.resize(1024, 700);
    e.show();
    QVERIFY(e.openFile(file));
    ParamsField* field = e.form()->field(QStringLiteral("description"));
    QVERIFY(field);
    auto* edit = qobject_cast<QLineEdit*>(field->editor());
    QVERIFY(edit);
    QCOMPARE(edit->cursorPosition(), 0);
}

void TestParamsEditor::formEditChangesOnlyThatValue()
{
    auto e = open("classic_ok.yaml");
    QVERIFY(e);
    const QByteArray before = readAll(m_file);
    QSignalSpy dirty(e.get(), &ParamsEditor::dirtyChanged);
    auto* steps = qobject_cast<QSpinBox*>(e->form()->field("runconfig.max_steps")->editor());
    QVERIFY(steps);
    steps->setValue(20000);
    emit steps->editingFinished();
    QByteArray expected = before;
    expected.replace("max_steps: 10000", "max_steps: 20000");
    QCOMPARE(QByteArray::fromStdString(e->document().text()), expected);
    QCOMPARE(e->textView()->toPlainText().toUtf8(), expected); // the text view follows
    QCOMPARE(dirty.count(), 1);
    QVERIFY(e->isDirty());

    auto* lr = qobject_cast<QLineEdit*>(e->form()->field("optimizer.learning_rate")->editor());
    lr->setText("3.0e-4");
    emit lr->editingFinished();
    auto* shuffle = qobject_cast<QCheckBox*>(e->form()->field("train_input.shuffle")->editor());
    shuffle->setChecked(false);
    auto* act = qobject_cast<QComboBox*>(e->form()->field("model.activation_fn")->editor());
    const int gelu = act->findText("gelu");
    act->setCurrentIndex(gelu);
    emit act->activated(gelu);
    expected.replace("learning_rate: 0.001 # constant", "learning_rate: 3.0e-4 # constant");
    expected.replace("shuffle: True", "shuffle: False");
    expected.replace("activation_fn: \"relu\"", "activation_fn: \"gelu\"");
    QCOMPARE(QByteArray::fromStdString(e->document().text()), expected);
    QVERIFY(e->save());
    QCOMPARE(readAll(m_file), expected);
    QVERIFY(!e->isDirty());
    QCOMPARE(dirty.count(), 2);
}

void TestParamsEditor::textEditRebuildsForm()
{
    auto e = open("classic_ok.yaml");
    QVERIFY(e);
    QString text = e->textView()->toPlainText();
    text.replace("hidden_size: 50", "hidden_size: 64");
    e->textView()->setPlainText(text); // as if typed
    QTRY_COMPARE_WITH_TIMEOUT(QString::fromStdString(e->document().text()), text, 3000);
    auto* hidden = qobject_cast<QSpinBox*>(e->form()->field("model.hidden_size")->editor());
    QVERIFY(hidden);
    QCOMPARE(hidden->value(), 64);
    QCOMPARE(QString::fromStdString(e->document().undoDescription()), QString("Edit text"));
}

void TestParamsEditor::invalidFieldsAreMarked()
{
    auto e = open("classic_errors.yaml");
    QVERIFY(e);
    ParamsField* batch = e->form()->field("train_input.batch_size");
    QVERIFY(batch);
    QVERIFY2(batch->problem().contains("expected an integer"), qPrintable(batch->problem()));
    QVERIFY(e->form()->field("model.activation_fn")->problem().contains("did you mean"));
    QVERIFY(e->diagnosticsModel()->rowCount() >= 4);
    // The mark is an icon after the editor, named for its severity; the editor keeps its own
    // look (a style sheet squashed a spin box's arrows).
    const auto* icon = batch->findChild<QLabel*>(QStringLiteral("problemIcon"));
    QVERIFY(icon && !icon->isHidden());
    QVERIFY2(icon->accessibleName().startsWith(QLatin1String("Error: ")),
             qPrintable(icon->accessibleName()));
    QVERIFY(batch->editor()->styleSheet().isEmpty());
    // A deprecated Determined key is a warning, not an error.
    auto det = open("determined_ok.yaml");
    QVERIFY(det);
    ParamsField* records = det->form()->field("records_per_epoch");
    QVERIFY(records);
    QVERIFY2(records->problem().contains("deprecated"), qPrintable(records->problem()));
    const auto* warning = records->findChild<QLabel*>(QStringLiteral("problemIcon"));
    QVERIFY(warning && !warning->isHidden());
    QVERIFY2(warning->accessibleName().startsWith(QLatin1String("Warning: ")),
             qPrintable(warning->accessibleName()));
    // Fixing the value clears the mark.
    auto* edit = qobject_cast<QLineEdit*>(batch->editor());
    QVERIFY(edit);
    edit->setText("32");
    emit edit->editingFinished();
    QVERIFY(e->form()->field("train_input.batch_size") == nullptr ||
            e->form()->field("train_input.batch_size")->problem().isEmpty());
}

void TestParamsEditor::listAndScheduleEditors()
{
    auto e = open("classic_errors.yaml");
    QVERIFY(e);
    auto* schedule =
        qobject_cast<LrScheduleEditor*>(e->form()->editorFor("optimizer.learning_rate"));
    QVERIFY(schedule);
    QCOMPARE(schedule->table()->rowCount(), 1);
    schedule->table()->item(0, LrScheduleEditor::StepsColumn)->setText("500");
    QCOMPARE(e->document().get("optimizer.learning_rate[0].total_iters").value(),
             std::string("500"));
    QVERIFY(QMetaObject::invokeMethod(schedule, [schedule] {
        emit schedule->appendRequested("optimizer.learning_rate",
                                       "{scheduler: Constant, learning_rate: 0.01, total_iters: 9}",
                                       int(FieldHint::Raw));
    }));
    QTRY_VERIFY(qobject_cast<LrScheduleEditor*>(e->form()->editorFor("optimizer.learning_rate")) &&
                qobject_cast<LrScheduleEditor*>(e->form()->editorFor("optimizer.learning_rate"))
                        ->table()
                        ->rowCount() == 2);
    QCOMPARE(e->document().get("optimizer.learning_rate[1].scheduler").value(),
             std::string("Constant"));
}

void TestParamsEditor::undoRedoAndDirty()
{
    auto e = open("classic_ok.yaml");
    QVERIFY(e);
    const QByteArray original = readAll(m_file);
    auto* steps = qobject_cast<QSpinBox*>(e->form()->field("runconfig.log_steps")->editor());
    steps->setValue(7);
    emit steps->editingFinished();
    QVERIFY(e->undoAction()->isEnabled());
    e->undoAction()->trigger();
    QCOMPARE(QByteArray::fromStdString(e->document().text()), original);
    QCOMPARE(e->textView()->toPlainText().toUtf8(), original);
    QVERIFY(!e->isDirty());
    QCOMPARE(qobject_cast<QSpinBox*>(e->form()->field("runconfig.log_steps")->editor())->value(),
             100);
    e->redoAction()->trigger();
    QCOMPARE(qobject_cast<QSpinBox*>(e->form()->field("runconfig.log_steps")->editor())->value(),
             7);
    QVERIFY(e->isDirty());
}

void TestParamsEditor::saveRevertAndClosePrompt()
{
    auto e = open("classic_ok.yaml");
    QVERIFY(e);
    const QByteArray original = readAll(m_file);
    QVERIFY(e->maybeClose(nullptr)); // nothing to save: no question
    QVERIFY(m_questions.isEmpty());
    auto* seed = qobject_cast<QSpinBox*>(e->form()->field("runconfig.seed")->editor());
    seed->setValue(5);
    emit seed->editingFinished();
    m_answer = ParamsEditor::Answer::Cancel;
    QVERIFY(!e->maybeClose(nullptr));
    QCOMPARE(m_questions.last(), ParamsEditor::Question::SaveBeforeClose);
    m_answer = ParamsEditor::Answer::Discard;
    QVERIFY(e->maybeClose(nullptr));
    QCOMPARE(readAll(m_file), original);
    e->revert();
    QVERIFY(!e->isDirty());
    QCOMPARE(QByteArray::fromStdString(e->document().text()), original);
    seed = qobject_cast<QSpinBox*>(e->form()->field("runconfig.seed")->editor());
    seed->setValue(6);
    emit seed->editingFinished();
    m_answer = ParamsEditor::Answer::Save;
    QVERIFY(e->maybeClose(nullptr));
    QVERIFY(readAll(m_file).contains("seed: 6"));
}

void TestParamsEditor::reloadPromptWhenChangedOnDisk()
{
    auto e = open("classic_ok.yaml");
    QVERIFY(e);
    QByteArray changed = readAll(m_file);
    changed.replace("max_steps: 10000", "max_steps: 77");
    m_answer = ParamsEditor::Answer::Reload;
    writeAll(m_file, changed);
    QTRY_VERIFY_WITH_TIMEOUT(m_questions.contains(ParamsEditor::Question::ReloadChangedFile), 5000);
    QTRY_COMPARE(QByteArray::fromStdString(e->document().text()), changed);
    QCOMPARE(qobject_cast<QSpinBox*>(e->form()->field("runconfig.max_steps")->editor())->value(),
             77);
    // Our own save does not prompt.
    m_questions.clear();
    auto* seed = qobject_cast<QSpinBox*>(e->form()->field("runconfig.seed")->editor());
    seed->setValue(3);
    emit seed->editingFinished();
    QVERIFY(e->save());
    QTest::qWait(500);
    QVERIFY(m_questions.isEmpty());
}

void TestParamsEditor::overwritePromptOnSave()
{
    auto e = open("classic_ok.yaml");
    QVERIFY(e);
    auto* seed = qobject_cast<QSpinBox*>(e->form()->field("runconfig.seed")->editor());
    seed->setValue(9);
    emit seed->editingFinished();
    const QByteArray theirs = "runconfig: {seed: 100}\n";
    m_answer = ParamsEditor::Answer::Keep; // when the watcher asks to reload: keep ours
    writeAll(m_file, theirs);
    m_answer = ParamsEditor::Answer::Cancel;
    QVERIFY(!e->save());
    QVERIFY(m_questions.contains(ParamsEditor::Question::OverwriteChangedFile));
    QCOMPARE(readAll(m_file), theirs);
    m_answer = ParamsEditor::Answer::Overwrite;
    QVERIFY(e->save());
    QVERIFY(readAll(m_file).contains("seed: 9"));
}

void TestParamsEditor::syntaxErrorInText()
{
    auto e = open("classic_ok.yaml");
    QVERIFY(e);
    e->textView()->setPlainText("model:\n  a: 1\n b: 2\n");
    e->commitTextNow();
    QVERIFY(!e->document().isParsed());
    QCOMPARE(e->form()->pageTitles(), QStringList{"Syntax error"});
    QCOMPARE(e->diagnosticsModel()->rowCount(), 1);
    e->undoAction()->trigger(); // back to the file
    QVERIFY(e->document().isParsed());
    QVERIFY(e->form()->pageTitles().contains("model"));
}

void TestParamsEditor::diagnosticsModelIsSound()
{
    auto e = open("classic_errors.yaml");
    QVERIFY(e);
    QAbstractItemModelTester tester(e->diagnosticsModel(),
                                    QAbstractItemModelTester::FailureReportingMode::QtTest);
    auto* act = qobject_cast<QComboBox*>(e->form()->field("model.activation_fn")->editor());
    const int relu = act->findText("relu");
    act->setCurrentIndex(relu);
    emit act->activated(relu); // revalidates, resetting the model under the tester
    QVERIFY(e->diagnosticsModel()->rowCount() >= 3);
}

QTEST_MAIN(TestParamsEditor)
#include "test_params_editor.moc"
