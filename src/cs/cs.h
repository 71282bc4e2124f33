/* A constraint-system builder over BLS12-381's scalar field, the one
 * Filecoin's circuits are written in, with three backends behind one
 * gadget definition:
 *
 *   CS_WITNESS  the assignment only: values of the inputs and the aux
 *               variables, no linear combination is built (what runs for
 *               every proof: the circuit's matrices are recorded once)
 *   CS_COUNT    sizes and densities only (bellperson's BenchCS): the
 *               constraints' terms are built, merged and counted, then
 *               dropped, so a 32 GiB partition's shape is cheap to check
 *   CS_RECORD   the R1CS itself, each matrix in compressed rows over a
 *               table of the distinct coefficients (cs_r1cs), and the
 *               assignment too when asked (a test checks it satisfies
 *               the record)
 *
 * Variables are numbered as bellperson numbers them: inputs (input 0 is
 * the constant ONE) and aux variables each in the order allocated; a
 * cs_var carries which of the two it is. A linear combination's terms are
 * merged per variable and terms whose coefficient is zero dropped, as
 * bellperson's LinearCombination and its density trackers do: A's
 * density counts aux variables, B's inputs and aux variables.
 *
 * A gadget computes every value in every backend (the structure never
 * depends on them, as bellperson's setup runs without values) and builds
 * a constraint's three linear combinations only when cs_lcs() says so:
 *
 *     if (cs_lcs(cs)) {
 *         lc_add(cs_a(cs), x, &one); ...
 *         cs_enforce(cs);
 *     } else
 *         cs_skip(cs);
 *
 * Errors are sticky: the first (no memory, an unsatisfiable constant
 * equality) is kept in cs->err and later calls do nothing harmful;
 * callers check cs_failed() at the end. */
#ifndef CUZK_CS_CS_H
#define CUZK_CS_CS_H

#include <stddef.h>
#include <stdint.h>

#include "../../include/cuzk.h"
#include "../field/fields.h"

typedef bls12_381_fr fr; /* Montgomery form */

typedef uint32_t cs_var;
#define CS_INPUT_FLAG 0x80000000u
#define CS_ONE ((cs_var)CS_INPUT_FLAG) /* input 0 */
#define CS_VAR_INDEX(v) ((v) & ~CS_INPUT_FLAG)
#define CS_VAR_IS_INPUT(v) (((v) & CS_INPUT_FLAG) != 0)

typedef struct cs_term {
    cs_var var;
    fr coeff;
} cs_term;

typedef struct cs_lc {
    cs_term *t;
    uint32_t n, cap;
} cs_lc;

enum { CS_WITNESS, CS_COUNT, CS_RECORD };

/* One recorded matrix: rows in compressed form. Entries' variables are
 * cs_vars (inputs flagged), the coefficient an index into the table. */
typedef struct cs_matrix_rec {
    uint64_t *row_ptr; /* rows + 1 */
    cs_var *var;
    uint32_t *coef;
    uint64_t nnz;
    uint64_t cap_rows, cap_var, cap_coef;
} cs_matrix_rec;

/* A growable bit set (densities). */
typedef struct cs_bits {
    uint64_t *w;
    uint64_t n_words;
} cs_bits;

/* The shape of a circuit: what CS_COUNT and CS_RECORD report. The
 * constraints and nonzeros do not count bellperson's input constraints
 * (input_i * 0 = 0, one an input, appended after synthesis); the
 * densities' popcounts are those bellperson's prover reports. */
typedef struct cs_shape {
    uint64_t inputs, aux, constraints;
    uint64_t nnz[3];          /* A, B, C */
    uint64_t a_aux_popcount;  /* aux variables in some A */
    uint64_t b_aux_popcount;  /* aux variables in some B */
    uint64_t b_inp_popcount;  /* inputs in some B */
} cs_shape;

typedef struct cs_system {
    int mode;
    int keep_values; /* CS_RECORD: keep the assignment too */
    cuzk_error err;  /* the first error; err.code != 0 once failed */
    /* the assignment (CS_WITNESS, or CS_RECORD with keep_values): input
     * input_base + i in input[i], aux likewise (the bases are 0 but in a
     * part, cs_init_part) */
    fr *input, *aux;
    uint64_t cap_input, cap_aux;
    uint64_t n_input, n_aux, n_constraints;
    uint64_t input_base, aux_base;
    /* the constraint being built */
    cs_lc lc[3];
    /* CS_COUNT and CS_RECORD */
    uint64_t nnz[3];
    cs_bits a_aux, b_aux, b_inp;
    /* CS_RECORD */
    cs_matrix_rec m[3];
    fr *table;         /* distinct coefficients, Montgomery form */
    uint32_t n_table, cap_table;
    uint32_t *slots;   /* open addressing: table index + 1, 0 empty */
    uint32_t n_slots;
} cs_system;

/* A fresh system of that mode with input 0 (ONE) allocated; keep_values:
 * CS_RECORD keeps the assignment too (CS_WITNESS always does, CS_COUNT
 * never). CUZK_OK or CUZK_ERR_NO_MEMORY. */
int cs_init(cs_system *cs, int mode, int keep_values, cuzk_error *err);
void cs_free(cs_system *cs);
/* A part of a witness made apart (on another thread): a CS_WITNESS
 * system numbering its variables from aux variable aux_at and input
 * input_at on, as they are numbered where the part goes in the whole
 * circuit (whose structure does not depend on values, so each part's
 * place is known before any is made). Its values: input[0..n_input -
 * input_base), aux[0..n_aux - aux_base). Freed with cs_free. */
void cs_init_part(cs_system *cs, uint64_t aux_at, uint64_t input_at);

static inline int cs_failed(const cs_system *cs)
{
    return cs->err.code != 0;
}
/* Whether constraints' linear combinations are built. */
static inline int cs_lcs(const cs_system *cs)
{
    return cs->mode != CS_WITNESS;
}
/* Fails the system (the first failure is kept). */
void cs_fail(cs_system *cs, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

cs_var cs_alloc(cs_system *cs, const fr *value);
cs_var cs_alloc_input(cs_system *cs, const fr *value);
/* A 0/1 value: the same as cs_alloc of it. */
cs_var cs_alloc_bit(cs_system *cs, int bit);

/* The current constraint's A, B and C, empty until cs_enforce (or
 * cs_skip) ends it. Only when cs_lcs(cs). */
static inline cs_lc *cs_a(cs_system *cs) { return &cs->lc[0]; }
static inline cs_lc *cs_b(cs_system *cs) { return &cs->lc[1]; }
static inline cs_lc *cs_c(cs_system *cs) { return &cs->lc[2]; }
/* Ends the constraint: its combinations merged, counted, recorded. */
void cs_enforce(cs_system *cs);
/* Ends a constraint in CS_WITNESS (counted only). */
static inline void cs_skip(cs_system *cs)
{
    cs->n_constraints++;
}

/* Linear combinations: x += coeff * var (terms are merged when the
 * constraint ends, so the same variable may be added again). */
void lc_add(cs_system *cs, cs_lc *lc, cs_var var, const fr *coeff);
void lc_add_one(cs_system *cs, cs_lc *lc, cs_var var); /* coefficient 1 */
void lc_sub_one(cs_system *cs, cs_lc *lc, cs_var var); /* coefficient -1 */
/* x += scale * y (scale NULL: 1) */
void lc_add_lc(cs_system *cs, cs_lc *x, const cs_lc *y, const fr *scale);
static inline void lc_clear(cs_lc *lc)
{
    lc->n = 0;
}
void lc_free(cs_lc *lc);

/* The shape so far. */
void cs_shape_get(const cs_system *cs, cs_shape *out);

/* Whether the kept assignment satisfies the recorded constraints (CS_RECORD
 * with keep_values): -1 when it does, else the first row that fails. */
int64_t cs_first_unsatisfied(const cs_system *cs);

/* Frequently used constants. */
extern const fr cs_fr_zero, cs_fr_one, cs_fr_minus_one;

#endif
