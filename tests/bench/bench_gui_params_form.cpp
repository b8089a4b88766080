// Benchmark (prints figures, not a test): opening the largest corpus config in the params
// editor, which parses, validates and builds the form and the text view; then one form edit.
// Usage: bench_params_form [FILE]   (default: the largest file under $PORTOLAN_CORPUS)
#include "views/params/params_editor.h"
#include "views/params/params_field.h"
#include "views/params/params_form.h"

#include <QApplication>
#include <QDirIterator>
#include <QElapsedTimer>
#include <QFileInfo>
#include <QSpinBox>
#include <cstdio>

int main(int argc, char** argv)
{
    qputenv("QT_QPA_PLATFORM",
            qgetenv("QT_QPA_PLATFORM").isEmpty() ? "offscreen" : qgetenv("QT_QPA_PLATFORM"));
    QApplication app(argc, argv);
    QString file = argc > 1 ? QString::fromLocal8Bit(argv[1]) : QString();
    if (file.isEmpty()) {
        const QByteArray corpus = qgetenv("PORTOLAN_CORPUS");
        if (corpus.isEmpty()) {
            std::fprintf(stderr, "usage: bench_params_form FILE (or set PORTOLAN_CORPUS)\n");
            return 2;
        }
        qint64 biggest = -1;
        for (const char* sub : {"/cerebras-modelzoo-configs", "/determined-experiment-configs"}) {
            QDirIterator it(QString::fromLocal8Bit(corpus) + sub, {"*.yaml"}, QDir::Files);
            while (it.hasNext()) {
                const QFileInfo info(it.next());
                if (info.size() > biggest) {
                    biggest = info.size();
                    file = info.filePath();
                }
            }
        }
    }
    portolan::views::ParamsEditor editor;
    editor.resize(1400, 900);
    editor.show();
    QElapsedTimer t;
    t.start();
    if (!editor.openFile(file)) {
        std::fprintf(stderr, "cannot open %s\n", qPrintable(file));
        return 2;
    }
    const double openMs = double(t.nsecsElapsed()) / 1e6;
    t.restart();
    QApplication::processEvents();
    const double layoutMs = double(t.nsecsElapsed()) / 1e6;
    std::printf("file: %s (%lld bytes)\n", qPrintable(QFileInfo(file).fileName()),
                QFileInfo(file).size());
    std::printf("open (parse + validate + form + text view): %.1f ms, %d fields on %d pages\n",
                openMs, editor.form()->fieldCount(), int(editor.form()->pageTitles().size()));
    std::printf("first layout and paint: %.1f ms\n", layoutMs);
    // Rebuild the form alone, several times.
    const int rounds = 10;
    t.restart();
    for (int i = 0; i < rounds; ++i)
        editor.setSchemaName(QString()); // re-detects and rebuilds the form
    std::printf("form rebuild + validate: %.1f ms (mean of %d)\n",
                double(t.nsecsElapsed()) / 1e6 / rounds, rounds);
    return 0;
}
