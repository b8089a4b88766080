#pragma once

#include "core/guides/fixes/params_from_argparse.h"

#include <QDialog>
#include <memory>
#include <optional>

class QLabel;
class QPlainTextEdit;
class QPushButton;
class QTableWidget;

namespace portolan::analysis {
struct ProjectAnalysis;
}

namespace portolan::views {

// The "write the params file from argparse" fix before it is applied: one row per flag with the
// section it goes to (a choice of the file's sections) and its key (editable), the default and
// help it brings, the uses the fix leaves alone and why, and the diff of every file, rebuilt on
// each change. Apply accepts the dialog; fix() is the fix for the plan as edited.
class ParamsFixDialog : public QDialog
{
    Q_OBJECT
public:
    ParamsFixDialog(std::shared_ptr<const analysis::ProjectAnalysis> analysis,
                    guides::ParamsPlan plan, QWidget* parent = nullptr);

    std::optional<guides::Fix> fix() const { return m_fix; }
    const guides::ParamsPlan& plan() const { return m_plan; }
    QString diffText() const;
    QString problem() const; // why the plan as edited cannot be applied, empty when it can

    // The row of a flag (its argparse dest), and edits as the user makes them (used by tests).
    int rowOf(const QString& dest) const;
    void setSection(int row, const QString& section);
    void setKey(int row, const QString& key);

private:
    void rebuild();

    std::shared_ptr<const analysis::ProjectAnalysis> m_analysis;
    guides::ParamsPlan m_plan;
    std::optional<guides::Fix> m_fix;
    QTableWidget* m_table = nullptr;
    QLabel* m_left = nullptr;
    QLabel* m_problem = nullptr;
    QPlainTextEdit* m_diff = nullptr;
    QPushButton* m_apply = nullptr;
    bool m_filling = false;
};

} // namespace portolan::views
