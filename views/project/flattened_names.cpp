#include "views/project/flattened_names.h"

#include <QHash>
#include <vector>

namespace portolan::views {

namespace {

const QString kSeparator = QStringLiteral("__");
const QString kJoin = QStringLiteral(" › ");

QString extensionOf(const QString& last)
{
    const int dot = last.lastIndexOf(QLatin1Char('.'));
    return dot > 0 ? last.mid(dot) : QString();
}

} // namespace

QStringList flattenedShortNames(const QStringList& names)
{
    std::vector<QStringList> parts(std::size_t(names.size()));
    // How often each folder name comes at each distance from the end, over the flattened names:
    // one that most of them share ("configs") tells nothing.
    std::vector<QHash<QString, int>> seen;
    int flattened = 0;
    QString extension;
    bool oneExtension = true;
    for (int i = 0; i < names.size(); ++i) {
        QStringList segments = names[i].split(kSeparator);
        if (segments.size() < 3)
            continue;
        const QString ext = extensionOf(segments.back());
        oneExtension = oneExtension && (flattened == 0 || ext == extension);
        extension = ext;
        ++flattened;
        if (seen.size() < std::size_t(segments.size()))
            seen.resize(std::size_t(segments.size()));
        for (int k = 2; k <= segments.size(); ++k)
            ++seen[std::size_t(k - 1)][segments[segments.size() - k]];
        parts[std::size_t(i)] = std::move(segments);
    }
    QStringList out;
    QHash<QString, QList<int>> byShort;
    for (int i = 0; i < names.size(); ++i) {
        const QStringList& segments = parts[std::size_t(i)];
        if (segments.isEmpty()) {
            out << QString();
            continue;
        }
        QString stem = segments.back();
        if (oneExtension && !extension.isEmpty())
            stem.chop(extension.size());
        QString folder;
        for (int k = 2; k <= segments.size() && folder.isEmpty(); ++k) {
            const QString& s = segments[segments.size() - k];
            const bool shared = flattened >= 3 && seen[std::size_t(k - 1)].value(s) * 2 > flattened;
            if (!shared)
                folder = s;
        }
        const QString name = folder.isEmpty() || stem.contains(folder, Qt::CaseInsensitive)
                                 ? stem
                                 : folder + kJoin + stem;
        byShort[name] << i;
        out << name;
    }
    // Names that still read the same: the first folder where they differ goes in front.
    for (auto it = byShort.cbegin(); it != byShort.cend(); ++it) {
        const QList<int>& same = it.value();
        if (same.size() < 2)
            continue;
        for (const int i : same) {
            const QStringList& mine = parts[std::size_t(i)];
            for (int s = 0; s + 1 < mine.size(); ++s) {
                bool differs = false;
                for (const int j : same) {
                    const QStringList& other = parts[std::size_t(j)];
                    differs = differs || (j != i && (s >= other.size() - 1 || other[s] != mine[s]));
                }
                if (differs) {
                    out[i] = mine[s] + kJoin + out[i];
                    break;
                }
            }
        }
    }
    return out;
}

} // namespace portolan::views
