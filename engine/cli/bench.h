// bench.h: `attnviz-cli bench`, the engine's timings as one JSON line
// (issue 5; docs/bench.md defines every key).
#pragma once

namespace attnviz_cli {

// argv[0] is "bench"; the rest are --flags. Returns the process exit code:
// 0 with one JSON line on stdout, 2 with one JSON error line on stderr for
// bad arguments (never aborts).
int cmd_bench(int argc, char** argv);

}  // namespace attnviz_cli
