// Source text shared by the C++ programs ktune writes for users to compile beside their
// kernels (export's test_data/check.cc and the bundle runner run.cc): typed buffers of a
// spec shape at their mins, test data files, scalar arguments and ktune's comparison rule,
// so both programs judge outputs exactly as ktune does.
#pragma once

#include <string>
#include <vector>

#include "subgraphs/subgraph.h"
#include "subgraphs/tensor.h"

namespace ktune::kernels {

// C++ defining `make<T>(shape, mins, kind)` (a buffer of an outermost-first shape whose
// first element is at `mins`; kind 'h' or 'b' marks uint16_t storage as f16 or bf16, the
// type the kernel checks), `read_file(buffer, path)` (raw bytes) and `max_error(got, want, kind)`
// (subgraphs/compare.h's error: relative to the output's largest value for kind 'f' (float, double),
// 'h' (f16 bits) and 'b' (bf16 bits), the absolute difference for 'i' (integers); infinity
// for NaN). Expects <algorithm>, <cmath>, <cstdint>, <cstring>, <fstream>, <string>,
// <vector> included and `Buffer` naming Halide::Runtime::Buffer.
const char* generated_buffer_helpers();

// A shape as a C++ initializer list: "{2, 3}".
std::string shape_initializer(const subgraphs::Shape& shape);

// "Buffer<uint16_t> t_in = make<uint16_t>({480, 640}, {-2, -2}, 'i')" (no semicolon).
std::string buffer_definition(const std::string& var, const subgraphs::TensorInfo& t);

// The C++ that calls one kernel on its test data. Buffers are named "t_" + the parameter
// name (so no tensor name clashes with the program's own names), references "t_<name>_ref".
struct KernelCallText {
  std::string definitions;  // a statement per buffer: inputs, then each output and its reference
  std::string loads;        // "load(t_x, DIR "x.f32"EXTRA) && ...": every input and reference
  std::string args;         // the call's arguments: input buffers, scalar values, output buffers
  std::string checks;       // statements folding each output's error into `err` and clearing
                            // `within` when it is beyond the output type's tolerance
};

// `params`: the kernel's buffer names (inputs, then outputs; export_files.h's
// parameter_names); `dir`: a C++ expression of the test data folder ending in '/' before
// its closing quote, e.g. `dir + "/matmul/`; `load_extra`: appended to every load's
// arguments (", r"); `indent`: the indentation of every statement.
KernelCallText kernel_call_text(const subgraphs::Subgraph& subgraph, const std::vector<std::string>& params,
                                const std::string& dir, const std::string& load_extra, const std::string& indent);

// The `kind` argument of the generated max_error for outputs of `dtype`: 'f', 'h', 'b', 'i'.
char error_kind(subgraphs::DType dtype);

// The name of a tensor's test data file: "<param>.<dtype>" for an input, and
// "<param>.ref.<dtype>" for a reference output ("x.f32", "out.ref.u16").
std::string data_file(const std::string& param, subgraphs::DType dtype, bool reference);

// A scalar's value as a C++ expression of its type: "float(0.25)", "uint8_t(3)", "true";
// an f16 or bf16 scalar as its bit pattern, "uint16_t(0x3c00)".
std::string scalar_literal(const subgraphs::ScalarInfo& s);

// How a generated program is compiled for the CPU of `halide_target`: this machine's
// compiler ($CXX, else c++) for its own architecture; for AArch64 code built elsewhere the
// cross compiler ($KTUNE_AARCH64_CXX, else Debian's aarch64-linux-gnu-g++), linked
// statically so the program runs on any arm64 Linux and under qemu-aarch64.
struct ProgramCompiler {
  std::string cxx;    // the compiler command
  std::string flags;  // flags beyond -std=c++17 -O2 ("-static" for a cross build)
  bool cross = false; // the program runs on another architecture than this machine's
};
ProgramCompiler program_compiler_for(const std::string& halide_target);

}  // namespace ktune::kernels
