#pragma once

// A hostile project on disk, for the GUI's responsiveness test and benchmark: many files, a
// chain of nested folders, unreadable files and folders, and a params file that is a folder.

#include <QString>

namespace portolan::test {

struct HostileSize
{
    int files = 100000; // small Python and text files, spread over folders of 1,000
    int depth = 1000;   // folders nested this deep, one file at the bottom
    int unreadable = 50;
};

// Builds the project under `root` (which must exist and be empty). Returns false on a write error.
bool makeHostileProject(const QString& root, const HostileSize& size);
// Gives the unreadable parts their permissions back, so that the folder can be removed.
void unlockHostileProject(const QString& root);

} // namespace portolan::test
