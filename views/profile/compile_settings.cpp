#include "views/profile/compile_settings.h"

#include "core/sim/layer_split.h"
#include "core/sim/remedies.h"
#include "core/targets/target.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QVBoxLayout>
#include <algorithm>

namespace portolan::views {

namespace {

QSpinBox* spin(int lo, int hi, int value, QWidget* parent)
{
    auto* s = new QSpinBox(parent);
    s->setRange(lo, hi);
    s->setValue(value);
    s->setKeyboardTracking(false);
    return s;
}

void selectData(QComboBox* box, const QString& data)
{
    const int i = box->findData(data);
    if (i >= 0)
        box->setCurrentIndex(i);
}

} // namespace

CompileSettings::CompileSettings(QWidget* parent) : QWidget(parent)
{
    auto* form = new QFormLayout(this);
    // In a narrow panel a label goes above its field rather than pushing the field out of view:
    // all labels at once (resizeEvent), since wrapping only the long ones left a form whose
    // fields started at two different places.
    form->setRowWrapPolicy(QFormLayout::WrapAllRows);
    createTrainingFields();
    createMemoryFields();
    addRows(form);
    connectFields();
    updateEnabled();
}

// The target and how the model trains: batch, replicas, precision, optimizer, schedule.
void CompileSettings::createTrainingFields()
{
    m_target = new QComboBox(this);
    m_target->setObjectName(QStringLiteral("target"));
    m_target->addItem(tr("IPU Mk2 (GC200)"), QStringLiteral("ipu-mk2"));
    m_target->addItem(tr("IPU Bow"), QStringLiteral("ipu-bow"));
    m_target->addItem(tr("IPU Mk1 (GC2)"), QStringLiteral("ipu-mk1"));
    m_target->addItem(tr("Cerebras CS-2"), QStringLiteral("cs-2"));
    m_target->addItem(tr("Cerebras CS-3"), QStringLiteral("cs-3"));
    m_ipus = spin(1, 1024, 1, this);
    m_ipus->setObjectName(QStringLiteral("ipus"));
    m_microBatch = spin(1, 65536, 1, this);
    m_microBatch->setObjectName(QStringLiteral("microBatch"));
    m_gradAccum = spin(1, 65536, 1, this);
    m_gradAccum->setObjectName(QStringLiteral("gradAccum"));
    m_replicas = spin(1, 1024, 1, this);
    m_replicas->setObjectName(QStringLiteral("replicas"));
    m_precision = new QComboBox(this);
    m_precision->setObjectName(QStringLiteral("precision"));
    m_precision->addItem(QStringLiteral("fp32"), QStringLiteral("fp32"));
    m_precision->addItem(QStringLiteral("fp16"), QStringLiteral("fp16"));
    m_precision->addItem(tr("mixed"), QStringLiteral("mixed"));
    m_optimizer = new QComboBox(this);
    for (const char* o : {"sgd", "sgd-momentum", "adam", "adamw", "lamb"})
        m_optimizer->addItem(QString::fromLatin1(o), QString::fromLatin1(o));
    m_schedule = new QComboBox(this);
    m_schedule->addItem(QStringLiteral("1F1B"), QStringLiteral("1f1b"));
    m_schedule->addItem(QStringLiteral("GPipe"), QStringLiteral("gpipe"));
}

// What changes the memory a model needs, and the search for a configuration that fits.
void CompileSettings::createMemoryFields()
{
    m_recompute = new QCheckBox(tr("Recompute activations"), this);
    m_recompute->setObjectName(QStringLiteral("recompute"));
    m_offChip = new QCheckBox(tr("Optimizer state off chip"), this);
    m_offChip->setObjectName(QStringLiteral("offChip"));
    m_sharded = new QCheckBox(tr("Shard optimizer state"), this);
    m_sharded->setObjectName(QStringLiteral("sharded"));
    m_sharded->setToolTip(tr("Shard the optimizer state across replicas"));
    // Short, so that it does not set the narrow pane's width; the tooltip says which state.
    m_halfMomentum = new QCheckBox(tr("Momentum in fp16"), this);
    m_halfMomentum->setObjectName(QStringLiteral("halfMomentum"));
    m_halfMomentum->setToolTip(tr("Keep the optimizer's first-order momentum in fp16 (Graphcore's "
                                  "half-precision momentum): half the bytes of that state"));
    m_halfPartials = new QCheckBox(tr("Half partials"), this);
    m_halfPartials->setObjectName(QStringLiteral("halfPartials"));
    m_inference = new QCheckBox(tr("Inference (forward only)"), this);
    m_inference->setObjectName(QStringLiteral("inference"));
    m_serialization = spin(1, 64, 1, this);
    m_serialization->setObjectName(QStringLiteral("serialization"));
    m_serialization->setToolTip(
        tr("Serialize the vocabulary embedding and its tied head into this many chunks"));
    m_amp = new QDoubleSpinBox(this);
    m_amp->setObjectName(QStringLiteral("availableMemoryProportion"));
    m_amp->setRange(0.01, 1.0);
    m_amp->setSingleStep(0.05);
    m_amp->setValue(0.6);
    m_amp->setKeyboardTracking(false);
    m_amp->setToolTip(tr("Share of tile memory matmul plans may use for temporaries "
                         "(availableMemoryProportion; Poplar's default is 0.6)"));
    m_ampPerStage = new QLineEdit(this);
    m_ampPerStage->setObjectName(QStringLiteral("ampPerStage"));
    m_ampPerStage->setPlaceholderText(tr("the same on every IPU (or per IPU: 0.15,0.18,0.2,0.25)"));
    m_recomputePerStage = new QLineEdit(this);
    m_recomputePerStage->setObjectName(QStringLiteral("recomputePerStage"));
    m_recomputePerStage->setPlaceholderText(tr("as checked above (or per IPU: 0,1,1,1)"));
    m_split = new QLineEdit(this);
    m_split->setObjectName(QStringLiteral("split"));
    m_split->setPlaceholderText(tr("automatic (or layers per IPU: 3,7,7,7; 0 = embeddings only)"));
    m_splitError = new QLabel(this);
    m_splitError->setWordWrap(true);
    m_splitError->hide();
    m_csMode = new QComboBox(this);
    m_csMode->setObjectName(QStringLiteral("csMode"));
    m_csMode->addItem(tr("chosen by size"), QString());
    m_csMode->addItem(tr("layer-pipelined"), QStringLiteral("layer-pipelined"));
    m_csMode->addItem(tr("weight-streaming"), QStringLiteral("weight-streaming"));

    m_find = new QPushButton(tr("Find a configuration that fits"), this);
    m_find->setObjectName(QStringLiteral("findConfiguration"));
    m_find->setToolTip(tr("Search IPU count, split, micro-batch, recomputation, optimizer "
                          "placement and precision for the fewest IPUs that fit (keeps the "
                          "batch)"));
}

void CompileSettings::addRows(QFormLayout* form)
{
    form->addRow(tr("Target"), m_target);
    // Under the target, where a 700-pixel window still shows it: at the end of the form it
    // fell below the fold.
    form->addRow(m_find);
    form->addRow(tr("IPUs per replica"), m_ipus);
    form->addRow(tr("Micro-batch"), m_microBatch);
    form->addRow(tr("Gradient accumulation"), m_gradAccum);
    form->addRow(tr("Replicas"), m_replicas);
    form->addRow(tr("Precision"), m_precision);
    form->addRow(tr("Optimizer"), m_optimizer);
    form->addRow(tr("Schedule"), m_schedule);
    // The check boxes in one column across the form, at every width: as rows of their own,
    // the form wrapped only the widest under the labels, away from the others.
    auto* checks = new QWidget(this);
    checks->setObjectName(QStringLiteral("checks"));
    auto* checkColumn = new QVBoxLayout(checks);
    checkColumn->setContentsMargins(0, 0, 0, 0);
    checkColumn->setSpacing(form->verticalSpacing());
    for (QCheckBox* c :
         {m_recompute, m_offChip, m_sharded, m_halfMomentum, m_halfPartials, m_inference}) {
        c->setParent(checks);
        checkColumn->addWidget(c);
    }
    form->addRow(checks);
    form->addRow(tr("Embedding serialization"), m_serialization);
    form->addRow(tr("Available memory proportion"), m_amp);
    form->addRow(tr("Proportion per IPU"), m_ampPerStage);
    form->addRow(tr("Recompute per IPU"), m_recomputePerStage);
    form->addRow(tr("Split"), m_split);
    form->addRow(QString(), m_splitError);
    form->addRow(tr("CS mode"), m_csMode);
}

void CompileSettings::connectFields()
{
    connect(m_find, &QPushButton::clicked, this, &CompileSettings::findConfigurationRequested);

    // activated() is the user's pick only, never a programmatic selection.
    connect(m_target, &QComboBox::activated, this, [this] { m_targetChosen = true; });
    for (QComboBox* box : {m_target, m_precision, m_optimizer, m_schedule, m_csMode})
        connect(box, &QComboBox::currentIndexChanged, this, &CompileSettings::emitChanged);
    for (QSpinBox* s : {m_ipus, m_microBatch, m_gradAccum, m_replicas, m_serialization})
        connect(s, &QSpinBox::valueChanged, this, &CompileSettings::emitChanged);
    for (QCheckBox* c :
         {m_recompute, m_offChip, m_sharded, m_halfMomentum, m_halfPartials, m_inference})
        connect(c, &QCheckBox::toggled, this, &CompileSettings::emitChanged);
    connect(m_amp, &QDoubleSpinBox::valueChanged, this, &CompileSettings::emitChanged);
    connect(m_split, &QLineEdit::textChanged, this, &CompileSettings::emitChanged);
    connect(m_ampPerStage, &QLineEdit::textChanged, this, &CompileSettings::emitChanged);
    connect(m_recomputePerStage, &QLineEdit::textChanged, this, &CompileSettings::emitChanged);
}

void CompileSettings::emitChanged()
{
    updateEnabled();
    QString error;
    options(&error);
    m_splitError->setText(error);
    m_splitError->setVisible(!error.isEmpty());
    if (!m_blocked && error.isEmpty())
        emit changed();
}

void CompileSettings::updateEnabled()
{
    const bool cs = m_target->currentData().toString().startsWith(QLatin1String("cs"));
    for (QWidget* w :
         {static_cast<QWidget*>(m_ipus), static_cast<QWidget*>(m_split),
          static_cast<QWidget*>(m_schedule), static_cast<QWidget*>(m_sharded),
          static_cast<QWidget*>(m_halfMomentum), static_cast<QWidget*>(m_halfPartials),
          static_cast<QWidget*>(m_serialization), static_cast<QWidget*>(m_amp),
          static_cast<QWidget*>(m_ampPerStage), static_cast<QWidget*>(m_recomputePerStage)})
        w->setEnabled(!cs);
    m_csMode->setEnabled(cs);
}

sim::CompileOptions CompileSettings::options(QString* error) const
{
    sim::CompileOptions o;
    o.target = m_target->currentData().toString().toStdString();
    o.ipus = m_ipus->value();
    o.training.microBatch = m_microBatch->value();
    o.training.gradAccum = m_gradAccum->value();
    o.training.replicas = m_replicas->value();
    o.training.precision =
        sim::precisionFromName(m_precision->currentData().toString().toStdString())
            .value_or(sim::Precision::Fp32);
    o.training.optimizer =
        sim::optimizerFromName(m_optimizer->currentData().toString().toStdString())
            .value_or(sim::Optimizer::Sgd);
    o.training.schedule = sim::scheduleFromName(m_schedule->currentData().toString().toStdString())
                              .value_or(sim::Schedule::OneFOneB);
    o.training.recompute = m_recompute->isChecked();
    o.training.optimizerOffChip = m_offChip->isChecked();
    o.training.replicatedTensorSharding = m_sharded->isChecked();
    o.training.halfFirstOrderMomentum = m_halfMomentum->isChecked();
    o.training.halfPartials = m_halfPartials->isChecked();
    o.training.inference = m_inference->isChecked();
    o.training.serializationFactor = m_serialization->value();
    o.training.availableMemoryProportion = m_amp->value();
    o.csMode = m_csMode->currentData().toString().toStdString();
    o.deviceIterations = m_deviceIterations;
    // Per-IPU lists: the core's parser, so the GUI accepts what portolan-cli does.
    std::string stageError;
    if (const QString amp = m_ampPerStage->text().trimmed(); !amp.isEmpty()) {
        if (auto v = sim::parseStageValues(amp.toStdString(), 0.01, 1.0, &stageError))
            o.training.availableMemoryProportionPerStage = *v;
        else if (error)
            *error = tr("Proportion per IPU: %1").arg(QString::fromStdString(stageError));
    }
    if (const QString rc = m_recomputePerStage->text().trimmed(); !rc.isEmpty()) {
        auto v = sim::parseStageValues(rc.toStdString(), 0, 1, &stageError);
        if (v && std::all_of(v->begin(), v->end(), [](double x) { return x == 0 || x == 1; })) {
            for (double x : *v)
                o.training.recomputePerStage.push_back(x != 0 ? 1 : 0);
        } else if (error) {
            *error = tr("Recompute per IPU: %1")
                         .arg(v ? tr("each value is 0 or 1") : QString::fromStdString(stageError));
        }
    }
    const QString split = m_split->text().trimmed();
    if (!split.isEmpty()) {
        const auto parsed = sim::LayerSplit::parse(split.toStdString());
        if (!parsed) {
            if (error)
                *error = QString::fromStdString(parsed.error.message);
        } else {
            o.split = parsed.value->perStage();
            if (error && int(o.split.size()) != o.ipus)
                *error = tr("the split has %1 stages but there are %2 IPUs")
                             .arg(o.split.size())
                             .arg(o.ipus);
        }
    }
    return o;
}

void CompileSettings::setOptions(const sim::CompileOptions& o)
{
    m_blocked = true;
    const QSignalBlocker b1(m_target), b2(m_precision), b3(m_optimizer), b4(m_schedule),
        b5(m_csMode), b6(m_ipus), b7(m_microBatch), b8(m_gradAccum), b9(m_replicas),
        b10(m_recompute), b11(m_offChip), b12(m_split), b13(m_sharded), b14(m_halfPartials),
        b15(m_inference), b16(m_serialization), b17(m_amp), b18(m_ampPerStage),
        b19(m_recomputePerStage), b20(m_halfMomentum);
    selectData(m_target, QString::fromStdString(o.target));
    m_deviceIterations = o.deviceIterations;
    m_ipus->setValue(o.ipus);
    m_microBatch->setValue(o.training.microBatch);
    m_gradAccum->setValue(o.training.gradAccum);
    m_replicas->setValue(o.training.replicas);
    selectData(m_precision, QString::fromUtf8(sim::precisionName(o.training.precision).data()));
    selectData(m_optimizer, QString::fromUtf8(sim::optimizerName(o.training.optimizer).data()));
    selectData(m_schedule, QString::fromUtf8(sim::scheduleName(o.training.schedule).data()));
    m_recompute->setChecked(o.training.recompute);
    m_offChip->setChecked(o.training.optimizerOffChip);
    m_sharded->setChecked(o.training.replicatedTensorSharding);
    m_halfMomentum->setChecked(o.training.halfFirstOrderMomentum);
    m_halfPartials->setChecked(o.training.halfPartials);
    m_inference->setChecked(o.training.inference);
    m_serialization->setValue(o.training.serializationFactor);
    m_amp->setValue(o.training.availableMemoryProportion);
    m_ampPerStage->setText(
        QString::fromStdString(sim::stageValuesText(o.training.availableMemoryProportionPerStage)));
    m_recomputePerStage->setText(
        QString::fromStdString(sim::stageValuesText(o.training.recomputePerStage)));
    QStringList split;
    for (int n : o.split)
        split << QString::number(n);
    m_split->setText(split.join(QLatin1Char(',')));
    selectData(m_csMode, QString::fromStdString(o.csMode));
    m_blocked = false;
    updateEnabled();
}

bool CompileSettings::suggestTarget(const QString& id)
{
    const int index = m_target->findData(id);
    if (m_targetChosen || index < 0 || index == m_target->currentIndex())
        return false;
    {
        const QSignalBlocker block(m_target);
        m_target->setCurrentIndex(index);
    }
    updateEnabled();
    return true;
}

void CompileSettings::setSplit(const std::vector<int>& layersPerStage)
{
    QStringList split;
    for (int n : layersPerStage)
        split << QString::number(n);
    {
        const QSignalBlocker block(m_ipus);
        m_ipus->setValue(int(layersPerStage.size()));
    }
    m_split->setText(split.join(QLatin1Char(','))); // emits changed()
}

bool CompileSettings::applyRemedy(const std::string& id)
{
    QString error;
    const sim::CompileOptions current = options(&error);
    auto target = targets::loadTarget(current.target);
    if (!target)
        return false;
    const auto changed = sim::applyRemedy(current, id, *target.value);
    if (!changed)
        return false;
    setOptions(*changed);
    emitChanged();
    return true;
}

void CompileSettings::resizeEvent(QResizeEvent* event)
{
    QWidget::resizeEvent(event);
    // Labels beside their fields only when every row has room for its label and its field; the
    // form's minimum width follows the policy, so the choice is stable once made.
    auto* form = qobject_cast<QFormLayout*>(layout());
    if (!form)
        return;
    int label = 0, field = 0;
    for (int row = 0; row < form->rowCount(); ++row) {
        if (const QLayoutItem* l = form->itemAt(row, QFormLayout::LabelRole))
            label = std::max(label, l->sizeHint().width());
        if (const QLayoutItem* f = form->itemAt(row, QFormLayout::FieldRole))
            field = std::max(field, f->minimumSize().width());
    }
    const QMargins m = form->contentsMargins();
    const int needed =
        m.left() + m.right() + label + std::max(0, form->horizontalSpacing()) + field;
    const auto policy = width() < needed ? QFormLayout::WrapAllRows : QFormLayout::DontWrapRows;
    if (form->rowWrapPolicy() != policy)
        form->setRowWrapPolicy(policy);
}

} // namespace portolan::views
