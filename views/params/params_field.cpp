#include "views/params/params_field.h"

#include "core/params/schema.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QDoubleValidator>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QIcon>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QSpinBox>
#include <QStyle>
#include <QToolButton>
#include <climits>
#include <cmath>
#include <functional>

namespace portolan::views {

using params::SchemaType;

namespace {
QString tooltipFor(const FieldSpec& spec)
{
    if (!spec.schema)
        return QObject::tr("%1\nNot described by the schema: edited as raw YAML").arg(spec.path);
    const params::SchemaNode& t = spec.schema->target();
    QString tip = spec.path;
    if (!spec.schema->describe().empty())
        tip += "\n" + QString::fromStdString(spec.schema->describe());
    if (t.min || t.max)
        tip += "\n" + QObject::tr("Range: %1 to %2")
                          .arg(t.min ? QString::number(*t.min) : QStringLiteral("-inf"),
                               t.max ? QString::number(*t.max) : QStringLiteral("+inf"));
    if (t.hasDefault || spec.schema->hasDefault)
        tip += "\n" +
               QObject::tr("Default: %1")
                   .arg(QString::fromStdString(spec.schema->hasDefault ? spec.schema->defaultValue
                                                                       : t.defaultValue));
    if (!t.deprecated.empty() || !spec.schema->deprecated.empty())
        tip += "\n" + QObject::tr("Deprecated: %1")
                          .arg(QString::fromStdString(spec.schema->deprecated.empty()
                                                          ? t.deprecated
                                                          : spec.schema->deprecated));
    return tip;
}
constexpr int kFloatDecimals = 6;

// A spin box shows kFloatDecimals decimals: 1e-7 would read as 0 and be written back as 0.
bool fitsSpinBox(double v)
{
    if (!std::isfinite(v) || std::abs(v) >= 1e12)
        return false;
    const double scale = std::pow(10.0, kFloatDecimals);
    return std::abs(std::round(v * scale) / scale - v) <= std::abs(v) * 1e-12;
}

// A multi-line value (a literal block, a folded command) cannot be shown in one line.
class TextField : public QPlainTextEdit
{
public:
    using QPlainTextEdit::QPlainTextEdit;
    std::function<void()> onLeave;

protected:
    void focusOutEvent(QFocusEvent* e) override
    {
        QPlainTextEdit::focusOutEvent(e);
        if (onLeave)
            onLeave();
    }
};
} // namespace

ParamsField::ParamsField(const FieldSpec& spec, QWidget* parent)
    : QWidget(parent), m_path(spec.path), m_original(spec.value)
{
    auto* layout = new QHBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    m_tooltip = tooltipFor(spec);
    const SchemaType type = spec.schema ? spec.schema->target().type : SchemaType::Any;
    bool ok = true;
    switch (type) {
    case SchemaType::Int: {
        const long long v = spec.value.toLongLong(&ok);
        // A spin box holds an int; a larger count (steps, tokens) is typed as text.
        if ((ok && v >= INT_MIN && v <= INT_MAX) || spec.isNull)
            buildInt(spec);
        else
            buildLine(spec, ok ? FieldHint::Auto : FieldHint::Raw, false);
        break;
    }
    case SchemaType::Float: {
        const double v = spec.value.toDouble(&ok);
        const bool scientific = spec.schema->target().scientific || spec.schema->scientific;
        if (ok || spec.isNull)
            buildFloat(spec, scientific || !fitsSpinBox(v));
        else
            buildLine(spec, FieldHint::Raw, false);
        break;
    }
    case SchemaType::Bool:
        buildBool(spec);
        break;
    case SchemaType::Enum:
        buildEnum(spec);
        break;
    case SchemaType::Path:
        buildLine(spec, FieldHint::String, true);
        break;
    case SchemaType::String:
        buildLine(spec, FieldHint::String, false);
        break;
    default:
        buildLine(spec, FieldHint::Raw, false);
        break;
    }
    m_editor->setToolTip(m_tooltip);
    m_editor->setObjectName(m_path);
}

void ParamsField::buildInt(const FieldSpec& spec)
{
    m_kind = "int";
    auto* box = new QSpinBox(this);
    const params::SchemaNode& t = spec.schema->target();
    const long long v = spec.value.toLongLong();
    // The range comes from the schema, widened to show an out-of-range value as it is.
    const double lo = std::min(t.min ? *t.min : double(INT_MIN), double(v));
    const double hi = std::max(t.max ? *t.max : double(INT_MAX), double(v));
    box->setRange(int(std::max(lo, double(INT_MIN))), int(std::min(hi, double(INT_MAX))));
    box->setValue(int(v));
    box->setSpecialValueText(spec.isNull ? QStringLiteral("(default)") : QString());
    // Leaving the box without changing the number keeps the file's spelling (`+5`, `0x10`).
    connect(box, &QSpinBox::editingFinished, this, [this, box, shown = box->value()]() mutable {
        if (box->value() == shown)
            return;
        shown = box->value();
        emitEdited(QString::number(box->value()), FieldHint::Auto);
    });
    layout()->addWidget(box);
    m_editor = box;
}

void ParamsField::buildFloat(const FieldSpec& spec, bool scientific)
{
    const params::SchemaNode& t = spec.schema->target();
    const double v = spec.value.toDouble();
    if (scientific) {
        // Learning rates span orders of magnitude: a spin box step makes no sense there.
        m_kind = "scientific";
        auto* edit = new QLineEdit(spec.value, this);
        auto* validator = new QDoubleValidator(edit);
        validator->setNotation(QDoubleValidator::ScientificNotation);
        if (t.min)
            validator->setBottom(std::min(*t.min, v));
        edit->setValidator(validator);
        edit->setPlaceholderText(QStringLiteral("1.0e-4"));
        connect(edit, &QLineEdit::editingFinished, this,
                [this, edit] { emitEdited(edit->text(), FieldHint::Auto); });
        layout()->addWidget(edit);
        m_editor = edit;
        return;
    }
    m_kind = "float";
    auto* box = new QDoubleSpinBox(this);
    box->setDecimals(kFloatDecimals);
    box->setRange(std::min(t.min ? *t.min : -1e12, v), std::max(t.max ? *t.max : 1e12, v));
    box->setSingleStep(t.max && t.min && *t.max - *t.min <= 1 ? 0.01 : 1.0);
    box->setValue(v);
    // The text `1.0` and the number 1 are the same value: only a changed number is written,
    // so leaving the box does not turn `1.0` into `1`.
    connect(box, &QDoubleSpinBox::editingFinished, this,
            [this, box, shown = box->value()]() mutable {
                if (box->value() == shown)
                    return;
                shown = box->value();
                emitEdited(QString::number(box->value(), 'g', 12), FieldHint::Auto);
            });
    layout()->addWidget(box);
    m_editor = box;
}

void ParamsField::buildBool(const FieldSpec& spec)
{
    m_kind = "bool";
    auto* box = new QCheckBox(this);
    const QString v = spec.value.toLower();
    box->setChecked(v == "true" || v == "yes" || v == "on");
    // Keep the file's spelling (PyYAML configs often write True/False).
    const bool capital = !spec.value.isEmpty() && spec.value.front().isUpper();
    connect(box, &QCheckBox::toggled, this, [this, capital](bool on) {
        QString text = on ? QStringLiteral("true") : QStringLiteral("false");
        if (capital)
            text[0] = text[0].toUpper();
        emitEdited(text, FieldHint::Auto);
    });
    layout()->addWidget(box);
    m_editor = box;
}

void ParamsField::buildEnum(const FieldSpec& spec)
{
    m_kind = "enum";
    auto* combo = new QComboBox(this);
    const auto& values = spec.schema->target().values;
    int current = -1;
    for (const auto& v : values) {
        const QString q = QString::fromStdString(v);
        combo->addItem(q);
        if (q == spec.value || (spec.schema->target().caseInsensitive &&
                                q.compare(spec.value, Qt::CaseInsensitive) == 0))
            current = combo->count() - 1;
    }
    if (current < 0 && !spec.isNull) { // keep an unknown value visible, marked as such
        combo->insertItem(0, spec.value + tr(" (not in the schema)"), spec.value);
        current = 0;
    }
    combo->setCurrentIndex(current);
    connect(combo, &QComboBox::activated, this, [this, combo](int index) {
        const QVariant data = combo->itemData(index);
        emitEdited(data.isValid() ? data.toString() : combo->itemText(index), FieldHint::String);
    });
    layout()->addWidget(combo);
    m_editor = combo;
}

void ParamsField::buildText(const FieldSpec& spec, FieldHint hint)
{
    m_kind = "text";
    auto* edit = new TextField(spec.value, this);
    const int lines = std::min(int(spec.value.count('\n')) + 1, 8);
    edit->setFixedHeight(edit->fontMetrics().lineSpacing() * lines +
                         2 * int(edit->document()->documentMargin()) + 6);
    edit->setLineWrapMode(QPlainTextEdit::NoWrap);
    edit->onLeave = [this, edit, hint] {
        emitEdited(edit->toPlainText(), hint);
    };
    layout()->addWidget(edit);
    m_editor = edit;
}

void ParamsField::buildLine(const FieldSpec& spec, FieldHint hint, bool browse)
{
    if (!browse && spec.value.contains('\n')) {
        buildText(spec, hint);
        return;
    }
    m_kind = browse                    ? "path"
             : hint == FieldHint::Raw  ? "raw"
             : hint == FieldHint::Auto ? "number"
                                       : "string";
    auto* edit = new QLineEdit(spec.isNull ? QString() : spec.value, this);
    if (spec.isNull)
        edit->setPlaceholderText(QStringLiteral("null"));
    // A text longer than its box reads from its start ("DiT-2B with patch size…"), not its end
    // where the cursor was left; a path keeps its end (the file's name).
    if (!browse)
        edit->setCursorPosition(0);
    connect(edit, &QLineEdit::editingFinished, this,
            [this, edit, hint] { emitEdited(edit->text(), hint); });
    layout()->addWidget(edit);
    m_editor = edit;
    if (browse) {
        auto* button = new QToolButton(this);
        button->setText(QStringLiteral("…"));
        button->setToolTip(tr("Choose a file or folder"));
        connect(button, &QToolButton::clicked, this, [this, edit] {
            const QString chosen =
                QFileDialog::getOpenFileName(this, tr("Choose %1").arg(m_path), edit->text());
            if (!chosen.isEmpty()) {
                edit->setText(chosen);
                emitEdited(chosen, FieldHint::String);
            }
        });
        layout()->addWidget(button);
    }
}

void ParamsField::emitEdited(const QString& value, FieldHint hint)
{
    if (value == m_original)
        return;
    m_original = value;
    emit edited(m_path, value, int(hint));
}

// An icon beside the editor rather than a style sheet on it: a style sheet border switches a
// spin box to style-sheet rendering and squashes its arrows, and one red colour said "error"
// for deprecation warnings too.
void ParamsField::setProblem(const FieldProblem& problem)
{
    m_problem = problem.message;
    const QString& reason = problem.message;
    m_editor->setToolTip(reason.isEmpty() ? m_tooltip : reason + "\n\n" + m_tooltip);
    if (reason.isEmpty()) {
        if (m_problemIcon)
            m_problemIcon->hide();
        return;
    }
    if (!m_problemIcon) {
        m_problemIcon = new QLabel(this);
        m_problemIcon->setObjectName(QStringLiteral("problemIcon"));
        m_problemIcon->setSizePolicy(QSizePolicy::Fixed,
                                     QSizePolicy::Fixed); // the editor keeps the width
        layout()->addWidget(m_problemIcon);
    }
    const int size = style()->pixelMetric(QStyle::PM_SmallIconSize, nullptr, this);
    const QIcon icon = style()->standardIcon(problem.isError ? QStyle::SP_MessageBoxCritical
                                                             : QStyle::SP_MessageBoxWarning,
                                             nullptr, this);
    m_problemIcon->setPixmap(icon.pixmap(size, size));
    m_problemIcon->setToolTip(reason);
    m_problemIcon->setAccessibleName(problem.isError ? tr("Error: %1").arg(reason)
                                                     : tr("Warning: %1").arg(reason));
    m_problemIcon->show();
}

} // namespace portolan::views
