/* The cuzk command's subcommands: main.c dispatches to them. Each takes
 * the arguments after its name and returns the exit code. */
#ifndef CUZK_TOOLS_COMMANDS_H
#define CUZK_TOOLS_COMMANDS_H

int cmd_bench(int argc, char **argv);   /* bench.c */
int cmd_serve(int argc, char **argv);   /* serve.c */
int cmd_submit(int argc, char **argv);  /* submit.c */

#endif
