#pragma once

// The compile panel's settings form: target, IPUs, micro-batch, gradient accumulation, replicas,
// precision, optimizer, recomputation, off-chip and sharded state, serialization, half partials,
// available memory proportion, inference, split and CS mode. Every edit emits changed(); the
// panel debounces it and re-simulates.

#include "core/sim/profile.h"

#include <QWidget>

class QCheckBox;
class QFormLayout;
class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QSpinBox;

namespace portolan::views {

class CompileSettings : public QWidget
{
    Q_OBJECT
public:
    explicit CompileSettings(QWidget* parent = nullptr);

    // The options, or an error (a malformed split) in `error`.
    sim::CompileOptions options(QString* error = nullptr) const;
    void setOptions(const sim::CompileOptions& o); // no changed() signal
    // Applies a remedy of the advice list as core defines it (sim::applyRemedy); false when it
    // does not apply to the current settings.
    bool applyRemedy(const std::string& id);
    void setSplit(const std::vector<int>& layersPerStage); // emits changed()
    // The project's guide suggests a target (core/guides: a guide's `target`). It is taken
    // unless the user picked one in the combo box since forgetTargetChoice(); no changed()
    // signal. True when the target changed.
    bool suggestTarget(const QString& id);
    void forgetTargetChoice() { m_targetChosen = false; }

signals:
    void changed();
    // "Find a configuration that fits": the panel searches (sim::findFittingConfiguration) and
    // puts the result back with setOptions.
    void findConfigurationRequested();

protected:
    void resizeEvent(QResizeEvent* event) override;

private:
    // The constructor's parts.
    void createTrainingFields();
    void createMemoryFields();
    void addRows(QFormLayout* form);
    void connectFields();
    void updateEnabled();
    void emitChanged();

    QComboBox* m_target = nullptr;
    QSpinBox* m_ipus = nullptr;
    QSpinBox* m_microBatch = nullptr;
    QSpinBox* m_gradAccum = nullptr;
    QSpinBox* m_replicas = nullptr;
    QComboBox* m_precision = nullptr;
    QComboBox* m_optimizer = nullptr;
    QComboBox* m_schedule = nullptr;
    QCheckBox* m_recompute = nullptr;
    QCheckBox* m_offChip = nullptr;
    QCheckBox* m_sharded = nullptr;
    QCheckBox* m_halfMomentum = nullptr;
    QCheckBox* m_halfPartials = nullptr;
    QCheckBox* m_inference = nullptr;
    QSpinBox* m_serialization = nullptr;
    QDoubleSpinBox* m_amp = nullptr;
    QLineEdit* m_split = nullptr;
    QLineEdit* m_ampPerStage = nullptr;       // "0.15,0.18,0.2,0.25" or empty
    QLineEdit* m_recomputePerStage = nullptr; // "0,1,1,1" or empty
    QComboBox* m_csMode = nullptr;
    QLabel* m_splitError = nullptr;
    QPushButton* m_find = nullptr;
    bool m_blocked = false;
    bool m_targetChosen = false; // the user picked the target: suggestions leave it alone
    // Carried from setOptions to options() (no control: the project's Options set it).
    int m_deviceIterations = 1;
};

} // namespace portolan::views
