/* cuzk's test circuits: satisfied circuits of any size for tests,
 * benchmarks and `cuzk circuit` (libcuzk_testcircuits.a, src/testcircuits/;
 * not part of libcuzk). sha256-chain writes a .r1cs and a .wtns;
 * porep-shape has the proportions of Filecoin's PoRep partition and a
 * native form (a few lines describing the size) that libcuzk's readers of
 * circuits take where a .r1cs goes, once this library has registered it
 * (cuzk_testcircuits_register): its rows and each partition's witness are
 * then made on demand, never written. */
#ifndef CUZK_TESTCIRCUITS_H
#define CUZK_TESTCIRCUITS_H

#include "cuzk.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Makes porep-shape's native form a circuit libcuzk reads (a key's
 * circuit, a setup's, the engine's jobs of generated partitions).
 * Idempotent and thread-safe; CUZK_OK or CUZK_ERR_NO_MEMORY (the table
 * of circuit kinds is full). */
CUZK_WARN_UNUSED_RESULT int cuzk_testcircuits_register(cuzk_error *err);

typedef struct cuzk_circuit_options {
    int curve;                      /* CUZK_CURVE_*; 0 = BN254 */
    unsigned long long constraints; /* the size to aim for; the circuit has whole blocks */
    unsigned long long seed;        /* picks the message */
    unsigned n_public;              /* public outputs: the first n_public digest bits (0..256) */
    const char *message_path;       /* if not NULL, the message is written there too */
    cuzk_progress_fn progress;      /* may be NULL; stage "blocks" */
    void *progress_ctx;
} cuzk_circuit_options;

typedef struct cuzk_circuit_info {
    unsigned long long blocks, constraints, wires;
    unsigned long long witness_binary, witness_other; /* witness values in {0, 1}, and the rest */
    unsigned char digest[32];                          /* SHA-256 of the message */
} cuzk_circuit_info;

/* A satisfied circuit of any size, for tests and benchmarks: SHA-256 of a
 * message of B 64-byte blocks (bytes from splitmix64(seed)), as R1CS
 * gadgets over bits, with B chosen so the circuit has about
 * opts->constraints constraints (about 27,000 per block, 2 blocks at
 * least). The message words are private inputs, the first n_public digest
 * bits (most significant bit of byte 0 first) public outputs; every other
 * witness value is a bit. Writes the .r1cs and .wtns (circom's formats)
 * as streams, checks the digest against a plain SHA-256, and fills info
 * (may be NULL). On failure neither file is left behind. */
CUZK_WARN_UNUSED_RESULT int cuzk_circuit_sha256_chain(const char *r1cs_path, const char *wtns_path,
                                                               const cuzk_circuit_options *opts,
                                                               cuzk_circuit_info *info, cuzk_error *err);

/* The 32 GiB-sector PoRep partition's shape (the defaults): constraints,
 * partitions; the most constraints porep-shape writes as a .r1cs, and in
 * its native form (a domain of 2^31 with the 328 input constraints). */
#define CUZK_POREP_CONSTRAINTS 130278869ull
#define CUZK_POREP_PARTITIONS 10u
#define CUZK_POREP_R1CS_MAX (1ull << 24)
#define CUZK_POREP_NATIVE_MAX ((1ull << 31) - 328)

/* How porep-shape writes the circuit: AUTO is R1CS up to
 * CUZK_POREP_R1CS_MAX constraints, NATIVE above. */
enum { CUZK_POREP_FORMAT_AUTO = 0, CUZK_POREP_FORMAT_R1CS = 1, CUZK_POREP_FORMAT_NATIVE = 2 };

typedef struct cuzk_porep_shape_options {
    unsigned long long constraints; /* 0: CUZK_POREP_CONSTRAINTS */
    unsigned partitions;            /* 0: CUZK_POREP_PARTITIONS */
    unsigned long long seed;        /* picks the witnesses (the circuit is the same for every seed) */
    int format;                     /* CUZK_POREP_FORMAT_* */
    int witness_files;              /* NATIVE: 1 writes partition_K.wtns too (R1CS always does) */
    cuzk_progress_fn progress;      /* may be NULL */
    void *progress_ctx;
} cuzk_porep_shape_options;

typedef struct cuzk_porep_shape_info {
    unsigned long long constraints, wires, n_public, aux, partitions;
    int format;                            /* the format written: R1CS or NATIVE */
    unsigned long long nonzeros[3];        /* of A, B, C */
    unsigned long long aux_in_a, aux_in_b; /* aux variables in some A, in some B */
    unsigned long long witness_binary, witness_values; /* aux values in {0, 1}, of all, over the files written */
} cuzk_porep_shape_info;

/* A satisfied BLS12-381 circuit with the shape of a PoRep partition
 * (src/testcircuits/porep_shape.c: 327 public inputs, an aux variable a
 * constraint, A/B/C nonzeros, A and B densities and the witness's 0/1
 * share in the PoRep's proportions) and the witnesses of P partitions
 * (the directory is made if missing). R1CS: out_dir/circuit.r1cs and
 * out_dir/partition_K.wtns. NATIVE: out_dir/circuit.porep, a description
 * of five lines from which every reader of circuits (cuzk_setup,
 * cuzk_params_open, where a .r1cs path goes, once
 * cuzk_testcircuits_register has run) makes the rows again, and the
 * prover each partition's witness; partition_K.wtns only with
 * witness_files. */
CUZK_WARN_UNUSED_RESULT int cuzk_circuit_porep_shape(const char *out_dir,
                                                              const cuzk_porep_shape_options *opts,
                                                              cuzk_porep_shape_info *info, cuzk_error *err);

#ifdef __cplusplus
}
#endif

#endif
