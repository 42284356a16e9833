// The page's saved connections, ~/.ssh/config import, connection settings and audit log: the
// state (a rune, replaced whole by the reducer in library.ts) and the actions components call.
// A request resolves with the engine's answer: `null` when done, else the engine's message.

import type { TabId } from "../ids";
import type { ConnectionSettings, Event, SaveConnectionSecret, TabTarget } from "../protocol";
import type { Transport } from "../transport/transport";
import { FleetRun } from "./fleet.svelte";
import {
  answers,
  applyLibraryEvent,
  initialLibrary,
  withoutAllowedRule,
  type LibraryState,
  type RuleRemoval,
} from "./library";

/** How many audit lines the view reads when it opens. */
export const AUDIT_LINES = 200;

interface Waiter {
  awaited: Event["type"];
  /** A tab-less error can be its answer (the engine refused the request). */
  refusable: boolean;
  done: (error: string | null) => void;
}

export class Library {
  state: LibraryState = $state.raw(initialLibrary());
  private readonly transport: Transport;
  private readonly stop: () => void;
  /** Requests waiting for their answer, oldest first. Not answered in order: some are answered
   * by the page's own server (a key file's check) or in the engine's background (the agents'
   * keys, a replaced host key), so an answer settles the oldest request it answers. */
  private waiting: Waiter[] = [];
  /** The last error event that answered a request here (the dialog shows it, not a notice). */
  private answeredError: Event | null = null;

  constructor(transport: Transport) {
    this.transport = transport;
    this.stop = transport.subscribe((message) => {
      if (message.kind === "event") {
        this.state = applyLibraryEvent(this.state, message.event);
        this.settle(message.event);
      } else if (message.kind === "link" && message.status === "open") {
        // Every (re)connection: what the sidebar lists may have changed meanwhile.
        this.transport.send({ type: "list_connections" });
      } else if (message.kind === "link" && message.status === "closed") {
        for (const waiter of this.waiting.splice(0)) {
          waiter.done("the connection to kaiport was lost; try again");
        }
      }
    });
  }

  dispose(): void {
    this.stop();
  }

  /** Whether `event` is an error that answered one of this page's requests: the dialog that
   * asked shows it, so it needs no notice of its own. */
  answered(event: Event): boolean {
    return event === this.answeredError;
  }

  private settle(event: Event): void {
    for (const [index, waiter] of this.waiting.entries()) {
      if (event.type === "error" && !waiter.refusable) {
        continue;
      }
      const answer = answers(event, waiter.awaited);
      if (answer === null) {
        continue;
      }
      this.waiting.splice(index, 1);
      if (!answer.ok) {
        this.answeredError = event;
      }
      waiter.done(answer.ok ? null : answer.message);
      return;
    }
  }

  private request(
    op: Parameters<Transport["send"]>[0],
    awaited: Event["type"],
    refusable = true,
  ): Promise<string | null> {
    return new Promise((resolve) => {
      this.waiting.push({ awaited, refusable, done: resolve });
      this.transport.send(op);
    });
  }

  /** Save `target` as `name`; a password or passphrase goes to the keychain through the engine. */
  save(
    name: string,
    target: TabTarget,
    secrets: SaveConnectionSecret[],
    settings: ConnectionSettings | null = null,
    replace = false,
  ): Promise<string | null> {
    return this.request({ type: "save_connection", name, target, settings, secrets, replace }, "saved_connections");
  }

  /** Save the edited connection `previous` as `name` (its settings kept; renamed when the name
   * changed). */
  async saveEdited(
    previous: string,
    name: string,
    target: TabTarget,
    secrets: SaveConnectionSecret[],
  ): Promise<string | null> {
    const settings = this.state.saved?.find((c) => c.name === previous)?.settings ?? null;
    if (previous === name) {
      return this.save(name, target, secrets, settings, true);
    }
    const problem = await this.save(name, target, secrets, settings, false);
    return problem ?? this.delete(previous);
  }

  /** Whether the key file `path` can be read where the engine runs: null, else what is wrong
   * ("key file not found: …"). */
  checkKeyFile(path: string): Promise<string | null> {
    return this.request({ type: "check_key_file", path }, "key_file_checked");
  }

  /** Ask for the SSH agents where the engine runs and their keys (into `state.agents`). */
  listAgentKeys(): Promise<string | null> {
    // Always answered by the list (an agent that fails is listed with why).
    return this.request({ type: "list_agent_keys" }, "agent_keys", false);
  }

  delete(name: string): Promise<string | null> {
    return this.request({ type: "delete_connection", name }, "saved_connections");
  }

  /** Replace the stored host key of `host:port` with the server's: `confirmation` is what the
   * user typed (the new fingerprint's last 8 characters); the engine checks it against the key
   * the server shows now. Null when replaced, else why not. */
  replaceHostKey(host: string, port: number, confirmation: string): Promise<string | null> {
    return this.request({ type: "replace_host_key", tab: null, host, port, confirmation }, "host_key_replaced");
  }

  readSshConfig(): Promise<string | null> {
    return this.request({ type: "read_ssh_config" }, "ssh_config_hosts");
  }

  importSshConfig(names: string[]): Promise<string | null> {
    return this.request({ type: "import_ssh_config", names }, "saved_connections");
  }

  updateSettings(name: string, settings: ConnectionSettings): Promise<string | null> {
    return this.request({ type: "update_connection_settings", name, settings }, "saved_connections");
  }

  /** Replace the tags (groups) of saved connection `name`. */
  setTags(name: string, tags: string[]): Promise<string | null> {
    return this.request({ type: "set_connection_tags", name, tags }, "saved_connections");
  }

  /** An open tab's settings: asked for, answered by `settings_changed` (not kept here). */
  readTabSettings(tab: TabId): void {
    this.transport.send({ type: "read_settings", tab });
  }

  updateTabSettings(tab: TabId, settings: ConnectionSettings): void {
    this.transport.send({ type: "update_settings", tab, settings });
  }

  /** Asks for an open tab's settings, or changes them (`settings`), and waits for the engine's
   * answer: the settings it has now, or why not (a string). */
  private tabSettings(tab: TabId, settings: ConnectionSettings | null = null): Promise<ConnectionSettings | string> {
    return new Promise((resolve) => {
      const stop = this.onEvent((event) => {
        if (event.type === "settings_changed" && event.tab === tab) {
          stop();
          resolve(event.settings);
        } else if (event.type === "error" && (event.tab ?? null) === tab) {
          stop();
          resolve(event.message);
        }
      });
      if (settings === null) {
        this.readTabSettings(tab);
      } else {
        this.updateTabSettings(tab, settings);
      }
    });
  }

  /** Takes the allowed-commands rule `rule` back from tab `tab` and from the saved connection
   * `profile` it was opened from, the way Connection settings changes them (the engine audits
   * each as the user's change). Only that entry goes; where it is gone already, nothing
   * changes. */
  async removeAllowedCommand(tab: TabId, profile: string | null, rule: string): Promise<RuleRemoval> {
    let removed = false;
    const current = await this.tabSettings(tab);
    if (typeof current === "string") {
      return { kind: "failed", message: current };
    }
    const fewer = withoutAllowedRule(current, rule);
    if (fewer !== null) {
      const changed = await this.tabSettings(tab, fewer);
      if (typeof changed === "string") {
        return { kind: "failed", message: changed };
      }
      removed = true;
    }
    if (profile !== null) {
      // What is saved now, not what the page last heard.
      const listed = await this.request({ type: "list_connections" }, "saved_connections");
      const saved = this.state.saved?.find((c) => c.name === profile);
      const fewerSaved = listed === null && saved !== undefined ? withoutAllowedRule(saved.settings, rule) : null;
      if (fewerSaved !== null) {
        const problem = await this.updateSettings(profile, fewerSaved);
        if (problem !== null) {
          return { kind: "failed", message: problem };
        }
        removed = true;
      } else if (listed !== null) {
        return { kind: "failed", message: listed };
      }
    }
    return removed ? { kind: "removed" } : { kind: "gone" };
  }

  /** Subscribe to raw events (the settings dialog of an open tab waits for its answer). */
  onEvent(handler: (event: Event) => void): () => void {
    return this.transport.subscribe((message) => {
      if (message.kind === "event") {
        handler(message.event);
      }
    });
  }

  readAudit(limit = AUDIT_LINES): Promise<string | null> {
    return this.request({ type: "read_audit", limit }, "audit_log");
  }

  /** A fleet run on `targets` (saved connections and tags), for a "Run on group…" dialog;
   * the dialog disposes of it when it closes. */
  fleetRun(targets: string[]): FleetRun {
    return new FleetRun(this.transport, targets);
  }
}
