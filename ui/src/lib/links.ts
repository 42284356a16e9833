// `ssh://` and `sftp://` links (from the OS, through the desktop window) as tab targets. The
// engine checks the host key as for any other tab.

import type { TabTarget } from "./protocol";

export type LinkTarget = { target: TabTarget; title: string } | { error: string };

/** `identityFiles`: the private keys to offer (the desktop window names OpenSSH's defaults). */
export function targetFromLink(link: string, identityFiles: string[] = []): LinkTarget {
  let url: URL;
  try {
    url = new URL(link);
  } catch {
    return { error: `Not a link kaiport can open: ${link}` };
  }
  const scheme = url.protocol.replace(/:$/, "").toLowerCase();
  // URL keeps IPv6 hosts in brackets; the engine wants them bare.
  const host = url.hostname.replace(/^\[(.*)\]$/, "$1");
  if (host === "") {
    return { error: `The link names no host: ${link}` };
  }
  const user = decodeURIComponent(url.username);
  const port = url.port === "" ? 22 : Number(url.port);
  const shownHost = host.includes(":") ? `[${host}]` : host;
  if (scheme === "ssh") {
    if (user === "") {
      return { error: `The link names no user (ssh://user@${shownHost}): ${link}` };
    }
    const target: TabTarget = { kind: "ssh", host, port, user };
    if (identityFiles.length > 0) target.identity_files = identityFiles;
    return { target, title: `${user}@${shownHost}` };
  }
  if (scheme === "sftp") {
    const who = user === "" ? "" : `${encodeURIComponent(user)}@`;
    const path = url.pathname === "" ? "/" : url.pathname;
    return {
      target: {
        kind: "storage",
        url: `sftp://${who}${shownHost}:${port}${path}`,
        local_roots: ["~"],
        ...(identityFiles.length > 0 ? { identity_files: identityFiles } : {}),
      },
      title: `sftp ${user === "" ? "" : `${user}@`}${shownHost}`,
    };
  }
  return { error: `kaiport opens ssh:// and sftp:// links, not ${scheme}:` };
}
