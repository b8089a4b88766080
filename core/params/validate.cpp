#include "core/params/validate.h"

#include "core/common/number_format.h"
#include "core/params/scalar_text.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>
#include <set>

namespace portolan::params {

int ValidationReport::count(Severity s) const
{
    return int(std::count_if(diagnostics.begin(), diagnostics.end(),
                             [s](const Diagnostic& d) { return d.severity == s; }));
}

namespace {
std::string lowered(std::string_view s)
{
    std::string out(s);
    for (char& c : out)
        c = char(std::tolower(static_cast<unsigned char>(c)));
    return out;
}

// Plain Levenshtein on already lower-cased text; `row` is reused between calls.
std::size_t distanceLowered(std::string_view a, std::string_view b, std::vector<std::size_t>& row)
{
    row.resize(b.size() + 1);
    for (std::size_t j = 0; j <= b.size(); ++j)
        row[j] = j;
    for (std::size_t i = 1; i <= a.size(); ++i) {
        std::size_t diag = row[0];
        row[0] = i;
        for (std::size_t j = 1; j <= b.size(); ++j) {
            const std::size_t up = row[j];
            row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
            diag = up;
        }
    }
    return row[b.size()];
}
} // namespace

std::size_t editDistance(std::string_view a, std::string_view b)
{
    std::vector<std::size_t> row;
    return distanceLowered(lowered(a), lowered(b), row);
}

std::string closestMatch(std::string_view word, const std::vector<std::string>& candidates)
{
    std::string best;
    std::size_t bestDistance = std::max<std::size_t>(2, word.size() / 3) + 1;
    const std::string w = lowered(word);
    std::vector<std::size_t> row;
    for (const auto& c : candidates) {
        // The length difference alone is a lower bound of the distance.
        const std::size_t lengthGap =
            c.size() > w.size() ? c.size() - w.size() : w.size() - c.size();
        if (lengthGap >= bestDistance)
            continue;
        const std::size_t d = distanceLowered(w, lowered(c), row);
        if (d < bestDistance) {
            bestDistance = d;
            best = c;
        }
    }
    return best;
}

namespace {

enum class Shape
{
    Null,
    Scalar,
    List,
    Map
};

bool equalsIgnoreCase(std::string_view a, std::string_view b)
{
    return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
               return std::tolower(static_cast<unsigned char>(x)) ==
                      std::tolower(static_cast<unsigned char>(y));
           });
}

class Validator
{
public:
    Validator(const YamlTree& tree, const Schema& schema, std::string file)
        : m_tree(tree), m_schema(schema), m_file(std::move(file))
    {}

    void check(int node, const SchemaNode& refOrNode, const std::string& path,
               std::vector<Diagnostic>& out, int depth = 0)
    {
        node = m_tree.deref(node);
        if (node < 0 || depth > 200)
            return;
        const SchemaNode& s = refOrNode.target();
        const YamlNode& n = m_tree.at(node);
        if (n.kind == NodeKind::Null) {
            if (refOrNode.nullable || s.nullable || m_schema.nullsAllowed ||
                s.type == SchemaType::Any || s.type == SchemaType::Null)
                return;
            report(out, Severity::Error, "params.type", node,
                   label(path) + "expected " + expected(s) + ", got null");
            return;
        }
        switch (s.type) {
        case SchemaType::Any:
            return;
        case SchemaType::Null:
            report(out, Severity::Error, "params.type", node,
                   label(path) + "expected null, got " + describe(node));
            return;
        case SchemaType::Int:
        case SchemaType::Float:
            checkNumber(node, s, path, out);
            return;
        case SchemaType::Bool:
            if (plainType(node) != PlainType::Bool)
                report(out, Severity::Error, "params.type", node,
                       label(path) + "expected true or false, got " + describe(node));
            return;
        case SchemaType::String:
        case SchemaType::Path:
            if (n.kind != NodeKind::Scalar || plainType(node) != PlainType::String)
                report(out, Severity::Error, "params.type", node,
                       label(path) + "expected " + expected(s) + ", got " + describe(node));
            return;
        case SchemaType::Enum:
            checkEnum(node, s, path, out);
            return;
        case SchemaType::List:
            checkList(node, s, path, out, depth);
            return;
        case SchemaType::Map:
            checkMap(node, s, path, out, depth);
            return;
        case SchemaType::OneOf:
            checkOneOf(node, s, path, out, depth);
            return;
        }
    }

private:
    static std::string label(const std::string& path) { return path.empty() ? "" : path + ": "; }

    PlainType plainType(int node) const
    {
        const YamlNode& n = m_tree.at(node);
        if (n.kind == NodeKind::Null)
            return PlainType::Null;
        if (n.kind != NodeKind::Scalar)
            return PlainType::String;
        if (n.tag == "tag:yaml.org,2002:str" || n.style != ScalarStyle::Plain)
            return PlainType::String;
        return resolvePlain(n.value);
    }

    Shape shapeOf(int node) const
    {
        switch (m_tree.at(node).kind) {
        case NodeKind::Null:
            return Shape::Null;
        case NodeKind::Mapping:
            return Shape::Map;
        case NodeKind::Sequence:
            return Shape::List;
        default:
            return Shape::Scalar;
        }
    }

    static bool shapeFits(Shape shape, const SchemaNode& refOrNode)
    {
        const SchemaNode& s = refOrNode.target();
        switch (s.type) {
        case SchemaType::Any:
            return true;
        case SchemaType::Map:
            return shape == Shape::Map;
        case SchemaType::List:
            return shape == Shape::List;
        case SchemaType::Null:
            return shape == Shape::Null;
        case SchemaType::OneOf:
            return std::any_of(s.options.begin(), s.options.end(),
                               [shape](const auto& o) { return shapeFits(shape, *o); });
        default:
            return shape == Shape::Scalar;
        }
    }

    std::string describe(int node) const
    {
        const YamlNode& n = m_tree.at(node);
        switch (n.kind) {
        case NodeKind::Mapping:
            return "a mapping";
        case NodeKind::Sequence:
            return "a list";
        case NodeKind::Null:
            return "null";
        default:
            break;
        }
        std::string v = n.value.size() > 40 ? n.value.substr(0, 37) + "..." : n.value;
        switch (plainType(node)) {
        case PlainType::Int:
            return "the integer " + v;
        case PlainType::Float:
            return "the number " + v;
        case PlainType::Bool:
            return "the boolean " + v;
        default:
            return "the string '" + v + "'";
        }
    }

    static std::string expected(const SchemaNode& refOrNode)
    {
        const SchemaNode& s = refOrNode.target();
        switch (s.type) {
        case SchemaType::Int:
            return "an integer";
        case SchemaType::Float:
            return "a number";
        case SchemaType::Bool:
            return "true or false";
        case SchemaType::String:
            return "a string";
        case SchemaType::Path:
            return "a path";
        case SchemaType::Enum:
            return "one of the listed values";
        case SchemaType::List:
            return "a list";
        case SchemaType::Map:
            return "a mapping";
        case SchemaType::Null:
            return "null";
        case SchemaType::Any:
            return "a value";
        case SchemaType::OneOf: {
            std::string out;
            for (std::size_t i = 0; i < s.options.size(); ++i)
                out += (i == 0                      ? ""
                        : i + 1 == s.options.size() ? " or "
                                                    : ", ") +
                       expected(*s.options[i]);
            return out;
        }
        }
        return "a value";
    }

    void report(std::vector<Diagnostic>& out, Severity sev, const char* code, int node,
                std::string message) const
    {
        Diagnostic d;
        d.severity = sev;
        d.code = code;
        d.message = std::move(message);
        d.location.file = m_file;
        if (node >= 0) {
            d.location.line = m_tree.at(node).line;
            d.location.column = m_tree.at(node).column;
        }
        out.push_back(std::move(d));
    }

    void checkNumber(int node, const SchemaNode& s, const std::string& path,
                     std::vector<Diagnostic>& out)
    {
        const PlainType t = plainType(node);
        const YamlNode& n = m_tree.at(node);
        const bool ok =
            t == PlainType::Int || (s.type == SchemaType::Float && t == PlainType::Float);
        if (!ok) {
            report(out, Severity::Error, "params.type", node,
                   label(path) + "expected " + expected(s) + ", got " + describe(node));
            return;
        }
        if (t == PlainType::Float && m_schema.pyyamlLoader &&
            n.value.find('.') == std::string::npos &&
            n.value.find_first_of("eE") != std::string::npos)
            report(out, Severity::Warning, "params.pyyaml-float", node,
                   label(path) + "PyYAML reads '" + n.value +
                       "' as a string, not a number; write it with a decimal point (" +
                       n.value.substr(0, n.value.find_first_of("eE")) + ".0" +
                       n.value.substr(n.value.find_first_of("eE")) + ")");
        std::string digits;
        for (char c : n.value)
            if (c != '_')
                digits += c;
        double v = 0;
        try {
            constexpr double inf = std::numeric_limits<double>::infinity();
            v = digits == ".inf" || digits == "+.inf" ? inf
                : digits == "-.inf"                   ? -inf
                                                      : std::stod(digits);
        } catch (...) {
            return; // hex, octal or nan: no range check
        }
        if ((s.min && v < *s.min) || (s.max && v > *s.max)) {
            std::string range = s.min && s.max ? "between " + fmt(*s.min) + " and " + fmt(*s.max)
                                : s.min        ? "at least " + fmt(*s.min)
                                               : "at most " + fmt(*s.max);
            report(out, Severity::Error, "params.range", node,
                   label(path) + n.value + " is out of range: it must be " + range);
        }
    }

    static std::string fmt(double v)
    {
        std::string s = std::to_string(v);
        if (s.find('.') != std::string::npos) {
            while (s.back() == '0')
                s.pop_back();
            if (s.back() == '.')
                s.pop_back();
        }
        return s;
    }

    void checkEnum(int node, const SchemaNode& s, const std::string& path,
                   std::vector<Diagnostic>& out)
    {
        const YamlNode& n = m_tree.at(node);
        if (n.kind != NodeKind::Scalar) {
            report(out, Severity::Error, "params.type", node,
                   label(path) + "expected one of " + joined(s.values) + ", got " + describe(node));
            return;
        }
        for (const auto& v : s.values)
            if (v == n.value || (s.caseInsensitive && equalsIgnoreCase(v, n.value)))
                return;
        const std::string near = closestMatch(n.value, s.values);
        report(out, Severity::Error, "params.enum", node,
               label(path) + "'" + n.value + "' is not one of " + joined(s.values) +
                   (near.empty() ? "" : "; did you mean '" + near + "'?"));
    }

    static std::string joined(const std::vector<std::string>& values)
    {
        std::string out;
        const std::size_t shown = std::min<std::size_t>(values.size(), 12);
        for (std::size_t i = 0; i < shown; ++i)
            out += (i ? ", " : "") + values[i];
        if (shown < values.size())
            out += ", ... (" + std::to_string(values.size()) + " in all)";
        return out;
    }

    void checkList(int node, const SchemaNode& s, const std::string& path,
                   std::vector<Diagnostic>& out, int depth)
    {
        const YamlNode& n = m_tree.at(node);
        if (n.kind != NodeKind::Sequence) {
            report(out, Severity::Error, "params.type", node,
                   label(path) + "expected a list, got " + describe(node));
            return;
        }
        if (n.children.size() < s.minItems)
            report(out, Severity::Error, "params.range", node,
                   label(path) + "needs at least " + format::counted(long(s.minItems), "item"));
        if (!s.items)
            return;
        for (std::size_t i = 0; i < n.children.size(); ++i)
            check(n.children[i], *s.items, path + "[" + std::to_string(i) + "]", out, depth + 1);
    }

    void checkMap(int node, const SchemaNode& s, const std::string& path,
                  std::vector<Diagnostic>& out, int depth)
    {
        const YamlNode& n = m_tree.at(node);
        if (n.kind != NodeKind::Mapping) {
            report(out, Severity::Error, "params.type", node,
                   label(path) + "expected a mapping, got " + describe(node));
            return;
        }
        std::vector<std::string> known;
        for (const auto& [k, _] : s.keys)
            known.push_back(k);
        std::set<std::string> seen;
        for (std::size_t i = 0; i < n.keys.size(); ++i) {
            const int keyNode = n.keys[i];
            const std::string& key = m_tree.at(keyNode).value;
            const int value = i < n.children.size() ? n.children[i] : -1;
            std::string sub = path;
            if (!sub.empty())
                sub += '.';
            sub += key;
            if (key == "<<")
                continue; // merged mappings are checked where they are defined
            if (!seen.insert(key).second)
                report(out, Severity::Warning, "params.duplicate-key", keyNode,
                       sub + ": the key appears twice; the later value wins");
            if (const SchemaNode* ks = s.key(key)) {
                const std::string& why =
                    ks->deprecated.empty() ? ks->target().deprecated : ks->deprecated;
                if (!why.empty()) {
                    std::string message = sub;
                    message += ": deprecated: ";
                    message += why;
                    report(out, Severity::Warning, "params.deprecated", keyNode,
                           std::move(message));
                }
                check(value, *ks, sub, out, depth + 1);
                continue;
            }
            if (s.additionalValues) {
                // e.g. Determined's hyperparameters: any name, each one checked
                check(value, *s.additionalValues, sub, out, depth + 1);
                continue;
            }
            if (s.additionalKeys == ExtraKeys::Allow)
                continue;
            const Severity sev = s.additionalKeys == ExtraKeys::Error     ? Severity::Error
                                 : s.additionalKeys == ExtraKeys::Warning ? Severity::Warning
                                                                          : Severity::Info;
            const std::string near = closestMatch(key, known);
            report(out, sev, "params.unknown-key", keyNode,
                   "unknown key '" + key + "'" + (path.empty() ? "" : " in " + path) +
                       (near.empty() ? "" : "; did you mean '" + near + "'?"));
        }
        for (const auto& [k, ks] : s.keys)
            if (ks->required && !seen.count(k) && m_tree.keyIndex(node, k) < 0 &&
                !mergedHas(node, k))
                report(out, Severity::Error, "params.required", node,
                       (path.empty() ? std::string("the file") : path) +
                           " is missing the required key '" + k + "'" +
                           (ks->describe().empty() ? "" : " (" + ks->describe() + ")"));
    }

    bool mergedHas(int map, const std::string& key) const
    {
        const int merge = m_tree.deref(m_tree.child(map, "<<"));
        return merge >= 0 && m_tree.at(merge).kind == NodeKind::Mapping &&
               m_tree.keyIndex(merge, key) >= 0;
    }

    void checkOneOf(int node, const SchemaNode& s, const std::string& path,
                    std::vector<Diagnostic>& out, int depth)
    {
        const Shape shape = shapeOf(node);
        std::vector<const SchemaNode*> fitting;
        for (const auto& o : s.options)
            if (shapeFits(shape, *o))
                fitting.push_back(o.get());
        std::vector<Diagnostic> firstTry;
        for (const SchemaNode* o : fitting) {
            std::vector<Diagnostic> attempt;
            check(node, *o, path, attempt, depth + 1);
            const bool clean = std::none_of(attempt.begin(), attempt.end(), [](const auto& d) {
                return d.severity == Severity::Error;
            });
            if (clean) {
                if (!o->deprecated.empty())
                    report(out, Severity::Warning, "params.deprecated", node,
                           label(path) + "deprecated form: " + o->deprecated);
                out.insert(out.end(), attempt.begin(), attempt.end());
                return;
            }
            if (firstTry.empty())
                firstTry = std::move(attempt);
        }
        if (fitting.size() == 1) { // the shape says which option was meant: its own errors
            out.insert(out.end(), firstTry.begin(), firstTry.end());
            return;
        }
        report(out, Severity::Error, "params.type", node,
               label(path) + "expected " + expected(s) + ", got " + describe(node));
    }

    const YamlTree& m_tree;
    const Schema& m_schema;
    std::string m_file;
};

} // namespace

const Schema* detectSchema(const YamlTree& tree, const SchemaSet& schemas)
{
    if (tree.root < 0 || tree.at(tree.root).kind != NodeKind::Mapping)
        return nullptr;
    const Schema* best = nullptr;
    std::size_t bestScore = 0;
    for (const auto& s : schemas.schemas) {
        const auto has = [&](const std::string& k) {
            return tree.keyIndex(tree.root, k) >= 0;
        };
        if (!std::all_of(s.detect.require.begin(), s.detect.require.end(), has))
            continue;
        if (std::any_of(s.detect.exclude.begin(), s.detect.exclude.end(), has))
            continue;
        std::size_t nested = 0;
        if (!s.detect.nestedKeys.empty()) {
            const YamlNode& root = tree.at(tree.root);
            for (int child : root.children) {
                const int m = tree.deref(child);
                if (m < 0 || tree.at(m).kind != NodeKind::Mapping)
                    continue;
                nested = std::max(
                    nested, std::size_t(std::count_if(
                                s.detect.nestedKeys.begin(), s.detect.nestedKeys.end(),
                                [&](const std::string& k) { return tree.keyIndex(m, k) >= 0; })));
            }
        }
        const std::size_t score =
            std::size_t(std::count_if(s.detect.keys.begin(), s.detect.keys.end(), has)) +
            s.detect.require.size() + nested;
        if (score >= s.detect.minMatches && score > bestScore) {
            best = &s;
            bestScore = score;
        }
    }
    return best;
}

ValidationReport validate(const YamlTree& tree, const Schema& schema, const std::string& fileName)
{
    ValidationReport r;
    r.schema = schema.name;
    if (schema.root) {
        Validator v(tree, schema, fileName);
        if (tree.root < 0) {
            Diagnostic d;
            d.code = "params.empty";
            d.message = "the file is empty";
            d.location.file = fileName;
            r.diagnostics.push_back(d);
        } else {
            v.check(tree.root, *schema.root, "", r.diagnostics);
        }
    }
    std::stable_sort(r.diagnostics.begin(), r.diagnostics.end(),
                     [](const Diagnostic& a, const Diagnostic& b) {
                         return std::pair(a.location.line, a.location.column) <
                                std::pair(b.location.line, b.location.column);
                     });
    return r;
}

ValidationReport validateDetected(const YamlTree& tree, const SchemaSet& schemas,
                                  const std::string& fileName)
{
    if (const Schema* s = detectSchema(tree, schemas)) {
        ValidationReport r = validate(tree, *s, fileName);
        r.detected = true;
        return r;
    }
    ValidationReport r;
    Diagnostic d;
    d.severity = Severity::Info;
    d.code = "params.unknown-layout";
    d.message = "not a layout Portolan knows (Model Zoo classic or trainer, Determined "
                "experiment); only the YAML syntax was checked";
    d.location.file = fileName;
    r.diagnostics.push_back(d);
    return r;
}

const SchemaNode* schemaFor(const Schema& schema, const YamlTree& tree, int node)
{
    if (!schema.root || node < 0)
        return nullptr;
    std::vector<int> chain;
    for (int n = node; n >= 0; n = tree.at(n).parent)
        chain.push_back(n);
    std::reverse(chain.begin(), chain.end());
    const SchemaNode* s = schema.root.get();
    auto pick = [&](const SchemaNode* cur, int yamlNode) -> const SchemaNode* {
        // In a one_of, the option whose shape fits the node in the file.
        while (cur && cur->target().type == SchemaType::OneOf) {
            cur = &cur->target();
            const NodeKind k =
                tree.at(tree.deref(yamlNode) < 0 ? yamlNode : tree.deref(yamlNode)).kind;
            const SchemaNode* chosen = nullptr;
            for (const auto& o : cur->options) {
                const SchemaType ot = o->target().type;
                const bool fits = (k == NodeKind::Mapping && ot == SchemaType::Map) ||
                                  (k == NodeKind::Sequence && ot == SchemaType::List) ||
                                  ((k == NodeKind::Scalar || k == NodeKind::Null) &&
                                   ot != SchemaType::Map && ot != SchemaType::List);
                if (fits) {
                    chosen = o.get();
                    break;
                }
            }
            if (!chosen)
                return cur;
            if (chosen->target().type != SchemaType::OneOf)
                return chosen;
            cur = chosen;
        }
        return cur;
    };
    for (std::size_t i = 1; i < chain.size() && s; ++i) {
        s = pick(s, chain[i - 1]);
        if (!s)
            return nullptr;
        const YamlNode& parent = tree.at(chain[i - 1]);
        const int child = chain[i];
        if (parent.kind == NodeKind::Mapping) {
            auto it = std::find(parent.children.begin(), parent.children.end(), child);
            if (it == parent.children.end())
                return nullptr; // a key node
            const std::string& key =
                tree.at(parent.keys[std::size_t(it - parent.children.begin())]).value;
            const SchemaNode& t = s->target();
            const SchemaNode* next = t.type == SchemaType::Map ? t.key(key) : nullptr;
            s = next ? next : (t.additionalValues ? t.additionalValues.get() : nullptr);
        } else if (parent.kind == NodeKind::Sequence) {
            const SchemaNode& t = s->target();
            s = t.type == SchemaType::List && t.items ? t.items.get() : nullptr;
        } else {
            return nullptr;
        }
    }
    return s ? pick(s, node) : nullptr;
}

} // namespace portolan::params
