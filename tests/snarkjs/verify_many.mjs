// Verifies many proofs with snarkjs in one process (the oracle for the
// daemon's results): each argument is "vk.json:public.json:proof.json";
// prints how many passed and exits 1 if any failed.
import * as snarkjs from "snarkjs";
import { readFileSync } from "fs";

let ok = 0, bad = 0;
for (const arg of process.argv.slice(2)) {
    const [vk, pub, proof] = arg.split(":").map((f) => JSON.parse(readFileSync(f, "utf8")));
    if (await snarkjs.groth16.verify(vk, pub, proof)) ok++;
    else {
        bad++;
        console.error(`snarkjs rejects ${arg}`);
    }
}
console.log(`snarkjs verified ${ok} of ${ok + bad} proofs`);
process.exit(bad ? 1 : 0);
