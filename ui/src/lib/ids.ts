// Names for the protocol's string ids, taken from the generated types (the Rust aliases are
// inlined as `string` there), so they follow the protocol if it changes.

import type { Op } from "./protocol";

export type TabId = Extract<Op, { type: "close_tab" }>["tab"];
export type PromptId = Extract<Op, { type: "answer_prompt" }>["prompt"];
