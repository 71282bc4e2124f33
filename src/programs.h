/* What the project's own programs (the cuzk command, tools/cuzk/, and the
 * benches, bench/) use of the library beyond its public headers: the one
 * internal header they include. Not installed and no promise of
 * stability; each line says what a program takes from it. Tests, and the
 * benches of one layer (bench_arith, bench_msm, bench_gpu), include the
 * internals they measure directly. */
#ifndef CUZK_PROGRAMS_H
#define CUZK_PROGRAMS_H

#include "../include/cuzk.h"
#include "../include/cuzk_engine.h"
#include "../include/cuzk_serve.h"

#include "util/base64.h"     /* submit: witnesses uploaded in JSON */
#include "util/clock.h"      /* cuzk_now: the monotonic clock every timing reads */
#include "util/cores.h"      /* cpu_cores: every "all the cores" default */
#include "util/error.h"      /* cuzk_error_set: the library's wording of a failure */
#include "util/file.h"       /* write_file_atomic and the checked opens of outputs and inputs */
#include "util/parse.h"      /* option values: sizes, counts, durations */
#include "util/progress.h"   /* the one wording of progress lines */
#include "util/rand.h"       /* submit: request ids */
#include "util/size_text.h"  /* byte counts as a person reads them */
#include "util/url_id.h"     /* ids as the daemon's URLs take them */
#include "formats/binfile.h" /* a file's kind from its magic (info, prove's arguments) */
#include "formats/json_out.h" /* submit: results written as the daemon's JSON */
#include "formats/params.h"  /* info and export-vk of bellperson .params files, .vk files */
#include "formats/ptau.h"    /* info of powers of tau */
#include "formats/r1cs.h"    /* info of .r1cs files (mapped) */
#include "formats/wtns.h"    /* witnesses mapped and written */
#include "formats/zkey.h"    /* info of .zkey files (mapped) */
#include "circuit/source.h"  /* bench porep and bench_supraseal: circuits' rows */
#include "ec/curve_desc.h"   /* porep c2: the witness's curve */
#include "filecoin/c1.h"     /* porep: C1 outputs read, checked, written by test sealing */
#include "filecoin/record.h" /* porep: seal records, verify_seal */
#include "filecoin/stacked_source.h" /* porep c2 and circuit stacked: the PoRep circuit and its witnesses */
#include "core/core.h"       /* bench_supraseal: a and b evaluated as bellperson hands them over */
#include "groth16/key.h"     /* prove --partition: a generated circuit's witness */
#include "groth16/params_key.h" /* porep c2: a .params key with the PoRep circuit recorded for it */
#include "groth16/matrices.h" /* bench_supraseal: a key's constraint matrices */
#include "groth16/prove.h"   /* bench_supraseal: the prover's stages */
#include "groth16/timings.h" /* the timings table every rendering reads */
#include "engine/options.h"  /* the engine's option table: flags, config keys, help */
#include "engine/stats.h"    /* the engine's stats table: reports */
#include "server/options.h"  /* serve: the daemon's option table: flags, config keys, help, man page */
#include "server/pgqueue.h"  /* bench_pgqueue: the PostgreSQL queue alone */

#endif
