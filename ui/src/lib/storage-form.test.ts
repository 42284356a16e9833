import { describe, expect, it } from "vitest";
import { emptyStorageForm, storageTargetFromForm, type StorageForm } from "./storage-form";

function form(change: Partial<StorageForm>): StorageForm {
  return { ...emptyStorageForm(change.kind ?? "sftp"), ...change };
}

describe("the storage form", () => {
  it("makes an FTP target with the user apart and the folder encoded", () => {
    expect(
      storageTargetFromForm(
        form({
          kind: "ftp",
          host: "127.0.0.1",
          port: "2121",
          user: "ann",
          folder: "/team docs/",
          localFolders: "/tmp/x, ~/y",
        }),
      ),
    ).toEqual({
      target: { kind: "storage", url: "ftp://127.0.0.1:2121/team%20docs", user: "ann", local_roots: ["/tmp/x", "~/y"] },
      title: "ftp://ann@127.0.0.1:2121/team docs",
    });
  });

  it("makes S3 and Azure URLs with their options in the query, as saved profiles do", () => {
    const s3 = storageTargetFromForm(
      form({
        kind: "s3",
        bucket: "nightly",
        folder: "db",
        endpoint: "http://127.0.0.1:9000",
        region: "eu-1",
        pathStyle: true,
        user: "AKID",
      }),
    );
    expect(s3).toMatchObject({
      target: {
        url: "s3://nightly/db?endpoint=http%3A%2F%2F127.0.0.1%3A9000&region=eu-1&path_style=true",
        user: "AKID",
      },
    });
    const azure = storageTargetFromForm(form({ kind: "azblob", bucket: "blobs", user: "acct", sas: true }));
    expect(azure).toMatchObject({ target: { url: "azblob://blobs/?account=acct&sas=true", user: "acct" } });
    expect(storageTargetFromForm(form({ kind: "azblob", bucket: "blobs" }))).toHaveProperty("error");
  });

  it("makes WebDAV over https unless unticked, with a CA file", () => {
    expect(storageTargetFromForm(form({ kind: "webdav", host: "dav.example", caFile: "/ca.pem" }))).toMatchObject({
      target: { url: "webdavs://dav.example/?ca_file=%2Fca.pem", user: null },
    });
    expect(storageTargetFromForm(form({ kind: "webdav", host: "dav.example", https: false }))).toMatchObject({
      target: { url: "webdav://dav.example/" },
    });
  });

  it("passes an SFTP key file and brackets an IPv6 host", () => {
    expect(storageTargetFromForm(form({ kind: "sftp", host: "::1", user: "ann", keyFile: "~/.ssh/id" }))).toMatchObject(
      {
        target: { url: "sftp://[::1]/", identity_files: ["~/.ssh/id"] },
      },
    );
  });

  it("says what to fix", () => {
    expect(storageTargetFromForm(form({ kind: "ftp", host: "", user: "a" }))).toEqual({ error: "Give the host." });
    expect(storageTargetFromForm(form({ kind: "ftp", host: "h", user: "a", port: "70000" }))).toHaveProperty("error");
    expect(storageTargetFromForm(form({ kind: "ftp", host: "h" }))).toEqual({ error: "Give the user name." });
    expect(storageTargetFromForm(form({ kind: "s3", bucket: "a/b" }))).toHaveProperty("error");
    expect(storageTargetFromForm(form({ kind: "s3", bucket: "b", endpoint: "ftp://x" }))).toHaveProperty("error");
    expect(storageTargetFromForm(form({ kind: "ftp", host: "h", user: "a", localFolders: "relative" }))).toHaveProperty(
      "error",
    );
  });

  it("never puts the secret in the target", () => {
    const made = storageTargetFromForm(form({ kind: "ftp", host: "h", user: "a" }));
    expect(JSON.stringify(made)).not.toMatch(/secret|password/i);
  });
});
