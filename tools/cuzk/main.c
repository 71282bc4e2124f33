/* The cuzk command-line tool. Only this program exits; the library returns
 * status codes. */
#include <stdio.h>
#include <string.h>

#include "../../include/cuzk.h"

static void usage(FILE *out)
{
    fprintf(out,
            "usage: cuzk <command> [arguments]\n"
            "\n"
            "commands:\n"
            "  version    print the version, the CPU backend and the GPUs found\n"
            "  selftest   run the arithmetic known-answer checks\n"
            "  help       print this message\n");
}

static int cmd_version(void)
{
    int gpus = 0;
    int err = cuzk_gpu_count(&gpus);
    printf("cuzk %s\n", cuzk_version());
    printf("cpu backend: %s\n", cuzk_cpu_backend());
    if (!cuzk_has_cuda())
        printf("cuda: not built in\n");
    else if (err != CUZK_OK)
        printf("cuda: built in; device query failed: %s\n", cuzk_strerror(err));
    else
        printf("cuda: built in; %d device%s\n", gpus, gpus == 1 ? "" : "s");
    return 0;
}

static int cmd_selftest(void)
{
    int err = cuzk_selftest();
    if (err != CUZK_OK) {
        fprintf(stderr, "cuzk: selftest failed with the %s backend: %s\n", cuzk_cpu_backend(), cuzk_strerror(err));
        return 1;
    }
    printf("selftest passed (%s backend)\n", cuzk_cpu_backend());
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    const char *cmd = argv[1];
    if (argc > 2 && (!strcmp(cmd, "version") || !strcmp(cmd, "selftest"))) {
        fprintf(stderr, "cuzk: '%s' takes no arguments, got '%s'\n", cmd, argv[2]);
        return 2;
    }
    if (!strcmp(cmd, "version") || !strcmp(cmd, "--version"))
        return cmd_version();
    if (!strcmp(cmd, "selftest"))
        return cmd_selftest();
    if (!strcmp(cmd, "help") || !strcmp(cmd, "--help") || !strcmp(cmd, "-h")) {
        usage(stdout);
        return 0;
    }
    fprintf(stderr, "cuzk: unknown command '%s'\n\n", cmd);
    usage(stderr);
    return 2;
}
