#pragma once

#include "views/porting/porting_snapshot.h"

#include <QAbstractListModel>

namespace portolan::views {

// The steps of the chosen guide, in the suggested order, each with its status: passed, findings
// (with counts), not applicable, or not verified (only a compile or a run can verify it: the
// reason and the action are roles, and the wizard offers the action as a button).
class GuideStepsModel : public QAbstractListModel
{
    Q_OBJECT
public:
    enum Role {
        StepIdRole = Qt::UserRole + 1, // QString
        StatusRole,                    // int (guides::StepStatus)
        ErrorsRole,                    // int
        WarningsRole,                  // int
        FindingCountRole,              // int
        ExplanationRole,               // QString
        VerifyActionRole,              // int (guides::VerifyAction) of a step not verified
        NotVerifiedReasonRole,         // QString
    };
    // The button text of the action that verifies a step ("Compile the model").
    static QString verifyActionText(int action);

    explicit GuideStepsModel(QObject* parent = nullptr);

    void setSnapshot(PortingSnapshotPtr snapshot);
    int stepsDone() const;
    int stepCount() const { return rowCount(); }

    int rowCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;

private:
    PortingSnapshotPtr m_snapshot;
};

} // namespace portolan::views
