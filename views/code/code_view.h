#pragma once

#include "core/common/diagnostic.h"
#include "views/common/numbered_text_edit.h"

#include <QPlainTextEdit>
#include <QVector>

namespace portolan::views {

class PythonHighlighter;

// A finding or diagnostic shown on a line of the code view.
struct CodeMarker
{
    int line = 0;   // 1-based
    int column = 0; // 1-based, 0 = whole line
    Severity severity = Severity::Warning;
    QString message;
};

// Read-only source view: line numbers, tree-sitter syntax colours, finding markers in the gutter
// and as line backgrounds, with the message at the end of the line and as a tooltip. Colours come
// from the palette.
class CodeView : public NumberedTextEdit
{
    Q_OBJECT
public:
    explicit CodeView(QWidget* parent = nullptr);

    // Shows a file's text; Python files are coloured.
    void setSource(const QString& fileName, const QString& text);
    QString fileName() const { return m_fileName; }

    void setMarkers(const QVector<CodeMarker>& markers);
    const QVector<CodeMarker>& markers() const { return m_markers; }

    // Puts the cursor at line:column (1-based) and centres it.
    void goTo(int line, int column = 1);

protected:
    bool event(QEvent* event) override;
    void paintEvent(QPaintEvent* event) override;
    void paintLineMarker(QPainter& painter, int line, const QRect& box) override;
    void changeEvent(QEvent* event) override;

private:
    void rebuildSelections();
    QColor markerColor(Severity s) const;

    PythonHighlighter* m_highlighter = nullptr;
    QString m_fileName;
    QVector<CodeMarker> m_markers;
};

} // namespace portolan::views
