// portolan: the GUI. Parses the command line and hands over to MainWindow.
#include "app/gui/main_window.h"
#include "app/gui/screenshot.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QElapsedTimer>
#include <QFileInfo>
#include <QTimer>
#include <cstdio>
#include <cstring>
#include <initializer_list>

namespace {

bool hasOption(int argc, char** argv, std::initializer_list<const char*> names)
{
    for (int i = 1; i < argc; ++i) {
        if (std::strcmp(argv[i], "--") == 0)
            return false;
        for (const char* name : names) {
            const std::size_t n = std::strlen(name);
            if (std::strncmp(argv[i], name, n) == 0 && (argv[i][n] == '\0' || argv[i][n] == '='))
                return true;
        }
    }
    return false;
}

bool wantsScreenshot(int argc, char** argv)
{
    return hasOption(argc, argv, {"--screenshot"});
}

// Qt aborts with a plugin message when it finds no display. Say what to do instead, before
// it tries: only when nothing chose a platform and no X11 or Wayland display is set.
bool noDisplay()
{
    return qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM") &&
           qEnvironmentVariableIsEmpty("DISPLAY") && qEnvironmentVariableIsEmpty("WAYLAND_DISPLAY");
}

void describe(QCommandLineParser& parser, const QCommandLineOption& screenshot,
              const QCommandLineOption& view, const QCommandLineOption& size)
{
    parser.setApplicationDescription(
        QStringLiteral("Porting assistant and profiler for AI accelerators."));
    parser.addHelpOption();
    parser.addVersionOption();
    parser.addPositionalArgument(
        QStringLiteral("PROJECT"),
        QStringLiteral("Project folder, a params file (.yaml: its project opens with it, and the "
                       "Profile tab compiles its model), or a compile report (.json), to open."),
        QStringLiteral("[PROJECT|PARAMS.yaml|REPORT.json]"));
    parser.addOptions({screenshot, view, size});
}

// The command line's options beside the project.
struct Options
{
    const QCommandLineOption screenshot{
        QStringLiteral("screenshot"),
        QStringLiteral("Render the main window offscreen to FILE.png and exit."),
        QStringLiteral("FILE")};
    const QCommandLineOption view{
        QStringLiteral("view"),
        QStringLiteral("The view to show: overview, wizard, flow, code, params, runs, profile, or "
                       "profile:PAGE (summary, memory, tilemap, liveness, pipeline, "
                       "cs, graph, compare); runs:new starts a run and shows it finished, "
                       "runs:slurm the Slurm job script, runs:dry a "
                       "dry run of a trusted project's own code; port:TARGET[:TAB] the port "
                       "dialog of an original for determined, cerebras or poptorch on its "
                       "plan, files, manual or verify tab (verify writes the port beside the "
                       "original and verifies a trusted one), port:TARGET:runs that "
                       "verification in the Runs tab. A run (runs:new, runs:dry) keeps its "
                       "history in the project's .portolan/ folder, as one started in the "
                       "window does; the other views write nothing."),
        QStringLiteral("NAME")};
    const QCommandLineOption size{QStringLiteral("size"),
                                  QStringLiteral("Window size for --screenshot, as WIDTHxHEIGHT."),
                                  QStringLiteral("WxH"), QStringLiteral("1400x900")};
};

// --help, --version and a missing display are answered before any window: the exit code, or -1
// to go on.
int exitBeforeWindow(int argc, char** argv, QCommandLineParser& parser)
{
    // --help and --version need no window system: answer them without one.
    if (hasOption(argc, argv, {"--help", "-h", "-?", "--help-all", "--version", "-v"})) {
        QCoreApplication cli(argc, argv);
        QCoreApplication::setApplicationName(QStringLiteral("Portolan"));
        QCoreApplication::setApplicationVersion(QStringLiteral(PORTOLAN_VERSION));
        parser.process(cli); // prints and exits
        return 0;
    }
    if (noDisplay() && !hasOption(argc, argv, {"-platform", "--platform"})) {
        std::fprintf(stderr, "portolan: no display (neither DISPLAY nor WAYLAND_DISPLAY is set).\n"
                             "  Run it in a desktop session, under xvfb-run, or with "
                             "QT_QPA_PLATFORM=offscreen;\n"
                             "  portolan --screenshot FILE.png renders without a display, and "
                             "portolan-cli has the same analyses.\n");
        return 2;
    }
    return -1;
}

// Saves the window to `file` once analysis and diagrams are done (at most 180 s), then exits.
void shootWhenSettled(portolan::app::MainWindow& window, const QString& file, int exitCode)
{
    // Layouts and pending paints settle before grabbing.
    auto* poll = new QTimer(&window);
    auto* waited = new QElapsedTimer;
    waited->start();
    QObject::connect(poll, &QTimer::timeout, &window, [&window, file, exitCode, poll, waited] {
        if (window.isBusy() && waited->elapsed() < 180000)
            return;
        poll->stop();
        delete waited;
        QTimer::singleShot(250, &window, [&window, file, exitCode] {
            const QString error = portolan::app::saveScreenshot(window.screenshotTarget(), file);
            if (!error.isEmpty())
                std::fprintf(stderr, "portolan: cannot save screenshot: %s\n", qPrintable(error));
            QApplication::exit(error.isEmpty() ? exitCode : 1);
        });
    });
    poll->start(50);
}

// The screenshot at once (nothing to open, or a report), or when the project is analysed.
void scheduleScreenshot(portolan::app::MainWindow& window, const QString& file, bool now)
{
    if (now) {
        shootWhenSettled(window, file, 0);
    } else {
        QObject::connect(&window, &portolan::app::MainWindow::projectAnalysed, &window,
                         [&window, file] { shootWhenSettled(window, file, 0); });
        QObject::connect(&window, &portolan::app::MainWindow::projectFailed, &window,
                         [&window, file](const QString& folder, const QString& message) {
                             std::fprintf(stderr, "portolan: %s: %s\n", qPrintable(folder),
                                          qPrintable(message));
                             shootWhenSettled(window, file, 1);
                         });
    }
}

} // namespace

int main(int argc, char** argv)
{
    // A screenshot needs no display: render offscreen unless a platform was chosen explicitly.
    if (wantsScreenshot(argc, argv) && qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");

    const Options o;
    QCommandLineParser parser;
    describe(parser, o.screenshot, o.view, o.size);

    if (const int code = exitBeforeWindow(argc, argv, parser); code >= 0)
        return code;

    QApplication app(argc, argv);
    QApplication::setApplicationName(QStringLiteral("Portolan"));
    QApplication::setOrganizationName(QStringLiteral("Portolan"));
    QApplication::setOrganizationDomain(QStringLiteral(PORTOLAN_ORG_DOMAIN));
    QApplication::setApplicationVersion(QStringLiteral(PORTOLAN_VERSION));
    QApplication::setDesktopFileName(QStringLiteral(PORTOLAN_APP_ID));
    parser.process(app);

    const QStringList args = parser.positionalArguments();
    if (args.size() > 1) {
        std::fprintf(stderr, "portolan: give at most one project folder, params file or report\n");
        return 2;
    }

    portolan::app::MainWindow window;
    const bool shooting = parser.isSet(o.screenshot);
    if (shooting) {
        window.setInteractive(false);
        const QStringList wh = parser.value(o.size).split(QLatin1Char('x'));
        if (wh.size() == 2)
            window.resize(wh[0].toInt(), wh[1].toInt());
    }
    window.show();

    const bool isReport = !args.isEmpty() && QFileInfo(args.first()).isFile() &&
                          args.first().endsWith(QLatin1String(".json"), Qt::CaseInsensitive);
    if (isReport && !window.openReport(args.first())) {
        if (!shooting)
            std::fprintf(stderr, "portolan: cannot open report %s\n", qPrintable(args.first()));
    }
    if (parser.isSet(o.view) && !window.selectViewPath(parser.value(o.view))) {
        std::fprintf(stderr, "portolan: unknown view '%s'; views: %s\n",
                     qPrintable(parser.value(o.view)),
                     qPrintable(window.viewIds().join(QStringLiteral(", "))));
        return 2;
    }

    if (shooting)
        scheduleScreenshot(window, parser.value(o.screenshot), args.isEmpty() || isReport);
    if (!args.isEmpty() && !isReport)
        window.openProject(args.first());
    return QApplication::exec();
}
