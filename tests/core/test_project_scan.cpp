// The project walk on a real fixture and on hostile input: binary files, non-UTF-8 text, huge
// files, symlink loops, links leaving the project, unreadable files, caches and virtual envs.
#include "core/project/project_scan.h"
#include "core/python/syntax.h"

#include <QTemporaryDir>
#include <QTest>
#include <filesystem>
#include <fstream>
#include <unistd.h>

namespace fs = std::filesystem;
using namespace portolan;

namespace {

void write(const fs::path& p, const std::string& bytes)
{
    fs::create_directories(p.parent_path());
    std::ofstream(p, std::ios::binary) << bytes;
}

const SkippedEntry* findSkipped(const ProjectScan& scan, const std::string& path)
{
    for (const auto& s : scan.skipped)
        if (s.path == path)
            return &s;
    return nullptr;
}

bool hasFile(const ProjectScan& scan, const std::string& path)
{
    for (const auto& f : scan.files)
        if (f.path == path)
            return true;
    return false;
}

} // namespace

class TestProjectScan : public QObject
{
    Q_OBJECT
private slots:
    void realFixture()
    {
        auto r = scanProject(PORTOLAN_FIXTURES "/projects/tiny");
        QVERIFY(r);
        const ProjectScan& s = *r.value;
        QVERIFY(hasFile(s, "model.py"));
        QVERIFY(hasFile(s, "broken.py"));
        QVERIFY(hasFile(s, "configs/params.yaml"));
        QVERIFY(hasFile(s, "README.md"));
        QCOMPARE(s.countOf(FileKind::Python), std::size_t(2));
        QCOMPARE(s.countOf(FileKind::Yaml), std::size_t(1));
    }

    void hostile_data()
    {
        QTest::addColumn<QString>("entry");
        QTest::addColumn<QString>("reason"); // "" = kept as a file
        QTest::addColumn<bool>("diagnostic");
        QTest::addRow("binary .py") << "blob.py"
                                    << "binary" << true;
        QTest::addRow("latin-1 .py") << "latin1.py"
                                     << "not-utf8" << true;
        QTest::addRow("10 MB .py") << "huge.py"
                                   << "too-large" << true;
        QTest::addRow("symlink loop") << "loop/again/"
                                      << "symlink-loop" << true;
        QTest::addRow("link outside") << "outside"
                                      << "symlink-outside" << true;
        QTest::addRow("broken link") << "dangling"
                                     << "broken-symlink" << true;
        QTest::addRow("self link") << "self"
                                   << "symlink-loop" << true;
        QTest::addRow("pycache") << "__pycache__/"
                                 << "cache" << false;
        QTest::addRow(".git") << ".git/"
                              << "version-control" << true;
        QTest::addRow("venv") << "venv/"
                              << "virtual-env" << true;
        QTest::addRow("ok python") << "ok.py"
                                   << "" << false;
        QTest::addRow("png kept as other") << "image.png"
                                           << "" << false;
        QTest::addRow("link inside kept") << "alias.py"
                                          << "" << false;
    }
    void hostile()
    {
        QFETCH(QString, entry);
        QFETCH(QString, reason);
        QFETCH(bool, diagnostic);

        QTemporaryDir tmp;
        QVERIFY(tmp.isValid());
        const fs::path root = fs::path(tmp.path().toStdString()) / "proj";
        write(root / "ok.py", "x = 1\n");
        write(root / "blob.py", std::string("abc\0def", 7));
        write(root / "latin1.py", "name = 'caf\xe9'\n");
        write(root / "huge.py", std::string(10u << 20, '#'));
        write(root / "image.png", std::string("\x89PNG\r\n\x1a\n\0\0", 10));
        write(root / "__pycache__" / "ok.cpython-311.pyc", "x");
        write(root / ".git" / "HEAD", "ref: refs/heads/main\n");
        write(root / "venv" / "pyvenv.cfg", "home = /usr/bin\n");
        write(root / "venv" / "lib" / "site.py", "x = 1\n");
        fs::create_directories(root / "loop");
        fs::create_directory_symlink("..", root / "loop" / "again");
        write(fs::path(tmp.path().toStdString()) / "secret.py", "token = 1\n");
        fs::create_symlink("../secret.py", root / "outside");
        fs::create_symlink("nowhere.py", root / "dangling");
        fs::create_symlink("self", root / "self");
        fs::create_symlink("ok.py", root / "alias.py");

        auto r = scanProject(root);
        QVERIFY(r);
        const ProjectScan& s = *r.value;
        const std::string e = entry.toStdString();
        if (reason.isEmpty()) {
            QVERIFY2(hasFile(s, e), e.c_str());
            QVERIFY(!findSkipped(s, e));
        } else {
            const SkippedEntry* sk = findSkipped(s, e);
            QVERIFY2(sk, e.c_str());
            QCOMPARE(QString::fromUtf8(skipReasonName(sk->reason).data()), reason);
            QVERIFY(!hasFile(s, e));
            bool diag = false;
            for (const auto& d : s.diagnostics)
                diag = diag || d.location.file == e;
            QCOMPARE(diag, diagnostic);
        }
        // Nothing inside a skipped folder leaks into the file list.
        for (const auto& f : s.files) {
            QVERIFY(!f.path.starts_with("venv/"));
            QVERIFY(!f.path.starts_with(".git/"));
        }
    }

    void nonUtf8Position()
    {
        QTemporaryDir tmp;
        const fs::path root = tmp.path().toStdString();
        write(root / "a.py", "ok = 1\nname = 'caf\xe9'\n");
        auto r = scanProject(root);
        QVERIFY(r);
        QCOMPARE(r.value->diagnostics.size(), std::size_t(2)); // the file, then "empty project"
        bool found = false;
        for (const auto& d : r.value->diagnostics) {
            if (d.code == "project.not-utf8") {
                found = true;
                QCOMPARE(d.location.line, 2);
                QCOMPARE(d.location.column, 12);
            }
        }
        QVERIFY(found);
    }

    void unreadable()
    {
        if (::geteuid() == 0)
            QSKIP("running as root: permissions do not stop reading");
        QTemporaryDir tmp;
        const fs::path root = tmp.path().toStdString();
        write(root / "locked.py", "x = 1\n");
        fs::permissions(root / "locked.py", fs::perms::none);
        auto r = scanProject(root);
        QVERIFY(r);
        QVERIFY(findSkipped(*r.value, "locked.py"));
        QCOMPARE(findSkipped(*r.value, "locked.py")->reason, SkipReason::Unreadable);
    }

    void badRoot_data()
    {
        QTest::addColumn<QString>("kind");
        QTest::addColumn<QString>("code");
        QTest::addRow("missing") << "missing"
                                 << "project.missing";
        QTest::addRow("file") << "file"
                              << "project.not-a-folder";
        QTest::addRow("empty string") << "empty"
                                      << "project.missing";
    }
    void badRoot()
    {
        QFETCH(QString, kind);
        QFETCH(QString, code);
        QTemporaryDir tmp;
        fs::path p = fs::path(tmp.path().toStdString()) / "nope";
        if (kind == "file") {
            write(p, "x");
        } else if (kind == "empty") {
            p.clear();
        }
        auto r = scanProject(p);
        QVERIFY(!r);
        QCOMPARE(QString::fromStdString(r.error.code), code);
        QVERIFY(!r.error.message.empty());
    }

    void emptyFolder()
    {
        QTemporaryDir tmp;
        auto r = scanProject(tmp.path().toStdString());
        QVERIFY(r);
        QVERIFY(r.value->files.empty());
        QCOMPARE(r.value->diagnostics.front().code, std::string("project.empty"));
    }

    void cancel()
    {
        QTemporaryDir tmp;
        const fs::path root = tmp.path().toStdString();
        for (int i = 0; i < 50; ++i)
            write(root / ("f" + std::to_string(i) + ".py"), "x = 1\n");
        int calls = 0;
        auto r =
            scanProject(root, {}, [&calls](std::uint64_t, std::uint64_t) { return ++calls < 10; });
        QVERIFY(r);
        QVERIFY(r.value->cancelled);
        QCOMPARE(r.value->files.size(), std::size_t(10));
    }

    // Limits: folders nested past maxDepth and whatever is left when the walk stops at maxFiles
    // are listed as skipped (so the window can say what it left out), each with one diagnostic.
    void limits_data()
    {
        QTest::addColumn<int>("depth"); // folders nested under deep/
        QTest::addColumn<int>("maxDepth");
        QTest::addColumn<int>("maxFiles");
        QTest::addColumn<QString>("entry"); // expected skipped entry ("" = none)
        QTest::addColumn<QString>("reason");
        QTest::addRow("within the depth") << 5 << 6 << 1000 << ""
                                          << "";
        QTest::addRow("one level too deep") << 6 << 5 << 1000 << "deep/d/d/d/d/d/"
                                            << "too-deep";
        QTest::addRow("far too deep")
            << 300 << 64 << 1000 << QString("deep" + QString("/d").repeated(64) + "/")
            << "too-deep";
        // Sorted walk: a.py, b/ (b/0.py ... b/9.py), deep/, z.py. The limit hits inside b/.
        QTest::addRow("file limit") << 1 << 64 << 5 << "deep/"
                                    << "too-many-files";
        QTest::addRow("file limit, later file") << 1 << 64 << 5 << "z.py"
                                                << "too-many-files";
    }
    void limits()
    {
        QFETCH(int, depth);
        QFETCH(int, maxDepth);
        QFETCH(int, maxFiles);
        QFETCH(QString, entry);
        QFETCH(QString, reason);
        QTemporaryDir tmp;
        const fs::path root = tmp.path().toStdString();
        write(root / "a.py", "x = 1\n");
        write(root / "z.py", "x = 1\n");
        for (int i = 0; i < 10; ++i)
            write(root / "b" / (std::to_string(i) + ".py"), "x = 1\n");
        // Relative steps: the whole chain may be longer than a path can be.
        fs::create_directory(root / "deep");
        fs::path walk = root / "deep";
        for (int d = 0; d < depth; ++d) {
            fs::create_directory(walk / "d");
            walk /= "d";
            if (walk.native().size() > 3000)
                break;
        }
        ScanOptions options;
        options.maxDepth = maxDepth;
        options.maxFiles = std::size_t(maxFiles);
        auto r = scanProject(root, options);
        QVERIFY(r);
        const ProjectScan& s = *r.value;
        std::size_t limited = 0;
        for (const auto& sk : s.skipped)
            limited += sk.reason == SkipReason::TooDeep || sk.reason == SkipReason::TooManyFiles;
        if (entry.isEmpty()) {
            QCOMPARE(limited, std::size_t(0));
            QCOMPARE(s.files.size(), std::size_t(12));
            return;
        }
        const SkippedEntry* sk = findSkipped(s, entry.toStdString());
        QVERIFY2(sk, qPrintable(entry));
        QCOMPARE(QString::fromUtf8(skipReasonName(sk->reason).data()), reason);
        std::size_t diagnostics = 0;
        for (const auto& d : s.diagnostics)
            diagnostics += d.code == "project." + reason.toStdString();
        QCOMPARE(diagnostics, std::size_t(1));
        if (reason == "too-many-files") {
            QCOMPARE(s.files.size(), std::size_t(maxFiles));
            // b/ holds 10 files: the 6 not reached, deep/ and z.py are listed.
            QCOMPARE(limited, std::size_t(6 + 2));
        }
        // The window's summary names the reason with examples, folders first.
        if (sk->path.back() != '/')
            return;
        bool described = false;
        for (const std::string& line : describeSkipped(s))
            described = described || line.find(sk->path.substr(0, 8)) != std::string::npos;
        QVERIFY(described);
    }

    // A params file replaced by a folder is said, not passed over in silence.
    void yamlFolder()
    {
        QTemporaryDir tmp;
        const fs::path root = tmp.path().toStdString();
        write(root / "model.py", "x = 1\n");
        fs::create_directories(root / "configs" / "params.yaml");
        auto r = scanProject(root);
        QVERIFY(r);
        bool diag = false;
        for (const auto& d : r.value->diagnostics)
            diag = diag ||
                   (d.code == "project.yaml-folder" && d.location.file == "configs/params.yaml/");
        QVERIFY(diag);
        const auto lines = describeSkipped(*r.value);
        QVERIFY(std::find(lines.begin(), lines.end(),
                          "configs/params.yaml/ is a folder, not a params file") != lines.end());
    }

    void syntaxErrors_data()
    {
        QTest::addColumn<QString>("source");
        QTest::addColumn<int>("line");
        QTest::addColumn<int>("column");
        QTest::addRow("clean") << "def f(x):\n    return x\n" << 0 << 0;
        QTest::addRow("bad parameter list") << "def broken(:\n    return 1\n" << 1 << 12;
        QTest::addRow("unclosed call") << "x = 1\ny = f(\n" << 2 << 0;
    }
    void syntaxErrors()
    {
        QFETCH(QString, source);
        QFETCH(int, line);
        QFETCH(int, column);
        const auto errors = python::syntaxErrors(source.toStdString(), "t.py");
        if (line == 0) {
            QVERIFY(errors.empty());
            return;
        }
        QVERIFY(!errors.empty());
        QCOMPARE(errors.front().location.line, line);
        if (column)
            QCOMPARE(errors.front().location.column, column);
        QCOMPARE(errors.front().location.file, std::string("t.py"));
    }
};

QTEST_GUILESS_MAIN(TestProjectScan)
#include "test_project_scan.moc"
