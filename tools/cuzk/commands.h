/* The cuzk command's subcommands: main.c dispatches to them. Each takes
 * the arguments after its name and returns the exit code. */
#ifndef CUZK_TOOLS_COMMANDS_H
#define CUZK_TOOLS_COMMANDS_H

#include "../../include/cuzk.h"
#include "../../include/cuzk_engine.h"

int cmd_bench(int argc, char **argv);   /* bench.c */
int cmd_bench_porep(int argc, char **argv); /* bench_porep.c: cuzk bench porep */
/* bench.c: the engine's stats over a timed run (from those at its start) */
void bench_timed_stats(cuzk_engine_stats *st, const cuzk_engine_stats *st0);
int cmd_porep(int argc, char **argv);   /* porep.c: cuzk porep seal, c2 */
int cmd_circuit_stacked(int argc, char **argv); /* porep.c: cuzk circuit stacked */
int cmd_serve(int argc, char **argv);   /* serve.c */
int cmd_submit(int argc, char **argv);  /* submit.c */

#endif
