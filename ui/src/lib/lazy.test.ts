import { describe, expect, it } from "vitest";
import { loadInto, once } from "./lazy.svelte";

describe("once", () => {
  it("loads once however often it is asked", async () => {
    let loads = 0;
    const load = once(async () => ++loads);
    const [a, b] = await Promise.all([load(), load()]);
    expect([a, b, await load()]).toEqual([1, 1, 1]);
    expect(loads).toBe(1);
  });

  it("tries again after a failed load", async () => {
    let loads = 0;
    const load = once(async () => {
      loads += 1;
      if (loads === 1) {
        throw new Error("offline");
      }
      return loads;
    });
    await expect(load()).rejects.toThrow("offline");
    expect(await load()).toBe(2);
    expect(await load()).toBe(2);
  });
});

describe("loadInto", () => {
  it("hands the loaded part over, and a failed load leaves no rejection behind", async () => {
    let loads = 0;
    const load = once(async () => {
      loads += 1;
      if (loads === 1) {
        throw new TypeError("Failed to fetch dynamically imported module");
      }
      return "renderer";
    });
    const used: string[] = [];
    // An unhandled rejection here fails the run (Vitest reports it).
    await loadInto(load, (part) => used.push(part));
    expect(used).toEqual([]);
    await loadInto(load, (part) => used.push(part));
    expect(used).toEqual(["renderer"]);
  });
});
