#pragma once

// Pipeline schedules: GPipe (all forwards, then all backwards) and 1F1B (one forward, one
// backward in the steady state), simulated event by event with each stage's own times.

#include "core/sim/profile.h"

#include <vector>

namespace portolan::sim {

// forward[s], backward[s]: seconds per micro-batch on stage s; m micro-batches; linkSeconds[s]:
// time to send stage s's output to stage s+1 (and its gradient back).
std::vector<ScheduleEvent> simulateSchedule(Schedule kind, const std::vector<double>& forward,
                                            const std::vector<double>& backward,
                                            const std::vector<double>& linkSeconds, int m);
// The same schedule's end (the last event's), with its events in `events` when given: what a
// simulation's figures read, without a vector of p x m x 2 events to fill.
double scheduleEnd(Schedule kind, const std::vector<double>& forward,
                   const std::vector<double>& backward, const std::vector<double>& linkSeconds,
                   int m, std::vector<ScheduleEvent>* events);

// (p-1)/(m+p-1): the idle share of a pipeline step.
double bubbleFraction(int stages, int microBatches);

} // namespace portolan::sim
