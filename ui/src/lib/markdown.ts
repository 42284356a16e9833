// Pilot's markdown as safe HTML: marked renders, DOMPurify removes everything that could run
// (scripts, event handlers, javascript: links) or reach out (forms, frames). Model text is
// untrusted: it can repeat what a hostile server printed.

import DOMPurify from "dompurify";
import { Marked } from "marked";

const marked = new Marked({ gfm: true, breaks: false, async: false });

const FORBIDDEN_TAGS = ["style", "form", "input", "button", "iframe", "object", "embed", "svg", "math"];

type DomWindow = Parameters<typeof DOMPurify>[0];

/** `window` where there is one; tests pass a DOM window of their own. */
export function renderMarkdown(text: string, window: DomWindow = globalThis.window): string {
  const html = marked.parse(text, { async: false });
  const purify = DOMPurify(window);
  purify.addHook("afterSanitizeAttributes", (node) => {
    if (node.tagName === "A") {
      // Links open outside the app and tell the target nothing about it.
      node.setAttribute("target", "_blank");
      node.setAttribute("rel", "noopener noreferrer");
    }
  });
  return purify.sanitize(html, {
    FORBID_TAGS: FORBIDDEN_TAGS,
    FORBID_ATTR: ["style"],
    ALLOW_DATA_ATTR: false,
    USE_PROFILES: { html: true },
  });
}
