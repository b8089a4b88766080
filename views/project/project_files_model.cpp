#include "views/project/project_files_model.h"

#include "core/common/text.h"

#include <QApplication>
#include <QFileIconProvider>
#include <QPalette>
#include <QStringList>
#include <algorithm>

namespace portolan::views {

struct ProjectFilesModel::Node
{
    QString name;
    QString path; // relative
    bool folder = false;
    bool skipped = false;
    QString status; // kind for files, reason for skipped entries
    QString detail;
    quint64 size = 0;
    Node* parent = nullptr;
    std::vector<std::unique_ptr<Node>> children;

    int row() const
    {
        if (!parent)
            return 0;
        for (std::size_t i = 0; i < parent->children.size(); ++i)
            if (parent->children[i].get() == this)
                return static_cast<int>(i);
        return 0;
    }

    Node* child(const QString& childName, bool isFolder)
    {
        for (auto& c : children)
            if (c->name == childName && c->folder == isFolder)
                return c.get();
        auto n = std::make_unique<Node>();
        n->name = childName;
        n->folder = isFolder;
        n->parent = this;
        n->path = path.isEmpty() ? childName : path + QLatin1Char('/') + childName;
        children.push_back(std::move(n));
        return children.back().get();
    }

    void sort()
    {
        std::sort(children.begin(), children.end(), [](const auto& a, const auto& b) {
            if (a->folder != b->folder)
                return a->folder;
            return a->name.compare(b->name, Qt::CaseInsensitive) < 0;
        });
        for (auto& c : children)
            c->sort();
    }
};

ProjectFilesModel::ProjectFilesModel(QObject* parent)
    : QAbstractItemModel(parent), m_root(std::make_unique<Node>())
{
    m_root->folder = true;
}

ProjectFilesModel::~ProjectFilesModel() = default;

void ProjectFilesModel::clear()
{
    beginResetModel();
    m_root = std::make_unique<Node>();
    m_root->folder = true;
    endResetModel();
}

void ProjectFilesModel::setScan(const ProjectScan& scan)
{
    auto root = std::make_unique<Node>();
    root->folder = true;
    auto place = [&root](const std::string& rel, bool folder) {
        QStringList parts = QString::fromStdString(rel).split(QLatin1Char('/'), Qt::SkipEmptyParts);
        Node* n = root.get();
        for (int i = 0; i < parts.size(); ++i)
            n = n->child(parts[i], i + 1 < parts.size() || folder);
        return n;
    };
    for (const auto& f : scan.files) {
        Node* n = place(f.path, false);
        n->size = f.size;
        n->status = QString::fromUtf8(fileKindName(f.kind).data());
    }
    for (const auto& s : scan.skipped) {
        const bool folder = !s.path.empty() && s.path.back() == '/';
        Node* n = place(s.path, folder);
        n->skipped = true;
        n->status = QStringLiteral("skipped: ") + QString::fromUtf8(skipReasonName(s.reason).data());
        n->detail = QString::fromStdString(s.detail);
    }
    root->sort();
    beginResetModel();
    m_root = std::move(root);
    endResetModel();
}

ProjectFilesModel::Node* ProjectFilesModel::nodeOf(const QModelIndex& index) const
{
    return index.isValid() ? static_cast<Node*>(index.internalPointer()) : m_root.get();
}

QModelIndex ProjectFilesModel::indexForPath(const QString& relativePath) const
{
    Node* n = m_root.get();
    QModelIndex idx;
    for (const QString& part : relativePath.split(QLatin1Char('/'), Qt::SkipEmptyParts)) {
        auto it = std::find_if(n->children.begin(), n->children.end(),
                               [&part](const auto& c) { return c->name == part; });
        if (it == n->children.end())
            return {};
        idx = index(static_cast<int>(it - n->children.begin()), 0, idx);
        n = it->get();
    }
    return idx;
}

QModelIndex ProjectFilesModel::index(int row, int column, const QModelIndex& parent) const
{
    if (!hasIndex(row, column, parent))
        return {};
    Node* p = nodeOf(parent);
    return createIndex(row, column, p->children[static_cast<std::size_t>(row)].get());
}

QModelIndex ProjectFilesModel::parent(const QModelIndex& child) const
{
    if (!child.isValid())
        return {};
    Node* p = nodeOf(child)->parent;
    if (!p || p == m_root.get())
        return {};
    return createIndex(p->row(), 0, p);
}

int ProjectFilesModel::rowCount(const QModelIndex& parent) const
{
    if (parent.isValid() && parent.column() != 0)
        return 0;
    return static_cast<int>(nodeOf(parent)->children.size());
}

int ProjectFilesModel::columnCount(const QModelIndex&) const
{
    return ColumnCount;
}

QVariant ProjectFilesModel::data(const QModelIndex& index, int role) const
{
    if (!index.isValid())
        return {};
    const Node* n = nodeOf(index);
    switch (role) {
    case Qt::DisplayRole:
        switch (index.column()) {
        case NameColumn:
            return n->name;
        case SizeColumn:
            return n->folder ? QVariant() : QString::fromStdString(humanBytes(double(n->size)));
        case StatusColumn:
            return n->status;
        }
        return {};
    case Qt::ToolTipRole:
        return n->detail.isEmpty() ? n->path : n->path + QStringLiteral("\n") + n->detail;
    case Qt::DecorationRole:
        if (index.column() == NameColumn) {
            static const QFileIconProvider icons;
            return icons.icon(n->folder ? QFileIconProvider::Folder : QFileIconProvider::File);
        }
        return {};
    case Qt::ForegroundRole:
        if (n->skipped)
            return QApplication::palette().color(QPalette::Disabled, QPalette::Text);
        return {};
    case Qt::TextAlignmentRole:
        if (index.column() == SizeColumn)
            return QVariant(Qt::AlignRight | Qt::AlignVCenter);
        return {};
    case RelativePathRole:
        return n->path;
    case IsFolderRole:
        return n->folder;
    case IsSkippedRole:
        return n->skipped;
    case FileKindRole:
        return n->skipped || n->folder ? QString() : n->status;
    }
    return {};
}

QVariant ProjectFilesModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case NameColumn:
        return tr("Name");
    case SizeColumn:
        return tr("Size");
    case StatusColumn:
        return tr("Kind");
    }
    return {};
}

} // namespace portolan::views
