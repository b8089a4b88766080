#pragma once

// Which files of a project are the port. Test code (a tests/ folder, test_*.py, *_test.py,
// conftest.py) deliberately runs reference loops on the CPU, and vendored code (third_party/,
// vendor/) is someone else's: neither is the training path, so checks report on them as notes
// at most, and the Overview lists them with the reason.
//
// The same holds for a script whose code never trains while another entry point of the
// project does (an inference, generation or data-preparation script next to the training
// script), and for the modules only such scripts use: the entry points are the scripts
// nothing imports, what they reach is followed through the resolution layer, and a script
// trains when a training step is reachable from it (autograd's backward, Keras' fit) or a
// hand-over to a vendor that trains (not poptorch.inferenceModel). That part needs the
// analysis (ProjectFacts::offTrainingPath, computed in port_scope.cpp).

#include <string>
#include <string_view>
#include <vector>

namespace portolan::analysis {

struct ProjectAnalysis;

// Why `path` (relative to the project root, '/' separators) is not part of the port, for a
// person ("test code (tests/)"); empty when it is part of it.
std::string outsidePortReason(std::string_view path);

// The files of a project that are not the port, grouped by reason, one line each for a person:
// "test code (tests/): 3 files (tests/a.py, tests/b.py, …)".
std::vector<std::string> describeOutsidePort(const std::vector<std::string>& paths);

// Both: by path (tests, vendored code), then off the training path (ProjectFacts).
std::string outsidePortReason(const ProjectAnalysis& a, std::string_view path);
std::vector<std::string> describeOutsidePort(const ProjectAnalysis& a);

} // namespace portolan::analysis
