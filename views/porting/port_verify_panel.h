#pragma once

#include "core/port/generate.h"

#include <QWidget>

class QLabel;
class QListWidget;
class QPushButton;
class QSpinBox;

namespace portolan::views {

class LossChart;

// The Verify page of the port dialog: how many steps to compare, the verdict (full or partial,
// check errors, dry-run steps, the agreement or the first step where original and port part),
// the per-step losses of both as two labelled series, and the port's check errors, each a link
// to its line. It only shows; the dialog runs the verification.
class PortVerifyPanel : public QWidget
{
    Q_OBJECT
public:
    explicit PortVerifyPanel(QWidget* parent = nullptr);

    int steps() const;
    void setSteps(int steps);
    QPushButton* verifyButton() const { return m_verifyButton; }
    QPushButton* cancelButton() const { return m_cancelButton; }
    LossChart* chart() const { return m_chart; }
    QString summaryText() const;

    // A message in place of a result (running, not trusted).
    void showMessage(const QString& html);
    void showResult(const port::VerifyResult& v, bool fullPort);
    // While the verification runs: the original's and the port's curves, a point per step as
    // each dry run reports it (side 0: the original, 1: the port).
    void beginLive(const QString& originalLabel, const QString& portLabel);
    void appendLive(int side, int step, double loss);
    // The verdict in one plain sentence (the Runs history keeps it as the runs' reason): the
    // agreement, or the first step where original and port part and by how much.
    // `namingErrors` false leaves the dry runs' messages out, for a view that shows them itself.
    static QString verdictText(const port::VerifyResult& v, bool namingErrors = true);

signals:
    void verifyRequested();
    void cancelRequested();
    // A check error of the port: its file (relative to the port) and line.
    void findingActivated(const QString& relativePath, int line);

private:
    QLabel* m_summary;
    LossChart* m_chart;
    QListWidget* m_checks;
    QSpinBox* m_steps;
    QPushButton* m_verifyButton;
    QPushButton* m_cancelButton;
};

} // namespace portolan::views
