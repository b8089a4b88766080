#pragma once

// Data files the original reads from its own folder (`torch.load('traindata.pt')`,
// `open('names.txt')`, `np.load(...)`, `pd.read_csv(...)`, or a path joined from `__file__`'s
// folder; the default of a flag read there, `open(args.input_file)`; the files a
// `glob.glob('data/*.txt')` pattern matches, and those a formatted path can name
// (`'data/%s-%s.txt' % (a, b)`); the path a project function hands on to one of
// these, `def find(p): return glob.glob(p)` called with one). The port runs from its own folder,
// so it needs them there too. What a porting engineer does, one rule for every target: a small
// file is copied into the port at the same place relative to the code that reads it; a large one
// stays where it is (Determined uploads the model-definition folder as the experiment's context,
// under 95 MB in all, and its documentation says to mount datasets instead), and so does an
// absolute path: a note says where the port expects it. A file the original's folder lacks but
// one of its scripts writes is named with that script.

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace portolan::analysis {
struct ProjectAnalysis;
}

namespace portolan::port {

struct PortResult;

struct DataFileRead
{
    std::string readBy;            // "train.py:47", where the read is
    std::string readingFile;       // "train.py"
    std::string written;           // the path as the code writes it
    std::string relative;          // relative to the project root ("" for an absolute path)
    bool fromScriptFolder = false; // joined from the folder of __file__
    bool absolute = false;
    bool exists = false; // in the original's folder
    std::uintmax_t bytes = 0;
    std::string writtenBy; // "generate_data.py:13" when a project file writes it, else ""
};

// Every read of a data file by a literal path (or a flag's default path) in the project's Python
// files, once per path.
std::vector<DataFileRead> dataFilesRead(const analysis::ProjectAnalysis& analysis);

// The files the original's dry run read from its folder (OriginalRun::filesRead) that `reads`
// does not name yet: however the code built their paths, the port needs them in its folder.
// More than kGlobFilesLimit of them are a data set: none is added, and the note returned says
// where the port expects them.
std::string addFilesRead(const std::filesystem::path& root,
                         const std::vector<std::string>& filesRead,
                         std::vector<DataFileRead>& reads);

// The size up to which a file is copied into the port, and all the copies together.
inline constexpr std::uintmax_t kDataFileCopyLimit = 8u << 20;
inline constexpr std::uintmax_t kDataFilesTotalLimit = 32u << 20;
// A file pattern (`glob.glob("data/*.txt")`) that matches more files than this is a dataset:
// noted, not copied file by file.
inline constexpr std::size_t kGlobFilesLimit = 200;

// Copies the small files `reads` names from `root` into `port` (files with their `from`), and
// writes a note for each one it does not copy, saying where the port expects it.
void addDataFiles(const std::vector<DataFileRead>& reads, const std::filesystem::path& root,
                  PortResult& port);

} // namespace portolan::port
