// A bellperson .params key of a circom circuit, set up here from its
// definition with @noble/curves (the oracle for cuzk's prover of .params
// keys, which shares no code with this): the rows are the circuit's
// constraints then one per public signal and the one (A = that signal),
// on the domain of N = 2^k >= rows points whose root is bellperson's,
// w = 7^((r-1)/2^32) squared down to order N (blstrs' ROOT_OF_UNITY; the
// domain of snarkjs's keys comes from 5 instead). From seeded toxic waste:
//   L_j(tau)  = (tau^N - 1) / N * w^j / (tau - w^j)
//   a_i, b_i, c_i = sum over rows of the coefficient times L_row(tau)
//   IC_i = (beta a_i + alpha b_i + c_i) / gamma  (the one and the publics)
//   L_i  = (beta a_i + alpha b_i + c_i) / delta  (the rest)
//   A    = a_i G1 of the variables in some A combination (all publics),
//   B    = b_i G1, b_i G2 of those in some B combination,
//   H_i  = tau^i (tau^N - 1) / delta G1, i < N - 1,
// written as bellperson's Parameters::write does (uncompressed ZCash
// points, big-endian u32 counts), and OUT.vk.json as snarkjs's
// verification_key.json:
//   node bellperson_key.mjs circuit.r1cs OUT.params [SEED]
import { bls12_381 } from '@noble/curves/bls12-381.js';
import { readFileSync, writeFileSync } from 'node:fs';

const G1 = bls12_381.G1.Point ?? bls12_381.G1.ProjectivePoint;
const G2 = bls12_381.G2.Point ?? bls12_381.G2.ProjectivePoint;
const Fr = bls12_381.fields.Fr;
const r = Fr.ORDER;
const enc = (pt) => Buffer.from(pt.toBytes ? pt.toBytes(false) : pt.toRawBytes(false));

const [r1csPath, out, seedArg] = process.argv.slice(2);
if (!out) {
  console.error('usage: node bellperson_key.mjs circuit.r1cs OUT.params [SEED]');
  process.exit(2);
}

// --- the circuit (circom's .r1cs: sections by type; coefficients plain, little-endian)
const buf = readFileSync(r1csPath);
if (buf.toString('latin1', 0, 4) !== 'r1cs') throw new Error(`${r1csPath}: not a .r1cs`);
const sections = {};
for (let off = 12, s = 0, n = buf.readUInt32LE(8); s < n; s++) {
  const type = buf.readUInt32LE(off), size = Number(buf.readBigUInt64LE(off + 4));
  sections[type] = off + 12;
  off += 12 + size;
}
let h = sections[1];
const n8 = buf.readUInt32LE(h);
const le = (off, len) => BigInt('0x' + (Buffer.from(buf.subarray(off, off + len)).reverse().toString('hex') || '0'));
if (le(h + 4, n8) !== r) throw new Error(`${r1csPath}: not a BLS12-381 circuit`);
h += 4 + n8;
const nWires = buf.readUInt32LE(h), nPubOut = buf.readUInt32LE(h + 4), nPubIn = buf.readUInt32LE(h + 8);
const nConstraints = buf.readUInt32LE(h + 24); // after nPrvIn (u32) and nLabels (u64)
const npub1 = 1 + nPubOut + nPubIn;
const rows = []; // [A, B, C]: Map wire -> coefficient
for (let off = sections[2], c = 0; c < nConstraints; c++) {
  const lcs = [];
  for (let m = 0; m < 3; m++) {
    const terms = buf.readUInt32LE(off);
    off += 4;
    const lc = new Map();
    for (let t = 0; t < terms; t++, off += 4 + n8)
      lc.set(buf.readUInt32LE(off), le(off + 4, n8));
    lcs.push(lc);
  }
  rows.push(lcs);
}
for (let s = 0; s < npub1; s++) rows.push([new Map([[s, 1n]]), new Map(), new Map()]);

// --- the domain, bellperson's root
let logN = 0;
while ((1 << logN) < rows.length) logN++;
const N = 1 << logN;
let w = Fr.pow(7n, (r - 1n) >> 32n);
for (let i = logN; i < 32; i++) w = Fr.sqr(w);
if (!Fr.eql(Fr.pow(w, BigInt(N)), Fr.ONE) || (N > 1 && Fr.eql(Fr.pow(w, BigInt(N / 2)), Fr.ONE)))
  throw new Error('not a primitive root');

// --- toxic waste from the seed (splitmix64)
let seed = BigInt(seedArg ?? 7) & 0xffffffffffffffffn;
const next = () => {
  seed = (seed + 0x9e3779b97f4a7c15n) & 0xffffffffffffffffn;
  let z = seed;
  z = ((z ^ (z >> 30n)) * 0xbf58476d1ce4e5b9n) & 0xffffffffffffffffn;
  z = ((z ^ (z >> 27n)) * 0x94d049bb133111ebn) & 0xffffffffffffffffn;
  return z ^ (z >> 31n);
};
const scalar = () => ((next() << 128n) | (next() << 64n) | next()) % (r - 1n) + 1n;
const [tau, alpha, beta, gamma, delta] = [scalar(), scalar(), scalar(), scalar(), scalar()];

// --- the circuit at tau
const zt = Fr.sub(Fr.pow(tau, BigInt(N)), Fr.ONE);
const lag = [];
for (let j = 0, wj = Fr.ONE; j < rows.length; j++, wj = Fr.mul(wj, w))
  lag.push(Fr.mul(Fr.mul(zt, Fr.inv(BigInt(N))), Fr.mul(wj, Fr.inv(Fr.sub(tau, wj)))));
const a = new Array(nWires).fill(0n), b = new Array(nWires).fill(0n), c = new Array(nWires).fill(0n);
const inA = new Array(nWires).fill(false), inB = new Array(nWires).fill(false);
rows.forEach(([A, B, C], j) => {
  for (const [i, k] of A) { a[i] = Fr.add(a[i], Fr.mul(k, lag[j])); inA[i] = true; }
  for (const [i, k] of B) { b[i] = Fr.add(b[i], Fr.mul(k, lag[j])); inB[i] = true; }
  for (const [i, k] of C) c[i] = Fr.add(c[i], Fr.mul(k, lag[j]));
});

// --- the points (multiples of the generators; 0 is the point at infinity)
const g1 = (k) => (k === 0n ? G1.ZERO : G1.BASE.multiply(k));
const g2 = (k) => (k === 0n ? G2.ZERO : G2.BASE.multiply(k));
const mix = (i) => Fr.add(Fr.add(Fr.mul(beta, a[i]), Fr.mul(alpha, b[i])), c[i]);
const ic = [], l = [], pa = [], pb1 = [], pb2 = [], ph = [];
for (let i = 0; i < nWires; i++) {
  if (i < npub1) ic.push(g1(Fr.div(mix(i), gamma)));
  else l.push(g1(Fr.div(mix(i), delta)));
  if (inA[i]) pa.push(g1(a[i]));
  if (inB[i]) { pb1.push(g1(b[i])); pb2.push(g2(b[i])); }
}
for (let i = 0, ti = Fr.ONE; i < N - 1; i++, ti = Fr.mul(ti, tau)) ph.push(g1(Fr.div(Fr.mul(ti, zt), delta)));
const vk = [g1(alpha), g1(beta), g2(beta), g2(gamma), g1(delta), g2(delta)];
const parts = vk.map(enc);
for (const v of [ic, ph, l, pa, pb1, pb2]) {
  const count = Buffer.alloc(4);
  count.writeUInt32BE(v.length);
  parts.push(count, ...v.map(enc));
}
writeFileSync(out, Buffer.concat(parts));
const d = (x) => x.toString();
const j1 = (p) => { const q = p.toAffine(); return [d(q.x), d(q.y), '1']; };
const j2 = (p) => { const q = p.toAffine(); return [[d(q.x.c0), d(q.x.c1)], [d(q.y.c0), d(q.y.c1)], ['1', '0']]; };
writeFileSync(out + '.vk.json', JSON.stringify({
  protocol: 'groth16', curve: 'bls12381', nPublic: npub1 - 1,
  vk_alpha_1: j1(vk[0]), vk_beta_2: j2(vk[2]), vk_gamma_2: j2(vk[3]), vk_delta_2: j2(vk[5]),
  vk_alphabeta_12: [], IC: ic.map(j1),
}));
console.log(`${out}: ${rows.length} rows on a domain of ${N} (bellperson's root), ${nWires} wires`);
