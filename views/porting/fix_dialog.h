#pragma once

#include <QDialog>

class QPlainTextEdit;
class QTextDocument;

namespace portolan::views {

// Colours a unified diff shown in `document` (additions, removals, hunk and file headers).
void highlightDiff(QTextDocument* document, const QPalette& palette);

// Shows the unified diff of a mechanical fix before it is applied; Apply accepts the dialog.
class FixDialog : public QDialog
{
    Q_OBJECT
public:
    FixDialog(const QString& description, const QString& diff, QWidget* parent = nullptr);
    QString diffText() const;

private:
    QPlainTextEdit* m_diff = nullptr;
};

} // namespace portolan::views
