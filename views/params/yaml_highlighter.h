#pragma once

// Colours keys, comments, quoted strings and anchors in the YAML text view, from the palette.

#include <QSyntaxHighlighter>

namespace portolan::views {

class YamlHighlighter : public QSyntaxHighlighter
{
    Q_OBJECT

public:
    explicit YamlHighlighter(QTextDocument* document);

protected:
    void highlightBlock(const QString& text) override;
};

} // namespace portolan::views
