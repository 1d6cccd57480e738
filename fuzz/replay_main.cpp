// Copyright 2026 The steadyflake Authors.
// SPDX-License-Identifier: Apache-2.0
//
// A main() for the fuzz targets when they are built without libFuzzer (any compiler): feeds
// every file named on the command line, or every file in every folder named, to
// LLVMFuzzerTestOneInput once. CTest runs it over the seed corpus and the regression inputs in
// data/, so every crash the fuzzer ever found stays fixed in the ordinary test run. Exits 0
// when every input ran; a crash is the target's own abort or sanitizer report.

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

namespace {

void RunFile(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  // A copy the size of the input exactly, so ASan sees reads past its end.
  const std::vector<uint8_t> input(bytes.begin(), bytes.end());
  LLVMFuzzerTestOneInput(input.data(), input.size());
}

}  // namespace

int main(int argc, char** argv) {
  std::size_t runs = 0;
  for (int i = 1; i < argc; ++i) {
    const std::filesystem::path arg(argv[i]);
    if (std::filesystem::is_directory(arg)) {
      for (const auto& entry : std::filesystem::recursive_directory_iterator(arg)) {
        if (!entry.is_regular_file()) continue;
        RunFile(entry.path());
        ++runs;
      }
    } else {
      RunFile(arg);
      ++runs;
    }
  }
  if (runs == 0) {
    std::fprintf(stderr, "replay: no input files in the arguments\n");
    return 1;
  }
  std::printf("replay: %zu inputs ran\n", runs);
  return 0;
}
