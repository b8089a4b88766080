#include "hostile_project.h"

#include <QDir>
#include <QFile>
#include <sys/stat.h>

namespace portolan::test {

namespace {
bool write(const QString& path, const QByteArray& text)
{
    QFile f(path);
    return f.open(QIODevice::WriteOnly) && f.write(text) == text.size();
}
} // namespace

bool makeHostileProject(const QString& root, const HostileSize& size)
{
    QDir dir(root);
    // The entry points a flavour detector looks for, and a params file replaced by a folder.
    if (!write(root + "/model.py", "import torch\n\nclass Net(torch.nn.Module):\n    pass\n") ||
        !write(root + "/run.py", "from model import Net\n") || !dir.mkpath("configs/params.yaml"))
        return false;
    for (int i = 0; i < size.files; ++i) {
        const QString folder = QStringLiteral("pkg%1").arg(i / 1000);
        if (i % 1000 == 0 && !dir.mkpath(folder))
            return false;
        const QString name =
            QStringLiteral("%1/m%2.%3").arg(folder).arg(i).arg(i % 5 == 0 ? "txt" : "py");
        if (!write(root + "/" + name, "x = " + QByteArray::number(i) + "\n"))
            return false;
    }
    // mkpath cannot make a path longer than PATH_MAX in one go: descend relative to each level.
    QDir walk(root);
    for (int d = 0; d < size.depth; ++d) {
        if (!walk.mkdir(QStringLiteral("d")) && !walk.exists(QStringLiteral("d")))
            break; // the file system's limit: as deep as it allows
        walk.cd(QStringLiteral("d"));
    }
    for (int i = 0; i < size.unreadable; ++i) {
        const QString file = root + QStringLiteral("/secret%1.py").arg(i);
        if (!write(file, "password = 1\n"))
            return false;
        ::chmod(QFile::encodeName(file).constData(), 0);
    }
    if (!dir.mkpath(QStringLiteral("locked/inner")))
        return false;
    ::chmod(QFile::encodeName(root + "/locked").constData(), 0);
    return true;
}

void unlockHostileProject(const QString& root)
{
    ::chmod(QFile::encodeName(root + "/locked").constData(), 0755);
    for (const QString& name :
         QDir(root).entryList({QStringLiteral("secret*.py")}, QDir::Files | QDir::System))
        ::chmod(QFile::encodeName(root + "/" + name).constData(), 0644);
}

} // namespace portolan::test
