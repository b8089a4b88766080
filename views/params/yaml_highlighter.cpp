#include "views/params/yaml_highlighter.h"

#include <QGuiApplication>
#include <QPalette>
#include <QRegularExpression>

namespace portolan::views {

YamlHighlighter::YamlHighlighter(QTextDocument* document) : QSyntaxHighlighter(document) {}

void YamlHighlighter::highlightBlock(const QString& text)
{
    const QPalette palette = QGuiApplication::palette();
    const bool dark = palette.color(QPalette::Base).lightness() < 128;
    QTextCharFormat key;
    key.setForeground(dark ? QColor(0x82, 0xaa, 0xff) : QColor(0x1a, 0x4f, 0xa0));
    key.setFontWeight(QFont::DemiBold);
    QTextCharFormat string;
    string.setForeground(dark ? QColor(0xc3, 0xe8, 0x8d) : QColor(0x2e, 0x7d, 0x32));
    QTextCharFormat comment;
    comment.setForeground(palette.color(QPalette::PlaceholderText));
    comment.setFontItalic(true);
    QTextCharFormat anchor;
    anchor.setForeground(dark ? QColor(0xff, 0xcb, 0x6b) : QColor(0xa0, 0x52, 0x00));

    static const QRegularExpression keyRe(
        QStringLiteral(R"(^\s*(?:-\s+)?([^\s#'"][^:#]*|"[^"]*"|'[^']*'):(?=\s|$))"));
    static const QRegularExpression stringRe(QStringLiteral(R"("(?:[^"\\]|\\.)*"|'(?:[^']|'')*')"));
    static const QRegularExpression anchorRe(QStringLiteral(R"([&*][^\s,\]\}]+)"));
    if (auto m = keyRe.match(text); m.hasMatch())
        setFormat(int(m.capturedStart(1)), int(m.capturedLength(1)), key);
    for (auto it = stringRe.globalMatch(text); it.hasNext();) {
        const auto m = it.next();
        setFormat(int(m.capturedStart()), int(m.capturedLength()), string);
    }
    for (auto it = anchorRe.globalMatch(text); it.hasNext();) {
        const auto m = it.next();
        if (m.capturedStart() == 0 || text[m.capturedStart() - 1].isSpace())
            setFormat(int(m.capturedStart()), int(m.capturedLength()), anchor);
    }
    // A comment starts at a # preceded by a blank (or at the line start), outside quotes.
    bool inSingle = false, inDouble = false;
    for (int i = 0; i < text.size(); ++i) {
        const QChar c = text[i];
        if (c == '"' && !inSingle)
            inDouble = !inDouble;
        else if (c == '\'' && !inDouble)
            inSingle = !inSingle;
        else if (c == '#' && !inSingle && !inDouble && (i == 0 || text[i - 1].isSpace())) {
            setFormat(i, int(text.size()) - i, comment);
            break;
        }
    }
}

} // namespace portolan::views
