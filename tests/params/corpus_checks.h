#pragma once

// The lossless-editing checks run on every corpus file, kept out of the Qt test so that the
// reasons come back as plain strings.

#include <string>
#include <vector>

struct EditCheckResult
{
    int scalars = 0; // value scalars edited
    int skipped = 0; // reached only through an alias or a duplicate key
    int noOps = 0;   // set to their own value, changing nothing
    int blocks = 0;  // block scalars edited in their own style
    std::vector<std::string> problems;
};

// (c): every value scalar, edited alone, changes only its own lines; all of them edited
// together and re-parsed read back as the new values. Setting a value to itself changes no
// byte, and a block scalar given a one-character change keeps its header (style, chomping,
// indentation, comment) and changes one line.
EditCheckResult checkEveryScalarEdit(const std::string& text, const std::string& name);

// The tree a document keeps after edits (patched in place for simple value edits) equals the
// tree of a fresh parse of the edited text. Empty when they agree, else the first difference.
std::string compareWithFreshParse(const std::string& text, const std::string& name,
                                  const std::vector<int>& nodesToEdit);
