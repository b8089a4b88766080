#pragma once

#include <QDialog>

namespace portolan::app {

// Help > About: the version and every library Portolan runs with.
class AboutDialog : public QDialog
{
    Q_OBJECT
public:
    explicit AboutDialog(QWidget* parent = nullptr);
    static QString aboutText();
};

} // namespace portolan::app
