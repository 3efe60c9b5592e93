/** A small deterministic PRNG (mulberry32): the same seed gives the same data set on every run. */
export class Prng {
  private state: number;

  constructor(seed: number) {
    this.state = seed >>> 0;
  }

  /** Uniform in [0, 1). */
  next(): number {
    let t = (this.state = (this.state + 0x6d2b79f5) >>> 0);
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** Integer in [0, n). */
  int(n: number): number {
    return Math.floor(this.next() * n);
  }

  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)]!;
  }

  chance(p: number): boolean {
    return this.next() < p;
  }

  /** Picks a key by relative weight. */
  weighted<K extends string>(weights: readonly (readonly [K, number])[]): K {
    const total = weights.reduce((s, [, w]) => s + w, 0);
    let roll = this.next() * total;
    for (const [key, w] of weights) {
      roll -= w;
      if (roll < 0) return key;
    }
    return weights[weights.length - 1]![0];
  }

  /** 40 hex digits, like a git commit id. */
  sha(): string {
    let out = '';
    for (let i = 0; i < 5; i++) out += (this.int(0x100000000) >>> 0).toString(16).padStart(8, '0');
    return out;
  }
}
