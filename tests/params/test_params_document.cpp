// Every edit operation on hand-written tricky YAML: the exact bytes after the edit, the value
// read back, undo and redo.
#include "core/params/params_document.h"
#include "core/params/scalar_text.h"

#include <QTemporaryDir>
#include <QTest>
#include <fstream>

using namespace portolan::params;

namespace {
QByteArray q(const std::string& s)
{
    return QByteArray::fromStdString(s);
}
} // namespace

class TestParamsDocument : public QObject
{
    Q_OBJECT

private slots:
    void readValues_data();
    void readValues();
    void edits_data();
    void edits();
    void refusals_data();
    void refusals();
    void syntaxErrors_data();
    void syntaxErrors();
    void undoRedo();
    void setTextAndRevert();
    void saveIsAtomicAndDetectsDiskChanges();
    void patchedTreeMatchesParse();
    void plainResolution_data();
    void plainResolution();
    void noOpSetChangesNothing_data();
    void noOpSetChangesNothing();
    void editAtAnchor_data();
    void editAtAnchor();
};

void TestParamsDocument::readValues_data()
{
    QTest::addColumn<QByteArray>("yaml");
    QTest::addColumn<QString>("path");
    QTest::addColumn<QByteArray>("value");
    const QByteArray tricky = "# top comment\n"
                              "model: # trailing on key\n"
                              "  name: \"gpt \\\"x\\\"\"   # c\n"
                              "  layers: [1, 'two', {size: 3}]\n"
                              "  'quoted key': yes\n"
                              "  \"a.b\": dotted\n"
                              "  multi: this is\n"
                              "    a folded plain\n"
                              "  lit: |\n"
                              "    line one\n"
                              "      indented\n"
                              "  fold: >-\n"
                              "    folded\n"
                              "    text\n"
                              "base: &base\n"
                              "  lr: 0.1\n"
                              "derived:\n"
                              "  <<: *base\n"
                              "  other: *base\n"
                              "empty:\n"
                              "unicode: \"héllo ✓\"\n";
    QTest::addRow("double quoted with escapes")
        << tricky << "model.name" << QByteArray("gpt \"x\"");
    QTest::addRow("flow list item") << tricky << "model.layers[1]" << QByteArray("two");
    QTest::addRow("flow map in list") << tricky << "model.layers[2].size" << QByteArray("3");
    QTest::addRow("quoted key") << tricky << "model.quoted key" << QByteArray("yes");
    QTest::addRow("key with a dot") << tricky << "model.a\\.b" << QByteArray("dotted");
    QTest::addRow("multi-line plain")
        << tricky << "model.multi" << QByteArray("this is a folded plain");
    QTest::addRow("literal block") << tricky << "model.lit" << QByteArray("line one\n  indented\n");
    QTest::addRow("folded block") << tricky << "model.fold" << QByteArray("folded text");
    QTest::addRow("merge key") << tricky << "derived.lr" << QByteArray("0.1");
    QTest::addRow("through alias") << tricky << "derived.other.lr" << QByteArray("0.1");
    QTest::addRow("empty null") << tricky << "empty" << QByteArray("");
    QTest::addRow("unicode") << tricky << "unicode" << QByteArray("héllo ✓");
    QTest::addRow("crlf") << QByteArray("a:\r\n  b: 1\r\n  c: 'x y'\r\n") << "a.c"
                          << QByteArray("x y");
    QTest::addRow("no final newline") << QByteArray("a: 1\nb: last") << "b" << QByteArray("last");
    QTest::addRow("tab after value")
        << QByteArray("a: 5\t# tabbed comment\n") << "a" << QByteArray("5");
}

void TestParamsDocument::readValues()
{
    QFETCH(QByteArray, yaml);
    QFETCH(QString, path);
    QFETCH(QByteArray, value);
    auto doc = ParamsDocument::fromText(yaml.toStdString(), "t.yaml");
    QVERIFY2(doc.isParsed(), doc.syntaxError() ? doc.syntaxError()->toString().c_str() : "");
    const auto got = doc.get(path.toStdString());
    QVERIFY(got.has_value());
    QCOMPARE(q(*got), value);
    // Every scalar's text was located exactly.
    for (const auto& n : doc.tree().nodes)
        QVERIFY2(n.verified, n.value.c_str());
}

void TestParamsDocument::edits_data()
{
    QTest::addColumn<QByteArray>("yaml");
    QTest::addColumn<QString>("op");
    QTest::addColumn<QString>("path");
    QTest::addColumn<QString>("arg1");
    QTest::addColumn<QString>("arg2");
    QTest::addColumn<QByteArray>("expected");

    const QByteArray base = "# header\n"
                            "optimizer:\n"
                            "  optimizer_type: adamw # the optimizer\n"
                            "  learning_rate: 0.001\n"
                            "\n"
                            "  # spacing comment\n"
                            "  betas: [0.9, 0.999]\n"
                            "model:\n"
                            "  name: 'gpt'\n"
                            "  layers:\n"
                            "    - size: 10\n"
                            "      act: relu\n"
                            "    - size: 20\n"
                            "runconfig: {max_steps: 10, seed: 1}\n";
    auto replaced = [&](const char* from, const char* to) {
        QByteArray b = base;
        b.replace(from, to);
        return b;
    };
    QTest::addRow("set plain number keeps comment") << base << "set"
                                                    << "optimizer.optimizer_type"
                                                    << "sgd"
                                                    << "" << replaced("adamw #", "sgd #");
    QTest::addRow("set float") << base << "set"
                               << "optimizer.learning_rate"
                               << "3.0e-4"
                               << "" << replaced("0.001", "3.0e-4");
    QTest::addRow("set keeps single quotes") << base << "set"
                                             << "model.name"
                                             << "gpt's"
                                             << "" << replaced("'gpt'", "'gpt''s'");
    QTest::addRow("set plain needing quotes") << base << "set"
                                              << "model.layers[0].act"
                                              << "a: b"
                                              << "" << replaced("act: relu", "act: 'a: b'");
    QTest::addRow("set string that looks like a number")
        << base << "setString"
        << "model.layers[0].act"
        << "1e-3"
        << "" << replaced("act: relu", "act: '1e-3'");
    QTest::addRow("set in flow seq") << base << "set"
                                     << "optimizer.betas[1]"
                                     << "0.95"
                                     << "" << replaced("0.999", "0.95");
    QTest::addRow("set in flow map") << base << "set"
                                     << "runconfig.seed"
                                     << "7"
                                     << "" << replaced("seed: 1", "seed: 7");
    QTest::addRow("set flow value needing quotes") << base << "set"
                                                   << "runconfig.seed"
                                                   << "a,b"
                                                   << "" << replaced("seed: 1", "seed: 'a,b'");
    QTest::addRow("add key matches indentation")
        << base << "add"
        << "optimizer"
        << "weight_decay"
        << "0.01" << replaced("0.999]\n", "0.999]\n  weight_decay: 0.01\n");
    QTest::addRow("add key in nested list map")
        << base << "add"
        << "model.layers[1]"
        << "act"
        << "gelu" << replaced("size: 20\n", "size: 20\n      act: gelu\n");
    QTest::addRow("add key to flow map") << base << "add"
                                         << "runconfig"
                                         << "log_steps"
                                         << "5" << replaced("seed: 1}", "seed: 1, log_steps: 5}");
    QTest::addRow("add top-level key") << base << "add"
                                       << ""
                                       << "train_input"
                                       << "{}" << base + "train_input: '{}'\n";
    QTest::addRow("remove key keeps neighbours' comments")
        << base << "remove"
        << "optimizer.betas"
        << ""
        << "" << replaced("  betas: [0.9, 0.999]\n", "");
    QTest::addRow("remove key with comment on its line")
        << base << "remove"
        << "optimizer.optimizer_type"
        << ""
        << "" << replaced("  optimizer_type: adamw # the optimizer\n", "");
    QTest::addRow("remove nested block") << base << "remove"
                                         << "model.layers[0]"
                                         << ""
                                         << "" << replaced("    - size: 10\n      act: relu\n", "");
    QTest::addRow("remove first key of list item map")
        << base << "remove"
        << "model.layers[0].size"
        << ""
        << "" << replaced("    - size: 10\n      act: relu\n", "    - act: relu\n");
    QTest::addRow("remove flow map entry")
        << base << "remove"
        << "runconfig.max_steps"
        << ""
        << "" << replaced("{max_steps: 10, seed: 1}", "{seed: 1}");
    QTest::addRow("remove last flow seq item") << base << "remove"
                                               << "optimizer.betas[1]"
                                               << ""
                                               << "" << replaced("[0.9, 0.999]", "[0.9]");
    QTest::addRow("append block item")
        << base << "appendRaw"
        << "model.layers"
        << "{size: 30}"
        << "" << replaced("size: 20\n", "size: 20\n    - {size: 30}\n");
    QTest::addRow("append flow item") << base << "append"
                                      << "optimizer.betas"
                                      << "0.5"
                                      << "" << replaced("0.999]", "0.999, 0.5]");
    QTest::addRow("setOrAdd creates nested maps")
        << base << "setOrAdd"
        << "model.encoder.depth"
        << "4"
        << "" << replaced("    - size: 20\n", "    - size: 20\n  encoder:\n    depth: 4\n");

    // CRLF and a missing final newline
    QTest::addRow("crlf set") << QByteArray("a:\r\n  b: 1\r\n") << "set"
                              << "a.b"
                              << "2"
                              << "" << QByteArray("a:\r\n  b: 2\r\n");
    QTest::addRow("crlf add") << QByteArray("a:\r\n  b: 1\r\n") << "add"
                              << "a"
                              << "c"
                              << "3" << QByteArray("a:\r\n  b: 1\r\n  c: 3\r\n");
    QTest::addRow("no final newline add") << QByteArray("a: 1") << "add"
                                          << ""
                                          << "b"
                                          << "2" << QByteArray("a: 1\nb: 2");
    QTest::addRow("no final newline set") << QByteArray("a: 1\nb: x") << "set"
                                          << "b"
                                          << "yz"
                                          << "" << QByteArray("a: 1\nb: yz");
    QTest::addRow("no final newline remove") << QByteArray("a: 1\nb: x") << "remove"
                                             << "b"
                                             << ""
                                             << "" << QByteArray("a: 1\n");
    // block scalars
    QTest::addRow("literal keeps style and comment")
        << QByteArray("cmd: | # run\n  python a.py\n  echo hi\nnext: 1\n") << "set"
        << "cmd"
        << "bash b.sh\nexit\n"
        << "" << QByteArray("cmd: | # run\n  bash b.sh\n  exit\nnext: 1\n");
    QTest::addRow("literal strip chomping") << QByteArray("cmd: |-\n    one\nnext: 1\n") << "set"
                                            << "cmd"
                                            << "two"
                                            << "" << QByteArray("cmd: |-\n    two\nnext: 1\n");
    QTest::addRow("folded single line") << QByteArray("d: >\n  some text\n  here\n") << "set"
                                        << "d"
                                        << "new text\n"
                                        << "" << QByteArray("d: >\n  new text\n");
    QTest::addRow("folded keeps its line breaks")
        << QByteArray("cmd: >-\n  python3 -m x --\n  python3 train.py\nnext: 1\n") << "set"
        << "cmd"
        << "python3 -m x -- python3 eval.py"
        << "" << QByteArray("cmd: >-\n  python3 -m x --\n  python3 eval.py\nnext: 1\n");
    QTest::addRow("folded keeps breaks after trailing blanks")
        << QByteArray("cmd: >-\n  run a.py \n  --x 1\n  --y 2\n") << "set"
        << "cmd"
        << "run a.py  --x 1 --y 3"
        << "" << QByteArray("cmd: >-\n  run a.py \n  --x 1\n  --y 3\n");
    QTest::addRow("folded paragraphs are blank lines")
        << QByteArray("d: >\n  one\n  two\n") << "set"
        << "d"
        << "one two\nthree\n"
        << "" << QByteArray("d: >\n  one\n  two\n\n  three\n");
    QTest::addRow("folded wraps a long new line at the old width")
        << QByteArray("d: >-\n  aaa bbb\n  ccc\n") << "set"
        << "d"
        << "xxx yyy zzz www"
        << "" << QByteArray("d: >-\n  xxx yyy\n  zzz www\n");
    QTest::addRow("folded header comment kept") << QByteArray("d: >- # c\n  a b\n") << "set"
                                                << "d"
                                                << "a c"
                                                << "" << QByteArray("d: >- # c\n  a c\n");
    QTest::addRow("clip becomes strip without a final newline")
        << QByteArray("d: |\n  a\n") << "set"
        << "d"
        << "b"
        << "" << QByteArray("d: |-\n  b\n");
    QTest::addRow("keep chomping kept") << QByteArray("d: |+\n  a\n\nx: 1\n") << "set"
                                        << "d"
                                        << "b\n\n"
                                        << "" << QByteArray("d: |+\n  b\n\nx: 1\n");
    QTest::addRow("indentation indicator added for a leading blank")
        << QByteArray("d: |\n  a\n") << "set"
        << "d"
        << "  x\ny\n"
        << "" << QByteArray("d: |2\n    x\n  y\n");
    QTest::addRow("indentation indicator kept")
        << QByteArray("a:\n  d: |4\n        x\n      y\n") << "set"
        << "a.d"
        << "  z\n"
        << "" << QByteArray("a:\n  d: |4\n        z\n");
    // empty values, nulls, tags, anchors
    QTest::addRow("set empty value") << QByteArray("a:\nb: 1\n") << "set"
                                     << "a"
                                     << "5"
                                     << "" << QByteArray("a: 5\nb: 1\n");
    QTest::addRow("add key under empty value") << QByteArray("model:\nb: 1\n") << "add"
                                               << "model"
                                               << "size"
                                               << "3" << QByteArray("model:\n  size: 3\nb: 1\n");
    QTest::addRow("set null literal") << QByteArray("a: ~ # none\n") << "set"
                                      << "a"
                                      << "x"
                                      << "" << QByteArray("a: x # none\n");
    QTest::addRow("tagged str stays string") << QByteArray("a: !!str 5\n") << "set"
                                             << "a"
                                             << "6"
                                             << "" << QByteArray("a: !!str '6'\n");
    QTest::addRow("edit anchor target") << QByteArray("a: &x 1\nb: *x\n") << "set"
                                        << "a"
                                        << "2"
                                        << "" << QByteArray("a: &x 2\nb: *x\n");
    QTest::addRow("quoted key set") << QByteArray("\"my key\": 1\n") << "set"
                                    << "my key"
                                    << "2"
                                    << "" << QByteArray("\"my key\": 2\n");
    QTest::addRow("unicode value") << QByteArray("name: é # ü\n") << "set"
                                   << "name"
                                   << "ñandú"
                                   << "" << QByteArray("name: ñandú # ü\n");
    QTest::addRow("double quoted newline") << QByteArray("a: \"x\"\n") << "set"
                                           << "a"
                                           << "l1\nl2"
                                           << "" << QByteArray("a: \"l1\\nl2\"\n");
    QTest::addRow("multi-line plain becomes one line")
        << QByteArray("a: one\n  two\nb: 1\n") << "set"
        << "a"
        << "three"
        << "" << QByteArray("a: three\nb: 1\n");
    QTest::addRow("remove only list item") << QByteArray("l:\n  - 1\nm: 2\n") << "remove"
                                           << "l[0]"
                                           << ""
                                           << "" << QByteArray("l:\n  []\nm: 2\n");
    QTest::addRow("append to empty value") << QByteArray("l:\nm: 2\n") << "append"
                                           << "l"
                                           << "x"
                                           << "" << QByteArray("l:\n  - x\nm: 2\n");
    QTest::addRow("comment at every position")
        << QByteArray("# a\na: # b\n  # c\n  b: 1 # d\n  # e\n# f\n") << "set"
        << "a.b"
        << "22"
        << "" << QByteArray("# a\na: # b\n  # c\n  b: 22 # d\n  # e\n# f\n");
    QTest::addRow("add after trailing comments")
        << QByteArray("a:\n  b: 1 # d\n  # e\n# f\n") << "add"
        << "a"
        << "c"
        << "2" << QByteArray("a:\n  b: 1 # d\n  c: 2\n  # e\n# f\n");
    // A tag ends at a flow indicator: `!&[...]` is the tag `!&` on a flow sequence. The node's
    // offsets took the whole line as the tag, and removing the item ended the program (found by
    // fuzz_params_edits; tests/fuzz/regressions/params_edits).
    QTest::addRow("remove from a tagged flow list") << QByteArray("a: !&['']\nb: 1\n") << "remove"
                                                    << "a[0]"
                                                    << ""
                                                    << "" << QByteArray("a: !&[]\nb: 1\n");
    QTest::addRow("set in a tagged flow map") << QByteArray("a: !t{x: 1}\n") << "set"
                                              << "a.x"
                                              << "2"
                                              << "" << QByteArray("a: !t{x: 2}\n");
}

void TestParamsDocument::edits()
{
    QFETCH(QByteArray, yaml);
    QFETCH(QString, op);
    QFETCH(QString, path);
    QFETCH(QString, arg1);
    QFETCH(QString, arg2);
    QFETCH(QByteArray, expected);
    auto doc = ParamsDocument::fromText(yaml.toStdString(), "t.yaml");
    QVERIFY(doc.isParsed());
    const std::string p = path.toStdString(), a1 = arg1.toStdString(), a2 = arg2.toStdString();
    EditError err;
    if (op == "set")
        err = doc.setScalar(p, a1);
    else if (op == "setString")
        err = doc.setScalar(p, a1, ValueHint::String);
    else if (op == "add")
        err = doc.addKey(p, a1, a2);
    else if (op == "remove")
        err = doc.remove(p);
    else if (op == "append")
        err = doc.appendItem(p, a1);
    else if (op == "appendRaw")
        err = doc.appendItem(p, a1, ValueHint::Raw);
    else if (op == "setOrAdd")
        err = doc.setOrAdd(p, a1);
    QVERIFY2(!err, err ? err->toString().c_str() : "");
    QCOMPARE(q(doc.text()), expected);
    QVERIFY(doc.isParsed());
    if (op.startsWith("set")) {
        QCOMPARE(q(*doc.get(p)), arg1.toUtf8());
    } else if (op == "add") {
        QCOMPARE(q(*doc.get(p.empty() ? a1 : p + "." + a1)), arg2.toUtf8());
    }
    QVERIFY(doc.isModified());
    QVERIFY(doc.undo());
    QCOMPARE(q(doc.text()), yaml);
    QVERIFY(!doc.isModified());
    QVERIFY(doc.redo());
    QCOMPARE(q(doc.text()), expected);
}

void TestParamsDocument::refusals_data()
{
    QTest::addColumn<QByteArray>("yaml");
    QTest::addColumn<QString>("op");
    QTest::addColumn<QString>("path");
    QTest::addColumn<QString>("code");
    QTest::addRow("set through alias") << QByteArray("a: &x {b: 1}\nc: *x\n") << "set"
                                       << "c.b"
                                       << "params.through-alias";
    QTest::addRow("set through merge") << QByteArray("a: &x {b: 1}\nc:\n  <<: *x\n") << "set"
                                       << "c.b"
                                       << "params.through-alias";
    QTest::addRow("set a mapping") << QByteArray("a:\n  b: 1\n") << "set"
                                   << "a"
                                   << "params.not-scalar";
    QTest::addRow("missing key") << QByteArray("a: 1\n") << "set"
                                 << "b"
                                 << "params.no-key";
    QTest::addRow("bad path") << QByteArray("a: 1\n") << "set"
                              << "a[x]"
                              << "params.bad-path";
    QTest::addRow("duplicate add") << QByteArray("a: 1\n") << "addA"
                                   << ""
                                   << "params.duplicate-key";
    QTest::addRow("raw value breaking yaml") << QByteArray("a: 1\n") << "raw"
                                             << "a"
                                             << "params.edit-breaks-yaml";
}

void TestParamsDocument::refusals()
{
    QFETCH(QByteArray, yaml);
    QFETCH(QString, op);
    QFETCH(QString, path);
    QFETCH(QString, code);
    auto doc = ParamsDocument::fromText(yaml.toStdString(), "t.yaml");
    EditError err;
    if (op == "set")
        err = doc.setScalar(path.toStdString(), "9");
    else if (op == "addA")
        err = doc.addKey(path.toStdString(), "a", "2");
    else if (op == "raw")
        err = doc.setScalar(path.toStdString(), "[unclosed", ValueHint::Raw);
    QVERIFY(err.has_value());
    QCOMPARE(QString::fromStdString(err->code), code);
    QCOMPARE(q(doc.text()), yaml);
    QVERIFY(!doc.canUndo());
}

void TestParamsDocument::syntaxErrors_data()
{
    QTest::addColumn<QByteArray>("yaml");
    QTest::addColumn<int>("line");
    QTest::addColumn<int>("column");
    QTest::addRow("bad indentation") << QByteArray("a: 1\n b: 2\n") << 2 << 3;
    QTest::addRow("unclosed flow") << QByteArray("a: [1, 2\nb: 3\n") << 2 << 2;
    QTest::addRow("tab indentation") << QByteArray("a:\n\tb: 1\n") << 2 << 3;
    QTest::addRow("unterminated quote") << QByteArray("a: \"abc\n") << 1 << 4;
    QTest::addRow("not utf-8") << QByteArray("a: \xff\xfe\n") << 1 << 4;
}

void TestParamsDocument::syntaxErrors()
{
    QFETCH(QByteArray, yaml);
    QFETCH(int, line);
    QFETCH(int, column);
    auto doc = ParamsDocument::fromText(yaml.toStdString(), "broken.yaml");
    QVERIFY(!doc.isParsed());
    QVERIFY(doc.syntaxError()->location.line > 0);
    QCOMPARE(doc.syntaxError()->location.file, std::string("broken.yaml"));
    QCOMPARE(doc.syntaxError()->location.line, line);
    QCOMPARE(doc.syntaxError()->location.column, column);
    QVERIFY(doc.setScalar("a", "1").has_value());
    QCOMPARE(q(doc.text()), yaml);
}

void TestParamsDocument::undoRedo()
{
    auto doc = ParamsDocument::fromText("a: 1\nb: 2\n");
    QVERIFY(!doc.setScalar("a", "10"));
    QVERIFY(!doc.addKey("", "c", "3"));
    QVERIFY(!doc.remove("b"));
    QCOMPARE(q(doc.text()), QByteArray("a: 10\nc: 3\n"));
    QCOMPARE(QString::fromStdString(doc.undoDescription()), QString("Remove b"));
    QVERIFY(doc.undo());
    QVERIFY(doc.undo());
    QCOMPARE(q(doc.text()), QByteArray("a: 10\nb: 2\n"));
    QVERIFY(doc.redo());
    QCOMPARE(q(doc.text()), QByteArray("a: 10\nb: 2\nc: 3\n"));
    QVERIFY(!doc.setScalar("a", "11")); // a new edit drops the redo history
    QVERIFY(!doc.canRedo());
    while (doc.undo()) {
    }
    QCOMPARE(q(doc.text()), QByteArray("a: 1\nb: 2\n"));
    QVERIFY(!doc.isModified());
}

void TestParamsDocument::setTextAndRevert()
{
    auto doc = ParamsDocument::fromText("a: 1\n");
    doc.setText("a: [1\n");
    QVERIFY(!doc.isParsed());
    QCOMPARE(doc.syntaxError()->location.line, 2);
    doc.setText("a: [1]\n");
    QVERIFY(doc.isParsed());
    QCOMPARE(doc.tree().at(doc.find("a")).kind, NodeKind::Sequence);
    doc.revert();
    QCOMPARE(q(doc.text()), QByteArray("a: 1\n"));
    QVERIFY(!doc.isModified());
    QVERIFY(doc.undo()); // revert itself can be undone
    QCOMPARE(q(doc.text()), QByteArray("a: [1]\n"));
}

void TestParamsDocument::saveIsAtomicAndDetectsDiskChanges()
{
    QTemporaryDir dir;
    const std::string file = (dir.path() + "/params.yaml").toStdString();
    const std::string original = "# keep me\r\nrunconfig:\r\n  max_steps: 10  # steps\r\n";
    std::ofstream(file, std::ios::binary) << original;
    auto opened = ParamsDocument::open(file);
    QVERIFY(opened);
    ParamsDocument& doc = *opened.value;
    QVERIFY(!doc.save()); // no-op save is byte-identical
    std::ifstream in0(file, std::ios::binary);
    QCOMPARE(std::string(std::istreambuf_iterator<char>(in0), {}), original);

    QVERIFY(!doc.setScalar("runconfig.max_steps", "20"));
    QVERIFY(!doc.changedOnDisk());
    std::ofstream(file, std::ios::binary | std::ios::trunc) << "runconfig: {max_steps: 99}\n";
    QVERIFY(doc.changedOnDisk());
    auto refused = doc.save();
    QVERIFY(refused.has_value());
    QCOMPARE(refused->code, std::string("params.changed-on-disk"));
    QVERIFY(!doc.save(true));
    std::ifstream in(file, std::ios::binary);
    QCOMPARE(std::string(std::istreambuf_iterator<char>(in), {}),
             std::string("# keep me\r\nrunconfig:\r\n  max_steps: 20  # steps\r\n"));
    QVERIFY(!doc.isModified());
    QVERIFY(!doc.changedOnDisk());
    // No temporary files are left behind.
    QCOMPARE(QDir(dir.path()).entryList(QDir::Files | QDir::Hidden).size(), 1);
    QVERIFY(!doc.reload());
    QCOMPARE(*doc.get("runconfig.max_steps"), std::string("20"));
}

void TestParamsDocument::patchedTreeMatchesParse()
{
    const std::string yaml = "a: [1, 'two', {x: 3}] # c\nb:\n  - p: 1\n    q: \"s\"\n  - 5\n"
                             "c: &k v\nd: *k\ne: ~\n";
    auto doc = ParamsDocument::fromText(yaml);
    const std::vector<std::pair<std::string, std::string>> edits = {
        {"a[0]", "12345"}, {"a[1]", "x"}, {"a[2].x", "a,b"}, {"b[0].q", "t"},
        {"b[1]", "null"},  {"c", "w"},    {"e", "3"},        {"b[0].p", "-7"}};
    for (const auto& [path, value] : edits) {
        QVERIFY(!doc.setScalar(path, value));
        auto fresh = parseYamlTree(doc.text());
        QVERIFY(fresh);
        QCOMPARE(doc.tree().nodes.size(), fresh.value->nodes.size());
        for (std::size_t i = 0; i < fresh.value->nodes.size(); ++i) {
            const auto& x = doc.tree().nodes[i];
            const auto& y = fresh.value->nodes[i];
            QCOMPARE(x.value, y.value);
            QCOMPARE(int(x.kind), int(y.kind));
            QCOMPARE(x.valueBegin, y.valueBegin);
            QCOMPARE(x.end, y.end);
            QCOMPARE(x.column, y.column);
            QCOMPARE(x.line, y.line);
        }
        QCOMPARE(*doc.get(path), value);
    }
    while (doc.undo()) {
    }
    QCOMPARE(doc.text(), yaml);
}

void TestParamsDocument::plainResolution_data()
{
    QTest::addColumn<QString>("plain");
    QTest::addColumn<int>("type");
    QTest::addRow("int") << "42" << int(PlainType::Int);
    QTest::addRow("negative") << "-3" << int(PlainType::Int);
    QTest::addRow("float") << "0.001" << int(PlainType::Float);
    QTest::addRow("exp") << "3.0e-4" << int(PlainType::Float);
    QTest::addRow("bare exp") << "1e-3" << int(PlainType::Float);
    QTest::addRow("inf") << ".inf" << int(PlainType::Float);
    QTest::addRow("bool") << "True" << int(PlainType::Bool);
    QTest::addRow("null") << "~" << int(PlainType::Null);
    QTest::addRow("string") << "adamw" << int(PlainType::String);
    QTest::addRow("version") << "1.2.3" << int(PlainType::String);
}

void TestParamsDocument::plainResolution()
{
    QFETCH(QString, plain);
    QFETCH(int, type);
    QCOMPARE(int(resolvePlain(plain.toStdString())), type);
}

void TestParamsDocument::noOpSetChangesNothing_data()
{
    QTest::addColumn<QByteArray>("yaml");
    QTest::addColumn<QString>("path");
    QTest::addColumn<bool>("asString");
    QTest::addRow("float spelled 1.0") << QByteArray("a: 1.0 # one\n") << "a" << false;
    QTest::addRow("exponent") << QByteArray("lr: 3.0e-4\n") << "lr" << false;
    QTest::addRow("capital bool") << QByteArray("a: True\n") << "a" << false;
    QTest::addRow("empty null") << QByteArray("a:\nb: 1\n") << "a" << false;
    QTest::addRow("folded over lines")
        << QByteArray("e: >-\n  python3 -m x --\n  python3 train.py\n") << "e" << false;
    QTest::addRow("folded as string")
        << QByteArray("e: >-\n  python3 -m x --\n  python3 train.py\n") << "e" << true;
    QTest::addRow("literal") << QByteArray("e: |\n  a\n  b\n") << "e" << true;
    QTest::addRow("single quoted") << QByteArray("a: 'x'\n") << "a" << true;
    QTest::addRow("multi-line plain") << QByteArray("a: one\n  two\n") << "a" << true;
}

// Setting a value to what it is keeps the file's own spelling: no edit, no undo step.
void TestParamsDocument::noOpSetChangesNothing()
{
    QFETCH(QByteArray, yaml);
    QFETCH(QString, path);
    QFETCH(bool, asString);
    auto doc = ParamsDocument::fromText(yaml.toStdString(), "t.yaml");
    const std::string value = *doc.get(path.toStdString());
    QVERIFY(
        !doc.setScalar(path.toStdString(), value, asString ? ValueHint::String : ValueHint::Auto));
    QCOMPARE(q(doc.text()), yaml);
    QVERIFY(!doc.isModified());
    QVERIFY(!doc.canUndo());
}

void TestParamsDocument::editAtAnchor_data()
{
    QTest::addColumn<QByteArray>("yaml");
    QTest::addColumn<QString>("path");
    QTest::addColumn<QString>("anchorPath");
    QTest::addColumn<QStringList>("usedBy");
    QTest::addColumn<QByteArray>("expected");
    QTest::addRow("alias of a mapping")
        << QByteArray("base: &b {lr: 1}\nx: *b\ny: *b\n") << "x.lr"
        << "base.lr" << QStringList{"x", "y"} << QByteArray("base: &b {lr: 2}\nx: *b\ny: *b\n");
    QTest::addRow("merge key") << QByteArray("base: &b\n  lr: 1 # c\nx:\n  <<: *b\n  m: 0\n")
                               << "x.lr"
                               << "base.lr" << QStringList{"x.<<"}
                               << QByteArray("base: &b\n  lr: 2 # c\nx:\n  <<: *b\n  m: 0\n");
    QTest::addRow("alias of a scalar") << QByteArray("a: &v 1\nb: *v\n") << "b"
                                       << "a" << QStringList{"b"} << QByteArray("a: &v 2\nb: *v\n");
}

void TestParamsDocument::editAtAnchor()
{
    QFETCH(QByteArray, yaml);
    QFETCH(QString, path);
    QFETCH(QString, anchorPath);
    QFETCH(QStringList, usedBy);
    QFETCH(QByteArray, expected);
    auto doc = ParamsDocument::fromText(yaml.toStdString(), "t.yaml");
    const std::string p = path.toStdString();
    // Refused as a plain set, with the way to do it in the message.
    const auto refused = doc.setScalar(p, "2");
    QVERIFY(refused);
    QCOMPARE(QString::fromStdString(refused->code), QStringLiteral("params.through-alias"));
    QVERIFY2(refused->message.find(anchorPath.toStdString()) != std::string::npos,
             refused->message.c_str());
    const auto use = doc.anchorOf(p);
    QVERIFY(use);
    QCOMPARE(QString::fromStdString(use->path), anchorPath);
    QStringList got;
    for (const auto& u : use->usedBy)
        got << QString::fromStdString(u);
    QCOMPARE(got, usedBy);
    QVERIFY(!doc.setScalarAtAnchor(p, "2"));
    QCOMPARE(q(doc.text()), expected);
    QCOMPARE(q(*doc.get(p)), QByteArray("2"));
    QVERIFY(doc.undo());
    QCOMPARE(q(doc.text()), yaml);
}

QTEST_GUILESS_MAIN(TestParamsDocument)
#include "test_params_document.moc"
