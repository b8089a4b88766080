#include "views/runs/run_history_model.h"

#include "views/profile/plot_theme.h"

#include <QApplication>
#include <QDateTime>
#include <QStyle>

namespace portolan::views {

QStringList syntheticInputs(const QJsonObject& event)
{
    const QString type = event.value(QLatin1String("event")).toString();
    if (type == QLatin1String("warning")) {
        const QString kind = event.value(QLatin1String("kind")).toString();
        if (kind.startsWith(QLatin1String("synthetic-")))
            return {kind.mid(10)};
    } else if (type == QLatin1String("started")) {
        const QJsonObject data = event.value(QLatin1String("data")).toObject();
        for (const char* split : {"train", "eval"})
            if (data.value(QLatin1String(split)).toObject().value("synthetic").toBool())
                return {QStringLiteral("data")};
    }
    return {};
}

QString syntheticBadge(const QStringList& what)
{
    const bool data = what.contains(QLatin1String("data"));
    const bool weights = what.contains(QLatin1String("weights"));
    if (data && weights)
        return QObject::tr("synthetic data and weights");
    if (data)
        return QObject::tr("synthetic data");
    if (weights)
        return QObject::tr("synthetic weights");
    return {};
}

RunHistoryModel::RunHistoryModel(QObject* parent) : QAbstractTableModel(parent) {}

void RunHistoryModel::setRuns(const QList<RunRecord>& runs)
{
    beginResetModel();
    m_runs = runs;
    endResetModel();
}

int RunHistoryModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : int(m_runs.size());
}

int RunHistoryModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant RunHistoryModel::data(const QModelIndex& index, int role) const
{
    if (!index.isValid() || index.row() >= m_runs.size())
        return {};
    const RunRecord& r = m_runs[index.row()];
    if (role == Qt::UserRole)
        return r.id;
    if (role == Qt::ToolTipRole) {
        QString tip = r.reason.isEmpty() ? r.status : r.status + QStringLiteral(": ") + r.reason;
        if (!r.synthetic.isEmpty())
            tip += tr("\nThis run used %1: its loss is not the project's real training.")
                       .arg(syntheticBadge(r.synthetic));
        return tip;
    }
    // A failed run stands out in the history: the status in the alert colour with an icon.
    const bool failed = r.status == QLatin1String("failed");
    if (role == Qt::ForegroundRole && failed && index.column() == Status)
        return alertColor(QApplication::palette());
    // A run on made-up inputs carries a warning icon, so the badge stays in sight when the
    // narrow column elides its words ("completed · synth…"); a failure's icon comes first.
    if (role == Qt::DecorationRole && index.column() == Status &&
        (failed || !r.synthetic.isEmpty()))
        return QApplication::style()->standardIcon(failed ? QStyle::SP_MessageBoxCritical
                                                          : QStyle::SP_MessageBoxWarning);
    if (role != Qt::DisplayRole)
        return {};
    switch (index.column()) {
    case Id:
        return r.id;
    case Started: {
        const QDateTime t = QDateTime::fromString(r.startedAt, Qt::ISODate);
        // Month, day and time: the year took the room of the Model and Loss columns.
        return t.isValid() ? t.toLocalTime().toString(QStringLiteral("MM-dd hh:mm")) : r.startedAt;
    }
    case Mode:
        return r.mode;
    case Model:
        return r.model;
    case Steps:
        return r.lastStep;
    case Loss:
        // No step ran: no loss to show (0.0000 read like a result).
        return r.lastStep > 0 ? QString::number(r.lastLoss, 'f', 4) : QStringLiteral("–");
    case Status:
        // A loss curve of made-up inputs looks like real training: the row says so (with its
        // icon), and the tooltip names what was made up.
        return r.synthetic.isEmpty() ? r.status : r.status + tr(" · synthetic");
    }
    return {};
}

QVariant RunHistoryModel::headerData(int section, Qt::Orientation o, int role) const
{
    if (o != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    static const char* names[] = {"#", "Started", "Mode", "Model", "Steps", "Loss", "Status"};
    return section >= 0 && section < ColumnCount ? tr(names[section]) : QVariant();
}

} // namespace portolan::views
