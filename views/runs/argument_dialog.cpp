#include "views/runs/argument_dialog.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QJsonObject>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QVBoxLayout>

namespace portolan::views {

ArgumentDialog::ArgumentDialog(const QString& entry, const QJsonArray& arguments, QWidget* parent)
    : QDialog(parent)
{
    setWindowTitle(tr("Arguments for %1").arg(entry));
    auto* layout = new QVBoxLayout(this);
    auto* intro = new QLabel(
        tr("%1 requires these command-line arguments and has no default for them. They are "
           "given to the script after --, and kept for this project's next dry runs.")
            .arg(entry),
        this);
    intro->setWordWrap(true);
    layout->addWidget(intro);
    auto* form = new QFormLayout;
    for (const auto& v : arguments) {
        const QJsonObject a = v.toObject();
        Field f;
        f.flag = a.value("flag").toString();
        f.positional = a.value("positional").toBool();
        const QJsonArray choices = a.value("choices").toArray();
        if (!choices.isEmpty()) {
            auto* combo = new QComboBox(this);
            for (const auto& c : choices)
                combo->addItem(c.toString());
            f.editor = combo;
        } else {
            auto* edit = new QLineEdit(this);
            const QString type = a.value("type").toString();
            edit->setPlaceholderText(type.isEmpty() ? tr("value") : type);
            f.editor = edit;
        }
        const QString help = a.value("help").toString();
        f.editor->setToolTip(help);
        auto* label = new QLabel(f.flag, this);
        label->setToolTip(help);
        form->addRow(label, f.editor);
        if (!help.isEmpty()) {
            auto* helpLabel = new QLabel(help, this);
            helpLabel->setWordWrap(true);
            helpLabel->setForegroundRole(QPalette::PlaceholderText);
            form->addRow(QString(), helpLabel);
        }
        m_fields.append(f);
    }
    layout->addLayout(form);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    buttons->button(QDialogButtonBox::Ok)->setText(tr("Run with these arguments"));
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    layout->addWidget(buttons);
}

QStringList ArgumentDialog::words() const
{
    QStringList out;
    for (const Field& f : m_fields) {
        QString value;
        if (auto* combo = qobject_cast<QComboBox*>(f.editor))
            value = combo->currentText();
        else if (auto* edit = qobject_cast<QLineEdit*>(f.editor))
            value = edit->text().trimmed();
        if (value.isEmpty())
            continue;
        if (!f.positional)
            out << f.flag;
        out << value;
    }
    return out;
}

void ArgumentDialog::setAnswer(int index, const QString& value)
{
    if (index < 0 || index >= m_fields.size())
        return;
    if (auto* combo = qobject_cast<QComboBox*>(m_fields[index].editor))
        combo->setCurrentText(value);
    else if (auto* edit = qobject_cast<QLineEdit*>(m_fields[index].editor))
        edit->setText(value);
}

} // namespace portolan::views
