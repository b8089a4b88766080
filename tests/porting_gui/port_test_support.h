#pragma once
// What the port dialog's tests share: the sample originals, their analysis, copies of them, a
// hash of a folder (equal before and after: not touched), and whether Python has torch.
#include "core/analysis/analysis.h"

#include <QCryptographicHash>
#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QFileInfo>
#include <QProcess>
#include <map>
#include <memory>

namespace porttest {

using namespace portolan;

inline QString sample(const QString& name)
{
    return QStringLiteral(PORTOLAN_SAMPLES) + QLatin1Char('/') + name;
}

inline std::shared_ptr<const analysis::ProjectAnalysis> analyse(const QString& folder)
{
    auto r = analysis::analyzeProject(folder.toStdString());
    if (!r)
        return nullptr;
    return std::make_shared<const analysis::ProjectAnalysis>(std::move(*r.value));
}

// Every file's path and bytes: equal before and after means the folder was not touched.
inline QByteArray treeHash(const QString& folder)
{
    QStringList files;
    QDirIterator it(folder, QDir::Files | QDir::Hidden | QDir::NoDotAndDotDot,
                    QDirIterator::Subdirectories);
    while (it.hasNext())
        files << it.next();
    files.sort();
    QCryptographicHash h(QCryptographicHash::Sha256);
    for (const QString& f : files) {
        h.addData(f.toUtf8());
        QFile file(f);
        if (file.open(QIODevice::ReadOnly))
            h.addData(file.readAll());
    }
    return h.result();
}

inline bool copyTree(const QString& from, const QString& to)
{
    QDirIterator it(from, QDir::Files | QDir::NoDotAndDotDot, QDirIterator::Subdirectories);
    while (it.hasNext()) {
        const QString src = it.next();
        const QString dst = to + src.mid(from.size());
        QDir().mkpath(QFileInfo(dst).absolutePath());
        if (!QFile::copy(src, dst))
            return false;
    }
    return true;
}

// The trust store (core/dryrun TrustStore) and the settings (the original's arguments) of this
// test only, in a scratch folder: never the user's. The resources from the source tree unless the
// environment names others.
inline void isolateConfig(const QString& folder)
{
    qputenv("PORTOLAN_CONFIG_DIR", folder.toUtf8());
    qputenv("XDG_CONFIG_HOME", folder.toUtf8());
    if (qEnvironmentVariableIsEmpty("PORTOLAN_RESOURCES"))
        qputenv("PORTOLAN_RESOURCES", QByteArray(PORTOLAN_SOURCE_DIR "/resources"));
}

inline bool pythonHasTorch(const QString& python)
{
    // Asked once per interpreter and test process: importing torch takes a second or two, and
    // every row of a data-driven test asks before its dry runs.
    static std::map<QString, bool> known;
    if (const auto it = known.find(python); it != known.end())
        return it->second;
    // From a neutral folder: a `torch` folder in the working directory (the build tree has one)
    // would import as a namespace package.
    QProcess p;
    p.setWorkingDirectory(QDir::tempPath());
    p.start(python, {QStringLiteral("-c"), QStringLiteral("import torch; torch.zeros(1)")});
    const bool has =
        p.waitForFinished(60000) && p.exitStatus() == QProcess::NormalExit && p.exitCode() == 0;
    known.emplace(python, has);
    return has;
}

} // namespace porttest
