#include "views/code/python_highlighter.h"

#include "core/highlight/python_highlight.h"

#include <QPalette>
#include <QTextDocument>
#include <algorithm>

namespace portolan::views {

namespace {

// Mixes a hue into the palette's text colour so that colours read well on light and dark bases.
QColor tint(const QPalette& p, const QColor& hue)
{
    const bool dark = p.color(QPalette::Base).lightnessF() < 0.5;
    return dark ? hue.lighter(150) : hue.darker(120);
}

} // namespace

PythonHighlighter::PythonHighlighter(QTextDocument* document) : QSyntaxHighlighter(document)
{
    setPalette(QPalette());
}

void PythonHighlighter::setPalette(const QPalette& p)
{
    m_formats.assign(static_cast<std::size_t>(TokenClass::Error) + 1, QTextCharFormat());
    auto fmt = [&](TokenClass c, const QColor& color, bool bold = false, bool italic = false) {
        QTextCharFormat& f = m_formats[static_cast<std::size_t>(c)];
        f.setForeground(tint(p, color));
        if (bold)
            f.setFontWeight(QFont::Bold);
        f.setFontItalic(italic);
    };
    fmt(TokenClass::Keyword, QColor(0x1f, 0x4e, 0xb4), true);
    fmt(TokenClass::String, QColor(0x2e, 0x7d, 0x32));
    fmt(TokenClass::Comment, p.color(QPalette::Disabled, QPalette::Text), false, true);
    fmt(TokenClass::Number, QColor(0xa0, 0x52, 0x00));
    fmt(TokenClass::Function, QColor(0x6a, 0x1b, 0x9a));
    fmt(TokenClass::Class, QColor(0x00, 0x69, 0x7c), true);
    fmt(TokenClass::Decorator, QColor(0x8d, 0x6e, 0x00));
    fmt(TokenClass::Constant, QColor(0xa0, 0x52, 0x00), true);
    fmt(TokenClass::Builtin, QColor(0x00, 0x69, 0x7c));
    QTextCharFormat& err = m_formats[static_cast<std::size_t>(TokenClass::Error)];
    err.setUnderlineStyle(QTextCharFormat::WaveUnderline);
    err.setUnderlineColor(QColor(0xd3, 0x2f, 0x2f));
    rehighlight();
}

void PythonHighlighter::setEnabled(bool enabled)
{
    m_enabled = enabled;
    reclassify();
}

void PythonHighlighter::reclassify()
{
    m_spans.clear();
    if (m_enabled && document()) {
        const QString text = document()->toPlainText();
        const QByteArray utf8 = text.toUtf8();
        // Byte offsets from tree-sitter to QChar positions, in one pass.
        std::vector<int> charAt(static_cast<std::size_t>(utf8.size()) + 1, 0);
        int ch = 0;
        for (qsizetype i = 0; i < utf8.size();) {
            const auto c = static_cast<unsigned char>(utf8[i]);
            const int len = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : 4;
            for (int k = 0; k < len && i + k < utf8.size(); ++k)
                charAt[static_cast<std::size_t>(i + k)] = ch;
            ch += len == 4 ? 2 : 1; // a 4-byte sequence is a surrogate pair in UTF-16
            i += len;
        }
        charAt[static_cast<std::size_t>(utf8.size())] = ch;
        for (const auto& s : highlightPython(std::string_view(utf8.constData(), std::size_t(utf8.size()))))
            m_spans.push_back({charAt[s.begin], charAt[s.end], static_cast<int>(s.cls)});
    }
    rehighlight();
}

void PythonHighlighter::highlightBlock(const QString& text)
{
    if (m_spans.empty())
        return;
    const int begin = currentBlock().position();
    const int end = begin + int(text.size());
    auto it = std::lower_bound(m_spans.begin(), m_spans.end(), begin,
                               [](const Span& s, int pos) { return s.end <= pos; });
    for (; it != m_spans.end() && it->begin < end; ++it) {
        const int b = std::max(it->begin, begin);
        const int e = std::min(it->end, end);
        if (e > b)
            setFormat(b - begin, e - b, m_formats[static_cast<std::size_t>(it->cls)]);
    }
}

} // namespace portolan::views
