// Schema validation of arbitrary YAML: the tree parser, layout detection and validation against
// every built-in schema. Diagnostics are fine; crashes, hangs and sanitizer reports are not.
#include "core/params/schema.h"
#include "core/params/validate.h"
#include "core/params/yaml_tree.h"
#include "tests/fuzz/fuzz_input.h"

using namespace portolan;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    static const params::SchemaSet schemas =
        params::loadSchemas(std::filesystem::path(fuzz::resources()) / "schemas");
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    auto tree = params::parseYamlTree(text, "fuzz.yaml");
    if (!tree)
        return 0;
    params::validateDetected(*tree.value, schemas, "fuzz.yaml");
    for (const auto& schema : schemas.schemas) {
        params::validate(*tree.value, schema, "fuzz.yaml");
        for (int i = 0; i < int(tree.value->nodes.size()) && i < 64; ++i)
            params::schemaFor(schema, *tree.value, i);
    }
    return 0;
}
