#include "views/runtime/run_event.h"

#include <QHash>
#include <QJsonDocument>

namespace portolan::views {

namespace {

std::optional<double> number(const QJsonObject& o, const char* key)
{
    const QJsonValue v = o.value(QLatin1String(key));
    return v.isDouble() ? std::optional<double>(v.toDouble()) : std::nullopt;
}

RunEvent::Kind kindOf(const QString& type)
{
    static const QHash<QString, RunEvent::Kind> kinds{
        {QStringLiteral("started"), RunEvent::Kind::Started},
        {QStringLiteral("step"), RunEvent::Kind::Step},
        {QStringLiteral("eval"), RunEvent::Kind::Eval},
        {QStringLiteral("checkpoint"), RunEvent::Kind::Checkpoint},
        {QStringLiteral("warning"), RunEvent::Kind::Warning},
        {QStringLiteral("info"), RunEvent::Kind::Info},
        {QStringLiteral("arguments"), RunEvent::Kind::Arguments},
        {QStringLiteral("capture"), RunEvent::Kind::Capture},
        {QStringLiteral("output"), RunEvent::Kind::Output},
        {QStringLiteral("finished"), RunEvent::Kind::Finished},
        {QStringLiteral("failed"), RunEvent::Kind::Failed},
    };
    return kinds.value(type, RunEvent::Kind::Other);
}

} // namespace

RunEvent RunEvent::fromJson(const QJsonObject& o)
{
    RunEvent e;
    if (!o.value("event").isString() || o.value("event").toString().isEmpty())
        return e;
    e.type = o.value("event").toString();
    e.kind = kindOf(e.type);
    e.json = o;
    e.time = o.value("time").toDouble();
    e.step = o.value("step").toInteger();
    e.loss = number(o, e.kind == Kind::Finished ? "final_loss" : "loss");
    e.lr = number(o, "lr");
    e.samplesPerSec = number(o, "samples_per_sec");
    e.accuracy = number(o, "accuracy");
    e.maxSteps = o.value("max_steps").toInteger();
    e.parameters = o.value("parameters").toInteger();
    e.model = o.value("model").toString();
    e.message = o.value("message").toString();
    e.code = o.value("code").toString();
    e.diagnostic = o.value("diagnostic").toString();
    e.reason = o.value("reason").toString();
    e.path = o.value("path").toString();
    e.stream = o.value("stream").toString();
    e.text = o.value("text").toString();
    return e;
}

RunEvent RunEvent::parse(const QByteArray& line)
{
    const QByteArray trimmed = line.trimmed();
    if (!trimmed.startsWith('{'))
        return {};
    QJsonParseError error;
    const QJsonDocument doc = QJsonDocument::fromJson(trimmed, &error);
    if (error.error != QJsonParseError::NoError || !doc.isObject())
        return {};
    return fromJson(doc.object());
}

RunEvent RunEvent::makeStep(qint64 step, double loss, double time)
{
    return fromJson(QJsonObject{{"event", "step"}, {"step", step}, {"loss", loss}, {"time", time}});
}

} // namespace portolan::views
