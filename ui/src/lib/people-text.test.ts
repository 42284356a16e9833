import { describe, expect, it } from "vitest";
import { forPeople, isUsersOwnCancel, USER_CANCELLED_REASON } from "./people-text";

describe("error text for people", () => {
  it("says the user's own cancel as Cancelled", () => {
    const engine = `the user denied this call: ${USER_CANCELLED_REASON}`;
    expect(isUsersOwnCancel(engine)).toBe(true);
    expect(forPeople(engine)).toBe("Cancelled");
    expect(isUsersOwnCancel("the user denied this call")).toBe(false);
  });

  it("says network failures in plain words and keeps the detail", () => {
    expect(forPeople("network error: early eof")).toBe(
      "The connection closed while receiving data — check the server and retry. (early eof)",
    );
    // A terminal tab's reason for reconnecting, with the engine's words inside.
    expect(forPeople("the connection was lost: network error: early eof")).toBe(
      "The connection closed while receiving data — check the server and retry. (the connection was lost: early eof)",
    );
    expect(forPeople("/big.bin: connection reset by peer")).toMatch(/^The server dropped the connection/);
    expect(forPeople("operation timed out")).toMatch(/^The server did not answer in time/);
  });

  it("leaves other messages alone", () => {
    expect(forPeople("the folder /x does not exist; create it first")).toBe(
      "the folder /x does not exist; create it first",
    );
    expect(forPeople("")).toBe("");
  });
});
