import { describe, expect, it } from "vitest";
import { TerminalOutput } from "./terminal-output";

describe("terminal output by tab", () => {
  it("keeps what arrives before the view and hands it over in order", () => {
    const output = new TerminalOutput();
    output.write("t", new Uint8Array([1]));
    output.write("t", new Uint8Array([2]));
    const seen: number[] = [];
    let resets = 0;
    const detach = output.attach("t", {
      write: (data) => seen.push(...data),
      reset: () => resets++,
    });
    output.write("t", new Uint8Array([3]));
    expect(seen).toEqual([1, 2, 3]);
    output.resetAll();
    expect(resets).toBe(1);
    detach();
    output.write("t", new Uint8Array([4]));
    expect(seen).toEqual([1, 2, 3]);
  });

  it("keeps at most a megabyte for a tab nobody shows", () => {
    const output = new TerminalOutput();
    for (let i = 0; i < 40; i++) {
      output.write("t", new Uint8Array(64 * 1024).fill(i));
    }
    let total = 0;
    let first = -1;
    output.attach("t", {
      write: (data) => {
        if (first < 0) first = data[0] ?? -1;
        total += data.length;
      },
      reset: () => {},
    });
    expect(total).toBe(1 << 20);
    expect(first).toBe(24);
  });
});
