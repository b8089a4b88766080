#include "views/runs/run_history.h"

#include "views/runs/run_history_model.h"

#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QJsonDocument>
#include <QSqlDatabase>
#include <QSqlError>
#include <QSqlQuery>
#include <QUuid>

namespace portolan::views {

namespace {

QString toText(const QJsonObject& o)
{
    return QString::fromUtf8(QJsonDocument(o).toJson(QJsonDocument::Compact));
}

QJsonObject fromText(const QString& s)
{
    return QJsonDocument::fromJson(s.toUtf8()).object();
}

} // namespace

RunHistory::RunHistory()
    : m_connection(QStringLiteral("portolan-runs-") +
                   QUuid::createUuid().toString(QUuid::WithoutBraces))
{}

RunHistory::~RunHistory()
{
    if (QSqlDatabase::contains(m_connection)) {
        QSqlDatabase::database(m_connection, false).close();
        QSqlDatabase::removeDatabase(m_connection);
    }
}

bool RunHistory::isOpen() const
{
    return QSqlDatabase::contains(m_connection) &&
           QSqlDatabase::database(m_connection, false).isOpen();
}

bool RunHistory::open(const QString& projectDir, QString* error)
{
    if (QSqlDatabase::contains(m_connection)) {
        QSqlDatabase::database(m_connection, false).close();
        QSqlDatabase::removeDatabase(m_connection);
    }
    const QString folder = QDir(projectDir).filePath(QStringLiteral(".portolan"));
    if (!QDir().mkpath(folder)) {
        if (error)
            *error = QObject::tr("cannot create %1").arg(folder);
        return false;
    }
    m_path = QDir(folder).filePath(QStringLiteral("runs.sqlite"));
    QSqlDatabase db = QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), m_connection);
    db.setDatabaseName(m_path);
    if (!db.open()) {
        if (error)
            *error = db.lastError().text();
        return false;
    }
    QSqlQuery q(db);
    // WAL: readers (history list, overlays) never block the writer of a live run, and a crash
    // keeps every committed event.
    q.exec(QStringLiteral("PRAGMA journal_mode=WAL"));
    q.exec(QStringLiteral("PRAGMA synchronous=NORMAL"));
    const bool ok =
        q.exec(QStringLiteral("CREATE TABLE IF NOT EXISTS runs (id INTEGER PRIMARY KEY, "
                              "started_at TEXT, mode TEXT, model TEXT, status TEXT, reason TEXT, "
                              "config TEXT, last_step INTEGER DEFAULT 0, last_loss REAL)")) &&
        q.exec(QStringLiteral("CREATE TABLE IF NOT EXISTS events (run_id INTEGER, seq INTEGER, "
                              "type TEXT, step INTEGER, loss REAL, body TEXT)")) &&
        q.exec(QStringLiteral("CREATE INDEX IF NOT EXISTS events_run ON events(run_id, seq)"));
    if (!ok && error)
        *error = q.lastError().text();
    return ok;
}

qint64 RunHistory::beginRun(const QString& mode, const QJsonObject& config)
{
    QSqlQuery q(QSqlDatabase::database(m_connection));
    q.prepare(QStringLiteral("INSERT INTO runs (started_at, mode, model, status, reason, config) "
                             "VALUES (?, ?, '', 'running', '', ?)"));
    q.addBindValue(QDateTime::currentDateTimeUtc().toString(Qt::ISODate));
    q.addBindValue(mode);
    q.addBindValue(toText(config));
    if (!q.exec())
        return 0;
    return q.lastInsertId().toLongLong();
}

void RunHistory::appendEvent(qint64 runId, const RunEvent& e)
{
    QSqlDatabase db = QSqlDatabase::database(m_connection);
    QSqlQuery q(db);
    const QJsonObject& event = e.json;
    const QString type = e.type;
    if (!m_nextSeq.contains(runId)) {
        QSqlQuery last(db);
        last.prepare(
            QStringLiteral("SELECT COALESCE(MAX(seq) + 1, 0) FROM events WHERE run_id = ?"));
        last.addBindValue(runId);
        m_nextSeq[runId] = last.exec() && last.next() ? last.value(0).toLongLong() : 0;
    }
    q.prepare(QStringLiteral("INSERT INTO events (run_id, seq, type, step, loss, body) VALUES "
                             "(?, ?, ?, ?, ?, ?)"));
    q.addBindValue(runId);
    q.addBindValue(m_nextSeq[runId]++);
    q.addBindValue(type);
    q.addBindValue(e.step);
    // A loss that was not a number (null in the event: a NaN or an infinity) stays NULL.
    q.addBindValue(e.kind != RunEvent::Kind::Finished && e.loss ? QVariant(*e.loss) : QVariant());
    q.addBindValue(toText(event));
    q.exec();
    if (e.kind == RunEvent::Kind::Capture && !e.model.isEmpty()) {
        QSqlQuery u(db);
        u.prepare(QStringLiteral("UPDATE runs SET model = ? WHERE id = ?"));
        u.addBindValue(e.model);
        u.addBindValue(runId);
        u.exec();
    }
    if (type == "started") {
        QJsonObject config = run(runId).config;
        config.insert(QStringLiteral("resolved"), event.value("config"));
        QSqlQuery u(db);
        u.prepare(QStringLiteral("UPDATE runs SET model = ?, config = ? WHERE id = ?"));
        u.addBindValue(event.value("model").toString());
        u.addBindValue(toText(config));
        u.addBindValue(runId);
        u.exec();
    } else if (type == "step") {
        QSqlQuery u(db);
        u.prepare(QStringLiteral("UPDATE runs SET last_step = ?, last_loss = ? WHERE id = ?"));
        u.addBindValue(e.step);
        u.addBindValue(e.loss ? QVariant(*e.loss) : QVariant());
        u.addBindValue(runId);
        u.exec();
    }
}

void RunHistory::finishRun(qint64 run, const QString& status, const QString& reason)
{
    QSqlQuery q(QSqlDatabase::database(m_connection));
    q.prepare(QStringLiteral("UPDATE runs SET status = ?, reason = ? WHERE id = ?"));
    q.addBindValue(status);
    q.addBindValue(reason);
    q.addBindValue(run);
    q.exec();
}

static RunRecord recordFrom(const QSqlQuery& q)
{
    RunRecord r;
    r.id = q.value(0).toLongLong();
    r.startedAt = q.value(1).toString();
    r.mode = q.value(2).toString();
    r.model = q.value(3).toString();
    r.status = q.value(4).toString();
    r.reason = q.value(5).toString();
    r.config = fromText(q.value(6).toString());
    r.lastStep = q.value(7).toLongLong();
    r.lastLoss = q.value(8).toDouble();
    return r;
}

QList<RunRecord> RunHistory::runs() const
{
    QList<RunRecord> out;
    if (!isOpen())
        return out;
    QSqlQuery q(QSqlDatabase::database(m_connection));
    q.exec(QStringLiteral("SELECT id, started_at, mode, model, status, reason, config, last_step, "
                          "last_loss FROM runs ORDER BY id"));
    while (q.next())
        out << recordFrom(q);
    for (RunRecord& r : out)
        r.synthetic = synthetic(r.id);
    return out;
}

QStringList RunHistory::synthetic(qint64 run) const
{
    // The dry run announces each thing it makes up with a warning of kind synthetic-data or
    // synthetic-weights (resources/python/portolan_dryrun/datafiles.py); the built-in runtime
    // marks generated data in its started event.
    QStringList out;
    if (!isOpen())
        return out;
    QSqlQuery q(QSqlDatabase::database(m_connection));
    q.prepare(QStringLiteral(
        "SELECT body FROM events WHERE run_id = ? AND type IN ('warning', 'started')"));
    q.addBindValue(run);
    if (!q.exec())
        return out;
    while (q.next())
        out << syntheticInputs(fromText(q.value(0).toString()));
    out.removeDuplicates();
    out.sort();
    return out;
}

RunRecord RunHistory::run(qint64 id) const
{
    QSqlQuery q(QSqlDatabase::database(m_connection));
    q.prepare(QStringLiteral("SELECT id, started_at, mode, model, status, reason, config, "
                             "last_step, last_loss FROM runs WHERE id = ?"));
    q.addBindValue(id);
    if (q.exec() && q.next()) {
        RunRecord r = recordFrom(q);
        r.synthetic = synthetic(id);
        return r;
    }
    return {};
}

QList<QJsonObject> RunHistory::events(qint64 run) const
{
    QList<QJsonObject> out;
    QSqlQuery q(QSqlDatabase::database(m_connection));
    q.prepare(QStringLiteral("SELECT body FROM events WHERE run_id = ? ORDER BY seq"));
    q.addBindValue(run);
    if (q.exec())
        while (q.next())
            out << fromText(q.value(0).toString());
    return out;
}

static QVector<QPointF> curve(const QString& connection, qint64 run, const char* type)
{
    QVector<QPointF> out;
    QSqlQuery q(QSqlDatabase::database(connection));
    q.prepare(QStringLiteral("SELECT step, loss FROM events WHERE run_id = ? AND type = ? AND "
                             "loss IS NOT NULL ORDER BY seq"));
    q.addBindValue(run);
    q.addBindValue(QString::fromLatin1(type));
    if (q.exec())
        while (q.next())
            out << QPointF(q.value(0).toDouble(), q.value(1).toDouble());
    return out;
}

QVector<QPointF> RunHistory::lossCurve(qint64 run) const
{
    return curve(m_connection, run, "step");
}

QVector<QPointF> RunHistory::evalPoints(qint64 run) const
{
    return curve(m_connection, run, "eval");
}

bool RunHistory::removeRun(qint64 run)
{
    QSqlQuery q(QSqlDatabase::database(m_connection));
    q.prepare(QStringLiteral("DELETE FROM events WHERE run_id = ?"));
    q.addBindValue(run);
    QSqlQuery r(QSqlDatabase::database(m_connection));
    r.prepare(QStringLiteral("DELETE FROM runs WHERE id = ?"));
    r.addBindValue(run);
    return q.exec() && r.exec();
}

bool RunHistory::gitignoreCoversPortolan(const QString& projectDir)
{
    QFile f(QDir(projectDir).filePath(QStringLiteral(".gitignore")));
    if (!f.open(QIODevice::ReadOnly))
        return false;
    for (const QByteArray& line : f.readAll().split('\n')) {
        const QByteArray t = line.trimmed();
        if (t == ".portolan" || t == ".portolan/" || t == "/.portolan" || t == "/.portolan/")
            return true;
    }
    return false;
}

bool RunHistory::addPortolanToGitignore(const QString& projectDir)
{
    if (gitignoreCoversPortolan(projectDir))
        return true;
    QFile f(QDir(projectDir).filePath(QStringLiteral(".gitignore")));
    QByteArray existing;
    if (f.open(QIODevice::ReadOnly)) {
        existing = f.readAll();
        f.close();
    }
    if (!f.open(QIODevice::WriteOnly | QIODevice::Append))
        return false;
    if (!existing.isEmpty() && !existing.endsWith('\n'))
        f.write("\n");
    f.write("# Portolan's run history and checkpoints\n.portolan/\n");
    return true;
}

} // namespace portolan::views
