#include "views/runs/run_event.h"

#include "core/runtime/run_event.h"

#include <QJsonDocument>

namespace portolan::views {

namespace {

RunEvent::Kind kindOf(runtime::RunEventKind k)
{
    using K = runtime::RunEventKind;
    switch (k) {
    case K::Started:
        return RunEvent::Kind::Started;
    case K::Step:
        return RunEvent::Kind::Step;
    case K::Eval:
        return RunEvent::Kind::Eval;
    case K::Checkpoint:
        return RunEvent::Kind::Checkpoint;
    case K::Warning:
        return RunEvent::Kind::Warning;
    case K::Info:
        return RunEvent::Kind::Info;
    case K::Arguments:
        return RunEvent::Kind::Arguments;
    case K::Capture:
        return RunEvent::Kind::Capture;
    case K::Output:
        return RunEvent::Kind::Output;
    case K::Finished:
        return RunEvent::Kind::Finished;
    case K::Failed:
        return RunEvent::Kind::Failed;
    case K::Submitted:
    case K::Job:
    case K::Other:
        break;
    }
    return RunEvent::Kind::Other;
}

QString q(const std::string& s)
{
    return QString::fromStdString(s);
}

// The core reader decides (core/runtime/run_event.h); this only converts to Qt types.
RunEvent fromCore(const Result<runtime::RunEvent>& read, const QJsonObject& json)
{
    RunEvent e;
    if (!read) {
        if (read.error.code == "events.field-type")
            e.refusal = q(read.error.message);
        return e;
    }
    const runtime::RunEvent& c = *read.value;
    e.kind = kindOf(c.kind);
    e.type = q(c.type);
    e.time = c.time;
    e.step = c.step;
    e.loss = c.loss;
    e.lr = c.lr;
    e.samplesPerSec = c.samplesPerSec;
    e.accuracy = c.accuracy;
    e.maxSteps = c.maxSteps;
    e.parameters = c.parameters;
    e.model = q(c.model);
    e.message = q(c.message);
    e.code = q(c.code);
    e.diagnostic = q(c.diagnostic);
    e.reason = q(c.reason);
    e.path = q(c.path);
    e.stream = q(c.stream);
    e.text = q(c.text);
    e.json = json;
    return e;
}

} // namespace

RunEvent RunEvent::fromJson(const QJsonObject& o)
{
    const QByteArray text = QJsonDocument(o).toJson(QJsonDocument::Compact);
    return fromCore(runtime::parseRunEvent(std::string_view(text.constData(), text.size())), o);
}

RunEvent RunEvent::parse(const QByteArray& line)
{
    const QByteArray trimmed = line.trimmed();
    if (!trimmed.startsWith('{'))
        return {};
    const auto read = runtime::parseRunEvent(std::string_view(trimmed.constData(), trimmed.size()));
    if (!read)
        return fromCore(read, {});
    return fromCore(read, QJsonDocument::fromJson(trimmed).object());
}

RunEvent RunEvent::makeStep(qint64 step, double loss, double time)
{
    return fromJson(QJsonObject{{"event", "step"}, {"step", step}, {"loss", loss}, {"time", time}});
}

} // namespace portolan::views
