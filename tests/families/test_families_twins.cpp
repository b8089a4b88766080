// Each family builder against a LibTorch-recorded twin of the same architecture at a small size
// (twin_case.h): the same parameter count exactly, and forward FLOPs within 1%. The text
// families' cases are in twins_text.cpp, those that read images in twins_vision.cpp.
#include "twin_case.h" // LibTorch before Qt

#include <QTest>

using namespace portolan;

class TestFamiliesTwins : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() { torch::manual_seed(0); }

    void textFamily_data() { twins::addTwinRows(twins::textCases()); }
    void textFamily()
    {
        QFETCH(int, index);
        twins::checkTwin(twins::textCases()[std::size_t(index)].second);
    }

    void visionFamily_data() { twins::addTwinRows(twins::visionCases()); }
    void visionFamily()
    {
        QFETCH(int, index);
        twins::checkTwin(twins::visionCases()[std::size_t(index)].second);
    }
};

QTEST_GUILESS_MAIN(TestFamiliesTwins)
#include "test_families_twins.moc"
