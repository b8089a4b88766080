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

signals:
    void fileActivated(const QString& relativePath);

protected:
    void resizeEvent(QResizeEvent* event) override;

private:
    void fitColumns();
};

} // namespace portolan::views
