// The schemas in resources/schemas: they load, detect their layouts, validate with positioned
// findings, and the Determined schema agrees with Determined's own JSON Schemas.
#include "core/params/params_document.h"
#include "core/params/validate.h"

#include <QDir>
#include <QTest>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

using namespace portolan;
using namespace portolan::params;

namespace {

std::set<std::string> ourTypes(const SchemaNode& refOrNode)
{
    const SchemaNode& n = refOrNode.target();
    std::set<std::string> out;
    switch (n.type) {
    case SchemaType::Int:
        out.insert("integer");
        break;
    case SchemaType::Float:
        out.insert("number");
        break;
    case SchemaType::Bool:
        out.insert("boolean");
        break;
    case SchemaType::String:
    case SchemaType::Path:
    case SchemaType::Enum:
        out.insert("string");
        break;
    case SchemaType::List:
        out.insert("array");
        break;
    case SchemaType::Map:
        out.insert("object");
        break;
    case SchemaType::Null:
        out.insert("null");
        break;
    case SchemaType::Any:
        out.insert("any");
        break;
    case SchemaType::OneOf:
        for (const auto& o : n.options)
            if (o->deprecated.empty()) // old forms we still accept with a warning
                for (const auto& t : ourTypes(*o))
                    out.insert(t);
        break;
    }
    return out;
}

std::set<std::string> theirTypes(const nlohmann::json& p)
{
    std::set<std::string> out;
    if (p.contains("enum")) {
        for (const auto& v : p["enum"])
            out.insert(v.is_null() ? "null" : "string");
    }
    if (p.contains("type")) {
        if (p["type"].is_array())
            for (const auto& t : p["type"])
                out.insert(t.get<std::string>());
        else
            out.insert(p["type"].get<std::string>());
    }
    return out;
}

nlohmann::json loadJson(const QString& path)
{
    std::ifstream in(path.toStdString());
    return nlohmann::json::parse(in, nullptr, false);
}

struct Finding
{
    Severity severity;
    std::string code;
    int line;
    int column;
};

} // namespace

class TestParamsSchema : public QObject
{
    Q_OBJECT

private slots:
    void builtinSchemasLoad();
    void badSchemaIsPositioned();
    void detection_data();
    void detection();
    void findings_data();
    void findings();
    void schemaForNodes();
    void didYouMean();
    void determinedAgreesWithJsonSchema_data();
    void determinedAgreesWithJsonSchema();

private:
    SchemaSet m_set = loadBuiltinSchemas();
};

void TestParamsSchema::builtinSchemasLoad()
{
    for (const auto& e : m_set.errors)
        qWarning("%s", e.toString().c_str());
    QVERIFY(m_set.errors.empty());
    for (const char* name : {"modelzoo-classic", "modelzoo-trainer", "determined-experiment",
                             "graphcore-application"}) {
        const Schema* s = m_set.find(name);
        QVERIFY2(s, name);
        QVERIFY(s->root);
        QVERIFY(!s->title.empty());
    }
}

void TestParamsSchema::badSchemaIsPositioned()
{
    auto s = parseSchema("name: x\nroot:\n  type: map\n  keys:\n    a: {type: integr}\n", "x.yaml");
    QVERIFY(!s);
    QCOMPARE(s.error.location.line, 5);
    QVERIFY(QString::fromStdString(s.error.message).contains("integr"));
    auto r = parseSchema("name: x\nroot: {ref: nowhere}\n", "x.yaml");
    QVERIFY(!r);
    QVERIFY(QString::fromStdString(r.error.message).contains("nowhere"));
}

void TestParamsSchema::detection_data()
{
    QTest::addColumn<QByteArray>("yaml");
    QTest::addColumn<QString>("schema");
    QTest::addRow("classic") << QByteArray("train_input: {}\nmodel: {}\noptimizer: {}\n")
                             << "modelzoo-classic";
    QTest::addRow("trainer") << QByteArray("trainer:\n  init: {}\n") << "modelzoo-trainer";
    QTest::addRow("determined") << QByteArray("searcher: {name: single}\nentrypoint: m:T\n")
                                << "determined-experiment";
    // Named configurations (Graphcore applications): the execution keys one level down,
    // through a merge of the defaults.
    QTest::addRow("graphcore named configurations")
        << QByteArray("defaults: &defaults\n  ipus_per_replica: 4\n  precision: \"16.16\"\n"
                      "tiny:\n  <<: *defaults\n  micro_batch_size: 2\n  layers_per_ipu: [1, 1]\n")
        << "graphcore-application";
    QTest::addRow("one execution key is not enough")
        << QByteArray("settings:\n  micro_batch_size: 2\n  colour: red\n") << "";
    QTest::addRow("unknown") << QByteArray("setup: {}\nprocessing: {}\n") << "";
    QTest::addRow("not a mapping") << QByteArray("- 1\n- 2\n") << "";
}

void TestParamsSchema::detection()
{
    QFETCH(QByteArray, yaml);
    QFETCH(QString, schema);
    auto doc = ParamsDocument::fromText(yaml.toStdString());
    const Schema* s = detectSchema(doc.tree(), m_set);
    QCOMPARE(QString::fromStdString(s ? s->name : ""), schema);
}

void TestParamsSchema::findings_data()
{
    QTest::addColumn<QString>("schema");
    QTest::addColumn<QByteArray>("yaml");
    QTest::addColumn<QString>("code");
    QTest::addColumn<int>("severity");
    QTest::addColumn<int>("line");
    QTest::addColumn<int>("column");
    QTest::addColumn<QString>("messagePart");
    const QByteArray classic = "train_input:\n  batch_size: 64\n"
                               "model:\n  hidden_size: 256\n"
                               "optimizer:\n  optimizer_type: adamw\n  learning_rate: 0.001\n"
                               "runconfig:\n  max_steps: 100\n";
    auto with = [&](const char* from, const char* to) {
        QByteArray b = classic;
        b.replace(from, to);
        return b;
    };
    const int E = int(Severity::Error), W = int(Severity::Warning), I = int(Severity::Info);
    QTest::addRow("type error") << "modelzoo-classic" << with("64", "big") << "params.type" << E
                                << 2 << 15 << "expected an integer";
    QTest::addRow("out of range") << "modelzoo-classic" << with("64", "0") << "params.range" << E
                                  << 2 << 15 << "at least 1";
    QTest::addRow("enum with suggestion") << "modelzoo-classic" << with("adamw", "adamx")
                                          << "params.enum" << E << 6 << 19 << "did you mean";
    QTest::addRow("enum case-insensitive ok")
        << "modelzoo-classic" << with("adamw", "ADAMW") << "" << E << 0 << 0 << "";
    QTest::addRow("unknown key did you mean")
        << "modelzoo-classic" << with("max_steps", "max_stpes") << "params.unknown-key" << W << 9
        << 3 << "did you mean 'max_steps'";
    QTest::addRow("unknown model key is info")
        << "modelzoo-classic" << with("hidden_size", "my_knob") << "params.unknown-key" << I << 4
        << 3 << "unknown key 'my_knob'";
    QTest::addRow("missing required section")
        << "modelzoo-classic" << with("runconfig:\n  max_steps: 100\n", "") << "params.required"
        << E << 1 << 1 << "runconfig";
    QTest::addRow("learning-rate schedule list")
        << "modelzoo-classic"
        << with("learning_rate: 0.001",
                "learning_rate:\n    - scheduler: Linear\n      initial_learning_rate: 0.0\n"
                "      end_learning_rate: 0.001\n      total_iters: 100\n"
                "    - scheduler: CosineDecay\n      initial_learning_rate: 0.001\n"
                "      end_learning_rate: -1.0\n      total_iters: 900")
        << "params.range" << E << 14 << 26 << "at least 0";
    QTest::addRow("unknown scheduler")
        << "modelzoo-classic"
        << with("learning_rate: 0.001", "learning_rate:\n    - scheduler: Cosinus\n")
        << "params.enum" << E << 8 << 18 << "not one of";
    QTest::addRow("pyyaml float") << "modelzoo-classic" << with("0.001", "1e-3")
                                  << "params.pyyaml-float" << W << 7 << 18 << "1.0e-3";
    const QByteArray det = "name: x\nsearcher:\n  name: single\n  metric: loss\n"
                           "  max_length:\n    batches: 100\nresources:\n  slots_per_trial: 2\n"
                           "entrypoint: model_def:Trial\n";
    auto detWith = [&](const char* from, const char* to) {
        QByteArray b = det;
        b.replace(from, to);
        return b;
    };
    QTest::addRow("determined deprecated key")
        << "determined-experiment" << det + "records_per_epoch: 5000\n"
        << "params.deprecated" << W << 10 << 1 << "records_per_epoch";
    QTest::addRow("determined unknown top-level key is an error")
        << "determined-experiment" << det + "hyperparamters: {}\n"
        << "params.unknown-key" << E << 10 << 1 << "did you mean 'hyperparameters'";
    QTest::addRow("determined searcher name")
        << "determined-experiment" << detWith("single", "asha") << "params.enum" << E << 3 << 9
        << "not one of";
    QTest::addRow("determined priority range")
        << "determined-experiment" << detWith("slots_per_trial: 2", "priority: 120")
        << "params.range" << E << 8 << 13 << "between 1 and 99";
    QTest::addRow("determined length unit")
        << "determined-experiment" << detWith("batches: 100", "steps: 100") << "params.unknown-key"
        << E << 6 << 5 << "unknown key 'steps'";
    QTest::addRow("determined hyperparameter range")
        << "determined-experiment"
        << det + "hyperparameters:\n  lr:\n    type: log\n    minval: low\n"
        << "params.type" << E << 13 << 13 << "expected a number";
}

void TestParamsSchema::findings()
{
    QFETCH(QString, schema);
    QFETCH(QByteArray, yaml);
    QFETCH(QString, code);
    QFETCH(int, severity);
    QFETCH(int, line);
    QFETCH(int, column);
    QFETCH(QString, messagePart);
    auto doc = ParamsDocument::fromText(yaml.toStdString(), "p.yaml");
    QVERIFY(doc.isParsed());
    const Schema* s = m_set.find(schema.toStdString());
    QVERIFY(s);
    QCOMPARE(detectSchema(doc.tree(), m_set), s);
    const ValidationReport r = validate(doc.tree(), *s, "p.yaml");
    QString all;
    for (const auto& d : r.diagnostics)
        all += "\n  " + QString::fromStdString(d.toString());
    if (code.isEmpty()) {
        QVERIFY2(r.errors() == 0, qPrintable(all));
        return;
    }
    bool found = false;
    for (const auto& d : r.diagnostics) {
        if (d.code != code.toStdString() ||
            !QString::fromStdString(d.message).contains(messagePart))
            continue;
        found = true;
        QCOMPARE(int(d.severity), severity);
        QCOMPARE(d.location.line, line);
        QCOMPARE(d.location.column, column);
        QCOMPARE(d.location.file, std::string("p.yaml"));
        QVERIFY2(QString::fromStdString(d.message).contains(messagePart), d.message.c_str());
    }
    QVERIFY2(found, qPrintable("no " + code + " in:" + all));
}

void TestParamsSchema::schemaForNodes()
{
    auto doc = ParamsDocument::fromText("optimizer:\n  optimizer_type: sgd\n  learning_rate:\n"
                                        "    - scheduler: Linear\n      total_iters: 10\n"
                                        "model:\n  nonlinearity: relu\n  custom: 1\n");
    const Schema* s = m_set.find("modelzoo-classic");
    const SchemaNode* opt = schemaFor(*s, doc.tree(), doc.find("optimizer.optimizer_type"));
    QVERIFY(opt);
    QCOMPARE(opt->target().type, SchemaType::Enum);
    QVERIFY(!opt->describe().empty());
    const SchemaNode* iters =
        schemaFor(*s, doc.tree(), doc.find("optimizer.learning_rate[0].total_iters"));
    QVERIFY(iters);
    QCOMPARE(iters->target().type, SchemaType::Int);
    const SchemaNode* lr = schemaFor(*s, doc.tree(), doc.find("optimizer.learning_rate"));
    QVERIFY(lr);
    QCOMPARE(lr->target().type, SchemaType::List);
    QCOMPARE(schemaFor(*s, doc.tree(), doc.find("model.custom")), nullptr);
    QCOMPARE(schemaFor(*s, doc.tree(), doc.find("model.nonlinearity"))->target().type,
             SchemaType::Enum);
}

void TestParamsSchema::didYouMean()
{
    QCOMPARE(editDistance("learning_rate", "lerning_rate"), std::size_t(1));
    QCOMPARE(closestMatch("lerning_rate", {"learning_rate", "momentum"}),
             std::string("learning_rate"));
    QCOMPARE(closestMatch("zzz", {"learning_rate", "momentum"}), std::string());
}

void TestParamsSchema::determinedAgreesWithJsonSchema_data()
{
    QTest::addColumn<QString>("section");
    QTest::addColumn<QStringList>("jsonFiles");
    QTest::addRow("top level") << "" << QStringList{"experiment.json"};
    QTest::addRow("searcher") << "searcher"
                              << QStringList{
                                     "searcher-single.json",      "searcher-random.json",
                                     "searcher-grid.json",        "searcher-adaptive-asha.json",
                                     "searcher-custom.json",      "searcher-async-halving.json",
                                     "searcher-adaptive.json",    "searcher-adaptive-simple.json",
                                     "searcher-sync-halving.json"};
    QTest::addRow("resources") << "resources" << QStringList{"resources.json"};
    QTest::addRow("optimizations") << "optimizations" << QStringList{"optimizations.json"};
    QTest::addRow("profiling") << "profiling" << QStringList{"profiling.json"};
    QTest::addRow("reproducibility") << "reproducibility" << QStringList{"reproducibility.json"};
    QTest::addRow("environment") << "environment" << QStringList{"environment.json"};
    QTest::addRow("bind mount") << "bind_mounts[]" << QStringList{"bind-mount.json"};
    QTest::addRow("checkpoint storage")
        << "checkpoint_storage"
        << QStringList{"shared-fs.json", "s3.json", "gcs.json", "azure.json", "directory.json"};
}

void TestParamsSchema::determinedAgreesWithJsonSchema()
{
    QFETCH(QString, section);
    QFETCH(QStringList, jsonFiles);
    const QByteArray corpus = qgetenv("PORTOLAN_CORPUS");
    if (corpus.isEmpty())
        QSKIP("PORTOLAN_CORPUS is not set; Determined's JSON Schemas are in the corpus");
    const QDir dir(QString::fromLocal8Bit(corpus) + "/determined-expconf-schema");
    const Schema* ours = m_set.find("determined-experiment");
    QVERIFY(ours);
    const SchemaNode* node = ours->root.get();
    if (section.endsWith("[]")) {
        node = node->key(section.chopped(2).toStdString());
        QVERIFY(node);
        node = node->target().items.get();
    } else if (!section.isEmpty()) {
        node = node->key(section.toStdString());
    }
    QVERIFY(node);
    const SchemaNode& map = node->target();
    QCOMPARE(map.type, SchemaType::Map);

    // Per key, the union over the files (searchers differ: max_length is an int in some).
    std::set<std::string> theirKeys;
    std::map<std::string, std::set<std::string>> types;
    std::map<std::string, nlohmann::json> props;
    std::map<std::string, std::set<std::string>> mixedBounds;
    for (const QString& f : jsonFiles) {
        const nlohmann::json j = loadJson(dir.filePath(f));
        QVERIFY2(j.is_object() && j.contains("properties"), qPrintable(f));
        for (const auto& [key, prop] : j["properties"].items()) {
            theirKeys.insert(key);
            if (key == "name" && prop.contains("const"))
                continue; // the searcher's name selects the file; checked as our enum below
            QVERIFY2(map.key(key),
                     qPrintable(f + ": our schema lacks '" + QString::fromStdString(key) + "'"));
            if (!prop.is_object() || (!prop.contains("type") && !prop.contains("enum")))
                continue; // `true`: defined by a union elsewhere
            for (const auto& t : theirTypes(prop))
                types[key].insert(t);
            // A bound that only some searchers have (max_trials <= 2000 for adaptive_simple)
            // is not one our single searcher mapping can state: compare bounds all files share.
            for (const char* bound : {"minimum", "maximum"}) {
                if (props.count(key) && props[key].value(bound, nlohmann::json()) !=
                                            prop.value(bound, nlohmann::json()))
                    mixedBounds[key].insert(bound);
            }
            props[key] = prop;
        }
        if (f.startsWith("searcher-")) { // each searcher file's name is in our enum
            const auto name = j["properties"]["name"]["const"].get<std::string>();
            const auto& values = map.key("name")->target().values;
            QVERIFY2(std::find(values.begin(), values.end(), name) != values.end(), name.c_str());
        }
    }
    int compared = 0;
    for (auto& [key, theirs] : types) {
        const SchemaNode* mine = map.key(key);
        const nlohmann::json& prop = props[key];
        const bool theyAllowNull = theirs.erase("null") > 0;
        std::set<std::string> ourSet = ourTypes(*mine);
        ourSet.erase("null");
        if (ourSet.count("any"))
            continue;
        QVERIFY2(ourSet == theirs,
                 qPrintable("types of '" + QString::fromStdString(key) + "' differ"));
        QCOMPARE(theyAllowNull, mine->nullable || mine->target().nullable ||
                                    mine->target().type == SchemaType::Null);
        if (prop.contains("minimum") && !mixedBounds[key].count("minimum")) {
            QVERIFY2(mine->target().min.has_value(), key.c_str());
            QCOMPARE(*mine->target().min, prop["minimum"].get<double>());
        }
        if (prop.contains("maximum") && !mixedBounds[key].count("maximum")) {
            QVERIFY2(mine->target().max.has_value(), key.c_str());
            QCOMPARE(*mine->target().max, prop["maximum"].get<double>());
        }
        if (prop.contains("enum") && mine->target().type == SchemaType::Enum) {
            std::set<std::string> vals;
            for (const auto& v : prop["enum"])
                if (!v.is_null())
                    vals.insert(v.get<std::string>());
            const auto& ourValues = mine->target().values;
            QCOMPARE(std::set<std::string>(ourValues.begin(), ourValues.end()), vals);
        }
        ++compared;
    }
    // We invent no keys: anything not in their schema must be marked deprecated.
    for (const auto& [key, mine] : map.keys)
        if (!theirKeys.count(key))
            QVERIFY2(!mine->deprecated.empty(),
                     qPrintable("'" + QString::fromStdString(key) +
                                "' is not in Determined's schema and not marked deprecated"));
    QVERIFY(compared > 0);
}

QTEST_GUILESS_MAIN(TestParamsSchema)
#include "test_params_schema.moc"
