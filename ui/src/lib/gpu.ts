// Whether WebGL here runs on a GPU. Without one, browsers and WebKit still offer WebGL, drawn by
// the CPU (Chromium's SwiftShader, Mesa's llvmpipe): there xterm.js's WebGL renderer redraws
// the whole canvas in software on every frame, far slower than its DOM renderer, and it keeps
// its frame buffers in the page's memory. A terminal uses WebGL only on a real GPU.

const SOFTWARE = /swiftshader|llvmpipe|softpipe|software|basic render/i;

/** The renderer's name as WebGL reports it ("" when it does not say), or null without WebGL. */
function rendererName(): string | null {
  const canvas = document.createElement("canvas");
  const gl = canvas.getContext("webgl2") ?? canvas.getContext("webgl");
  if (gl === null) {
    return null;
  }
  const info = gl.getExtension("WEBGL_debug_renderer_info");
  const name = info === null ? "" : String(gl.getParameter(info.UNMASKED_RENDERER_WEBGL) ?? "");
  // Give the probe's context back now rather than at garbage collection: contexts are few.
  gl.getExtension("WEBGL_lose_context")?.loseContext();
  return name;
}

let answer: boolean | undefined;

/** True when WebGL is there and not a software renderer (asked once per page). */
export function hardwareWebgl(): boolean {
  if (answer === undefined) {
    try {
      const name = rendererName();
      answer = name !== null && !isSoftwareRenderer(name) && !isMaskedRenderer(name, navigator.userAgent);
    } catch {
      answer = false;
    }
  }
  return answer;
}

export function isSoftwareRenderer(name: string): boolean {
  return SOFTWARE.test(name);
}

/** WebKit tells pages "Apple GPU" whatever draws (against fingerprinting). Off Apple hardware the
 * name says nothing, and the desktop window on Linux may well be drawn by llvmpipe, where WebGL
 * cost the first terminal tab about 60 MB (BENCHMARKS.md, the desktop app): such a page takes
 * the DOM renderer. */
export function isMaskedRenderer(name: string, userAgent: string): boolean {
  return /^apple gpu$/i.test(name.trim()) && !/macintosh|mac os x|iphone|ipad/i.test(userAgent);
}
