#pragma once

#include "core/common/diagnostic.h"

#include <string_view>
#include <vector>

struct TSTree; // tree-sitter's, from <tree_sitter/api.h>

namespace portolan::python {

// The version of the tree-sitter-python grammar compiled into core, and the language ABI it uses.
std::string_view grammarVersion();
int grammarLanguageVersion();

// Syntax errors in a Python source, each at line:column (1-based). tree-sitter recovers from
// errors, so a file with mistakes still parses; this lists where the ERROR and MISSING nodes are.
std::vector<Diagnostic> syntaxErrors(std::string_view source, const std::string& fileName);
// The same for a tree already parsed (the index parses once and uses this).
std::vector<Diagnostic> syntaxErrors(const TSTree* tree, const std::string& fileName);

} // namespace portolan::python
