#pragma once

// The YAML text beside the form: plain text with line numbers (diagnostics cite
// params.yaml:13:3) and highlighting, the syntax error underlined,
// and its own undo disabled so that Ctrl+Z goes to the document's history shared with the form.

#include "views/common/numbered_text_edit.h"

namespace portolan::views {

class YamlTextView : public NumberedTextEdit
{
    Q_OBJECT

public:
    explicit YamlTextView(QWidget* parent = nullptr);

    // Replaces the text without emitting userEdited, keeping the cursor and scroll position.
    void setYaml(const QString& text);
    // Marks a line (1-based) as the place of a syntax error; 0 clears it.
    void setErrorLine(int line);
    void goToLine(int line, int column);

signals:
    void userEdited(); // typed by the user (not setYaml)

private:
    bool m_settingText = false;
};

} // namespace portolan::views
