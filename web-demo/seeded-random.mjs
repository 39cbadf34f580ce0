// Web demo: the seeded uniform generator (mulberry32) behind every test
// matrix: the demo's worker, the node benchmark and the node tests import
// this one module, so all of them draw the same data for the same seed.

/** A function returning uniform values in [0, 1), seeded by `seed`. */
export function rng(seed) {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
