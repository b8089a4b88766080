#pragma once
// The port tests' class, shared by test_port.cpp (plan, structure, status) and
// test_port_generate_rows.cpp (the generators' pattern rows, kept apart for their length) and
// test_port_manual_rows.cpp (the manual list of steps the port cannot place).
#include <QObject>

class TestPort : public QObject
{
    Q_OBJECT

private slots:
    void plansPatterns_data();
    void plansPatterns();
    void determinedStructure();
    void popTorchStructure();
    void cerebrasTrainerStructure();
    void twoOptimizers();
    void lbfgsClosure();
    void outputFolder();
    void generatesPatterns_data();
    void generatesPatterns();
    void argparseInHelper();
    void statusRule();
    void manualItemsExactly_data();
    void manualItemsExactly();
};
