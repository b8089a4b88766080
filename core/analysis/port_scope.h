#pragma once

// Which files of a project are the port. Test code (a tests/ folder, test_*.py, *_test.py,
// conftest.py) deliberately runs reference loops on the CPU, and vendored code (third_party/,
// vendor/) is someone else's: neither is the training path, so checks report on them as notes
// at most, and the Overview lists them with the reason.

#include <string>
#include <string_view>
#include <vector>

namespace portolan::analysis {

// Why `path` (relative to the project root, '/' separators) is not part of the port, for a
// person ("test code (tests/)"); empty when it is part of it.
std::string outsidePortReason(std::string_view path);

// The files of a project that are not the port, grouped by reason, one line each for a person:
// "test code (tests/): 3 files (tests/a.py, tests/b.py, …)".
std::vector<std::string> describeOutsidePort(const std::vector<std::string>& paths);

} // namespace portolan::analysis
