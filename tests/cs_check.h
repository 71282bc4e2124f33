/* A circuit built in the constraint-system builder's three backends and
 * checked against itself (test_cs, test_filecoin): the witness backend's
 * assignment equals the recording one's and satisfies the recorded R1CS,
 * the counting backend's shape equals the recorded one's, and a changed
 * value is caught. Include after test_util.h. */
#ifndef CUZK_TESTS_CS_CHECK_H
#define CUZK_TESTS_CS_CHECK_H

#include "../src/cs/cs.h"

/* A circuit as a function of the system it builds into. */
typedef void (*circuit_fn)(cs_system *cs, void *ctx);

/* Builds the circuit in all three backends and checks them against each
 * other; returns its shape. */
TEST_UNUSED static cs_shape build_all(circuit_fn fn, void *ctx)
{
    cs_system rec, wit, cnt;
    cuzk_error err;
    CHECK(cs_init(&rec, CS_RECORD, 1, &err) == CUZK_OK);
    CHECK(cs_init(&wit, CS_WITNESS, 0, &err) == CUZK_OK);
    CHECK(cs_init(&cnt, CS_COUNT, 0, &err) == CUZK_OK);
    fn(&rec, ctx);
    fn(&wit, ctx);
    fn(&cnt, ctx);
    CHECK_MSG(!cs_failed(&rec) && !cs_failed(&wit) && !cs_failed(&cnt), "%s / %s / %s", rec.err.message,
              wit.err.message, cnt.err.message);
    int64_t bad = cs_first_unsatisfied(&rec);
    CHECK_MSG(bad == -1, "row %lld unsatisfied", (long long)bad);
    CHECK(wit.n_constraints == rec.n_constraints);
    CHECK(wit.n_aux == rec.n_aux && wit.n_input == rec.n_input);
    CHECK(rec.n_aux == 0 || memcmp(wit.aux, rec.aux, rec.n_aux * sizeof(fr)) == 0);
    CHECK(memcmp(wit.input, rec.input, rec.n_input * sizeof(fr)) == 0);
    cs_shape a, b;
    cs_shape_get(&rec, &a);
    cs_shape_get(&cnt, &b);
    CHECK(memcmp(&a, &b, sizeof a) == 0);
    /* the checker catches a wrong value: a few aux variables of some A
     * changed */
    for (int k = 0; k < 4 && rec.n_aux; k++) {
        uint64_t i = test_rand64() % rec.n_aux;
        if (!(i / 64 < rec.a_aux.n_words && rec.a_aux.w[i / 64] >> (i % 64) & 1))
            continue; /* in no A: it may still be in B or C, but need not be */
        fr old = rec.aux[i];
        bls12_381_fr_add(&rec.aux[i], &rec.aux[i], &cs_fr_one); /* + 2: a bit stays no bit */
        bls12_381_fr_add(&rec.aux[i], &rec.aux[i], &cs_fr_one);
        CHECK_MSG(cs_first_unsatisfied(&rec) != -1, "aux %llu changed, every row still satisfied",
                  (unsigned long long)i);
        rec.aux[i] = old;
    }
    cs_free(&rec);
    cs_free(&wit);
    cs_free(&cnt);
    return a;
}

#endif
