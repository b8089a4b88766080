// The Profile's layout: the settings column (the model's source, the params file and named
// configuration, the compile form, the status) beside its pages, and what links them.
#include "views/common/action_texts.h"
#include "views/common/eliding_combo_box.h"
#include "views/common/form_scroll_area.h"
#include "views/common/status_line.h"
#include "views/common/tab_rows.h"
#include "views/common/wrap_anywhere_label.h"
#include "views/profile/compare_page.h"
#include "views/profile/compile_settings.h"
#include "views/profile/cs_page.h"
#include "views/profile/dry_run_notice.h"
#include "views/profile/liveness_page.h"
#include "views/profile/memory_chart.h"
#include "views/profile/memory_page.h"
#include "views/profile/op_graph_page.h"
#include "views/profile/pipeline_page.h"
#include "views/profile/profile_panel.h"
#include "views/profile/summary_page.h"
#include "views/profile/tile_map_page.h"

#include <QGridLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QTabWidget>
#include <QTimer>
#include <QVBoxLayout>

namespace portolan::views {

QWidget* ProfilePanel::createSettingsColumn()
{
    auto* left = new QWidget(this);
    auto* leftLayout = new QVBoxLayout(left);
    // A params file's name can have no break point (a Model Zoo config): it wraps anywhere.
    m_source = new WrapAnywhereLabel(tr("No model: open a project or a report."), left);
    m_source->setObjectName(QStringLiteral("profileSource"));
    createSelectors(left);
    auto* box = new QGroupBox(tr("Compile"), left);
    auto* boxLayout = new QVBoxLayout(box);
    m_settings = new CompileSettings(box);
    boxLayout->addWidget(m_settings);
    m_progress = new QProgressBar(left);
    m_progress->setObjectName(QStringLiteral("compileProgress"));
    m_progress->setRange(0, 0); // busy indicator: compileGraph reports no steps
    m_progress->setTextVisible(false);
    m_progress->hide();
    m_cancel = new QPushButton(tr("Cancel"), left);
    m_cancel->setObjectName(QStringLiteral("cancelRecording"));
    m_cancel->setToolTip(tr("Stop recording the model"));
    m_cancel->hide();
    connect(m_cancel, &QPushButton::clicked, this, &ProfilePanel::cancelRecording);
    m_status = new StatusLine(left);
    m_status->setObjectName(QStringLiteral("profileStatus"));
    m_dryRun = new QPushButton(dryRunActionText(), left);
    m_dryRun->setObjectName(QStringLiteral("dryRunForModel"));
    m_dryRun->setToolTip(dryRunActionToolTip());
    m_dryRun->hide();
    connect(m_dryRun, &QPushButton::clicked, this, &ProfilePanel::dryRunRequested);
    auto* open = new QPushButton(tr("Open Report..."), left);
    auto* save = new QPushButton(tr("Save Report..."), left);
    auto* buttons = new QHBoxLayout;
    buttons->addWidget(open);
    buttons->addWidget(save);
    leftLayout->addWidget(m_source);
    leftLayout->addWidget(m_paramsRow);
    leftLayout->addWidget(box);
    leftLayout->addWidget(m_progress);
    leftLayout->addWidget(m_cancel);
    leftLayout->addWidget(m_status);
    leftLayout->addWidget(m_dryRun);
    leftLayout->addLayout(buttons);
    leftLayout->addStretch();
    auto* scroll = new FormScrollArea(this);
    scroll->setWidget(left);
    scroll->setWidgetResizable(true);
    scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    connect(open, &QPushButton::clicked, this, &ProfilePanel::openReportDialog);
    connect(save, &QPushButton::clicked, this, &ProfilePanel::saveReportAs);
    return scroll;
}

void ProfilePanel::createSelectors(QWidget* left)
{
    // Which params file is compiled, and the project's others to pick from: siblings such as
    // params_gpt2_small.yaml and params_gpt2_xl.yaml differ only in the middle of the name.
    m_paramsCombo = new ElidingComboBox(left);
    m_paramsCombo->setObjectName(QStringLiteral("profileParams"));
    m_paramsCombo->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    m_paramsCombo->setMinimumContentsLength(12);
    m_paramsCombo->setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed);
    m_paramsCombo->setToolTip(tr("The params file whose model is compiled"));
    m_paramsCombo->setPlaceholderText(tr("none chosen"));
    // A Graphcore application's file of named configurations (its --config NAME): which one
    // is compiled, beside the file, with the others to pick from.
    m_configCombo = new ElidingComboBox(left);
    m_configCombo->setObjectName(QStringLiteral("profileConfig"));
    m_configCombo->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    m_configCombo->setMinimumContentsLength(12);
    m_configCombo->setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed);
    m_configCombo->setToolTip(tr("The named configuration of the params file whose model and "
                                 "settings are compiled (the application's --config)"));
    m_paramsRow = new QWidget(left);
    auto* selectors = new QGridLayout(m_paramsRow);
    selectors->setContentsMargins(0, 0, 0, 0);
    m_paramsLabel = new QLabel(tr("Params file:"), m_paramsRow);
    m_configLabel = new QLabel(tr("Configuration:"), m_paramsRow);
    m_paramsLabel->setBuddy(m_paramsCombo);
    m_configLabel->setBuddy(m_configCombo);
    selectors->addWidget(m_paramsLabel, 0, 0);
    selectors->addWidget(m_paramsCombo, 0, 1);
    selectors->addWidget(m_configLabel, 1, 0);
    selectors->addWidget(m_configCombo, 1, 1);
    selectors->setColumnStretch(1, 1);
    m_paramsLabel->hide();
    m_paramsCombo->hide();
    m_configLabel->hide();
    m_configCombo->hide();
    m_paramsRow->hide();
    connect(m_paramsCombo, &QComboBox::activated, this, [this](int i) {
        const QString file = m_paramsCombo->itemData(i).toString();
        if (!file.isEmpty())
            setProject(file);
    });
    connect(m_configCombo, &QComboBox::activated, this,
            [this](int i) { setProject(m_projectPath, m_configCombo->itemText(i)); });
}

QWidget* ProfilePanel::createPages()
{
    m_tabs = new QTabWidget(this);
    m_summary = new SummaryPage(m_tabs);
    m_memory = new MemoryPage(m_tabs);
    m_tileMap = new TileMapPage(m_tabs);
    m_liveness = new LivenessPage(m_tabs);
    m_pipeline = new PipelinePage(m_tabs);
    m_cs = new CsPage(m_tabs);
    m_graph = new OpGraphPage(m_tabs);
    m_compare = new ComparePage(m_tabs);
    const QList<QPair<QWidget*, QString>> pages = {
        {m_summary, tr("Summary")},   {m_memory, tr("Memory")},     {m_tileMap, tr("Tile map")},
        {m_liveness, tr("Liveness")}, {m_pipeline, tr("Pipeline")}, {m_cs, tr("CS placement")},
        {m_graph, tr("Op graph")},    {m_compare, tr("Compare")}};
    const QStringList ids = pageIds();
    for (int i = 0; i < pages.size(); ++i) {
        pages[i].first->setObjectName(ids[i]);
        m_tabs->addTab(pages[i].first, pages[i].second);
    }
    // The pages in two rows of buttons: a tab bar hid "Op graph" and "Compare" behind scroll
    // arrows even at 1,400 pixels.
    auto* right = new QWidget(this);
    auto* rightLayout = new QVBoxLayout(right);
    rightLayout->setContentsMargins(0, 0, 0, 0);
    rightLayout->addWidget(new TabRows(m_tabs, 4, right));
    // Memory, Tile map and Summary say what a dry run fills in them; the other pages that only
    // a report fills share this notice (issue 26: the Op graph was blank, Liveness said "compile
    // a project", which no compile could).
    m_pagesNotice = new DryRunNotice(tr("this page"), right);
    m_pagesNotice->setObjectName(QStringLiteral("pagesDryRunNotice"));
    rightLayout->addWidget(m_pagesNotice);
    rightLayout->addWidget(m_tabs, 1);
    connect(m_pagesNotice, &DryRunNotice::dryRunRequested, this, &ProfilePanel::dryRunRequested);
    connect(m_tabs, &QTabWidget::currentChanged, this, &ProfilePanel::updatePagesNotice);
    return right;
}

void ProfilePanel::updatePagesNotice()
{
    const QWidget* page = m_tabs->currentWidget();
    m_pagesNotice->setVisible(
        m_needsDryRun && !m_result &&
        (page == m_liveness || page == m_pipeline || page == m_cs || page == m_graph));
}

void ProfilePanel::connectParts()
{
    m_debounce = new QTimer(this);
    m_debounce->setSingleShot(true);
    m_debounce->setInterval(150); // coalesces a spin box held down into one re-simulation
    connect(m_debounce, &QTimer::timeout, this, &ProfilePanel::recompile);
    connect(m_settings, &CompileSettings::changed, m_debounce, qOverload<>(&QTimer::start));
    connect(m_settings, &CompileSettings::findConfigurationRequested, this,
            &ProfilePanel::findConfiguration);
    connect(m_summary, &SummaryPage::remedyActivated, this,
            [this](const QString& id) { m_settings->applyRemedy(id.toStdString()); });
    connect(m_summary, &SummaryPage::findConfigurationRequested, this,
            &ProfilePanel::findConfiguration);
    connect(m_summary, &SummaryPage::dryRunRequested, this, &ProfilePanel::dryRunRequested);
    connect(m_memory, &MemoryPage::dryRunRequested, this, &ProfilePanel::dryRunRequested);
    connect(m_tileMap, &TileMapPage::dryRunRequested, this, &ProfilePanel::dryRunRequested);
    connect(m_summary, &SummaryPage::tileActivated, this, [this](int tile) {
        showPage(QStringLiteral("memory"));
        m_memory->chart()->showTiles(tile - 20, tile + 20);
        m_memory->showTile(tile);
    });
    connect(m_pipeline, &PipelinePage::splitEdited, this,
            [this](const std::vector<int>& split) { m_settings->setSplit(split); });
}

} // namespace portolan::views
