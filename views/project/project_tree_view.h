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

signals:
    void fileActivated(const QString& relativePath);

protected:
    void resizeEvent(QResizeEvent* event) override;

private:
    void fitColumns();
};

} // namespace portolan::views
