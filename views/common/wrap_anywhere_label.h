#pragma once

#include <QLabel>

class QTextLayout;

namespace portolan::views {

// A plain-text label that wraps at word boundaries, and inside a word when the word alone is
// wider than the label: a file name or path with no break point (a Model Zoo config,
// "RELEASE_2.2.1__models__nlp__gpt2__configs__params_gpt2_small.yaml") must not set the
// width of its column, nor of the window (issue 26: such a name made a window asked for at
// 1024 pixels 1,191 wide). QLabel's word wrap never breaks a word, so its minimum width is the
// longest one. text() stays the text as given; '\n' starts a new line. Its context menu copies
// the whole text (a drawn label cannot be selected).
class WrapAnywhereLabel : public QLabel
{
    Q_OBJECT
public:
    explicit WrapAnywhereLabel(const QString& text = {}, QWidget* parent = nullptr);

    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;
    bool hasHeightForWidth() const override { return true; }
    int heightForWidth(int width) const override;

protected:
    void paintEvent(QPaintEvent* event) override;

private:
    // Lays the text out in `width` pixels of text room; returns the height it takes.
    int layOut(QTextLayout& layout, int width) const;
    int horizontalMargins() const;
    int verticalMargins() const;
};

// `name` with a break opportunity (U+200B) after each '_', '/', '.', '-' and every 16 characters
// of a run without them: for a file name inside a rich-text label (one with a link), which
// cannot be a WrapAnywhereLabel. Only for text that is read, not copied: U+200B would go with it.
QString breakableName(const QString& name);

} // namespace portolan::views
