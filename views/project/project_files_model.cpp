#include "views/project/project_files_model.h"

#include "core/common/text.h"
#include "views/common/job.h"
#include "views/project/flattened_names.h"

#include <QApplication>
#include <QFileIconProvider>
#include <QFileInfo>
#include <QHash>
#include <QPalette>
#include <QStringList>
#include <algorithm>
#include <utility>

namespace portolan::views {

struct ProjectFilesModel::Node
{
    QString name;
    QString path; // relative
    bool folder = false;
    bool skipped = false;
    int row = 0;    // position in the parent's children, stored so that parent() is O(1)
    QString status; // kind for files, reason for skipped entries
    QString detail;
    QString shortName; // flattenedShortNames(), for a file among flattened paths
    quint64 size = 0;
    Node* parent = nullptr;
    std::vector<std::unique_ptr<Node>> children;

    void sort()
    {
        std::sort(children.begin(), children.end(), [](const auto& a, const auto& b) {
            if (a->folder != b->folder)
                return a->folder;
            return a->name.compare(b->name, Qt::CaseInsensitive) < 0;
        });
        QStringList names;
        for (std::size_t i = 0; i < children.size(); ++i) {
            children[i]->row = static_cast<int>(i);
            children[i]->sort();
            names << children[i]->name;
        }
        const QStringList shortNames = flattenedShortNames(names);
        for (std::size_t i = 0; i < children.size(); ++i)
            if (!children[i]->folder)
                children[i]->shortName = shortNames[qsizetype(i)];
    }
};

struct ProjectFilesTree
{
    std::unique_ptr<ProjectFilesModel::Node> root;
};

namespace {

using Node = ProjectFilesModel::Node;

// Places scan entries in a tree. A folder's children are found through a hash, and the folder of
// the previous entry is remembered (a scan lists a folder's files together), so that filling is
// linear: a linear search per child made 100,000 files in folders of 1,000 quadratic.
class TreeBuilder
{
public:
    TreeBuilder() : m_root(std::make_unique<Node>()) { m_root->folder = true; }

    Node* place(const std::string& relative, bool folder)
    {
        const QString rel = QString::fromStdString(relative);
        QStringView path(rel);
        while (path.endsWith(QLatin1Char('/')))
            path.chop(1);
        const qsizetype slash = path.lastIndexOf(QLatin1Char('/'));
        Node* parent = slash < 0 ? m_root.get() : folderAt(path.left(slash));
        return child(parent, path.mid(slash + 1), folder);
    }

    std::unique_ptr<Node> take()
    {
        m_children.clear();
        m_root->sort();
        return std::move(m_root);
    }

private:
    Node* folderAt(QStringView path)
    {
        if (m_lastFolder && path == m_lastFolderPath)
            return m_lastFolder;
        Node* n = m_root.get();
        for (QStringView part : path.split(QLatin1Char('/'), Qt::SkipEmptyParts))
            n = child(n, part, true);
        m_lastFolderPath = path.toString();
        m_lastFolder = n;
        return n;
    }

    Node* child(Node* parent, QStringView name, bool folder)
    {
        // Folders and files live in different key spaces: "x/" is the folder x.
        QString key = name.toString();
        if (folder)
            key += QLatin1Char('/');
        auto& index = m_children[parent];
        if (Node* found = index.value(key))
            return found;
        auto n = std::make_unique<Node>();
        n->name = name.toString();
        n->folder = folder;
        n->parent = parent;
        n->path = parent->path.isEmpty() ? n->name : parent->path + QLatin1Char('/') + n->name;
        Node* raw = n.get();
        parent->children.push_back(std::move(n));
        index.insert(key, raw);
        return raw;
    }

    std::unique_ptr<Node> m_root;
    QHash<const Node*, QHash<QString, Node*>> m_children;
    QString m_lastFolderPath;
    Node* m_lastFolder = nullptr;
};

// Frees a large tree on the thread pool: 100,000 nodes take tens of milliseconds to delete.
void disposeLater(ProjectFilesTreePtr tree)
{
    if (!tree)
        return;
    runInPool([tree = std::move(tree)]() mutable { tree.reset(); });
}

ProjectFilesTreePtr emptyTree()
{
    auto tree = std::make_shared<ProjectFilesTree>();
    tree->root = std::make_unique<Node>();
    tree->root->folder = true;
    return tree;
}

} // namespace

ProjectFilesModel::ProjectFilesModel(QObject* parent)
    : QAbstractItemModel(parent), m_tree(emptyTree())
{}

ProjectFilesModel::~ProjectFilesModel() = default;

void ProjectFilesModel::clear()
{
    setTree(emptyTree());
}

ProjectFilesTreePtr ProjectFilesModel::buildTree(const ProjectScan& scan)
{
    TreeBuilder builder;
    for (const auto& f : scan.files) {
        Node* n = builder.place(f.path, false);
        n->size = f.size;
        n->status = QString::fromUtf8(fileKindName(f.kind).data());
    }
    for (const auto& s : scan.skipped) {
        const bool folder = !s.path.empty() && s.path.back() == '/';
        Node* n = builder.place(s.path, folder);
        n->skipped = true;
        n->status =
            QStringLiteral("skipped: ") + QString::fromUtf8(skipReasonName(s.reason).data());
        n->detail = QString::fromStdString(s.detail);
    }
    auto tree = std::make_shared<ProjectFilesTree>();
    tree->root = builder.take();
    return tree;
}

void ProjectFilesModel::setTree(ProjectFilesTreePtr tree)
{
    if (!tree || !tree->root)
        tree = emptyTree();
    beginResetModel();
    ProjectFilesTreePtr old = std::exchange(m_tree, std::move(tree));
    endResetModel();
    disposeLater(std::move(old));
}

ProjectFilesModel::Node* ProjectFilesModel::nodeOf(const QModelIndex& index) const
{
    return index.isValid() ? static_cast<Node*>(index.internalPointer()) : m_tree->root.get();
}

QModelIndex ProjectFilesModel::indexForPath(const QString& relativePath) const
{
    Node* n = m_tree->root.get();
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
    if (!p || p == m_tree->root.get())
        return {};
    return createIndex(p->row, 0, p);
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
    case Qt::ToolTipRole: {
        // The size and kind too: a narrow dock hides their columns.
        QString tip = n->path;
        // A flattened path ("RELEASE_2.1.0__models__nlp__gpt2__configs__params.yaml") shown by
        // its short name: the path it stands for, as folders, under the file's own name.
        if (!n->shortName.isEmpty())
            tip += QStringLiteral("\n") + QFileInfo(n->path).fileName().replace(
                                              QStringLiteral("__"), QStringLiteral(" / "));
        if (!n->folder)
            tip += QStringLiteral("\n%1, %2")
                       .arg(QString::fromStdString(humanBytes(double(n->size))), n->status);
        return n->detail.isEmpty() ? tip : tip + QStringLiteral("\n") + n->detail;
    }
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
    case ShortNameRole:
        return n->shortName;
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
