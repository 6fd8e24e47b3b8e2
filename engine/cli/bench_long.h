// bench_long.h: `attnviz-cli bench-long`, issue 36's long-input targets as one JSON
// line (docs/bench.md, "Long inputs").
#pragma once

namespace attnviz_cli {

// argv[0] is "bench-long". 0 with one JSON line on stdout; 2 with a JSON error line on
// stderr for bad arguments or a refused state.
int cmd_bench_long(int argc, char** argv);

}  // namespace attnviz_cli
