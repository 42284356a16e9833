import { describe, expect, it } from "vitest";
import { TOKEN_KEY, socketProtocols, takeToken, tokenInHash } from "./token";

const TOKEN = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";

class Store {
  items = new Map<string, string>();
  getItem(key: string): string | null {
    return this.items.get(key) ?? null;
  }
  setItem(key: string, value: string): void {
    this.items.set(key, value);
  }
}

function places(hash: string, storage: Store | null) {
  const replaced: string[] = [];
  return {
    replaced,
    places: {
      location: { hash, pathname: "/", search: "" },
      storage,
      replaceAddress: (url: string) => replaced.push(url),
    },
  };
}

describe("the serve token", () => {
  it("is read from the fragment only when it is hex", () => {
    expect(tokenInHash(`#token=${TOKEN}`)).toBe(TOKEN);
    expect(tokenInHash(`#x=1&token=${TOKEN}`)).toBe(TOKEN);
    expect(tokenInHash("#token=not-hex")).toBeNull();
    expect(tokenInHash("#token=abc")).toBeNull();
    expect(tokenInHash("")).toBeNull();
  });

  it("is kept for the tab and taken out of the address", () => {
    const store = new Store();
    const first = places(`#token=${TOKEN}`, store);
    expect(takeToken(first.places)).toBe(TOKEN);
    expect(store.getItem(TOKEN_KEY)).toBe(TOKEN);
    expect(first.replaced).toEqual(["/"]);
    // A reload has no fragment: the tab's token.
    const reload = places("", store);
    expect(takeToken(reload.places)).toBe(TOKEN);
    expect(reload.replaced).toEqual([]);
  });

  it("stays in the address when the tab cannot keep it, and is missing when never given", () => {
    const failing = {
      getItem: () => null,
      setItem: () => {
        throw new Error("quota");
      },
    };
    const given = places(`#token=${TOKEN}`, null);
    expect(takeToken({ ...given.places, storage: failing })).toBe(TOKEN);
    expect(given.replaced).toEqual([]);
    expect(takeToken(places("", new Store()).places)).toBeNull();
    expect(takeToken(places("", null).places)).toBeNull();
  });

  it("is presented as a subprotocol beside kaiport's own", () => {
    expect(socketProtocols(TOKEN)).toEqual(["kaiport", `kaiport.token.${TOKEN}`]);
  });
});
