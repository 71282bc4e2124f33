// A small bellperson-layout .params file made with @noble/curves (the
// oracle for cuzk's reader): the verification key (alpha_g1, beta_g1,
// beta_g2, gamma_g2, delta_g1, delta_g2), then IC, H, L, A, B_G1 (G1) and
// B_G2 (G2), each a big-endian u32 count and uncompressed ZCash points,
// multiples of the generators by seeded scalars. Not a key anything can
// prove with: its points are unrelated. A fault may be planted in one
// point of one vector; without one, OUT.vk.json gets the verification
// key's points (and IC) as snarkjs's verification_key.json writes them
// (affine, decimal, with the projective "1"), for `cuzk zkey export-vk`:
// VECTOR 'vk' with 'infinity' puts the verification key's point INDEX
// (alpha_g1, beta_g1, beta_g2, gamma_g2, delta_g1, delta_g2) at infinity.
//   node make_params.mjs OUT [off-curve|infinity|not-in-subgroup VECTOR INDEX]
import { bls12_381 } from '@noble/curves/bls12-381.js';
import { writeFileSync } from 'node:fs';

const G1 = bls12_381.G1.Point ?? bls12_381.G1.ProjectivePoint;
const G2 = bls12_381.G2.Point ?? bls12_381.G2.ProjectivePoint;
const Fp = bls12_381.fields.Fp;
const enc = (pt) => Buffer.from(pt.toBytes ? pt.toBytes(false) : pt.toRawBytes(false));

let seed = 0x9e3779b97f4a7c15n;
const next = () => { // splitmix64
  seed = (seed + 0x9e3779b97f4a7c15n) & 0xffffffffffffffffn;
  let z = seed;
  z = ((z ^ (z >> 30n)) * 0xbf58476d1ce4e5b9n) & 0xffffffffffffffffn;
  z = ((z ^ (z >> 27n)) * 0x94d049bb133111ebn) & 0xffffffffffffffffn;
  return z ^ (z >> 31n);
};
const scalar = () => (next() << 64n | next()) % (bls12_381.fields.Fr.ORDER - 1n) + 1n;
const kept = []; // every point made, in file order (for the vk)
const g1 = () => { const p = G1.BASE.multiply(scalar()); kept.push(p); return enc(p); };
const g2 = () => { const p = G2.BASE.multiply(scalar()); kept.push(p); return enc(p); };

const [out, fault, faultVector, faultIndex] = process.argv.slice(2);
const names = ['IC', 'H', 'L', 'A', 'B_G1', 'B_G2'];
const counts = [3, 7, 5, 6, 4, 3];
const parts = [g1(), g1(), g2(), g2(), g1(), g2()];
if (fault === 'infinity' && faultVector === 'vk') { // a degenerate key: one of its points at infinity
  const p = parts[Number(faultIndex)];
  parts[Number(faultIndex)] = Buffer.alloc(p.length);
  parts[Number(faultIndex)][0] = 0x40;
}
names.forEach((name, v) => {
  const n = Buffer.alloc(4);
  n.writeUInt32BE(counts[v]);
  parts.push(n);
  for (let i = 0; i < counts[v]; i++) {
    let p = name === 'B_G2' ? g2() : g1();
    if (fault && name === faultVector && i === Number(faultIndex)) {
      if (fault === 'infinity') {
        p = Buffer.alloc(p.length);
        p[0] = 0x40;
      } else if (fault === 'off-curve') {
        p[p.length - 1] ^= 1; // y changed: x stays canonical
      } else if (fault === 'not-in-subgroup' && name !== 'B_G2') {
        // a point of E(Fp) outside the subgroup: x with x^3 + 4 a square, not cofactor-cleared
        for (let x = 1n; ; x++) {
          const rhs = Fp.add(Fp.mul(Fp.sqr(x), x), 4n);
          let y;
          try { y = Fp.sqrt(rhs); } catch { continue; }
          if (y === undefined || !Fp.eql(Fp.sqr(y), rhs)) continue;
          const q = G1.fromAffine({ x, y });
          let inSubgroup = true;
          try { q.assertValidity(); } catch { inSubgroup = false; }
          if (inSubgroup) continue;
          p = Buffer.concat([Buffer.from(x.toString(16).padStart(96, '0'), 'hex'),
                             Buffer.from(y.toString(16).padStart(96, '0'), 'hex')]);
          break;
        }
      } else {
        throw new Error(`unknown fault ${fault}`);
      }
    }
    parts.push(p);
  }
});
writeFileSync(out, Buffer.concat(parts));
if (!fault) {
  const d = (x) => x.toString();
  const j1 = (p) => { const a = p.toAffine(); return [d(a.x), d(a.y), '1']; };
  const j2 = (p) => { const a = p.toAffine(); return [[d(a.x.c0), d(a.x.c1)], [d(a.y.c0), d(a.y.c1)], ['1', '0']]; };
  // kept: alpha_g1, beta_g1, beta_g2, gamma_g2, delta_g1, delta_g2, then IC's points
  writeFileSync(out + '.vk.json', JSON.stringify({
    nPublic: counts[0] - 1,
    vk_alpha_1: j1(kept[0]), vk_beta_2: j2(kept[2]), vk_gamma_2: j2(kept[3]), vk_delta_2: j2(kept[5]),
    IC: kept.slice(6, 6 + counts[0]).map(j1),
  }));
}
