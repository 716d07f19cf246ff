// bankcheck: finds, explains and fixes shared-memory bank conflicts in CUDA kernels.
#include "cli.hpp"

int main(int argc, char** argv) { return bankcheck::tools::run(argc, argv); }
