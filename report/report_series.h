// The series of a report computed from the measurement history of one workload on one device
// (TuningDb::measurement_history, oldest first): the tuning curve, the distribution of times
// and statuses, and the cost model's predicted ranks against measured ones.
#pragma once

#include <vector>

#include "report/report_data.h"
#include "tuning_db/records.h"

namespace ktune::report {

// Best ok median so far after each trial, from the first ok trial on; non-increasing. The
// clock runs only within a run: a session resumed a week later continues where it stopped.
std::vector<CurvePoint> tuning_curve(const std::vector<tuning_db::MeasurementRecord>& history);

// `bins` bins of equal width in log10(ns) spanning the ok medians; one bin when they are all
// equal, none when there are no ok medians.
std::vector<HistogramBin> log_histogram(const std::vector<tuning_db::MeasurementRecord>& history,
                                        int bins);

// Measurements per status, nonzero ones, in MeasureStatus order.
std::vector<StatusCount> count_statuses(const std::vector<tuning_db::MeasurementRecord>& history);

// How many measurements each host and rank timed, by host, then rank.
std::vector<MeasurerCount> count_measurers(const std::vector<tuning_db::MeasurementRecord>& history);

// Ranks of the ok measurements that carry a predicted score, within their run (higher score =
// predicted faster), with the pairwise accuracy and Spearman correlation per run, averaged.
RankAgreement rank_agreement(const std::vector<tuning_db::MeasurementRecord>& history);

}  // namespace ktune::report
