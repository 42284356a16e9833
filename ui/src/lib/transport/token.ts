// The token of `kaiport serve`. It is printed in the URL's fragment (`/#token=…`), which a
// browser never sends to a server; the page keeps it in this tab's sessionStorage (a reload and
// a duplicated tab keep it, no other site can read it) and presents it as a WebSocket
// subprotocol. Never a cookie: the browser would send that to every port of this host, and a
// server there could replay it.

/** Where this tab keeps the token. */
export const TOKEN_KEY = "kaiport.token";

/** The subprotocol the server answers with. */
export const PROTOCOL = "kaiport";

/** The token in an address's fragment (`#token=…`, hex), or null. */
export function tokenInHash(hash: string): string | null {
  const token = new URLSearchParams(hash.replace(/^#/, "")).get("token");
  return token !== null && /^[0-9a-f]{32,}$/i.test(token) ? token : null;
}

export interface TokenPlaces {
  location: { hash: string; pathname: string; search: string };
  /** The tab's sessionStorage (it may be unavailable: then the page still works until reloaded). */
  storage: Pick<Storage, "getItem" | "setItem"> | null;
  /** Replaces the address in the address bar (and history) without loading it. */
  replaceAddress: (url: string) => void;
}

/**
 * The token from the address's fragment, kept for this tab and taken out of the address bar
 * (and so out of the history); without one there, the token this tab kept; else null.
 */
export function takeToken({ location, storage, replaceAddress }: TokenPlaces): string | null {
  const given = tokenInHash(location.hash);
  if (given !== null) {
    let kept = false;
    try {
      storage?.setItem(TOKEN_KEY, given);
      kept = storage !== null;
    } catch {
      // Storage refused (full, or disabled): the token stays in the address for a reload.
    }
    if (kept) {
      replaceAddress(location.pathname + location.search);
    }
    return given;
  }
  try {
    return storage?.getItem(TOKEN_KEY) ?? null;
  } catch {
    return null;
  }
}

/** The subprotocols that present `token` to the server. */
export function socketProtocols(token: string): string[] {
  return [PROTOCOL, `${PROTOCOL}.token.${token}`];
}
