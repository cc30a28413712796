// A valid shared library that registers no Halide generator.
extern "C" int ktune_test_no_generators_marker() { return 42; }
