#include "views/porting/fix_dialog.h"

#include <QDialogButtonBox>
#include <QFontDatabase>
#include <QLabel>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSyntaxHighlighter>
#include <QVBoxLayout>

namespace portolan::views {

namespace {

// Colours a unified diff: additions, removals and hunk headers, blended into the palette's base.
class DiffHighlighter : public QSyntaxHighlighter
{
public:
    DiffHighlighter(QTextDocument* doc, const QPalette& palette) : QSyntaxHighlighter(doc)
    {
        const bool dark = palette.color(QPalette::Base).lightnessF() < 0.5;
        m_added.setForeground(dark ? QColor(0x81, 0xc7, 0x84) : QColor(0x1b, 0x5e, 0x20));
        m_removed.setForeground(dark ? QColor(0xe5, 0x73, 0x73) : QColor(0xb7, 0x1c, 0x1c));
        m_hunk.setForeground(dark ? QColor(0x64, 0xb5, 0xf6) : QColor(0x0d, 0x47, 0xa1));
        m_header.setFontWeight(QFont::Bold);
    }

protected:
    void highlightBlock(const QString& text) override
    {
        if (text.startsWith(QLatin1String("+++")) || text.startsWith(QLatin1String("---")))
            setFormat(0, int(text.size()), m_header);
        else if (text.startsWith(QLatin1Char('+')))
            setFormat(0, int(text.size()), m_added);
        else if (text.startsWith(QLatin1Char('-')))
            setFormat(0, int(text.size()), m_removed);
        else if (text.startsWith(QLatin1String("@@")))
            setFormat(0, int(text.size()), m_hunk);
    }

private:
    QTextCharFormat m_added, m_removed, m_hunk, m_header;
};

} // namespace

void highlightDiff(QTextDocument* document, const QPalette& palette)
{
    new DiffHighlighter(document, palette);
}

FixDialog::FixDialog(const QString& description, const QString& diff, QWidget* parent)
    : QDialog(parent)
{
    setWindowTitle(tr("Apply Fix"));
    auto* label =
        new QLabel(tr("<b>%1</b><br>Review the change; it is saved atomically and can be undone.")
                       .arg(description.toHtmlEscaped()),
                   this);
    label->setWordWrap(true);
    m_diff = new QPlainTextEdit(this);
    m_diff->setReadOnly(true);
    m_diff->setLineWrapMode(QPlainTextEdit::NoWrap);
    m_diff->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    m_diff->setPlainText(diff);
    new DiffHighlighter(m_diff->document(), palette());
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Apply | QDialogButtonBox::Cancel, this);
    connect(buttons->button(QDialogButtonBox::Apply), &QPushButton::clicked, this,
            &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(label);
    layout->addWidget(m_diff, 1);
    layout->addWidget(buttons);
    resize(760, 460);
}

QString FixDialog::diffText() const
{
    return m_diff->toPlainText();
}

} // namespace portolan::views
