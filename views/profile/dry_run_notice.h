#pragma once

// What an empty tile page needs when the project's model is known only after a dry run: the
// sentence saying what fills the page, and the button that does it (issue 26: Memory and Tile
// map said "compile a project" where no compile could, and offered nothing).

#include <QWidget>

class QLabel;
class QPushButton;

namespace portolan::views {

class DryRunNotice : public QWidget
{
    Q_OBJECT
public:
    // `fills`: what the dry run's capture fills on this page ("the memory of every tile").
    DryRunNotice(const QString& fills, QWidget* parent = nullptr);
    QString text() const;
    QPushButton* button() const { return m_button; }

signals:
    void dryRunRequested();

private:
    QLabel* m_text = nullptr;
    QPushButton* m_button = nullptr;
};

} // namespace portolan::views
