#pragma once

#include <QSyntaxHighlighter>
#include <QTextCharFormat>
#include <vector>

namespace portolan::views {

// Applies tree-sitter token classes (core/highlight) to a QTextDocument. The whole source is
// classified once per change of text, then each block picks its spans by position.
class PythonHighlighter : public QSyntaxHighlighter
{
    Q_OBJECT
public:
    explicit PythonHighlighter(QTextDocument* document);

    void setEnabled(bool enabled);
    // Re-reads colours from the palette (light or dark theme).
    void setPalette(const QPalette& palette);
    void reclassify();

protected:
    void highlightBlock(const QString& text) override;

private:
    struct Span
    {
        int begin; // in QChar units
        int end;
        int cls;
    };
    std::vector<Span> m_spans;
    std::vector<QTextCharFormat> m_formats;
    bool m_enabled = false;
};

} // namespace portolan::views
