// @vitest-environment jsdom
import { afterEach, describe, expect, it } from "vitest";
import { renderMarkdown } from "./markdown";

declare global {
  // Set by the hostile markup if it ever runs.
  var pwned: boolean | undefined;
}

afterEach(() => {
  globalThis.pwned = undefined;
  document.body.innerHTML = "";
});

/** Render into the live document, as the panel does, and let any timers or handlers fire. */
async function show(markdown: string): Promise<HTMLElement> {
  const holder = document.createElement("div");
  holder.innerHTML = renderMarkdown(markdown);
  document.body.append(holder);
  await new Promise((resolve) => setTimeout(resolve, 20));
  return holder;
}

describe("Pilot's markdown", () => {
  it("renders the usual markdown", async () => {
    const html = (await show("**disk** is `98%` full\n\n- one\n- two")).innerHTML;
    expect(html).toContain("<strong>disk</strong>");
    expect(html).toContain("<code>98%</code>");
    expect(html).toContain("<li>one</li>");
  });

  it("never runs a script or an event handler from model text", async () => {
    const holder = await show(
      [
        "<script>globalThis.pwned = true</script>",
        '<img src="x" onerror="globalThis.pwned = true">',
        '<svg onload="globalThis.pwned = true"></svg>',
        '<a href="javascript:globalThis.pwned = true">click</a>',
        "[link](javascript:globalThis.pwned=true)",
        '<iframe srcdoc="<script>parent.pwned = true</script>"></iframe>',
        '<div style="background:url(javascript:alert(1))" onclick="globalThis.pwned = true">x</div>',
      ].join("\n\n"),
    );
    const html = holder.innerHTML;
    expect(html).not.toMatch(/<script|onerror|onload|onclick|javascript:|<iframe|<svg/i);
    for (const anchor of holder.querySelectorAll("a")) {
      anchor.click();
    }
    expect(globalThis.pwned).toBeUndefined();
  });

  it("stays safe when hostile markup arrives split across streamed pieces", async () => {
    // The panel renders the text streamed so far after each piece: every prefix must be safe.
    const pieces = [
      "<im",
      'g src="x" one',
      'rror="globalThis.pwned = true">',
      "<scr",
      "ipt>globalThis.pwned = true</sc",
      "ript>",
    ];
    let text = "";
    for (const piece of pieces) {
      text += piece;
      const html = (await show(text)).innerHTML;
      expect(html).not.toMatch(/onerror|<script/i);
    }
    expect(globalThis.pwned).toBeUndefined();
  });

  it("shows remote images as their alt text and keeps inline ones", async () => {
    const inline = "data:image/png;base64,iVBORw0KGgo=";
    const holder = await show(
      [
        "![tracking pixel](https://evil.example/pixel.png?who=me)",
        '<img src="http://evil.example/a.png" alt="spy picture">',
        '<img src="//evil.example/b.png" alt="no scheme">',
        '<img src=" https://evil.example/c.png">',
        `<img src="${inline}" srcset="https://evil.example/d.png 2x" alt="inline">`,
        `<picture><source srcset="https://evil.example/e.png"><img src="${inline}" alt="pictured"></picture>`,
        '<video poster="https://evil.example/f.png" src="https://evil.example/g.mp4"></video>',
        '<audio src="https://evil.example/h.mp3"></audio>',
        '<table background="https://evil.example/i.png"><tr><td>cell</td></tr></table>',
      ].join("\n\n"),
    );
    const html = holder.innerHTML;
    expect(html).not.toContain("evil.example");
    expect(html).not.toMatch(/<(picture|source|video|audio)|srcset|poster|background/i);
    const sources = [...holder.querySelectorAll("img")].map((image) => image.getAttribute("src"));
    expect(sources).toEqual([inline, inline]);
    expect(holder.textContent).toContain("tracking pixel");
    expect(holder.textContent).toContain("spy picture");
    expect(holder.textContent).toContain("no scheme");
    expect(holder.textContent).toContain("cell");
  });

  it("opens links outside the app without telling them where from", async () => {
    const anchor = (await show("[docs](https://example.org/x)")).querySelector("a");
    expect(anchor?.getAttribute("href")).toBe("https://example.org/x");
    expect(anchor?.getAttribute("target")).toBe("_blank");
    expect(anchor?.getAttribute("rel")).toBe("noopener noreferrer");
  });
});
