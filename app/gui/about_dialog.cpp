#include "app/gui/about_dialog.h"

#include "views/common/library_versions.h"

#include <QDialogButtonBox>
#include <QLabel>
#include <QVBoxLayout>

namespace portolan::app {

QString AboutDialog::aboutText()
{
    QString rows;
    for (const auto& [name, version] : views::libraryVersions())
        rows += QStringLiteral("<tr><td>%1</td><td>&nbsp;&nbsp;%2</td></tr>")
                    .arg(name.toHtmlEscaped(), version.toHtmlEscaped());
    return tr("<h2>Portolan %1</h2>"
              "<p>Porting assistant and profiler for AI accelerators.</p>"
              "<p>Application id: %2</p>"
              "<p><b>Libraries</b></p><table>%3</table>")
        .arg(QStringLiteral(PORTOLAN_VERSION), QStringLiteral(PORTOLAN_APP_ID), rows);
}

AboutDialog::AboutDialog(QWidget* parent) : QDialog(parent)
{
    setWindowTitle(tr("About Portolan"));
    auto* label = new QLabel(aboutText(), this);
    label->setTextInteractionFlags(Qt::TextSelectableByMouse);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(label);
    layout->addWidget(buttons);
}

} // namespace portolan::app
