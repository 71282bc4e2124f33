// Known-answer test vector generator for cuzk.
//
// Usage (inside tests/vectors):   npm ci && node gen_vectors.mjs [OUTDIR]
// Writes bls12_381.json and bn254.json into OUTDIR (default: next to this
// script). .ci/run writes them to a temporary folder and compares them with
// the committed files.
//
// All values come from @noble/curves (an independent implementation). Every
// value is additionally cross-checked against a tiny, slow, textbook BigInt
// implementation contained in this file (affine formulas, double-and-add,
// extended-Euclid inversion, Zcash encoding written from the spec), so a bug
// would have to be present in both to slip through.
//
// Output conventions (consumed by the C tests via jansson):
//   * integers: lowercase hex, big-endian, no "0x", zero padded to fixed width
//     (Fp: 96 chars for BLS12-381, 64 for BN254; scalars: 64 chars); normal
//     (non-Montgomery) form.
//   * Fp2: [c0, c1] meaning c0 + c1*u, u^2 = -1.
//   * G1 affine: {"x": fp, "y": fp}; G2 affine: {"x": fp2, "y": fp2};
//     point at infinity: null.
//   * Fp12: [[c0.c0, c0.c1, c0.c2], [c1.c0, c1.c1, c1.c2]], each an Fp2, for
//     c0 + c1*w, cX = cX.c0 + cX.c1*v + cX.c2*v^2 with the tower (noble's,
//     checked here against a schoolbook Fp2[w]/(w^6 - xi) reference)
//       Fp2 = Fp[u]/(u^2 + 1), Fp6 = Fp2[v]/(v^3 - xi), Fp12 = Fp6[w]/(w^2 - v),
//       xi = 1 + u (BLS12-381), xi = 9 + u (BN254).
//     Same layout (in decimal) as snarkjs's vk_alphabeta_12.
//   * pairing.e / fp12_final_exp.fe: noble's (optimal ate) pairing, whose
//     final exponentiation is a fixed power of the exact one:
//       BLS12-381: f^(3 (p^12-1)/r); BN254: f^(2x(6x^2+3x+1) (p^12-1)/r),
//       x = 4965661367192848881.
//     So e = e_exact^3 (BLS12-381), e = e_exact^(2x(6x^2+3x+1)) (BN254), where
//     e_exact is the textbook reduced pairing (checked below; for BLS12-381
//     e_exact(G1, G2) also equals the draft-irtf-cfrg-pairing-friendly-curves
//     test vector). snarkjs / ffjavascript produce the same values
//     (vk_alphabeta_12 = noble's e(alpha1, beta2)). e with P or Q at infinity
//     is 1 (noble refuses these).
//   * Randomness: splitmix64 over BigInt from a fixed seed (deterministic).
//     New sections are appended at the end so earlier ones never change.

import { bls12_381 } from '@noble/curves/bls12-381.js';
import { bn254 } from '@noble/curves/bn254.js';
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = dirname(fileURLToPath(import.meta.url));
const OUT_DIR = process.argv[2] || HERE;
const NOBLE_DIR = dirname(fileURLToPath(import.meta.resolve('@noble/curves/bls12-381.js')));
const NOBLE_VERSION = JSON.parse(readFileSync(join(NOBLE_DIR, 'package.json'), 'utf8')).version;

const SEED = 0x637a6b2d76656374n; // ASCII "czk-vect"
const SEED_STR = SEED.toString(16).padStart(16, '0');

// ---------------------------------------------------------------------------
// Deterministic PRNG: splitmix64 over BigInt.
// ---------------------------------------------------------------------------
const M64 = (1n << 64n) - 1n;
class SplitMix64 {
  constructor(seed) {
    this.s = seed & M64;
  }
  next64() {
    this.s = (this.s + 0x9e3779b97f4a7c15n) & M64;
    let z = this.s;
    z = ((z ^ (z >> 30n)) * 0xbf58476d1ce4e5b9n) & M64;
    z = ((z ^ (z >> 27n)) * 0x94d049bb133111ebn) & M64;
    return z ^ (z >> 31n);
  }
  bits(n) {
    let v = 0n;
    let have = 0;
    while (have < n) {
      v = (v << 64n) | this.next64();
      have += 64;
    }
    return v >> BigInt(have - n);
  }
  // uniform in [0, m) by rejection sampling
  below(m) {
    const n = m.toString(2).length;
    for (;;) {
      const v = this.bits(n);
      if (v < m) return v;
    }
  }
  // uniform in [1, m)
  nonzeroBelow(m) {
    for (;;) {
      const v = this.below(m);
      if (v !== 0n) return v;
    }
  }
}

// ---------------------------------------------------------------------------
// Independent reference arithmetic (slow, simple, used only for cross-checks).
// ---------------------------------------------------------------------------
function check(cond, msg) {
  if (!cond) throw new Error('SANITY CHECK FAILED: ' + msg);
}
const modn = (a, m) => {
  const r = a % m;
  return r < 0n ? r + m : r;
};
function powmod(b, e, m) {
  let r = 1n;
  b = modn(b, m);
  while (e > 0n) {
    if (e & 1n) r = (r * b) % m;
    b = (b * b) % m;
    e >>= 1n;
  }
  return r;
}
function invmod(a, m) {
  let [r0, r1] = [modn(a, m), m];
  let [s0, s1] = [1n, 0n];
  check(r0 !== 0n, 'invmod(0)');
  while (r1 !== 0n) {
    const q = r0 / r1;
    [r0, r1] = [r1, r0 - q * r1];
    [s0, s1] = [s1, s0 - q * s1];
  }
  check(r0 === 1n, 'invmod: not invertible');
  return modn(s0, m);
}

function makeRefFp(p) {
  return {
    p,
    zero: 0n,
    one: 1n,
    add: (a, b) => modn(a + b, p),
    sub: (a, b) => modn(a - b, p),
    neg: (a) => modn(-a, p),
    mul: (a, b) => modn(a * b, p),
    sqr: (a) => modn(a * a, p),
    inv: (a) => invmod(a, p),
    eq: (a, b) => a === b,
    isZero: (a) => a === 0n,
    small: (n) => modn(n, p),
    // Euler criterion; 0 counts as a square
    isSquare: (a) => a === 0n || powmod(a, (p - 1n) / 2n, p) === 1n,
  };
}
function makeRefFp2(F) {
  const { p } = F;
  const T = {
    p,
    zero: [0n, 0n],
    one: [1n, 0n],
    add: (a, b) => [F.add(a[0], b[0]), F.add(a[1], b[1])],
    sub: (a, b) => [F.sub(a[0], b[0]), F.sub(a[1], b[1])],
    neg: (a) => [F.neg(a[0]), F.neg(a[1])],
    mul: (a, b) => [
      modn(a[0] * b[0] - a[1] * b[1], p),
      modn(a[0] * b[1] + a[1] * b[0], p),
    ],
    sqr: (a) => T.mul(a, a),
    inv: (a) => {
      const t = invmod(a[0] * a[0] + a[1] * a[1], p);
      return [F.mul(a[0], t), F.neg(F.mul(a[1], t))];
    },
    eq: (a, b) => a[0] === b[0] && a[1] === b[1],
    isZero: (a) => a[0] === 0n && a[1] === 0n,
    small: (n) => [modn(n, p), 0n],
    // a is a square in Fp2 iff its norm a0^2 + a1^2 is a square in Fp
    isSquare: (a) => F.isSquare(modn(a[0] * a[0] + a[1] * a[1], p)),
  };
  return T;
}
// Short Weierstrass y^2 = x^3 + b, affine points {x, y} or null.
function makeRefCurve(F, b) {
  const C = {
    F,
    b,
    onCurve(P) {
      if (P === null) return true;
      return F.eq(F.sqr(P.y), F.add(F.mul(F.sqr(P.x), P.x), b));
    },
    neg(P) {
      return P === null ? null : { x: P.x, y: F.neg(P.y) };
    },
    eq(P, Q) {
      if (P === null || Q === null) return P === Q;
      return F.eq(P.x, Q.x) && F.eq(P.y, Q.y);
    },
    add(P, Q) {
      if (P === null) return Q;
      if (Q === null) return P;
      let lam;
      if (F.eq(P.x, Q.x)) {
        if (!F.eq(P.y, Q.y) || F.isZero(P.y)) return null;
        // doubling: lambda = 3x^2 / 2y
        lam = F.mul(F.mul(F.small(3n), F.sqr(P.x)), F.inv(F.add(P.y, P.y)));
      } else {
        lam = F.mul(F.sub(Q.y, P.y), F.inv(F.sub(Q.x, P.x)));
      }
      const x3 = F.sub(F.sub(F.sqr(lam), P.x), Q.x);
      const y3 = F.sub(F.mul(lam, F.sub(P.x, x3)), P.y);
      return { x: x3, y: y3 };
    },
    mul(k, P) {
      check(k >= 0n, 'negative scalar');
      let R = null;
      for (let i = k.toString(2).length - 1; i >= 0; i--) {
        R = C.add(R, R);
        if ((k >> BigInt(i)) & 1n) R = C.add(R, P);
      }
      return k === 0n ? null : R;
    },
  };
  return C;
}

// Fp12 written as one degree-6 extension: Fp12 = Fp2[w]/(w^6 - xi), an element
// being 6 Fp2 coefficients (index k <-> w^k). This is the same field as the
// tower Fp6 = Fp2[v]/(v^3 - xi), Fp12 = Fp6[w]/(w^2 - v) once v = w^2, so
// tower c0 = (w^0, w^2, w^4) and c1 = (w^1, w^3, w^5). Multiplication is
// schoolbook, with no tower formulas, so it checks noble's tower independently.
function makeRefFp12(F2, xi) {
  const { p } = F2;
  const T = {
    p,
    xi,
    zero: () => Array.from({ length: 6 }, () => [0n, 0n]),
    one: () => T.mono(0, [1n, 0n]),
    mono: (k, c) => {
      const z = T.zero();
      z[k] = [modn(c[0], p), modn(c[1], p)];
      return z;
    },
    fromFp: (a) => T.mono(0, [a, 0n]),
    sub: (a, b) => a.map((x, i) => F2.sub(x, b[i])),
    eq: (a, b) => a.every((x, i) => F2.eq(x, b[i])),
    isOne: (a) => T.eq(a, T.one()),
    mul: (a, b) => {
      const c = Array.from({ length: 11 }, () => [0n, 0n]);
      for (let i = 0; i < 6; i++) {
        const [a0, a1] = a[i];
        if (a0 === 0n && a1 === 0n) continue;
        for (let j = 0; j < 6; j++) {
          const [b0, b1] = b[j];
          c[i + j][0] += a0 * b0 - a1 * b1; // u^2 = -1
          c[i + j][1] += a0 * b1 + a1 * b0;
        }
      }
      const out = [];
      for (let k = 0; k < 6; k++) {
        let [r0, r1] = c[k];
        if (k + 6 < 11) {
          const [h0, h1] = c[k + 6]; // w^(k+6) = xi * w^k
          r0 += h0 * xi[0] - h1 * xi[1];
          r1 += h0 * xi[1] + h1 * xi[0];
        }
        out.push([modn(r0, p), modn(r1, p)]);
      }
      return out;
    },
    pow: (a, e) => {
      check(e >= 0n, 'negative exponent');
      let r = T.one();
      for (let i = e.toString(2).length - 1; i >= 0; i--) {
        r = T.mul(r, r);
        if ((e >> BigInt(i)) & 1n) r = T.mul(r, a);
      }
      return r;
    },
    // tower layout [[c0.c0, c0.c1, c0.c2], [c1.c0, c1.c1, c1.c2]] (each Fp2)
    toTower: (a) => [
      [a[0], a[2], a[4]],
      [a[1], a[3], a[5]],
    ],
    fromTower: (t) => [t[0][0], t[1][0], t[0][1], t[1][1], t[0][2], t[1][2]],
  };
  return T;
}

// Textbook reduced optimal-ate pairing e(P, Q) = f^((p^12-1)/r), exact final
// exponent (generic square-and-multiply). Miller loop by plain double-and-add
// over the bits of o.loop with affine tangent/chord lines evaluated at P on
// E(Fp12): the slope is computed on the twist E'(Fp2) and carried over by the
// untwisting isomorphism (D-type: (x w^2, y w^3); M-type: (x / w^2, y / w^3)).
// Vertical lines are dropped: their values lie in Fp6 and die in the final
// exponentiation. BN: two extra lines through pi(Q) and -pi^2(Q), with the
// Frobenius pi computed as the p-th power of the untwisted coordinates.
// Negative loop parameter (BLS12-381): f_{-n} = 1/(f_n v), i.e. the inverse.
function refPairing(P, Q, o) {
  const { F2, E2, F12, r } = o;
  const p = F2.p;
  if (P === null || Q === null) return F12.one();
  const xi = F12.xi;
  const xiInv = F2.inv(xi);
  const untwist = (A) =>
    o.divisive
      ? { x: F12.mono(2, A.x), y: F12.mono(3, A.y) }
      : { x: F12.mono(4, F2.mul(A.x, xiInv)), y: F12.mono(3, F2.mul(A.y, xiInv)) };
  const onlyAt = (a, k) => {
    a.forEach((c, i) => check(i === k || F2.isZero(c), 'Frobenius image is not on the twist'));
    return a[k];
  };
  const twist = (X) =>
    o.divisive
      ? { x: onlyAt(X.x, 2), y: onlyAt(X.y, 3) }
      : { x: F2.mul(onlyAt(X.x, 4), xi), y: F2.mul(onlyAt(X.y, 3), xi) };
  const Px = F12.fromFp(P.x);
  const Py = F12.fromFp(P.y);
  const line = (T, S) => {
    let lam;
    if (F2.eq(T.x, S.x)) {
      check(F2.eq(T.y, S.y) && !F2.isZero(T.y), 'unexpected vertical line');
      lam = F2.mul(F2.mul(F2.small(3n), F2.sqr(T.x)), F2.inv(F2.add(T.y, T.y)));
    } else {
      lam = F2.mul(F2.sub(S.y, T.y), F2.inv(F2.sub(S.x, T.x)));
    }
    // slope on E: lam * w (D-type) or lam / w = lam * w^5 / xi (M-type)
    const L = o.divisive ? F12.mono(1, lam) : F12.mono(5, F2.mul(lam, xiInv));
    const Tu = untwist(T);
    return F12.sub(F12.sub(Py, Tu.y), F12.mul(L, F12.sub(Px, Tu.x)));
  };
  const n = o.loop;
  let f = F12.one();
  let T = Q;
  for (let i = n.toString(2).length - 2; i >= 0; i--) {
    f = F12.mul(F12.mul(f, f), line(T, T));
    T = E2.add(T, T);
    if ((n >> BigInt(i)) & 1n) {
      f = F12.mul(f, line(T, Q));
      T = E2.add(T, Q);
    }
  }
  if (o.bn) {
    const Qu = untwist(Q);
    const Q1 = twist({ x: F12.pow(Qu.x, p), y: F12.pow(Qu.y, p) });
    const Q2 = twist({ x: F12.pow(Qu.x, p * p), y: F12.pow(Qu.y, p * p) });
    check(E2.onCurve(Q1) && E2.onCurve(Q2), 'pi(Q), pi^2(Q) on the twist');
    f = F12.mul(f, line(T, Q1));
    T = E2.add(T, Q1);
    f = F12.mul(f, line(T, E2.neg(Q2)));
  }
  check((p ** 12n - 1n) % r === 0n, 'r | p^12 - 1');
  let e = F12.pow(f, (p ** 12n - 1n) / r);
  if (o.negLoop) e = F12.pow(e, r - 1n);
  return e;
}

// ---------------------------------------------------------------------------
// Per-curve generation.
// ---------------------------------------------------------------------------
function generate(curveName, noble) {
  const rng = new SplitMix64(SEED);
  const isBls = curveName === 'bls12_381';
  const nFp = noble.fields.Fp;
  const nFp2 = noble.fields.Fp2;
  const G1 = noble.G1.Point;
  const G2 = noble.G2.Point;
  const p = nFp.ORDER;
  const r = G1.CURVE().n;
  check(G2.CURVE().n === r, 'G2 order');
  check(noble.fields.Fr.ORDER === r, 'Fr order');
  const FP_BYTES = isBls ? 48 : 32;
  const FP_HEX = FP_BYTES * 2;
  check(p < 1n << BigInt(8 * FP_BYTES), 'p width');
  check(r < 1n << 256n, 'r width');
  check(p % 4n === 3n, 'p = 3 mod 4');

  // Reference arithmetic.
  const F = makeRefFp(p);
  const F2 = makeRefFp2(F);
  const b1 = isBls ? 4n : 3n;
  const b2 = isBls ? [4n, 4n] : F2.mul([3n, 0n], F2.inv([9n, 1n])); // 4(u+1) | 3/(9+u)
  const E1 = makeRefCurve(F, b1);
  const E2 = makeRefCurve(F2, b2);
  check(G1.CURVE().b === b1, 'G1 b matches');
  check(G2.CURVE().b.c0 === b2[0] && G2.CURVE().b.c1 === b2[1], 'G2 b matches');
  check(G1.CURVE().a === 0n, 'G1 a = 0');

  // Hex helpers.
  const hexN = (v, chars) => {
    check(v >= 0n, 'negative hex');
    const h = v.toString(16);
    check(h.length <= chars, `value too wide for ${chars} hex chars`);
    return h.padStart(chars, '0');
  };
  const hFp = (v) => hexN(v, FP_HEX);
  const hSc = (v) => hexN(v, 64);
  const hFp2 = (a) => [hFp(a[0]), hFp(a[1])];
  const toRef2 = (e) => [e.c0, e.c1];
  const toNoble2 = (a) => nFp2.create({ c0: a[0], c1: a[1] });

  // noble point <-> reference affine point
  const refG1 = (P) => (P.is0() ? null : { x: P.toAffine().x, y: P.toAffine().y });
  const refG2 = (P) => {
    if (P.is0()) return null;
    const a = P.toAffine();
    return { x: toRef2(a.x), y: toRef2(a.y) };
  };
  const nobleG1 = (A) => (A === null ? G1.ZERO : G1.fromAffine({ x: A.x, y: A.y }));
  const nobleG2 = (A) =>
    A === null ? G2.ZERO : G2.fromAffine({ x: toNoble2(A.x), y: toNoble2(A.y) });
  const jG1 = (A) => (A === null ? null : { x: hFp(A.x), y: hFp(A.y) });
  const jG2 = (A) => (A === null ? null : { x: hFp2(A.x), y: hFp2(A.y) });

  const groups = {
    g1: { P: G1, E: E1, ref: refG1, nob: nobleG1, j: jG1, F },
    g2: { P: G2, E: E2, ref: refG2, nob: nobleG2, j: jG2, F: F2 },
  };

  const out = {
    generator: `@noble/curves ${NOBLE_VERSION}`,
    curve: curveName,
    seed: SEED_STR,
    p: hFp(p),
    r: hSc(r),
  };

  const gen1 = refG1(G1.BASE);
  const gen2 = refG2(G2.BASE);
  check(E1.onCurve(gen1) && E2.onCurve(gen2), 'generators on curve');
  check(E1.mul(r, gen1) === null && E2.mul(r, gen2) === null, 'generators have order r');
  out.generators = { g1: jG1(gen1), g2: jG2(gen2) };

  // ---- Fp sqrt -----------------------------------------------------------
  const nobleSqrtFp = (a) => {
    try {
      return nFp.sqrt(a);
    } catch (e) {
      return null;
    }
  };
  const fpSqrt = [];
  const addFpSqrt = (a) => {
    const s = nobleSqrtFp(a);
    if (F.isSquare(a)) {
      check(s !== null && F.sqr(s) === a, 'Fp sqrt of residue');
      // p = 3 mod 4: noble returns a^((p+1)/4) (no sign normalisation)
      check(s === powmod(a, (p + 1n) / 4n, p), 'noble Fp sqrt convention');
    } else {
      check(s === null, 'noble Fp sqrt of non-residue must fail');
    }
    fpSqrt.push({ a: hFp(a), sqrt: s === null ? null : hFp(s) });
  };
  check(!F.isSquare(p - 1n), 'p-1 non-residue');
  for (const a of [0n, 1n, p - 1n, 4n, 2n, 3n, 5n, (p - 1n) / 2n]) addFpSqrt(a);
  for (let i = 0; i < 14; i++) addFpSqrt(F.sqr(rng.nonzeroBelow(p))); // residues
  for (let i = 0; i < 12; ) {
    const a = rng.below(p);
    if (F.isSquare(a)) continue;
    addFpSqrt(a); // non-residues
    i++;
  }
  for (let i = 0; i < 6; i++) addFpSqrt(rng.below(p)); // unbiased mix
  out.fp_sqrt = fpSqrt;

  // ---- Fp2 sqrt ----------------------------------------------------------
  const nobleSqrtFp2 = (a) => {
    try {
      return toRef2(nFp2.sqrt(toNoble2(a)));
    } catch (e) {
      return null;
    }
  };
  const fp2Sqrt = [];
  const addFp2Sqrt = (a) => {
    const s = nobleSqrtFp2(a);
    if (F2.isSquare(a)) {
      check(s !== null && F2.eq(F2.sqr(s), a), 'Fp2 sqrt of square');
    } else {
      check(s === null, 'noble Fp2 sqrt of non-square must fail');
    }
    fp2Sqrt.push({ a: hFp2(a), sqrt: s === null ? null : hFp2(s) });
  };
  const randFp2 = () => [rng.below(p), rng.below(p)];
  const randResidueFp = () => F.sqr(rng.nonzeroBelow(p));
  const randNonResidueFp = () => {
    for (;;) {
      const a = rng.below(p);
      if (!F.isSquare(a)) return a;
    }
  };
  for (const a of [
    [0n, 0n],
    [1n, 0n],
    [0n, 1n],
    [p - 1n, 0n],
    [4n, 0n],
    [0n, p - 1n],
    [2n, 0n],
    [0n, 2n],
    [1n, 1n],
  ])
    addFp2Sqrt(a);
  for (let i = 0; i < 3; i++) addFp2Sqrt([randResidueFp(), 0n]); // c1 = 0, c0 residue
  for (let i = 0; i < 3; i++) addFp2Sqrt([randNonResidueFp(), 0n]); // c1 = 0, c0 non-residue
  for (let i = 0; i < 4; i++) addFp2Sqrt([0n, rng.nonzeroBelow(p)]); // c0 = 0 (always squares)
  for (let i = 0; i < 12; i++) addFp2Sqrt(F2.sqr(randFp2())); // random squares
  for (let i = 0; i < 10; ) {
    const a = randFp2();
    if (F2.isSquare(a)) continue;
    addFp2Sqrt(a); // random non-squares
    i++;
  }
  out.fp2_sqrt = fp2Sqrt;

  // ---- Fp inv ------------------------------------------------------------
  const fpInv = [];
  const addFpInv = (a) => {
    const inv = nFp.inv(a);
    check(inv === invmod(a, p) && F.mul(a, inv) === 1n, 'Fp inv');
    fpInv.push({ a: hFp(a), inv: hFp(inv) });
  };
  for (const a of [1n, 2n, p - 1n, p - 2n, (p + 1n) / 2n, 3n]) addFpInv(a);
  for (let i = 0; i < 16; i++) addFpInv(rng.nonzeroBelow(p));
  out.fp_inv = fpInv;

  // ---- Fp2 mul / inv -----------------------------------------------------
  const fp2Mul = [];
  const addFp2Mul = (a, b) => {
    const ab = toRef2(nFp2.mul(toNoble2(a), toNoble2(b)));
    check(F2.eq(ab, F2.mul(a, b)), 'Fp2 mul');
    fp2Mul.push({ a: hFp2(a), b: hFp2(b), ab: hFp2(ab) });
  };
  addFp2Mul([0n, 1n], [0n, 1n]); // u*u = -1
  addFp2Mul([1n, 0n], [p - 1n, p - 1n]);
  addFp2Mul([p - 1n, p - 1n], [p - 1n, p - 1n]);
  addFp2Mul([0n, 0n], randFp2());
  addFp2Mul([9n, 1n], randFp2());
  for (let i = 0; i < 17; i++) addFp2Mul(randFp2(), randFp2());
  out.fp2_mul = fp2Mul;

  const fp2Inv = [];
  const addFp2Inv = (a) => {
    const inv = toRef2(nFp2.inv(toNoble2(a)));
    check(F2.eq(inv, F2.inv(a)) && F2.eq(F2.mul(a, inv), F2.one), 'Fp2 inv');
    fp2Inv.push({ a: hFp2(a), inv: hFp2(inv) });
  };
  addFp2Inv([1n, 0n]);
  addFp2Inv([0n, 1n]);
  addFp2Inv([1n, 1n]);
  addFp2Inv([9n, 1n]);
  for (let i = 0; i < 8; ) {
    const a = randFp2();
    if (F2.isZero(a)) continue;
    addFp2Inv(a);
    i++;
  }
  out.fp2_inv = fp2Inv;

  // ---- scalar multiplication ---------------------------------------------
  const randMultiple = (g) => g.P.BASE.multiply(rng.nonzeroBelow(r));
  const mulSection = (g, nRandBase, nRandPoint) => {
    const list = [];
    const add = (k, Pn) => {
      const Pref = g.ref(Pn);
      let kPn;
      if (k === 0n) kPn = Pn.multiplyUnsafe(0n);
      else if (k < r) kPn = Pn.multiply(k);
      else if (k === r) kPn = Pn.multiplyUnsafe(r - 1n).add(Pn); // noble refuses k >= r
      else throw new Error('unsupported k');
      if (k > 0n && k < r) check(kPn.equals(Pn.multiplyUnsafe(k)), 'multiply == multiplyUnsafe');
      const kP = g.ref(kPn);
      check(g.E.eq(kP, g.E.mul(k, Pref)), 'scalar mul vs reference');
      check(g.E.onCurve(kP), 'kP on curve');
      list.push({ k: hSc(k), P: g.j(Pref), kP: g.j(kP) });
    };
    const B = g.P.BASE;
    const fixed = [0n, 1n, 2n, 3n, 4n, 5n, 7n, 255n, 256n, (1n << 64n) - 1n, 1n << 128n,
      r - 1n, r - 2n, (r - 1n) / 2n, r];
    for (const k of fixed) add(k, B);
    for (let i = 0; i < nRandBase; i++) add(rng.nonzeroBelow(r), B);
    for (let i = 0; i < nRandPoint; i++) add(rng.nonzeroBelow(r), randMultiple(g));
    add(0n, randMultiple(g));
    add(r - 1n, randMultiple(g));
    return list;
  };
  out.g1_mul = mulSection(groups.g1, 20, 10);
  out.g2_mul = mulSection(groups.g2, 10, 5);

  // ---- addition ----------------------------------------------------------
  const addSection = (g, nRand) => {
    const list = [];
    const add = (Pn, Qn) => {
      const S = g.ref(Pn.add(Qn));
      const Pr = g.ref(Pn);
      const Qr = g.ref(Qn);
      check(g.E.eq(S, g.E.add(Pr, Qr)), 'point add vs reference');
      check(g.E.onCurve(S), 'sum on curve');
      list.push({ P: g.j(Pr), Q: g.j(Qr), sum: g.j(S) });
    };
    const B = g.P.BASE;
    const Z = g.P.ZERO;
    add(B, B.double());
    add(B, B);
    add(B, B.negate());
    for (let i = 0; i < nRand; i++) add(randMultiple(g), randMultiple(g));
    for (let i = 0; i < 3; i++) {
      const P = randMultiple(g);
      add(P, P); // doubling
    }
    for (let i = 0; i < 3; i++) {
      const P = randMultiple(g);
      add(P, P.negate()); // -> infinity
    }
    add(Z, randMultiple(g));
    add(randMultiple(g), Z);
    add(Z, Z);
    add(Z, B);
    return list;
  };
  out.g1_add = addSection(groups.g1, 17);
  out.g2_add = addSection(groups.g2, 9);

  // ---- subgroup membership -----------------------------------------------
  // Random on-curve point from random x (not necessarily in the subgroup).
  const randCurvePointG1 = () => {
    for (;;) {
      const x = rng.below(p);
      const rhs = F.add(F.mul(F.sqr(x), x), b1);
      const y = nobleSqrtFp(rhs);
      if (y === null) continue;
      if (rng.next64() & 1n) return { x, y: F.neg(y) };
      return { x, y };
    }
  };
  const randCurvePointG2 = () => {
    for (;;) {
      const x = randFp2();
      const rhs = F2.add(F2.mul(F2.sqr(x), x), b2);
      const y = nobleSqrtFp2(rhs);
      if (y === null) continue;
      if (rng.next64() & 1n) return { x, y: F2.neg(y) };
      return { x, y };
    }
  };
  const inSubgroup = (g, A) => {
    // independent truth: r*P == O
    const refTruth = g.E.mul(r, A) === null;
    const Pn = g.nob(A);
    const tf = Pn.isTorsionFree();
    let valid = true;
    try {
      Pn.assertValidity();
    } catch (e) {
      valid = false;
    }
    const viaMul = Pn.multiplyUnsafe(r - 1n).add(Pn).is0();
    check(tf === refTruth && valid === refTruth && viaMul === refTruth,
      'subgroup check: noble disagrees with reference');
    return refTruth;
  };
  const subgroupSection = (g, randCurvePoint, nTrue, nOther, mustBeFalse) => {
    const list = [];
    for (let i = 0; i < nTrue; i++) {
      const A = g.ref(randMultiple(g));
      check(g.E.onCurve(A) && inSubgroup(g, A), 'multiple of G is in subgroup');
      list.push({ P: g.j(A), in_subgroup: true });
    }
    for (let i = 0; i < nOther; ) {
      const A = randCurvePoint();
      check(g.E.onCurve(A), 'random point on curve');
      const t = inSubgroup(g, A);
      if (mustBeFalse && t) continue; // astronomically unlikely
      list.push({ P: g.j(A), in_subgroup: t });
      i++;
    }
    return list;
  };
  // BN254 G1 has cofactor 1: every on-curve point is in the subgroup.
  out.g1_subgroup = subgroupSection(groups.g1, randCurvePointG1, 10, 10, isBls);
  if (!isBls) check(out.g1_subgroup.every((e) => e.in_subgroup), 'bn254 G1 cofactor 1');
  out.g2_subgroup = subgroupSection(groups.g2, randCurvePointG2, 10, 10, true);

  // ---- BLS12-381 Zcash serialization -------------------------------------
  if (isBls) {
    const half = (p - 1n) / 2n; // y is "larger" iff y > (p-1)/2
    const be = (v) => hexN(v, FP_HEX);
    const setTop = (hex, mask) => {
      const b0 = parseInt(hex.slice(0, 2), 16);
      check((b0 & 0xe0) === 0, 'top bits already used');
      return (b0 | mask).toString(16).padStart(2, '0') + hex.slice(2);
    };
    const orTop = (hex, mask) =>
      (parseInt(hex.slice(0, 2), 16) | mask).toString(16).padStart(2, '0') + hex.slice(2);
    const andTop = (hex, mask) =>
      (parseInt(hex.slice(0, 2), 16) & mask).toString(16).padStart(2, '0') + hex.slice(2);
    // Reference Zcash encoders written from the spec.
    const encFp = (x) => be(x);
    const encFp2 = (x) => be(x[1]) + be(x[0]); // c1 || c0
    const sortG1 = (y) => y > half;
    const sortG2 = (y) => (y[1] !== 0n ? y[1] > half : y[0] > half);
    const refEncode = (kind, A, compressed) => {
      const W = kind === 'g1' ? FP_BYTES : 2 * FP_BYTES;
      if (A === null) {
        const len = compressed ? W : 2 * W;
        return setTop('00'.repeat(len), compressed ? 0xc0 : 0x40);
      }
      const enc = kind === 'g1' ? encFp : encFp2;
      const sort = kind === 'g1' ? sortG1 : sortG2;
      if (!compressed) return enc(A.x) + enc(A.y);
      return setTop(enc(A.x), 0x80 | (sort(A.y) ? 0x20 : 0));
    };
    const encodingSection = (kind, n) => {
      const g = groups[kind];
      const list = [];
      const add = (Pn) => {
        const A = g.ref(Pn);
        const c = Pn.toHex(true);
        const u = Pn.toHex(false);
        check(c === refEncode(kind, A, true), `${kind} compressed encoding vs reference`);
        check(u === refEncode(kind, A, false), `${kind} uncompressed encoding vs reference`);
        check(g.P.fromHex(c).equals(Pn) && g.P.fromHex(u).equals(Pn), `${kind} re-parse`);
        list.push({ P: g.j(A), compressed: c, uncompressed: u });
      };
      add(g.P.ZERO);
      add(g.P.BASE);
      add(g.P.BASE.negate());
      add(g.P.BASE.double());
      for (let i = 0; i < n; i++) add(randMultiple(g));
      const sorts = list.filter((e) => e.P !== null).map((e) => (parseInt(e.compressed.slice(0, 2), 16) & 0x20) !== 0);
      check(sorts.includes(true) && sorts.includes(false), 'both sort-flag values covered');
      return list;
    };
    out.g1_encoding = encodingSection('g1', 16);
    out.g2_encoding = encodingSection('g2', 12);

    const acceptedByNoble = [];
    const invalidSection = (kind) => {
      const g = groups[kind];
      const W = kind === 'g1' ? FP_BYTES : 2 * FP_BYTES;
      const enc = kind === 'g1' ? encFp : encFp2;
      const list = [];
      const add = (hex, reason, what) => {
        const len = hex.length / 2;
        check(len === W || len === 2 * W, 'invalid-case length');
        const format = len === W ? 'compressed' : 'uncompressed';
        let rejected = false;
        let msg = '';
        try {
          g.P.fromHex(hex);
        } catch (e) {
          rejected = true;
          msg = e.message;
        }
        if (!rejected) {
          acceptedByNoble.push({ kind, format, reason, what, bytes: hex });
          console.log(`  !! noble ACCEPTED ${kind} ${format} ${reason} (${what}) - left out`);
          return;
        }
        console.log(`  ${kind} ${format.padEnd(12)} ${reason.padEnd(15)} ${what}: noble says "${msg}"`);
        list.push({ format, bytes: hex, reason });
      };
      const B = g.P.BASE;
      const validC = B.multiply(rng.nonzeroBelow(r)).toHex(true);
      const validU = B.multiply(rng.nonzeroBelow(r)).toHex(false);
      // bad_flags
      add(andTop(validC, 0x7f), 'bad_flags', 'compressed flag missing on W-byte input');
      add(andTop(validC, 0x1f), 'bad_flags', 'all flags cleared on W-byte input');
      add(setTop('00'.repeat(W), 0x40), 'bad_flags', 'infinity flag without compression flag on W-byte input');
      add(orTop(validU, 0x80), 'bad_flags', 'compression flag set on 2W-byte input');
      add(orTop(validU, 0x20), 'bad_flags', 'sort flag set on uncompressed input');
      add(setTop('00'.repeat(2 * W), 0xc0), 'bad_flags', 'compressed infinity flags on 2W-byte input');
      // bad_infinity
      add(setTop('00'.repeat(W - 1) + '01', 0xc0), 'bad_infinity', 'compressed infinity, last byte nonzero');
      add(setTop('01' + '00'.repeat(W - 1), 0xc0), 'bad_infinity', 'compressed infinity, low bits of first byte nonzero');
      add(setTop(andTop(validC, 0x1f), 0xc0), 'bad_infinity', 'compressed infinity flag on top of a real x');
      add(setTop('00'.repeat(W), 0xe0), 'bad_infinity', 'compressed infinity with sort flag');
      add(setTop('00'.repeat(2 * W - 1) + '01', 0x40), 'bad_infinity', 'uncompressed infinity, last byte nonzero');
      add(setTop('00'.repeat(2 * W), 0x60), 'bad_infinity', 'uncompressed infinity with sort flag');
      // not_canonical: coordinates >= p
      const maxTop = 1n << BigInt(8 * FP_BYTES - 3); // values must fit below the flag bits
      const subgroupPointWith = (pred) => {
        for (;;) {
          const P = randMultiple(g);
          const A = g.ref(P);
          if (pred(A)) return A;
          const N = g.E.neg(A);
          if (pred(N)) return N;
        }
      };
      if (kind === 'g1') {
        add(setTop(be(p), 0x80), 'not_canonical', 'compressed x = p');
        add(setTop(be(maxTop - 1n), 0x80), 'not_canonical', 'compressed x = 2^381-1');
        const A = subgroupPointWith((A) => A.x + p < maxTop);
        const sortA = sortG1(A.y) ? 0x20 : 0;
        add(setTop(be(A.x + p), 0x80 | sortA), 'not_canonical', 'compressed x+p of a valid point');
        add(be(A.x + p) + be(A.y), 'not_canonical', 'uncompressed x+p of a valid point');
        const Bp = subgroupPointWith((A) => A.y + p < maxTop);
        add(be(Bp.x) + be(Bp.y + p), 'not_canonical', 'uncompressed y+p of a valid point');
        add(be(p) + be(2n), 'not_canonical', 'uncompressed x = p (== 0 mod p), y = 2');
      } else {
        const pick = (A, i) => A.x[i] + p < maxTop;
        const A0 = subgroupPointWith((A) => pick(A, 0));
        const s0 = sortG2(A0.y) ? 0x20 : 0;
        add(setTop(be(A0.x[1]) + be(A0.x[0] + p), 0x80 | s0), 'not_canonical', 'compressed x.c0+p of a valid point');
        add(be(A0.x[1]) + be(A0.x[0] + p) + enc(A0.y), 'not_canonical', 'uncompressed x.c0+p of a valid point');
        const A1 = subgroupPointWith((A) => pick(A, 1));
        const s1 = sortG2(A1.y) ? 0x20 : 0;
        add(setTop(be(A1.x[1] + p) + be(A1.x[0]), 0x80 | s1), 'not_canonical', 'compressed x.c1+p of a valid point');
        add(be(A1.x[1] + p) + be(A1.x[0]) + enc(A1.y), 'not_canonical', 'uncompressed x.c1+p of a valid point');
        add(setTop(be(0n) + be(p), 0x80), 'not_canonical', 'compressed x.c0 = p, x.c1 = 0');
        add(setTop(be(p) + be(0n), 0x80), 'not_canonical', 'compressed x.c1 = p, x.c0 = 0');
        const Y0 = subgroupPointWith((A) => A.y[0] + p < maxTop);
        add(enc(Y0.x) + be(Y0.y[1]) + be(Y0.y[0] + p), 'not_canonical', 'uncompressed y.c0+p of a valid point');
        const Y1 = subgroupPointWith((A) => A.y[1] + p < maxTop);
        add(enc(Y1.x) + be(Y1.y[1] + p) + be(Y1.y[0]), 'not_canonical', 'uncompressed y.c1+p of a valid point');
      }
      // no_sqrt: compressed x with x^3 + b non-square
      for (let i = 0; i < 2; ) {
        const x = kind === 'g1' ? rng.below(p) : randFp2();
        const rhs = g.F.add(g.F.mul(g.F.sqr(x), x), kind === 'g1' ? b1 : b2);
        if (g.F.isSquare(rhs)) continue;
        add(setTop(enc(x), 0x80 | (i ? 0x20 : 0)), 'no_sqrt', `compressed x with x^3+b non-square (sort=${i})`);
        i++;
      }
      // not_on_curve
      {
        const Gr = g.ref(B);
        const yBad = g.F.add(Gr.y, g.F.one);
        check(!g.E.onCurve({ x: Gr.x, y: yBad }), 'off-curve');
        add(enc(Gr.x) + enc(yBad), 'not_on_curve', 'uncompressed (G.x, G.y+1)');
        for (;;) {
          const x = kind === 'g1' ? rng.below(p) : randFp2();
          const y = kind === 'g1' ? rng.below(p) : randFp2();
          if (g.E.onCurve({ x, y })) continue;
          add(enc(x) + enc(y), 'not_on_curve', 'uncompressed random (x, y)');
          break;
        }
        add('00'.repeat(2 * W), 'not_on_curve', 'uncompressed all-zero (0,0) without infinity flag');
      }
      // not_in_subgroup
      for (let i = 0; i < 2; i++) {
        const A = (kind === 'g1' ? randCurvePointG1 : randCurvePointG2)();
        check(g.E.onCurve(A) && !inSubgroup(g, A), 'non-subgroup point');
        add(refEncode(kind, A, true), 'not_in_subgroup', 'compressed on-curve point outside subgroup');
        add(refEncode(kind, A, false), 'not_in_subgroup', 'uncompressed on-curve point outside subgroup');
      }
      if (kind === 'g1') {
        // x = 0: y^2 = 4, (0, 2) is on the curve (order-3 point) but not in G1
        const A = { x: 0n, y: 2n };
        check(E1.onCurve(A) && !inSubgroup(g, A), '(0,2) not in subgroup');
        add(refEncode('g1', A, true), 'not_in_subgroup', 'compressed (0, 2)');
        add(refEncode('g1', A, false), 'not_in_subgroup', 'uncompressed (0, 2)');
      }
      return list;
    };
    console.log(`${curveName}: invalid encodings`);
    out.g1_invalid = invalidSection('g1');
    out.g2_invalid = invalidSection('g2');
    out._acceptedByNoble = acceptedByNoble;
  }

  // ---- Fp12 and pairing --------------------------------------------------
  // Appended after all other sections so that their random draws (and hence
  // their content) do not change.
  const xi = isBls ? [1n, 1n] : [9n, 1n];
  const nFp6 = noble.fields.Fp6;
  const nFp12 = noble.fields.Fp12;
  check(F2.eq(toRef2(nFp2.NONRESIDUE), xi), 'noble Fp6 non-residue xi');
  check(nFp2.Fp_NONRESIDUE === p - 1n, 'noble Fp2 non-residue -1 (u^2 = -1)');
  const F12 = makeRefFp12(F2, xi);
  const tow12 = (a) =>
    [a.c0, a.c1].map((c) => [c.c0, c.c1, c.c2].map(toRef2)); // noble -> tower layout
  const toRef12 = (a) => F12.fromTower(tow12(a));
  const toNoble12 = (a) => {
    const t = F12.toTower(a);
    const six = (row) => nFp6.create({ c0: toNoble2(row[0]), c1: toNoble2(row[1]), c2: toNoble2(row[2]) });
    return nFp12.create({ c0: six(t[0]), c1: six(t[1]) });
  };
  const jFp12 = (a) => F12.toTower(a).map((row) => row.map(hFp2));
  const randFp12 = () => F12.fromTower([0, 1].map(() => [0, 1, 2].map(() => randFp2())));
  {
    const a = randFp12();
    check(F12.eq(toRef12(toNoble12(a)), a), 'Fp12 layout round trip');
  }

  const fp12Mul = [];
  const addFp12Mul = (a, b) => {
    const ab = toRef12(nFp12.mul(toNoble12(a), toNoble12(b)));
    check(F12.eq(ab, F12.mul(a, b)), 'Fp12 mul vs reference (tower layout)');
    fp12Mul.push({ a: jFp12(a), b: jFp12(b), ab: jFp12(ab) });
  };
  const W1 = F12.mono(1, [1n, 0n]); // w
  addFp12Mul(W1, W1); // w * w = v
  addFp12Mul(W1, F12.mono(5, [1n, 0n])); // w * w^5 = xi
  addFp12Mul(F12.mono(4, [1n, 0n]), F12.mono(2, [0n, 1n])); // v^2 * (u v) = u xi
  for (let i = 0; i < 5; i++) addFp12Mul(randFp12(), randFp12());
  out.fp12_mul = fp12Mul;

  const fp12Frob = [];
  for (let i = 0; i < 3; i++) {
    const a = randFp12();
    const ap = toRef12(nFp12.frobeniusMap(toNoble12(a), 1));
    check(F12.eq(ap, F12.pow(a, p)), 'Fp12 Frobenius vs a^p');
    fp12Frob.push({ a: jFp12(a), a_p: jFp12(ap) });
  }
  out.fp12_frobenius = fp12Frob;

  // noble's pairing is NOT the reduced pairing with the exact exponent
  // (p^12-1)/r: its final exponentiation computes a fixed power of it,
  //   BLS12-381: m^(3 (p^12-1)/r)              (cube)
  //   BN254:     m^(2x(6x^2+3x+1) (p^12-1)/r)  (x = 4965661367192848881)
  // which is also what snarkjs/ffjavascript produce (vk_alphabeta_12).
  const blsX = 0xd201000000010000n; // |x|, x negative
  const bnX = 4965661367192848881n;
  check(noble.params.xNegative === isBls, 'x sign');
  check(noble.params.ateLoopSize === (isBls ? blsX : 6n * bnX + 2n), 'ate loop size');
  check(noble.params.twistType === (isBls ? 'multiplicative' : 'divisive'), 'twist type');
  const expMul = isBls ? 3n : 2n * bnX * (6n * bnX * bnX + 3n * bnX + 1n);
  const pairOpts = {
    F2, E2, F12, r,
    loop: isBls ? blsX : 6n * bnX + 2n,
    negLoop: isBls,
    divisive: !isBls,
    bn: !isBls,
  };
  const fullExp = ((p ** 12n - 1n) / r) * expMul;

  const fp12FinalExp = [];
  for (let i = 0; i < 3; i++) {
    const f = randFp12();
    const fe = toRef12(nFp12.finalExponentiate(toNoble12(f)));
    check(F12.eq(fe, F12.pow(f, fullExp)), 'noble finalExponentiate = f^(k (p^12-1)/r)');
    fp12FinalExp.push({ f: jFp12(f), fe: jFp12(fe) });
  }
  out.fp12_final_exp = fp12FinalExp;

  const pairingList = [];
  const addPairing = (Pn, Qn) => {
    const Pr = refG1(Pn);
    const Qr = refG2(Qn);
    let e;
    if (Pn.is0() || Qn.is0()) {
      // noble refuses infinity; e(O, Q) = e(P, O) = 1 by definition
      let refused = false;
      try {
        noble.pairing(Pn, Qn);
      } catch (err) {
        refused = true;
      }
      check(refused, 'noble pairing with infinity');
      e = F12.one();
    } else {
      e = toRef12(noble.pairing(Pn, Qn));
      check(F12.eq(e, toRef12(nFp12.finalExponentiate(noble.pairing(Pn, Qn, false)))),
        'pairing = finalExponentiate(millerLoop)');
      check(!F12.isOne(e) && F12.isOne(F12.pow(e, r)), 'pairing value has order r');
    }
    const eExact = refPairing(Pr, Qr, pairOpts);
    check(F12.eq(e, F12.pow(eExact, expMul)), 'pairing vs textbook reference');
    pairingList.push({ P: jG1(Pr), Q: jG2(Qr), e: jFp12(e) });
    return { e, eExact };
  };
  const B1 = G1.BASE;
  const B2 = G2.BASE;
  const { e: eGG, eExact: eGGExact } = addPairing(B1, B2);
  if (isBls) {
    // e(G1, G2) test vector of draft-irtf-cfrg-pairing-friendly-curves-11
    // (exact final exponent), same coefficient order as our flattened tower.
    const cfrg = [
      '11619b45f61edfe3b47a15fac19442526ff489dcda25e59121d9931438907dfd448299a87dde3a649bdba96e84d54558',
      '153ce14a76a53e205ba8f275ef1137c56a566f638b52d34ba3bf3bf22f277d70f76316218c0dfd583a394b8448d2be7f',
      '095668fb4a02fe930ed44767834c915b283b1c6ca98c047bd4c272e9ac3f3ba6ff0b05a93e59c71fba77bce995f04692',
      '16deedaa683124fe7260085184d88f7d036b86f53bb5b7f1fc5e248814782065413e7d958d17960109ea006b2afdeb5f',
      '09c92cf02f3cd3d2f9d34bc44eee0dd50314ed44ca5d30ce6a9ec0539be7a86b121edc61839ccc908c4bdde256cd6048',
      '111061f398efc2a97ff825b04d21089e24fd8b93a47e41e60eae7e9b2a38d54fa4dedced0811c34ce528781ab9e929c7',
      '01ecfcf31c86257ab00b4709c33f1c9c4e007659dd5ffc4a735192167ce197058cfb4c94225e7f1b6c26ad9ba68f63bc',
      '08890726743a1f94a8193a166800b7787744a8ad8e2f9365db76863e894b7a11d83f90d873567e9d645ccf725b32d26f',
      '0e61c752414ca5dfd258e9606bac08daec29b3e2c57062669556954fb227d3f1260eedf25446a086b0844bcd43646c10',
      '0fe63f185f56dd29150fc498bbeea78969e7e783043620db33f75a05a0a2ce5c442beaff9da195ff15164c00ab66bdde',
      '10900338a92ed0b47af211636f7cfdec717b7ee43900eee9b5fc24f0000c5874d4801372db478987691c566a8c474978',
      '1454814f3085f0e6602247671bc408bbce2007201536818c901dbd4d2095dd86c1ec8b888e59611f60a301af7776be3d',
    ];
    check(JSON.stringify(jFp12(eGGExact).flat(2)) === JSON.stringify(cfrg),
      'textbook e(G1, G2) = CFRG draft test vector');
  }
  const e2G = addPairing(B1.double(), B2).e;
  const eG3 = addPairing(B1, B2.multiply(3n)).e;
  const eNeg = addPairing(B1.negate(), B2).e;
  check(F12.eq(e2G, F12.pow(eGG, 2n)) && F12.eq(eG3, F12.pow(eGG, 3n)), 'bilinearity (small)');
  check(F12.eq(eNeg, F12.pow(eGG, r - 1n)), 'e(-P, Q) = e(P, Q)^-1');
  {
    const a = rng.nonzeroBelow(r);
    const b = rng.nonzeroBelow(r);
    const eaG = addPairing(B1.multiply(a), B2).e;
    const eGb = addPairing(B1, B2.multiply(b)).e;
    const eab = addPairing(B1.multiply(a), B2.multiply(b)).e;
    check(F12.eq(eaG, F12.pow(eGG, a)) && F12.eq(eGb, F12.pow(eGG, b)) &&
      F12.eq(eab, F12.pow(eGG, (a * b) % r)), 'bilinearity (random)');
  }
  addPairing(randMultiple(groups.g1), randMultiple(groups.g2));
  addPairing(G1.ZERO, randMultiple(groups.g2));
  addPairing(randMultiple(groups.g1), G2.ZERO);
  out.pairing = pairingList;
  return out;
}

// ---------------------------------------------------------------------------
const results = [];
for (const [name, noble] of [
  ['bls12_381', bls12_381],
  ['bn254', bn254],
]) {
  const obj = generate(name, noble);
  const accepted = obj._acceptedByNoble || [];
  delete obj._acceptedByNoble;
  const text = JSON.stringify(obj, null, 1) + '\n';
  const path = join(OUT_DIR, `${name}.json`);
  writeFileSync(path, text);
  const counts = Object.entries(obj)
    .filter(([, v]) => Array.isArray(v))
    .map(([k, v]) => `${k}=${v.length}`)
    .join(' ');
  results.push(`${name}.json: ${text.length} bytes; ${counts}`);
  if (accepted.length) results.push(`  ${accepted.length} intended-invalid case(s) accepted by noble (left out)`);
}
console.log(`@noble/curves ${NOBLE_VERSION}, seed ${SEED_STR}`);
for (const l of results) console.log(l);
