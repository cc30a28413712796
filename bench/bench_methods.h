// The methods `ktune bench` compares, in one table (bench_methods.cc): each row names a
// method, says what it measures, how it is built and run, and whether only a Halide
// Generator has it. Everything else that names a method follows the table: the order the
// bench runs and shows them in, the column heads of the markdown table, the help text of
// `ktune bench --methods` and its validation, and the method of every stored bench result.
//
// Adding a baseline is one file plus one row:
//   - a library call (as OpenBLAS and oneDNN are): write bench/<lib>_baseline.cc defining
//     `LibraryMethod <lib>_method(const PlanMatch&)` (openblas_baseline.cc is the model;
//     bench/CMakeLists.txt builds every *_baseline.cc), and in bench_methods.cc declare it
//     above the table and add a row of source kLibrary whose `library` is it;
//   - a Halide autoscheduler plugin: a row of source kAutoscheduler named as the plugin
//     (libautoschedule_<name in lower case>.so in the plugin folder); no file at all.
// The bench runs the rows in table order: the Halide methods are built together first,
// then the library rows are prepared, so library rows come after the Halide ones.
#pragma once

#include <string>
#include <vector>

#include "bench/library_kernel.h"

namespace ktune::bench {

// Where the bench gets a method's kernel from.
enum class MethodSource {
  kStoredBest,     // ktune's best schedule of the workload in the tuning database
  kHeuristic,      // ktune's heuristic schedule of the space
  kExpertFile,     // a schedule written by hand: <--expert-dir>/<subgraph name>.json
  kOwnSchedule,    // the schedule a Generator's author wrote into it
  kAutoscheduler,  // a Halide autoscheduler plugin of the row's name
  kLibrary,        // a library call the spec maps onto (the row's `library`)
};

struct BenchMethod {
  const char* name;      // as --methods takes it and bench results store it
  const char* display;   // column head of the markdown table
  const char* measures;  // what the method's time stands for
  const char* built;     // how its kernel is built and run
  MethodSource source;
  bool needs_generator;  // only a Halide Generator has it (a spec's row is "unsupported")
  // kLibrary: the library call for a matched plan, or unsupported with the reason.
  LibraryMethod (*library)(const PlanMatch& match) = nullptr;
};

// Every method, in the order the bench runs and shows them.
const std::vector<BenchMethod>& bench_methods();

// Their names, in table order.
std::vector<std::string> method_names(const std::vector<BenchMethod>& table);
const std::vector<std::string>& bench_method_names();

// The row of `name` in `table`, or null.
const BenchMethod* find_method(const std::string& name, const std::vector<BenchMethod>& table = bench_methods());

// The name the tables show for `name` (its row's display name; `name` when it has no row).
std::string method_display_name(const std::string& name, const std::vector<BenchMethod>& table = bench_methods());

// "a,b,c" (spaces and empty items ignored) as a list.
std::vector<std::string> parse_method_list(const std::string& text);

// Why `names` are not all methods of `table` ("unknown method "x" (expected some of a, b)"),
// or an empty string when they are.
std::string unknown_method_error(const std::vector<std::string>& names,
                                 const std::vector<BenchMethod>& table = bench_methods());

// The help text of `ktune bench --methods`: every name of `table`.
std::string methods_option_help(const std::vector<BenchMethod>& table = bench_methods());

}  // namespace ktune::bench
