// Pilot's markdown as safe HTML: marked renders, DOMPurify removes everything that could run
// (scripts, event handlers, javascript: links) or reach out (forms, frames, and images from
// anywhere but a data: URL, which become their alt text). Model text is untrusted: it can repeat
// what a hostile server printed, and a remote image would tell that server when and where it was
// read (the page's CSP blocks them too; this does not rely on it).

import DOMPurify from "dompurify";
import { Marked } from "marked";

const marked = new Marked({ gfm: true, breaks: false, async: false });

const FORBIDDEN_TAGS = [
  "style",
  "form",
  "input",
  "button",
  "iframe",
  "object",
  "embed",
  "svg",
  "math",
  // Media load from their sources (and `srcset`, `poster`) as images do.
  "picture",
  "source",
  "video",
  "audio",
  "track",
];

/** Attributes that name something to load, besides an image's `src`. */
const FORBIDDEN_ATTRS = ["style", "srcset", "poster", "background", "ping"];

/** An image the panel may show: inline data only, never a request. */
function inlineImage(src: string | null): boolean {
  return src !== null && /^data:image\//i.test(src.trim());
}

type DomWindow = Parameters<typeof DOMPurify>[0];

/** `window` where there is one; tests pass a DOM window of their own. */
export function renderMarkdown(text: string, window: DomWindow = globalThis.window): string {
  const html = marked.parse(text, { async: false });
  const purify = DOMPurify(window);
  purify.addHook("afterSanitizeAttributes", (node) => {
    if (node.tagName === "IMG" && !inlineImage(node.getAttribute("src"))) {
      // Still in DOMPurify's inert document, so nothing was fetched: the image becomes its alt
      // text (the walk goes on after it; a text node needs no sanitising).
      node.replaceWith(node.ownerDocument.createTextNode(node.getAttribute("alt") ?? ""));
      return;
    }
    if (node.tagName === "A") {
      // Links open outside the app and tell the target nothing about it.
      node.setAttribute("target", "_blank");
      node.setAttribute("rel", "noopener noreferrer");
    }
  });
  return purify.sanitize(html, {
    FORBID_TAGS: FORBIDDEN_TAGS,
    FORBID_ATTR: FORBIDDEN_ATTRS,
    ALLOW_DATA_ATTR: false,
    USE_PROFILES: { html: true },
  });
}
