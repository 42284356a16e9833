// What a tool card says about its call, in words: what an approval will do ("Run in web1's
// terminal"), which of the policy's reasons are worth showing, how much is at stake, the short
// arguments of the collapsed card, the status word and shape, and the facts of the expanded card
// (detection, exit code, files read, output and what was left out of it). Pure functions of the
// card.

import type {
  ApprovalPreview,
  Detection,
  EditFileResult,
  ReadFileResult,
  Risk,
  RunCommandResult,
  SearchFilesResult,
  Truncation,
  Value,
  WriteFileResult,
} from "../protocol";
import { forwardHeadline } from "./forwards";
import type { AlwaysAllowed, Approval, CallCard } from "./pilot";

export type CardStatus =
  | "waiting"
  | "asking"
  | "requested"
  | "running"
  | "ok"
  | "error"
  | "denied"
  /** The user said no themselves: their own choice, not an alarm. */
  | "declined"
  | "cancelled";

/** The status as a word and a shape (never colour alone). */
export function cardStatus(card: CallCard): { status: CardStatus; word: string; shape: string } {
  const status = statusOf(card);
  return { status, word: STATUS_WORDS[status], shape: STATUS_SHAPES[status] };
}

const STATUS_WORDS: Record<CardStatus, string> = {
  waiting: "waits for approval",
  asking: "asks you",
  requested: "checking",
  running: "running",
  ok: "ok",
  error: "error",
  denied: "denied",
  declined: "you denied it",
  cancelled: "cancelled",
};

const STATUS_SHAPES: Record<CardStatus, string> = {
  waiting: "?",
  asking: "?",
  requested: "…",
  running: "◌",
  ok: "✓",
  error: "✕",
  denied: "⊘",
  declined: "⊘",
  cancelled: "■",
};

function statusOf(card: CallCard): CardStatus {
  switch (card.phase) {
    case "approval":
      return "waiting";
    case "question":
      return "asking";
    case "requested":
      return "requested";
    case "running":
      return "running";
    case "finished":
      if (card.outcome?.status === "denied" && card.decidedBy === "user") {
        return "declined";
      }
      return card.outcome?.status ?? "ok";
  }
}

/** "web1's terminal": whose terminal, in words. */
function possessive(place: string): string {
  return `${place}’s`;
}

/** What an approval card says will happen, in words: "Run in web1's terminal", "Change
 * /etc/nginx/nginx.conf", "Upload ./a.tgz to /srv". `place` names the tab ("web1", "this
 * computer"). */
export function approvalHeadline(tool: string, args: Value, preview: ApprovalPreview | null, place: string): string {
  const fields = object(args) ?? {};
  const field = (name: string) => text(fields[name]) ?? "";
  switch (tool) {
    case "run_command":
      return `Run in ${possessive(place)} terminal`;
    case "send_input":
      return `Type into ${possessive(place)} terminal`;
    case "edit_file":
      return `Change ${field("path")}`;
    case "write_file":
      return `${preview?.kind === "diff" && preview.new_file === true ? "Create" : "Replace"} ${field("path")}`;
    case "make_dir":
      return `Create the folder ${field("path")}`;
    case "rename":
      return `Rename ${field("from")} to ${field("to")}`;
    case "delete":
      return fields["recursive"] === true ? `Delete ${field("path")} and everything in it` : `Delete ${field("path")}`;
    case "upload":
      return `Upload ${field("local_path")} to ${field("remote_dir")}`;
    case "download":
      return `Download ${field("remote_path")} to ${field("local_dir")}`;
    case "execute_plan": {
      const ops = Array.isArray(fields["ops"]) ? fields["ops"].length : 0;
      return `Carry out ${ops} file ${ops === 1 ? "operation" : "operations"}`;
    }
    case "run_on_hosts": {
      const asking = preview?.kind === "fleet" ? preview.hosts.filter((h) => h.decision === "ask").length : 0;
      return `Run on ${asking} ${asking === 1 ? "host" : "hosts"} whose rules ask`;
    }
    case "open_forward":
      return preview?.kind === "forward"
        ? forwardHeadline(preview.forward, place)
        : `Open a port forward on ${place}: ${field("forward")}`;
    default:
      return `Let Pilot use ${tool}`;
  }
}

/** The policy's plain ask-mode reasons (crates/core/src/policy/mod.rs): a card that shows the
 * command already says them. */
export const ROUTINE_REASONS: ReadonlySet<string> = new Set([
  "runs a command in the terminal",
  "types into the terminal",
]);

/** A file change described as what the headline already says ("edits /etc/x"), not a link or
 * anything else the user should read. */
const RESTATED_CHANGE =
  /^(creates( the folder)?|replaces the existing file|edits|renames \S.* to|copies a file to) \S(?!.*\(through a link)/;

/** The policy's reasons worth showing on an approval card: not the routine ones the card says
 * anyway, but whatever makes this call dangerous or can lock the user out, what the rules could
 * not tell (unknown options), other connections' data, writes and links. */
export function notableReasons(approval: Pick<Approval, "reasons" | "risk">): string[] {
  return approval.reasons.filter(
    (reason) => !ROUTINE_REASONS.has(reason) && !(approval.risk === "routine" && RESTATED_CHANGE.test(reason)),
  );
}

/** How an approval card looks and acts for what is at stake. */
export interface RiskLook {
  /** The mark beside the headline, or null for a routine call. */
  label: string | null;
  /** Deny comes first, as the primary button, and takes the focus; Approve is never the
   * default. */
  denyFirst: boolean;
  /** Approving asks once more ("Yes, change it"). */
  confirmTwice: boolean;
}

export function riskLook(risk: Risk): RiskLook {
  switch (risk) {
    case "routine":
      return { label: null, denyFirst: false, confirmTwice: false };
    case "dangerous":
      return { label: "Dangerous", denyFirst: true, confirmTwice: false };
    case "lockout":
      return { label: "Can lock you out", denyFirst: true, confirmTwice: true };
  }
}

/** The engine's words for a denial by the user, before their reason. */
const USER_DENIED = "the user denied this call";

/** A call that did not run because of the user (denied, cancelled), in their words rather than
 * the message the model got; null for anything else. */
export function endingWords(card: CallCard): string | null {
  const outcome = card.outcome;
  if (outcome === null) {
    return null;
  }
  if (outcome.status === "denied" && card.decidedBy === "user") {
    const error = outcome.error ?? "";
    const reason = error.startsWith(`${USER_DENIED}: `) ? error.slice(USER_DENIED.length + 2) : "";
    return reason === "" ? "You denied it." : `You denied it: “${reason}”`;
  }
  if (outcome.status === "cancelled") {
    return card.decidedBy === null ? "Cancelled before it ran." : "Cancelled.";
  }
  return null;
}

/** A file change that failed, said where it cannot be missed ("Edit failed: …"), whatever the
 * model says after it; null for anything else. The engine's wording (written for the model)
 * is put in people's words where it is one of the usual refusals. */
export function failureWords(card: CallCard): string | null {
  const outcome = card.outcome;
  if (outcome === null || outcome.status !== "error" || !FILE_CHANGES.has(card.tool)) {
    return null;
  }
  const what = card.tool === "edit_file" ? "Edit failed" : "Write failed";
  const error = (outcome.error ?? "").replace(/^(edit_file|write_file):\s*/, "").trim();
  for (const [pattern, plain] of FILE_CHANGE_ERRORS) {
    const found = pattern.exec(error);
    if (found !== null) {
      return `${what}: ${plain(found)}`;
    }
  }
  return error === "" ? `${what}.` : `${what}: ${error}`;
}

const FILE_CHANGES = new Set(["edit_file", "write_file"]);

const FILE_CHANGE_ERRORS: [RegExp, (found: RegExpExecArray) => string][] = [
  [
    /old_text matched 0 times/,
    () => "the text to replace is not in the file (it must match exactly). Nothing was changed.",
  ],
  [
    /old_text matched (\d+) times/,
    (found) => `the text to replace is in the file ${found[1]} times, so which one is unclear. Nothing was changed.`,
  ],
  [/the edits leave the file unchanged/, () => "the edits would leave the file as it is. Nothing was written."],
];

/** The line the user ran instead of Pilot's, when they edited it on the approval card. */
export function editedCommand(card: CallCard): string | null {
  const result = card.outcome?.result;
  const fields = result == null ? null : object(result);
  return fields === null ? null : text(fields["edited_by_user"]);
}

function object(value: Value): { [key: string]: Value } | null {
  return value !== null && typeof value === "object" && !Array.isArray(value) ? value : null;
}

function text(value: Value | undefined): string | null {
  return typeof value === "string" ? value : null;
}

/** One line of at most `max` characters. */
export function oneLine(value: string, max = 80): string {
  const line = value.replace(/\s*\n\s*/g, " ⏎ ").trim();
  return line.length <= max ? line : `${line.slice(0, max - 1)}…`;
}

/** The arguments that say what the call does, in one short line (`df -h /`, a path, …). */
export function shortArgs(tool: string, args: Value): string {
  const fields = object(args);
  if (fields === null) {
    return typeof args === "string" ? oneLine(args) : "";
  }
  const first = (...names: string[]) => names.map((n) => text(fields[n])).find((v) => v != null) ?? null;
  switch (tool) {
    case "run_command":
      return oneLine(first("command") ?? "");
    case "send_input": {
      const input = first("text");
      const key = first("key");
      return oneLine([input !== null ? JSON.stringify(input) : null, key].filter(Boolean).join(" "));
    }
    case "ask_user":
      return oneLine(first("question") ?? "");
    case "open_forward":
      return oneLine(first("forward") ?? JSON.stringify(fields["spec"] ?? null));
    case "run_on_hosts": {
      const hosts = Array.isArray(fields["hosts"]) ? fields["hosts"].map((h) => text(h) ?? "").join(", ") : "";
      return oneLine(`${first("command") ?? ""} on ${hosts}`);
    }
    case "rename":
      return oneLine(`${first("from") ?? ""} → ${first("to") ?? ""}`);
    case "upload":
    case "download":
      return oneLine(`${first("from", "local_path", "source") ?? ""} → ${first("to", "remote_path", "target") ?? ""}`);
    case "search_files":
      return oneLine(`${first("pattern") ?? ""} in ${first("path") ?? ""}`);
    default: {
      const shown = first("path", "command", "title", "view", "url");
      if (shown !== null) {
        return oneLine(shown);
      }
      // Whatever there is, compactly.
      return oneLine(JSON.stringify(args));
    }
  }
}

/** "1.2 s", "340 ms", "2 min 5 s". */
export function duration(ms: number): string {
  if (ms < 1000) {
    return `${Math.round(ms)} ms`;
  }
  if (ms < 60_000) {
    return `${(ms / 1000).toFixed(ms < 10_000 ? 1 : 0)} s`;
  }
  const minutes = Math.floor(ms / 60_000);
  return `${minutes} min ${Math.round((ms % 60_000) / 1000)} s`;
}

export interface CardDetails {
  /** How the end of a command was detected, in words. */
  detection: string | null;
  exitCode: number | null;
  /** The command's own duration (the card's duration also counts the checks around it, never
   * the wait for approval). */
  commandMs: number | null;
  filesRead: string[];
  /** The output (or file content) in monospace, with the "left out" marker line in it. */
  output: string | null;
  /** What was left out of `output`, in words; null when nothing was. */
  leftOut: string | null;
  /** What else the result says (edits applied, bytes written, a note). */
  facts: string[];
  error: string | null;
}

const DETECTION_WORDS: Record<Detection, string> = {
  shell_integration: "shell integration",
  heuristic: "heuristic (no exit code)",
};

export function leftOutWords(truncated: Truncation | null | undefined): string | null {
  if (truncated == null) {
    return null;
  }
  return `${truncated.omitted_lines} lines (${truncated.omitted_bytes} bytes) left out`;
}

/** The facts of the expanded card, read from the tool's result. */
export function cardDetails(card: CallCard): CardDetails {
  const details: CardDetails = {
    detection: null,
    exitCode: null,
    commandMs: null,
    filesRead: [],
    output: null,
    leftOut: null,
    facts: [],
    error: card.outcome?.error ?? null,
  };
  const result = card.outcome?.result;
  const fields = result == null ? null : object(result);
  if (fields === null) {
    return details;
  }
  switch (card.tool) {
    case "run_command": {
      const run = fields as unknown as Partial<RunCommandResult>;
      details.detection = run.detection !== undefined ? (DETECTION_WORDS[run.detection] ?? run.detection) : null;
      details.exitCode = typeof run.exit_code === "number" ? run.exit_code : null;
      details.commandMs = typeof run.duration_ms === "number" ? run.duration_ms : null;
      details.output = typeof run.output === "string" ? run.output : null;
      details.leftOut = leftOutWords(run.truncated);
      if (run.status !== undefined && run.status !== "completed") {
        details.facts.push(run.status.replace(/_/g, " "));
      }
      if (typeof run.note === "string") {
        details.facts.push(run.note);
      }
      if (typeof run.edited_by_user === "string") {
        const asked = text(object(card.args)?.["command"]);
        details.facts.push(
          `you edited the command before it ran${asked !== null ? `; Pilot asked for: ${asked}` : ""}`,
        );
      }
      if (typeof run.screen === "string" && details.output === "") {
        details.output = run.screen;
      }
      break;
    }
    case "read_file": {
      const read = fields as unknown as Partial<ReadFileResult>;
      if (typeof read.path === "string") {
        details.filesRead.push(read.path);
      }
      details.output = typeof read.content === "string" ? read.content : null;
      details.leftOut = leftOutWords(read.truncated);
      if (typeof read.start_line === "number" && typeof read.end_line === "number") {
        details.facts.push(`lines ${read.start_line}–${read.end_line} of ${read.total_lines ?? "?"}`);
      }
      break;
    }
    case "search_files": {
      const search = fields as unknown as Partial<SearchFilesResult>;
      details.filesRead = Array.isArray(search.files_read) ? search.files_read : [];
      if (Array.isArray(search.matches)) {
        details.output = search.matches.map((m) => `${m.path}:${m.line}: ${m.text}`).join("\n");
        details.facts.push(
          `${search.matches.length} matching lines${search.truncated ? " (stopped at the limit)" : ""}`,
        );
      }
      break;
    }
    case "edit_file": {
      const edit = fields as unknown as Partial<EditFileResult>;
      details.facts.push(
        `${edit.edits_applied ?? 0} edits applied, +${edit.lines_added ?? 0} −${edit.lines_removed ?? 0} lines, ${edit.bytes_written ?? 0} bytes written`,
      );
      break;
    }
    case "write_file": {
      const write = fields as unknown as Partial<WriteFileResult>;
      details.facts.push(`${write.created ? "created" : "replaced"}, ${write.bytes_written ?? 0} bytes written`);
      break;
    }
    case "ask_user": {
      const answer = fields["answer"];
      details.facts.push(typeof answer === "string" ? `answer: ${answer}` : "not answered");
      break;
    }
    default:
      details.output = JSON.stringify(result, null, 2);
  }
  return details;
}

/** Whether a line of output is the engine's "left out" marker (shown so it stands out). */
export function isLeftOutMarker(line: string): boolean {
  return /^\[… .* left out …\]$/.test(line.trim());
}

/** Storage plan lines that destroy something get a danger mark. */
export function isDangerousOperation(line: string): boolean {
  return /^(\d+\.\s*)?delete\b/i.test(line) || /\bREPLACING\b|\breplacing\b|\boverwrit/i.test(line);
}

/** What a card says of the rule its "Always allow" added, around the rule itself (shown as
 * code): added, being taken back, taken back, gone already, or why it could not be; and whether
 * "Undo always allow" is offered (and pressable). */
export function alwaysAllowedWords(added: AlwaysAllowed): {
  before: string;
  after: string;
  undo: "offered" | "busy" | "none";
} {
  switch (added.state) {
    case "added":
      return { before: "Added ", after: " to this connection's allowed commands.", undo: "offered" };
    case "undoing":
      return { before: "Removing ", after: " from this connection's allowed commands…", undo: "busy" };
    case "removed":
      return {
        before: "Removed ",
        after: " from this connection's allowed commands: Pilot asks again before running it.",
        undo: "none",
      };
    case "gone":
      return {
        before: "",
        after: " was already removed from this connection's allowed commands; nothing to undo.",
        undo: "none",
      };
    case "failed":
      return { before: "Could not remove ", after: `: ${added.message ?? "no reason given"}.`, undo: "offered" };
  }
}
