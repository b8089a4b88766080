#pragma once

// What the Profile panel's test suites share (test_profile_panel: reports and pages;
// test_profile_settings: the compile form, remedies and the split; test_profile_recording: the
// model recorded or built for a project): two reports made by the real compiler, waiting for the
// panel to settle, and grabs of its pages.

#include "core/report/report.h"
#include "profile_fixture.h"
#include "views/profile/profile_panel.h"

#include <QTemporaryDir>
#include <QtTest>

namespace portolan::test {

inline bool waitIdle(views::ProfilePanel& panel, int ms = 60000)
{
    return QTest::qWaitFor([&] { return !panel.isBusy(); }, ms);
}

// A small model compiled for IPU Mk2 on two IPUs and for a CS-2, saved as ipu.json and cs.json
// in `dir`. Fails the calling test (through QVERIFY) when the compiler does.
inline void writeReports(const QTemporaryDir& dir, QString& ipuReport, QString& csReport)
{
    auto ipu = compileSmall("ipu-mk2", 2);
    QVERIFY(ipu && ipu->ipu);
    ipuReport = dir.filePath(QStringLiteral("ipu.json"));
    QVERIFY(!report::saveReport(ipuReport.toStdString(), *ipu));
    auto cs = compileSmall("cs-2", 1);
    QVERIFY(cs && cs->cs);
    csReport = dir.filePath(QStringLiteral("cs.json"));
    QVERIFY(!report::saveReport(csReport.toStdString(), *cs));
}

// Saves a grab of every page when PORTOLAN_PROFILE_SHOTS names a folder.
inline void shootPages(views::ProfilePanel& panel, const QString& prefix = {})
{
    const QString dir = qEnvironmentVariable("PORTOLAN_PROFILE_SHOTS");
    if (dir.isEmpty())
        return;
    for (const QString& id : panel.pageIds()) {
        panel.showPage(id);
        QVERIFY(waitIdle(panel));
        QTest::qWait(50);
        QVERIFY(panel.grab().save(dir + QLatin1Char('/') + prefix + id + QStringLiteral(".png")));
    }
}

} // namespace portolan::test
