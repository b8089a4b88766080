#pragma once
// The project as the port reads it when the training is started from another module than the
// one that holds it (caller_view.cpp).

#include "core/analysis/analysis.h"

#include <filesystem>
#include <optional>
#include <string>

namespace portolan::port::detail {

struct CallerView
{
    std::string entry;  // the file that imports and starts the training (main.py)
    std::string module; // the module holding the training (work.py)
    std::string text;   // the entry with the module's code in place of its import
    // Another of the project's files imports the module too: the port carries it then, else the
    // entry holding its code is all the port needs of it.
    bool importedElsewhere = false;
};

// nullopt when the training is not started from another module.
std::optional<CallerView> callerView(const analysis::ProjectAnalysis& a);
// The project's Python files, the entry replaced by the view, in a new temporary folder.
std::optional<std::filesystem::path> writeCallerView(const analysis::ProjectAnalysis& a,
                                                     const CallerView& view);

} // namespace portolan::port::detail
