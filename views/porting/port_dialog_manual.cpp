// The port dialog's Manual items tab: what the port leaves to do by hand, each found at its
// TODO(portolan) in the port, and the port's notes (what it does otherwise than the original:
// a save not carried over, a hand-written update written as torch.optim), which the user should
// read as much as the items and which were only a tooltip of the summary line.
#include "core/port/generate.h"
#include "views/porting/port_dialog.h"

#include <QHeaderView>
#include <QLabel>
#include <QListWidget>
#include <QRegularExpression>
#include <QStackedWidget>
#include <QTabWidget>
#include <QTreeWidget>
#include <QVBoxLayout>

namespace portolan::views {

namespace {

QString qs(const std::string& s)
{
    return QString::fromStdString(s);
}

} // namespace

QWidget* PortDialog::createManualPage()
{
    auto* page = new QWidget(this);
    m_manualList = new QTreeWidget(page);
    m_manualList->setColumnCount(3);
    m_manualList->setHeaderLabels({tr("In the port"), tr("What is left to do"), tr("Original")});
    m_manualList->setRootIsDecorated(false);
    m_manualList->setAlternatingRowColors(true);
    m_manualList->header()->setStretchLastSection(false);
    m_manualList->header()->setSectionResizeMode(0, QHeaderView::ResizeToContents);
    m_manualList->header()->setSectionResizeMode(1, QHeaderView::Stretch);
    m_manualList->header()->setSectionResizeMode(2, QHeaderView::ResizeToContents);
    // An empty list says so, rather than showing bare headers.
    m_manualNone = new QLabel(page);
    m_manualNone->setWordWrap(true);
    m_manualNone->setAlignment(Qt::AlignCenter);
    m_manualStack = new QStackedWidget(page);
    m_manualStack->addWidget(m_manualList);
    m_manualStack->addWidget(m_manualNone);

    m_notesTitle = new QLabel(page);
    m_notesList = new QListWidget(page);
    m_notesList->setWordWrap(true);
    m_notesList->setAlternatingRowColors(true);
    m_notesList->setSelectionMode(QAbstractItemView::NoSelection);

    auto* layout = new QVBoxLayout(page);
    layout->addWidget(m_manualStack, 3);
    layout->addWidget(m_notesTitle);
    layout->addWidget(m_notesList, 2);
    connect(m_manualList, &QTreeWidget::itemClicked, this, [this](QTreeWidgetItem* item) {
        activateManual(m_manualList->indexOfTopLevelItem(item));
    });
    return page;
}

void PortDialog::showManualItems(const port::PortResult* port)
{
    m_manualList->clear();
    m_manualItems.clear();
    m_notesList->clear();
    m_manualNone->setText(port ? tr("Nothing is left to do by hand: the plan placed every part "
                                    "of the original.")
                               : tr("No port: nothing to list."));
    m_manualStack->setCurrentWidget(m_manualNone);
    m_notesTitle->setText(tr("Notes: where the port does otherwise than the original"));
    if (!port)
        return;
    const auto& p = *port;
    // Where each manual item is in the port: the TODO(portolan) comment that names the same
    // construct (a `name` quoted in both), else the TODO lines in order, so that the user lands
    // on the spot the port leaves open rather than on the original.
    struct Todo
    {
        QString file;
        int line;
        QString text;
        bool used = false;
    };
    QList<Todo> todos;
    for (const auto& f : p.files) {
        const QStringList lines = qs(f.text).split(QLatin1Char('\n'));
        for (int i = 0; i < lines.size(); ++i)
            if (lines[i].contains(QLatin1String("TODO(portolan)")))
                todos.append({qs(f.path), i + 1, lines[i]});
    }
    static const QRegularExpression quoted(QStringLiteral("`([^`]+)`"));
    for (const auto& m : p.manual) {
        ManualItem item;
        item.message = qs(m.message);
        item.originalFile = qs(m.location.file);
        item.originalLine = m.location.line;
        Todo* match = nullptr;
        for (auto it = quoted.globalMatch(item.message); it.hasNext() && !match;) {
            const QString name = it.next().captured(1);
            for (auto& t : todos)
                if (!t.used && t.text.contains(name)) {
                    match = &t;
                    break;
                }
        }
        for (auto& t : todos)
            if (!match && !t.used)
                match = &t;
        if (match) {
            match->used = true;
            item.portFile = match->file;
            item.portLine = match->line;
        }
        m_manualItems.append(item);
        auto* row = new QTreeWidgetItem(m_manualList);
        row->setText(0, item.portFile.isEmpty()
                            ? tr("(not marked)")
                            : QStringLiteral("%1:%2").arg(item.portFile).arg(item.portLine));
        // One line per item (messages quote multi-line code); the whole text is the tooltip.
        row->setText(1, item.message.simplified());
        row->setToolTip(1, m.hint.empty() ? item.message
                                          : item.message + QStringLiteral("\n\n") + qs(m.hint));
        row->setText(2,
                     item.originalFile.isEmpty()
                         ? QString()
                         : QStringLiteral("%1:%2").arg(item.originalFile).arg(item.originalLine));
    }

    m_manualStack->setCurrentWidget(p.manual.empty() ? static_cast<QWidget*>(m_manualNone)
                                                     : m_manualList);
    for (const auto& n : p.notes)
        new QListWidgetItem(qs(n), m_notesList);
    if (p.notes.empty())
        new QListWidgetItem(tr("None: the port does what the original does."), m_notesList);
    m_notesTitle->setText(
        tr("Notes (%1): where the port does otherwise than the original").arg(p.notes.size()));
}

QStringList PortDialog::noteTexts() const
{
    QStringList notes;
    if (m_port)
        for (const auto& n : m_port->notes)
            notes << qs(n);
    return notes;
}

void PortDialog::activateManual(int row)
{
    if (row < 0 || row >= m_manualItems.size())
        return;
    const ManualItem& m = m_manualItems[row];
    if (!m.portFile.isEmpty()) {
        // Once written, the port is the open project: its code opens in the Code tab too.
        if (!m_written.isEmpty())
            emit codeRequested(m_written, m.portFile, m.portLine, 1);
        showFile(m.portFile, m.portLine);
        m_tabs->setCurrentIndex(1);
    } else if (!m.originalFile.isEmpty()) {
        emit codeRequested(m_root, m.originalFile, m.originalLine, 1);
    }
}

} // namespace portolan::views
