// Error text for people. The engine's messages are written for Pilot (the model reads them as
// tool results and must keep getting exactly them); what a person sees in a storage tab or a
// terminal tab's status line is said here in plain words, with what to do next. Only display text changes: nothing here is
// sent back to the engine.

/** The reason the storage tab gives the engine when the user cancels a call it asked about. */
export const USER_CANCELLED_REASON = "the user cancelled it in the storage tab";

/** Whether `error` is the engine's refusal for the user's own Cancel of a confirmation. */
export function isUsersOwnCancel(error: string | null | undefined): boolean {
  return error != null && error.endsWith(USER_CANCELLED_REASON);
}

/** Low-level network failures, as the libraries name them, and what a person is told. */
const NETWORK: [RegExp, string][] = [
  [
    /\b(early eof|unexpected eof|unexpected end of file|connection closed before message completed|incomplete message)\b/i,
    "The connection closed while receiving data — check the server and retry.",
  ],
  [/\b(connection reset|broken pipe|reset by peer)\b/i, "The server dropped the connection — retry in a moment."],
  [/\bconnection refused\b/i, "The server refused the connection — check that it is running and the port is right."],
  [/\b(timed out|timeout|deadline has elapsed)\b/i, "The server did not answer in time — check the network and retry."],
  [
    /\b(dns error|failed to lookup address|name or service not known|no such host)\b/i,
    "The server's name could not be found — check the address.",
  ],
];

/** `message` (an engine error) as a person should read it: network failures in plain words
 * (the original kept after them for the curious), anything else as it is (it is also shown
 * after "Failed: …", so its case stays). */
export function forPeople(message: string): string {
  const text = message.trim();
  if (isUsersOwnCancel(text)) {
    return "Cancelled";
  }
  for (const [pattern, plain] of NETWORK) {
    if (pattern.test(text)) {
      return `${plain} (${text.replace(/network error:\s*/i, "")})`;
    }
  }
  return text;
}
