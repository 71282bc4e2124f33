// snarkjs (0.7.6) as the independent oracle:
//   1. cuzk verify must agree with snarkjs groth16 verify on every
//      fixture's proof and on tampered copies;
//   2. snarkjs groth16 verify must accept the proofs `cuzk prove` makes for
//      every fixture that has a key, on both curves;
//   3. keys from `cuzk setup` without a ptau (fresh randomness) are keys
//      snarkjs reads: its exported verification key equals cuzk's, it
//      proves with them, and it accepts the proofs cuzk makes with them;
//      a tampered public input is rejected;
//   4. forged proofs, made without the key's secrets, are refused by cuzk:
//      against keys whose alpha, beta, gamma or delta is the point at
//      infinity (cuzk refuses such a key, exit 2, naming the point; with
//      gamma there, also a forgery with no point at infinity), and proofs
//      with points at infinity, off the curve or outside the subgroup
//      against the real keys (cuzk's INVALID);
//   5. circuits from `cuzk circuit sha256-chain` pass snarkjs wtns check,
//      and proofs from `cuzk setup` (no ptau) + `cuzk prove` pass snarkjs
//      groth16 verify, at two sizes on both curves.
//
//   node agree.mjs path/to/cuzk FIXTURES_DIR
//
// For each case the proof is checked by `cuzk verify` (a child process) and
// by snarkjs.groth16.verify in this process: cuzk's exit 0 must match
// snarkjs's true and exit 1 its false. Exit status: 0 when all agree.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { getCurveFromName, utils } from 'ffjavascript';
import * as snarkjs from 'snarkjs';

const [cuzk, fixtures] = process.argv.slice(2);
if (!cuzk || !fixtures) {
  console.error('usage: node agree.mjs path/to/cuzk FIXTURES_DIR');
  process.exit(2);
}
const tmp = mkdtempSync(join(tmpdir(), 'cuzk-agree-'));
const load = (curve, file) => JSON.parse(readFileSync(join(fixtures, curve, file), 'utf8'));
const silent = { debug() {}, info() {}, warn() {}, error() {} };

let failures = 0, cases = 0;
async function check(label, vk, pub, proof) {
  const files = ['vk', 'public', 'proof'].map((n) => join(tmp, `${n}.json`));
  [vk, pub, proof].forEach((doc, i) => writeFileSync(files[i], JSON.stringify(doc, null, 1)));
  const r = spawnSync(cuzk, ['verify', ...files], { encoding: 'utf8' });
  let expected;
  try {
    expected = await snarkjs.groth16.verify(vk, pub, proof, silent);
  } catch (e) {
    expected = `error: ${e.message}`;
  }
  const got = r.status === 0 ? true : r.status === 1 ? false : `exit ${r.status}: ${r.stderr.trim()}`;
  cases++;
  if (got !== expected) {
    failures++;
    console.log(`DISAGREE ${label}: snarkjs ${expected}, cuzk ${got}`);
  }
}

const bump = (s) => (BigInt(s) + 1n).toString();
for (const curve of ['bn128', 'bls12381']) {
  const circuits = ['tiny', 'mul1k', 'poseidon3', 'sha256_256'];
  for (const [i, name] of circuits.entries()) {
    const vk = load(curve, `${name}.vk.json`);
    const pub = load(curve, `${name}.public.json`);
    const proof = load(curve, `${name}.proof.json`);
    const at = `${curve}/${name}`;
    await check(`${at} valid`, vk, pub, proof);
    if (pub.length > 0) {
      await check(`${at} public[0] + 1`, vk, [bump(pub[0]), ...pub.slice(1)], proof);
      await check(`${at} last public + 1`, vk, [...pub.slice(0, -1), bump(pub[pub.length - 1])], proof);
    }
    await check(`${at} pi_a := alpha`, vk, pub, { ...proof, pi_a: vk.vk_alpha_1 });
    await check(`${at} pi_b := gamma`, vk, pub, { ...proof, pi_b: vk.vk_gamma_2 });
    await check(`${at} pi_c := IC[0]`, vk, pub, { ...proof, pi_c: vk.IC[0] });
    await check(`${at} pi_a, pi_c swapped`, vk, pub, { ...proof, pi_a: proof.pi_c, pi_c: proof.pi_a });
    const other = circuits[(i + 1) % circuits.length];
    const opub = load(curve, `${other}.public.json`);
    if (opub.length === pub.length)
      await check(`${at} proof of ${other}`, vk, opub, load(curve, `${other}.proof.json`));
  }
}
// 4: forgeries. The group arithmetic is ffjavascript's (snarkjs's own).
let forged = 0;
async function refused(label, vk, pub, proof, point) {
  const files = ['vk', 'public', 'proof'].map((n) => join(tmp, `${n}.json`));
  [vk, pub, proof].forEach((doc, i) => writeFileSync(files[i], JSON.stringify(doc, null, 1)));
  const r = spawnSync(cuzk, ['verify', ...files], { encoding: 'utf8' });
  let theirs;
  try {
    theirs = await snarkjs.groth16.verify(vk, pub, proof, silent);
  } catch (e) {
    theirs = false;
  }
  cases++;
  const want = `${point} is the point at infinity`;
  if (r.status !== 2 || !r.stderr.includes(want)) {
    failures++;
    console.log(`FORGERY ${label}: cuzk exit ${r.status} (want 2 and '${want}'): ${r.stderr.trim()}`);
  } else forged++;
  if (theirs !== false) snarkjsAccepts.push(label);
}
// snarkjs 0.7.6 accepts some of them (alpha at infinity: its pairing
// handles that point, and it checks no key); listed, not failed
const snarkjsAccepts = [];
for (const name of ['bn128', 'bls12381']) {
  const vk = load(name, 'poseidon3.vk.json');
  const pub = load(name, 'poseidon3.public.json');
  const proof = load(name, 'poseidon3.proof.json');
  const curve = await getCurveFromName(vk.curve);
  const { G1, G2 } = curve;
  const p1 = (o) => G1.fromObject(utils.unstringifyBigInts(o));
  const p2 = (o) => G2.fromObject(utils.unstringifyBigInts(o));
  const j1 = (p) => utils.stringifyBigInts(G1.toObject(G1.toAffine(p)));
  const j2 = (p) => utils.stringifyBigInts(G2.toObject(G2.toAffine(p)));
  const inf1 = j1(G1.zero), inf2 = j2(G2.zero);
  // public signals of the forger's choosing, and IC0 + sum pub_i IC_i for them
  const pubs = pub.map((x, i) => ((BigInt(x) + 12345n + BigInt(i)) % curve.r).toString());
  let cpub = p1(vk.IC[0]);
  pubs.forEach((x, i) => { cpub = G1.add(cpub, G1.timesScalar(p1(vk.IC[i + 1]), BigInt(x))); });
  const [alpha, beta, delta] = [p1(vk.vk_alpha_1), p2(vk.vk_beta_2), p2(vk.vk_delta_2)];
  const at = `forged ${name}/poseidon3`;
  // e(A, B) = e(cpub, gamma) e(C, delta) e(alpha, beta) holds for each:
  await refused(`${at} gamma at infinity, A = alpha, B = beta, C = infinity`, { ...vk, vk_gamma_2: inf2 }, pubs,
    { ...proof, pi_a: vk.vk_alpha_1, pi_b: vk.vk_beta_2, pi_c: inf1 }, 'vk_gamma_2');
  await refused(`${at} gamma at infinity, A = alpha, B = beta + delta, C = alpha`, { ...vk, vk_gamma_2: inf2 }, pubs,
    { ...proof, pi_a: vk.vk_alpha_1, pi_b: j2(G2.add(beta, delta)), pi_c: vk.vk_alpha_1 }, 'vk_gamma_2');
  await refused(`${at} alpha at infinity, A = cpub, B = gamma, C = infinity`, { ...vk, vk_alpha_1: inf1 }, pubs,
    { ...proof, pi_a: j1(cpub), pi_b: vk.vk_gamma_2, pi_c: inf1 }, 'vk_alpha_1');
  await refused(`${at} beta at infinity, A = cpub, B = gamma, C = infinity`, { ...vk, vk_beta_2: inf2 }, pubs,
    { ...proof, pi_a: j1(cpub), pi_b: vk.vk_gamma_2, pi_c: inf1 }, 'vk_beta_2');
  await refused(`${at} delta at infinity, the real proof`, { ...vk, vk_delta_2: inf2 }, pub, proof, 'vk_delta_2');
  await refused(`${at} delta at infinity, C = alpha`, { ...vk, vk_delta_2: inf2 }, pub,
    { ...proof, pi_c: vk.vk_alpha_1 }, 'vk_delta_2');
  // the point at infinity written as [x, y, "1"] with x = y = 0 is the same point to cuzk
  await refused(`${at} gamma as [0, 0, 1]`, { ...vk, vk_gamma_2: [['0', '0'], ['0', '0'], ['1', '0']] }, pubs,
    { ...proof, pi_a: vk.vk_alpha_1, pi_b: vk.vk_beta_2, pi_c: inf1 }, 'vk_gamma_2');
  // against the real key: points at infinity, off the curve, outside the subgroup
  await check(`${at} A = alpha, B = beta, C = infinity`, vk, pubs,
    { ...proof, pi_a: vk.vk_alpha_1, pi_b: vk.vk_beta_2, pi_c: inf1 });
  await check(`${at} A = infinity`, vk, pub, { ...proof, pi_a: inf1 });
  await check(`${at} B = infinity`, vk, pub, { ...proof, pi_b: inf2 });
  await check(`${at} A = B = C = infinity`, vk, pub, { ...proof, pi_a: inf1, pi_b: inf2, pi_c: inf1 });
  await check(`${at} A off the curve`, vk, pub, { ...proof, pi_a: [proof.pi_a[0], bump(proof.pi_a[1]), '1'] });
  await check(`${at} B off the curve`, vk, pub,
    { ...proof, pi_b: [proof.pi_b[0], [bump(proof.pi_b[1][0]), proof.pi_b[1][1]], ['1', '0']] });
  // a point of the curve (G1 of BLS12-381) or of the twist (G2) outside the prime-order subgroup
  const outside = (G, mk) => {
    for (let k = 1n; ; k++) {
      const x = mk(k), rhs = G.F.add(G.F.mul(G.F.square(x), x), G.b);
      if (!G.F.isSquare(rhs)) continue;
      const q = new Uint8Array(2 * G.F.n8);
      q.set(x);
      q.set(G.F.sqrt(rhs), G.F.n8);
      if (!G.isZero(G.timesScalar(q, curve.r))) return q;
    }
  };
  const twist = outside(G2, (k) => G2.F.fromObject([k, 1n]));
  await check(`${at} B outside the subgroup`, vk, pub, { ...proof, pi_b: j2(twist) });
  if (name === 'bls12381')
    await check(`${at} A outside the subgroup`, vk, pub, { ...proof, pi_a: j1(outside(G1, (k) => G1.F.fromObject(k))) });
}

for (const label of snarkjsAccepts) console.log(`note: snarkjs accepts the forgery ${label}; cuzk refuses its key`);

let proved = 0;
for (const curve of ['bn128', 'bls12381']) {
  for (const name of ['tiny', 'mul1k', 'poseidon3']) {
    const f = (ext) => join(fixtures, curve, `${name}.${ext}`);
    const out = [join(tmp, 'cuzk_proof.json'), join(tmp, 'cuzk_public.json')];
    const r = spawnSync(cuzk, ['prove', f('zkey'), f('wtns'), ...out], { encoding: 'utf8' });
    cases++;
    if (r.status !== 0) {
      failures++;
      console.log(`PROVE FAILED ${curve}/${name}: exit ${r.status}: ${r.stderr.trim()}`);
      continue;
    }
    const proof = JSON.parse(readFileSync(out[0], 'utf8'));
    const pub = JSON.parse(readFileSync(out[1], 'utf8'));
    const ok = await snarkjs.groth16.verify(load(curve, `${name}.vk.json`), pub, proof, silent);
    if (ok !== true) {
      failures++;
      console.log(`REJECTED ${curve}/${name}: snarkjs does not accept cuzk's proof`);
    } else proved++;
  }
}
let randomKeys = 0;
for (const curve of ['bn128', 'bls12381']) {
  for (const name of ['tiny', 'poseidon3']) {
    const f = (ext) => join(fixtures, curve, `${name}.${ext}`);
    const t = (file) => join(tmp, file);
    const at = `random setup ${curve}/${name}`;
    const run = (...args) => spawnSync(cuzk, args, { encoding: 'utf8' });
    cases++;
    let r = run('setup', f('r1cs'), t('rnd.zkey'));
    if (r.status === 0) r = run('zkey', 'export-vk', t('rnd.zkey'), t('rnd_vk.json'));
    if (r.status === 0) r = run('prove', t('rnd.zkey'), f('wtns'), t('rnd_proof.json'), t('rnd_public.json'));
    if (r.status !== 0) {
      failures++;
      console.log(`FAILED ${at}: exit ${r.status}: ${r.stderr.trim()}`);
      continue;
    }
    const ours = JSON.parse(readFileSync(t('rnd_vk.json'), 'utf8'));
    const theirs = await snarkjs.zKey.exportVerificationKey(t('rnd.zkey'), silent);
    const same = JSON.stringify(ours) === JSON.stringify(JSON.parse(JSON.stringify(theirs)));
    const proof = JSON.parse(readFileSync(t('rnd_proof.json'), 'utf8'));
    const pub = JSON.parse(readFileSync(t('rnd_public.json'), 'utf8'));
    const accepted = await snarkjs.groth16.verify(theirs, pub, proof, silent);
    const sj = await snarkjs.groth16.prove(t('rnd.zkey'), f('wtns'), silent);
    const sjAccepted = await snarkjs.groth16.verify(ours, sj.publicSignals, sj.proof, silent);
    const tampered = pub.length ? await snarkjs.groth16.verify(theirs, [bump(pub[0]), ...pub.slice(1)], proof, silent) : false;
    if (!same || accepted !== true || sjAccepted !== true || tampered !== false) {
      failures++;
      console.log(`FAILED ${at}: vk equal ${same}, cuzk proof accepted ${accepted}, snarkjs proof accepted ${sjAccepted}, tampered accepted ${tampered}`);
    } else randomKeys++;
  }
}
let chains = 0;
for (const curve of ['bn128', 'bls12381']) {
  for (const [size, pub] of [['1', '256'], ['60000', '5']]) {
    const t = (file) => join(tmp, file);
    const at = `sha256-chain ${curve} --constraints ${size} --public ${pub}`;
    const run = (...args) => spawnSync(cuzk, args, { encoding: 'utf8' });
    cases++;
    let r = run('circuit', 'sha256-chain', t('ch.r1cs'), t('ch.wtns'), '--constraints', size, '--curve', curve,
      '--public', pub, '--seed', size);
    if (r.status === 0) r = run('setup', t('ch.r1cs'), t('ch.zkey'));
    if (r.status === 0) r = run('prove', t('ch.zkey'), t('ch.wtns'), t('ch_proof.json'), t('ch_public.json'));
    if (r.status === 0) r = run('zkey', 'export-vk', t('ch.zkey'), t('ch_vk.json'));
    if (r.status !== 0) {
      failures++;
      console.log(`FAILED ${at}: exit ${r.status}: ${r.stderr.trim()}`);
      continue;
    }
    const witnessOk = await snarkjs.wtns.check(t('ch.r1cs'), t('ch.wtns'), silent);
    const load = (f) => JSON.parse(readFileSync(t(f), 'utf8'));
    const pubs = load('ch_public.json');
    const accepted = await snarkjs.groth16.verify(load('ch_vk.json'), pubs, load('ch_proof.json'), silent);
    if (witnessOk !== true || accepted !== true || pubs.length !== Number(pub)) {
      failures++;
      console.log(`FAILED ${at}: wtns check ${witnessOk}, proof accepted ${accepted}, ${pubs.length} publics`);
    } else chains++;
  }
}
rmSync(tmp, { recursive: true, force: true });
console.log(`snarkjs agreement: ${cases - failures}/${cases} cases agree (${forged} forgeries refused, ${proved} cuzk proofs accepted by snarkjs, ${randomKeys} random-setup keys used by snarkjs, ${chains} sha256-chain circuits checked)`);
await globalThis.curve_bn128?.terminate?.();
process.exit(failures ? 1 : 0);
