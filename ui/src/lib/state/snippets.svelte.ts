// The snippet palette's requests to the engine: the snippets of a tab, expanding one, saving and
// deleting. Answers are matched in order (the engine answers snippet ops one at a time, in the
// order asked). A failure comes in the answer's `problem`, which the palette shows.

import type { TabId } from "../ids";
import type { Event, Snippet, SnippetBuiltins, SnippetValue } from "../protocol";
import type { Transport } from "../transport/transport";

export type Answer =
  | { kind: "listed"; snippets: Snippet[]; builtins: SnippetBuiltins }
  | { kind: "expanded"; line: string; enter: boolean }
  | { kind: "error"; message: string };

interface Waiter {
  awaited: "snippets" | "snippet_expanded";
  done: (answer: Answer) => void;
}

/** What an answering event says. */
export function answerOf(event: Extract<Event, { type: "snippets" | "snippet_expanded" }>): Answer {
  if (event.problem != null) return { kind: "error", message: event.problem };
  if (event.type === "snippets") {
    return { kind: "listed", snippets: event.snippets, builtins: event.builtins ?? {} };
  }
  return { kind: "expanded", line: event.line, enter: event.enter };
}

export class SnippetRequests {
  private readonly transport: Transport;
  private waiting: Waiter[] = [];

  constructor(transport: Transport) {
    this.transport = transport;
  }

  /** Settles the oldest request when `event` answers it. */
  handle(event: Event): void {
    const first = this.waiting[0];
    if (first === undefined || event.type !== first.awaited) return;
    if (event.type !== "snippets" && event.type !== "snippet_expanded") return;
    this.waiting.shift();
    first.done(answerOf(event));
  }

  /** The link closed: no answer will come. */
  linkClosed(): void {
    for (const waiter of this.waiting.splice(0)) {
      waiter.done({ kind: "error", message: "the connection to kaiport was lost; try again" });
    }
  }

  private request(op: Parameters<Transport["send"]>[0], awaited: Waiter["awaited"]): Promise<Answer> {
    return new Promise((resolve) => {
      this.waiting.push({ awaited, done: resolve });
      this.transport.send(op);
    });
  }

  /** The snippets of `tab` (null: all of them). */
  list(tab: TabId | null): Promise<Answer> {
    return this.request({ type: "list_snippets", tab }, "snippets");
  }

  expand(tab: TabId, name: string, values: SnippetValue[]): Promise<Answer> {
    return this.request({ type: "expand_snippet", tab, name, values }, "snippet_expanded");
  }

  save(snippet: Snippet, previous: string | null): Promise<Answer> {
    return this.request({ type: "save_snippet", snippet, previous }, "snippets");
  }

  delete(name: string): Promise<Answer> {
    return this.request({ type: "delete_snippet", name }, "snippets");
  }
}
