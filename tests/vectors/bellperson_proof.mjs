// A proof as bellperson serializes one (192 bytes: A, B, C compressed in
// the ZCash encoding) read with @noble/curves, the oracle for `cuzk prove
// --proof-format bellperson`: written out as snarkjs's proof.json (affine,
// decimal, with the projective "1"), for snarkjs to verify. Refuses bytes
// that noble does not decode (wrong length, flags, a point off the curve).
//   node bellperson_proof.mjs PROOF OUT.json
import { bls12_381 } from '@noble/curves/bls12-381.js';
import { readFileSync, writeFileSync } from 'node:fs';

const G1 = bls12_381.G1.Point ?? bls12_381.G1.ProjectivePoint;
const G2 = bls12_381.G2.Point ?? bls12_381.G2.ProjectivePoint;
const [, , input, output] = process.argv;
const b = readFileSync(input);
if (b.length !== 192) {
  console.error(`${input}: ${b.length} bytes, a bellperson proof has 192`);
  process.exit(1);
}
const hex = (u) => Buffer.from(u).toString('hex');
for (const [name, at] of [['A', 0], ['B', 48], ['C', 144]])
  if ((b[at] & 0x80) === 0 || (b[at] & 0x40) !== 0) {
    console.error(`${input}: ${name}: flags 0x${b[at].toString(16)}, expected compressed and finite`);
    process.exit(1);
  }
const A = G1.fromHex(hex(b.subarray(0, 48))).toAffine();
const B = G2.fromHex(hex(b.subarray(48, 144))).toAffine();
const C = G1.fromHex(hex(b.subarray(144, 192))).toAffine();
const d = (x) => x.toString(10);
const proof = {
  pi_a: [d(A.x), d(A.y), '1'],
  pi_b: [[d(B.x.c0), d(B.x.c1)], [d(B.y.c0), d(B.y.c1)], ['1', '0']],
  pi_c: [d(C.x), d(C.y), '1'],
  protocol: 'groth16',
  curve: 'bls12381',
};
writeFileSync(output, JSON.stringify(proof, null, 1));
