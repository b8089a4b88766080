#include "views/porting/guide_steps_model.h"

#include "core/common/number_format.h"
#include "views/common/action_texts.h"

#include <QApplication>
#include <QIcon>
#include <QPainter>
#include <QPixmap>
#include <QStyle>

namespace portolan::views {

namespace {

// A step with nothing to check is neither done nor wrong: a grey dash in a ring, in the
// palette's disabled text colour. The style's "No" icon, used before, is a red disc that reads
// as an error beside the warning and error icons.
QIcon notApplicableIcon()
{
    // Drawn large: QIcon scales a pixmap down to the view's icon size, never up.
    constexpr int size = 64;
    QPixmap pixmap(size, size);
    pixmap.fill(Qt::transparent);
    QPainter painter(&pixmap);
    painter.setRenderHint(QPainter::Antialiasing);
    const QColor grey = QApplication::palette().color(QPalette::Disabled, QPalette::WindowText);
    painter.setPen(QPen(grey, size / 10.0));
    const qreal m = size * 0.14;
    painter.drawEllipse(QRectF(m, m, size - 2 * m, size - 2 * m));
    painter.drawLine(QPointF(size * 0.32, size / 2.0), QPointF(size * 0.68, size / 2.0));
    return QIcon(pixmap);
}

} // namespace

GuideStepsModel::GuideStepsModel(QObject* parent) : QAbstractListModel(parent) {}

void GuideStepsModel::setSnapshot(PortingSnapshotPtr snapshot)
{
    beginResetModel();
    m_snapshot = std::move(snapshot);
    endResetModel();
}

int GuideStepsModel::stepsDone() const
{
    return m_snapshot && m_snapshot->guide() ? m_snapshot->result.stepsPassed() : 0;
}

int GuideStepsModel::rowCount(const QModelIndex& parent) const
{
    if (parent.isValid() || !m_snapshot)
        return 0;
    const guides::Guide* g = m_snapshot->guide();
    return g ? int(g->steps.size()) : 0;
}

QVariant GuideStepsModel::data(const QModelIndex& index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const guides::Guide* g = m_snapshot->guide();
    const auto row = std::size_t(index.row());
    const guides::Step& step = g->steps[row];
    const guides::StepResult* r =
        row < m_snapshot->result.steps.size() ? &m_snapshot->result.steps[row] : nullptr;
    const int findings = r ? int(r->findings.size()) : 0;
    switch (role) {
    case Qt::DisplayRole: {
        QString text =
            QStringLiteral("%1. %2").arg(index.row() + 1).arg(QString::fromStdString(step.title));
        if (!r)
            return text;
        switch (r->status) {
        case guides::StepStatus::Passed:
            return findings
                       ? text + tr(" — passed, %1")
                                    .arg(QString::fromStdString(format::counted(findings, "note")))
                       : text + tr(" — passed");
        case guides::StepStatus::NotApplicable:
            return text + tr(" — not applicable");
        case guides::StepStatus::Findings:
            return text +
                   tr(" — %1").arg(QString::fromStdString(format::counted(findings, "finding")));
        case guides::StepStatus::NotVerified:
            return text + tr(" — not verified");
        }
        return text;
    }
    case Qt::ToolTipRole:
        if (r && r->status == guides::StepStatus::NotVerified)
            return tr("Not verified: %1.\nTo verify: %2.")
                .arg(QString::fromStdString(r->notVerifiedReason),
                     verifyActionText(int(r->verifyAction)));
        return QString::fromStdString(step.explanation).left(400);
    case Qt::DecorationRole: {
        if (!r)
            return {};
        QStyle* style = QApplication::style();
        if (r->status == guides::StepStatus::Passed)
            return style->standardIcon(QStyle::SP_DialogApplyButton);
        if (r->status == guides::StepStatus::NotApplicable)
            return notApplicableIcon();
        // A question mark: neither a tick (nothing backs one) nor a warning (nothing failed).
        if (r->status == guides::StepStatus::NotVerified)
            return style->standardIcon(QStyle::SP_MessageBoxQuestion);
        return style->standardIcon(r->errors > 0 ? QStyle::SP_MessageBoxCritical
                                                 : QStyle::SP_MessageBoxWarning);
    }
    case StepIdRole:
        return QString::fromStdString(step.id);
    case StatusRole:
        return r ? int(r->status) : int(guides::StepStatus::Passed);
    case ErrorsRole:
        return r ? r->errors : 0;
    case WarningsRole:
        return r ? r->warnings : 0;
    case FindingCountRole:
        return findings;
    case ExplanationRole:
        return QString::fromStdString(step.explanation);
    case VerifyActionRole:
        return r && r->status == guides::StepStatus::NotVerified ? int(r->verifyAction)
                                                                 : int(guides::VerifyAction::None);
    case NotVerifiedReasonRole:
        return r ? QString::fromStdString(r->notVerifiedReason) : QString();
    }
    return {};
}

QString GuideStepsModel::verifyActionText(int action)
{
    switch (guides::VerifyAction(action)) {
    case guides::VerifyAction::Compile:
        return tr("Compile the model");
    case guides::VerifyAction::Run:
        return dryRunActionText();
    case guides::VerifyAction::None:
        break;
    }
    return {};
}

} // namespace portolan::views
