import { describe, expect, it } from "vitest";
import { DEFAULT_FONT_FAMILY, DEFAULT_PREFS, PrefsStore, effectiveTheme, parsePrefs } from "./prefs";

function memory(initial: Record<string, string> = {}) {
  const items = new Map(Object.entries(initial));
  return { items, getItem: (k: string) => items.get(k) ?? null, setItem: (k: string, v: string) => items.set(k, v) };
}

describe("the settings as stored", () => {
  it("fall back to the defaults for what is missing, wrong or not a font list", () => {
    expect(parsePrefs(null)).toEqual(DEFAULT_PREFS);
    expect(parsePrefs({ theme: "purple", fontSize: "big", fontFamily: 3 })).toEqual(DEFAULT_PREFS);
    expect(parsePrefs({ fontFamily: "x; } body { display: none" }).fontFamily).toBe(DEFAULT_FONT_FAMILY);
    expect(parsePrefs({ fontFamily: "a".repeat(201) }).fontFamily).toBe(DEFAULT_FONT_FAMILY);
    expect(parsePrefs({ theme: "dark", fontFamily: ' "Fira Code", monospace ', fontSize: 15.6 })).toEqual({
      theme: "dark",
      fontFamily: '"Fira Code", monospace',
      fontSize: 16,
    });
  });

  it("keep the font size within the zoom's bounds", () => {
    expect(parsePrefs({ fontSize: 2 }).fontSize).toBe(8);
    expect(parsePrefs({ fontSize: 99 }).fontSize).toBe(32);
  });

  it("draw the system's theme unless one is chosen", () => {
    expect(effectiveTheme("system", true)).toBe("dark");
    expect(effectiveTheme("system", false)).toBe("light");
    expect(effectiveTheme("light", true)).toBe("light");
    expect(effectiveTheme("dark", false)).toBe("dark");
  });
});

describe("the store", () => {
  it("reads what was kept, keeps changes and tells its followers once per change", () => {
    const storage = memory({ "kaiport.settings": JSON.stringify({ theme: "light", fontSize: 18 }) });
    const store = new PrefsStore(storage);
    expect(store.current).toEqual({ ...DEFAULT_PREFS, theme: "light", fontSize: 18 });
    const told: number[] = [];
    const stop = store.follow((p) => told.push(p.fontSize));
    store.set({ fontSize: 20 });
    store.set({ fontSize: 20 });
    expect(told).toEqual([20]);
    expect(JSON.parse(storage.items.get("kaiport.settings") ?? "")).toEqual({
      ...DEFAULT_PREFS,
      theme: "light",
      fontSize: 20,
    });
    stop();
    store.set({ fontSize: 12 });
    expect(told).toEqual([20]);
    // Kept for the next page.
    expect(new PrefsStore(storage).current.fontSize).toBe(12);
  });

  it("starts from the defaults when what was kept is not JSON, or nothing can be kept", () => {
    expect(new PrefsStore(memory({ "kaiport.settings": "{" })).current).toEqual(DEFAULT_PREFS);
    const store = new PrefsStore(null);
    store.set({ theme: "dark" });
    expect(store.current.theme).toBe("dark");
  });
});
