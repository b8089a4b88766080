#pragma once

#include <QTreeView>

namespace portolan::views {

class ProjectFilesModel;

// The project's files, for the project dock. Activating a file asks to open it.
class ProjectTreeView : public QTreeView
{
    Q_OBJECT
public:
    explicit ProjectTreeView(ProjectFilesModel* model, QWidget* parent = nullptr);
    // How a name is cut when the column is too narrow: at its start when it shares a start of
    // four or more characters with a neighbour (params_gpt2_large.yaml beside
    // params_gpt2_small.yaml), else in the middle.
    static Qt::TextElideMode elideModeFor(const QModelIndex& index);
    // The name as drawn in `width` pixels: whole when it fits; else the part that tells it from
    // its neighbours stays (the start it shares with them gives way first, then the end it
    // shares, keeping the extension): "RELEASE_2.1.0__…__bert_base_MSL128.yaml" beside
    // "…bert_large_MSL128.yaml" reads "…base_MSL128.yaml", or "…base…yaml" when narrower
    // (issue 26: siblings all read "…arams.yaml").
    static QString shownName(const QString& name, const QStringList& neighbours,
                             const QFontMetrics& fm, int width);
    // shownName for a flattened path's short name ("folder › stem"): the folders give way
    // before the stem. A null string for a name without " › ".
    static QString shownShortName(const QString& name, const QStringList& neighbours,
                                  const QFontMetrics& fm, int width);

signals:
    void fileActivated(const QString& relativePath);

protected:
    void resizeEvent(QResizeEvent* event) override;

private:
    void fitColumns();
};

} // namespace portolan::views
