#pragma once

// Which files of a project are the port. Test code (a tests/ folder, test_*.py, *_test.py,
// conftest.py) deliberately runs reference loops on the CPU, and vendored code (third_party/,
// vendor/) is someone else's: neither is the training path, so checks report on them as notes
// at most, and the Overview lists them with the reason.

#include <string>
#include <string_view>

namespace portolan::analysis {

// Why `path` (relative to the project root, '/' separators) is not part of the port, for a
// person ("test code (tests/)"); empty when it is part of it.
std::string outsidePortReason(std::string_view path);

} // namespace portolan::analysis
