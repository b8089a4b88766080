#include "views/profile/dry_run_notice.h"

#include "views/common/action_texts.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>

namespace portolan::views {

DryRunNotice::DryRunNotice(const QString& fills, QWidget* parent) : QWidget(parent)
{
    setObjectName(QStringLiteral("dryRunNotice"));
    m_text = new QLabel(tr("No report yet: this project's model is known after a dry run. A dry "
                           "run of the project's own code captures the model; its compile "
                           "then fills %1.")
                            .arg(fills),
                        this);
    m_text->setWordWrap(true);
    m_button = new QPushButton(dryRunActionText(), this);
    m_button->setToolTip(dryRunActionToolTip());
    auto* layout = new QHBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_text, 1);
    layout->addWidget(m_button, 0, Qt::AlignTop);
    connect(m_button, &QPushButton::clicked, this, &DryRunNotice::dryRunRequested);
    hide();
}

QString DryRunNotice::text() const
{
    return m_text->text();
}

} // namespace portolan::views
