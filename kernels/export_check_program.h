// The self-check `ktune export --test-data` writes beside the test data (test_data/check.cc):
// a C++ program that runs every kernel of the exported library on the seeded inputs,
// compares the outputs with the references by ktune's rule (subgraphs/compare.h) and prints
// each kernel's median time, so a product can verify the library on the machine it ships to:
//   c++ -std=c++17 -O2 -I DIR/include DIR/test_data/check.cc DIR/lib<LIB>.a -lpthread -ldl -o check
//   ./check DIR/test_data
#pragma once

#include <string>

#include "kernels/export_files.h"

namespace ktune::kernels {

// The program's source for the kernels of `plan` (file names as write_test_data writes them).
std::string check_program_text(const ExportPlan& plan, const ExportInfo& info);

}  // namespace ktune::kernels
