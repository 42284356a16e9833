// The storage half of "New connection": which kinds there are, which fields each takes, and the
// `TabTarget::Storage` the fields make. The URL is built the way the engine builds one from a
// saved profile (crates/core/src/connect/storage_profiles.rs), so a tab opened from the form
// and one opened from a saved connection look up the same keychain entry. No secret ever goes
// into the URL: the secret travels apart, as the answer to the engine's password prompt.

import type { TabTarget } from "./protocol";

export type StorageKind = "sftp" | "ftp" | "ftps" | "s3" | "webdav" | "azblob";

export const STORAGE_KINDS: { kind: StorageKind; label: string }[] = [
  { kind: "sftp", label: "SFTP" },
  { kind: "ftp", label: "FTP" },
  { kind: "ftps", label: "FTPS" },
  { kind: "s3", label: "S3" },
  { kind: "webdav", label: "WebDAV" },
  { kind: "azblob", label: "Azure Blob" },
];

/** Everything the storage fields hold; each kind uses some of them. */
export interface StorageForm {
  kind: StorageKind;
  /** SFTP, FTP(S), WebDAV. */
  host: string;
  port: string;
  /** S3 bucket, Azure container. */
  bucket: string;
  /** The folder shown as `/` (path, or the prefix of a bucket or container). */
  folder: string;
  /** User, S3 access key id, Azure account. */
  user: string;
  /** S3 and Azure: a service other than AWS / Azure's own (MinIO, Azurite, …). */
  endpoint: string;
  region: string;
  pathStyle: boolean;
  /** WebDAV over https. */
  https: boolean;
  /** FTPS, WebDAV: a PEM file to trust (a self-signed server). */
  caFile: string;
  /** Azure: the secret is a SAS token, not an account key. */
  sas: boolean;
  /** SFTP: a private key file. */
  keyFile: string;
  /** The folders of this computer the tab may use, comma-separated. */
  localFolders: string;
}

export function emptyStorageForm(kind: StorageKind = "sftp"): StorageForm {
  return {
    kind,
    host: "",
    port: "",
    bucket: "",
    folder: "",
    user: "",
    endpoint: "",
    region: "",
    pathStyle: false,
    https: true,
    caFile: "",
    sas: false,
    keyFile: "",
    localFolders: "~",
  };
}

/** The port a kind uses when the field is empty. */
export function defaultPort(kind: StorageKind): number | null {
  switch (kind) {
    case "sftp":
      return 22;
    case "ftp":
    case "ftps":
      return 21;
    case "webdav":
    case "s3":
    case "azblob":
      return null;
    default: {
      const unknown: never = kind;
      void unknown;
      return null;
    }
  }
}

/** What the secret field of a kind is called. */
export function secretLabel(kind: StorageKind, sas: boolean): string {
  switch (kind) {
    case "s3":
      return "Secret access key";
    case "azblob":
      return sas ? "SAS token" : "Account key";
    case "sftp":
    case "ftp":
    case "ftps":
    case "webdav":
      return "Password";
    default: {
      const unknown: never = kind;
      void unknown;
      return "Password";
    }
  }
}

/** Percent-encodes all but unreserved characters, as the engine's profiles do. */
function encode(text: string): string {
  return Array.from(new TextEncoder().encode(text), (byte) => {
    const char = String.fromCharCode(byte);
    return /[A-Za-z0-9\-._~]/.test(char) ? char : `%${byte.toString(16).toUpperCase().padStart(2, "0")}`;
  }).join("");
}

function hostPart(host: string): string {
  return host.includes(":") ? `[${host}]` : host;
}

function httpUrl(text: string): boolean {
  try {
    const url = new URL(text);
    return (url.protocol === "http:" || url.protocol === "https:") && url.host !== "";
  } catch {
    return false;
  }
}

function nameError(value: string, what: string): string | null {
  if (value.trim() === "") {
    return `Give the ${what}.`;
  }
  if (/[/?#@\s]/.test(value.trim())) {
    return `The ${what} cannot contain /, ?, #, @ or spaces.`;
  }
  return null;
}

export type StorageFormResult = { target: Extract<TabTarget, { kind: "storage" }>; title: string } | { error: string };

/** The tab target the form describes, or what to fix. */
export function storageTargetFromForm(form: StorageForm): StorageFormResult {
  const kind = form.kind;
  const user = form.user.trim();
  const folder = form.folder
    .split("/")
    .filter((part) => part.trim() !== "")
    .map(encode)
    .join("/");
  const query = new URLSearchParams();
  let authority: string;
  if (kind === "s3" || kind === "azblob") {
    const what = kind === "s3" ? "bucket" : "container";
    const problem = nameError(form.bucket, what);
    if (problem !== null) return { error: problem };
    authority = form.bucket.trim();
    const endpoint = form.endpoint.trim();
    if (endpoint !== "" && !httpUrl(endpoint)) {
      return { error: "The endpoint must be an http:// or https:// address." };
    }
    if (kind === "s3") {
      if (endpoint !== "") query.append("endpoint", endpoint);
      if (form.region.trim() !== "") query.append("region", form.region.trim());
      if (form.pathStyle) query.append("path_style", "true");
    } else {
      if (user === "" && endpoint === "") {
        return { error: "Give the storage account (or an endpoint with it)." };
      }
      if (user !== "") query.append("account", user);
      if (endpoint !== "") query.append("endpoint", endpoint);
      if (form.sas) query.append("sas", "true");
    }
  } else {
    const problem = nameError(form.host, "host");
    if (problem !== null) return { error: problem };
    authority = hostPart(form.host.trim());
    const portText = form.port.trim();
    if (portText !== "") {
      const port = Number(portText);
      if (!Number.isInteger(port) || port < 1 || port > 65535) {
        return { error: "The port must be a number from 1 to 65535." };
      }
      authority += `:${port}`;
    }
    if ((kind === "ftps" || kind === "webdav") && form.caFile.trim() !== "") {
      query.append("ca_file", form.caFile.trim());
    }
    if (kind !== "webdav" && user === "") {
      return { error: "Give the user name." };
    }
  }
  const scheme = kind === "webdav" ? (form.https ? "webdavs" : "webdav") : kind;
  const search = query.toString();
  const url = `${scheme}://${authority}/${folder}${search === "" ? "" : `?${search}`}`;
  const localRoots = form.localFolders
    .split(",")
    .map((folder) => folder.trim())
    .filter((folder) => folder !== "");
  for (const root of localRoots) {
    if (!root.startsWith("/") && root !== "~" && !root.startsWith("~/")) {
      return { error: `The local folder “${root}” must be a full path (/…) or in your home folder (~/…).` };
    }
  }
  const keyFile = form.keyFile.trim();
  const target: Extract<TabTarget, { kind: "storage" }> = {
    kind: "storage",
    url,
    user: user === "" ? null : user,
    local_roots: localRoots,
    ...(kind === "sftp" && keyFile !== "" ? { identity_files: [keyFile] } : {}),
  };
  return { target, title: storageTitle(kind, user, authority, folder) };
}

/** How the tab is called until the engine names it. */
function storageTitle(kind: StorageKind, user: string, authority: string, folder: string): string {
  const who = user !== "" && kind !== "s3" && kind !== "azblob" ? `${user}@` : "";
  const scheme = kind === "azblob" ? "azblob" : kind;
  return `${scheme}://${who}${authority}/${decodeURIComponent(folder)}`;
}
