// A truncated or malformed TorchScript archive (.pt) is read by LibTorch, which is not built with
// the sanitizers, so it is read in the Torch child (portolan-torch) and never in portolan-cli: the
// child must fail cleanly (an error document, exit status 2, no signal) and the parent must
// report the child's message. The archive is a real one: the capture a dry run of the
// mnist-mlp-original sample writes, cut at several places and with members cut inside the zip.
#include <QDir>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

namespace {

struct Ran
{
    bool finished = false;
    QProcess::ExitStatus status = QProcess::CrashExit;
    int exitCode = -1;
    QByteArray out;
    QByteArray err;
};

Ran run(const QString& program, const QStringList& args, const QString& configDir,
        int timeoutMs = 300000)
{
    QProcess p;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert("PORTOLAN_CONFIG_DIR", configDir);
    p.setProcessEnvironment(env);
    p.start(program, args);
    Ran r;
    r.finished = p.waitForFinished(timeoutMs);
    r.status = p.exitStatus();
    r.exitCode = p.exitCode();
    r.out = p.readAllStandardOutput();
    r.err = p.readAllStandardError();
    return r;
}

bool copyTree(const QString& from, const QString& to)
{
    QDir().mkpath(to);
    const QDir src(from);
    for (const QString& d : src.entryList(QDir::Dirs | QDir::NoDotAndDotDot | QDir::Hidden))
        if (!copyTree(src.filePath(d), to + "/" + d))
            return false;
    for (const QString& f : src.entryList(QDir::Files | QDir::Hidden))
        if (!QFile::copy(src.filePath(f), to + "/" + f))
            return false;
    return true;
}

QString torchChild()
{
    return QFileInfo(QStringLiteral(PORTOLAN_CLI))
        .absoluteDir()
        .filePath("../torch/portolan-torch");
}

} // namespace

class TestTorchChildTruncated : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    QString m_project; // a copy of the sample, with its capture
    QByteArray m_archive;

    QString capture() const { return m_project + "/.portolan/capture"; }

private slots:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        m_project = m_dir.filePath("mnist-mlp-original");
        QVERIFY(copyTree(QStringLiteral(PORTOLAN_SAMPLES "/mnist-mlp-original"), m_project));
        QDir(m_project + "/.portolan").removeRecursively(); // a capture left in the source tree
        const Ran dry =
            run(PORTOLAN_CLI, {"run", m_project, "--dry-run", "--trust", "--steps", "1"},
                m_dir.filePath("config"));
        QVERIFY2(dry.finished && dry.exitCode == 0, dry.out + dry.err);
        QFile pt(capture() + "/model.pt");
        QVERIFY2(pt.open(QIODevice::ReadOnly), qPrintable(pt.fileName()));
        m_archive = pt.readAll();
        QVERIFY(m_archive.size() > 100000);
        QVERIFY(m_archive.startsWith("PK\x03\x04"));
        QFile intact(m_dir.filePath("intact.pt"));
        QVERIFY(intact.open(QIODevice::WriteOnly));
        intact.write(m_archive);
        intact.close();
        // The intact capture imports in the child.
        const Ran ok = run(torchChild(), {"capture", capture()}, m_dir.filePath("config"));
        QVERIFY2(ok.finished && ok.exitCode == 0, ok.err);
    }

    void truncated_data()
    {
        QTest::addColumn<QString>("cut"); // how the archive is damaged
        QTest::addColumn<QString>("message");
        QTest::addRow("empty") << "0"
                               << "not a ZIP archive";
        QTest::addRow("the zip signature only") << "4"
                                                << "not a ZIP archive";
        QTest::addRow("inside the first local header") << "30"
                                                       << "central directory";
        QTest::addRow("a third") << "1/3"
                                 << "central directory";
        QTest::addRow("half") << "1/2"
                              << "central directory";
        QTest::addRow("the end of central directory cut") << "-22"
                                                          << "central directory";
        QTest::addRow("the last byte missing") << "-1"
                                               << "central directory";
        // Members cut inside a well-formed zip (rewritten by Python's zipfile).
        QTest::addRow("data.pkl cut") << "member:data.pkl"
                                      << "not a readable TorchScript archive";
        QTest::addRow("constants.pkl cut") << "member:constants.pkl"
                                           << "Unexpected end of pickler archive";
        QTest::addRow("the model's code cut") << "member:code"
                                              << "not a readable TorchScript archive";
    }

    void truncated()
    {
        QFETCH(QString, cut);
        QFETCH(QString, message);
        QByteArray damaged;
        if (cut.startsWith("member:")) {
            // Rewrites the archive with that member cut to half its length.
            const QString out = m_dir.filePath("member.pt");
            const QString script =
                "import sys, zipfile\n"
                "src, dst, member = sys.argv[1:4]\n"
                "z = zipfile.ZipFile(src)\n"
                "hit = False\n"
                "with zipfile.ZipFile(dst, 'w', zipfile.ZIP_STORED) as w:\n"
                "    for n in z.namelist():\n"
                "        d = z.read(n)\n"
                "        inner = n.split('/', 1)[1]\n"
                "        if not hit and (inner == member or (member == 'code' and\n"
                "                inner.startswith('code/') and inner.endswith('.py'))):\n"
                "            d, hit = d[: len(d) // 2], True\n"
                "        w.writestr(n, d)\n"
                "sys.exit(0 if hit else 3)\n";
            QProcess py;
            py.start("/usr/bin/python3", {"-c", script, m_dir.filePath("intact.pt"), out,
                                          cut.mid(int(qstrlen("member:")))});
            QVERIFY(py.waitForFinished(60000));
            QVERIFY2(py.exitCode() == 0, py.readAllStandardError());
            QFile f(out);
            QVERIFY(f.open(QIODevice::ReadOnly));
            damaged = f.readAll();
        } else if (cut.contains('/')) {
            const auto parts = cut.split('/');
            damaged = m_archive.left(m_archive.size() * parts[0].toInt() / parts[1].toInt());
        } else if (cut.startsWith('-')) {
            damaged = m_archive.left(m_archive.size() + cut.toInt());
        } else {
            damaged = m_archive.left(cut.toInt());
        }
        QVERIFY(damaged != m_archive);
        QFile pt(capture() + "/model.pt");
        QVERIFY(pt.open(QIODevice::WriteOnly | QIODevice::Truncate));
        pt.write(damaged);
        pt.close();
        QFile loose(m_dir.filePath("loose.pt"));
        QVERIFY(loose.open(QIODevice::WriteOnly | QIODevice::Truncate));
        loose.write(damaged);
        loose.close();
        const QString config = m_dir.filePath("config");

        // The child: an error document on stdout, exit status 2, no signal.
        for (const QStringList& args :
             {QStringList{"capture", capture()},
              QStringList{"torchscript", loose.fileName(), "--input-shape", "2,1,28,28"}}) {
            const Ran child = run(torchChild(), args, config);
            QVERIFY2(child.finished, "the child hung");
            QCOMPARE(child.status, QProcess::NormalExit);
            QVERIFY2(child.exitCode == 2, child.out + child.err);
            const QJsonObject doc = QJsonDocument::fromJson(child.out).object();
            const QJsonObject error = doc.value("error").toObject();
            QCOMPARE(error.value("code").toString(), QString("compile.corrupt-torchscript"));
            QVERIFY2(error.value("message").toString().contains(message), child.out);
        }
        // The parents: portolan-cli reports the child's message with the file, as the user runs
        // it, from the project (its capture) and from the loose archive.
        for (const QStringList& args : {QStringList{"compile", m_project, "--target", "ipu-mk2"},
                                        QStringList{"compile", loose.fileName(), "--input-shape",
                                                    "2,1,28,28", "--target", "ipu-mk2"}}) {
            const Ran cli = run(PORTOLAN_CLI, args, config);
            QVERIFY2(cli.finished, "portolan-cli hung");
            QCOMPARE(cli.status, QProcess::NormalExit);
            QVERIFY2(cli.exitCode == 2, cli.out + cli.err);
            const QString err = QString::fromUtf8(cli.err);
            QVERIFY2(err.contains("not a readable TorchScript archive"), qPrintable(err));
            QVERIFY2(err.contains("model.pt") || err.contains("loose.pt"), qPrintable(err));
            QVERIFY2(!err.contains("signal"), qPrintable(err));
        }
    }
};

QTEST_GUILESS_MAIN(TestTorchChildTruncated)
#include "test_torch_child_truncated.moc"
