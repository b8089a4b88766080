// Params edits with undo: a document loads, a sequence of edits chosen by the input is applied,
// every edit is undone, and the text must be byte-identical to the input. Loading and not editing
// changes nothing either. The input is the YAML itself (seeds are real configs); the edits are
// drawn from a generator seeded with its hash, so every mutation also changes the edits.
#include "core/params/key_path.h"
#include "core/params/params_document.h"
#include "tests/fuzz/fuzz_input.h"

#include <cstdio>
#include <cstdlib>
#include <functional>
#include <random>

using namespace portolan;

namespace {
[[noreturn]] void mismatch(const char* what, const std::string& want, const std::string& got)
{
    std::fprintf(stderr, "%s: text differs (%zu vs %zu bytes)\n", what, want.size(), got.size());
    std::abort();
}
} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    const std::string original(reinterpret_cast<const char*>(data), size);
    params::ParamsDocument doc = params::ParamsDocument::fromText(original, "fuzz.yaml");
    if (doc.text() != original)
        mismatch("load", original, doc.text());
    std::minstd_rand pick(std::uint32_t(std::hash<std::string>{}(original)));
    const std::vector<std::string> values{"1",     "0.5",  "true", "",       "x: y",
                                          "\"q\"", "a\nb", "- 1",  "#c",     "1e-7",
                                          "null",  "&a",   "*a",   "{a: 1}", "[1, 2]"};
    int applied = 0;
    const int edits = 1 + int(pick() % 8);
    for (int e = 0; e < edits && doc.isParsed(); ++e) {
        const auto& nodes = doc.tree().nodes;
        if (nodes.empty())
            break;
        const int node = int(pick() % nodes.size());
        const std::string& value = values[pick() % values.size()];
        const std::uint64_t before = doc.revision();
        switch (pick() % 4) {
        case 0:
            doc.setScalarAt(node, value);
            break;
        case 1:
            doc.setScalarAt(node, value, params::ValueHint::String);
            break;
        case 2: {
            const auto& n = doc.tree().at(node);
            if (n.kind == params::NodeKind::Mapping)
                doc.addKey(params::formatKeyPath(params::pathOf(doc.tree(), node)),
                           "k" + std::to_string(applied), value);
            else if (n.kind == params::NodeKind::Sequence)
                doc.appendItem(params::formatKeyPath(params::pathOf(doc.tree(), node)), value);
            break;
        }
        default:
            doc.remove(params::formatKeyPath(params::pathOf(doc.tree(), node)));
            break;
        }
        if (doc.revision() != before)
            ++applied;
    }
    while (doc.canUndo())
        doc.undo();
    if (doc.text() != original)
        mismatch("undo", original, doc.text());
    while (doc.canRedo())
        doc.redo();
    return 0;
}
