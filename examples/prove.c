/* The library from a program of one's own: prove a circuit with a
 * snarkjs key and a circom witness, then check the proof against the
 * key's verification key, as snarkjs would.
 *
 *   cc prove.c $(pkg-config --cflags --libs cuzk) -o prove
 *   ./prove circuit.zkey witness.wtns
 *
 * (tests/test_install.sh builds it so against an installed tree.) */
#include <stdio.h>
#include <string.h>

#include <cuzk.h>

static int fail(const cuzk_error *err)
{
    fprintf(stderr, "prove: %s\n", err->message);
    return 1;
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: prove <circuit.zkey> <witness.wtns>\n");
        return 2;
    }
    cuzk_error err = {0};
    cuzk_zkey *zkey = NULL;
    cuzk_wtns *wtns = NULL;
    if (cuzk_zkey_open(&zkey, argv[1], &err) != CUZK_OK)
        return fail(&err);
    if (cuzk_wtns_open(&wtns, argv[2], &err) != CUZK_OK) {
        cuzk_zkey_free(zkey);
        return fail(&err);
    }
    /* the defaults: every core, a GPU when there is one, the proof checked
     * before it is returned */
    char *proof = NULL, *public_signals = NULL, *vk = NULL;
    cuzk_timings t;
    int rc = cuzk_prove(zkey, wtns, NULL, &proof, &public_signals, &t, &err);
    if (rc == CUZK_OK)
        rc = cuzk_zkey_export_vk(zkey, &vk, &err);
    if (rc == CUZK_OK)
        rc = cuzk_verify_json(vk, strlen(vk), public_signals, strlen(public_signals), proof, strlen(proof), &err);
    if (rc == CUZK_OK)
        printf("proved on %s in %.3f s and verified (cuzk %s)\n%s", t.device, t.total, cuzk_version(), proof);
    cuzk_free(proof);
    cuzk_free(public_signals);
    cuzk_free(vk);
    cuzk_wtns_free(wtns);
    cuzk_zkey_free(zkey);
    return rc == CUZK_OK ? 0 : fail(&err);
}
